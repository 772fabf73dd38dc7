#include "tables/calltreetables.h"

#include "common/backgroundjob.h"

#include "tables/calltreemodel.h"
#include "tables/costdelegate.h"
#include "tables/functionlistmodel.h"

#include <algorithm>
#include <utility>

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

namespace scorch {

namespace {

/// The tables' proxy: cost columns sorted by the costs themselves where the model gives them
/// (CostSortSource), other columns by their SortRole as QSortFilterProxyModel does.
class CostSortProxy final : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    void setSourceModel(QAbstractItemModel* model) override {
        m_costs = dynamic_cast<const CostSortSource*>(model);
        QSortFilterProxyModel::setSourceModel(model);
    }

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override {
        if (m_costs && sortRole() == SortRole && left.column() == right.column() &&
            isCostColumn(left.column()))
            return m_costs->sortCost(left) < m_costs->sortCost(right);
        return QSortFilterProxyModel::lessThan(left, right);
    }

private:
    const CostSortSource* m_costs = nullptr;
};

} // namespace

CallTreeTables::CallTreeTables(QWidget* parent)
    : QWidget(parent)
    , m_filter(new QLineEdit(this))
    , m_tabs(new QTabWidget(this))
    , m_topDown(new TopDownModel(this))
    , m_bottomUp(new BottomUpModel(this))
    , m_functions(new FunctionListModel(this))
    , m_filterDelay(new QTimer(this)) {
    m_filter->setPlaceholderText(tr("Filter functions…"));
    m_filter->setClearButtonEnabled(true);
    m_pages[TopDown] = makePage(TopDown, m_topDown, tr("Top-down"));
    m_pages[BottomUp] = makePage(BottomUp, m_bottomUp, tr("Bottom-up"));
    m_pages[Functions] = makePage(Functions, m_functions, tr("Functions"));
    // Bottom-up rows carry one cost (the top-level function's self cost via this chain).
    m_pages[BottomUp].view->hideColumn(static_cast<int>(CostColumn::Total));
    m_pages[BottomUp].view->hideColumn(static_cast<int>(CostColumn::TotalPercent));
    m_pages[Functions].view->sortByColumn(static_cast<int>(CostColumn::Self), Qt::DescendingOrder);
    m_pages[Functions].view->setRootIsDecorated(false);
    // Recursive filtering walks the whole tree: wait for a pause in typing.
    m_filterDelay->setSingleShot(true);
    m_filterDelay->setInterval(250);
    connect(m_filter, &QLineEdit::textChanged, m_filterDelay, qOverload<>(&QTimer::start));
    connect(m_filterDelay, &QTimer::timeout, this, [this] { setFilter(m_filter->text()); });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_filter);
    layout->addWidget(m_tabs);
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int page) {
        if (page >= 0 && page < PageCount)
            fitColumns(static_cast<Page>(page));
        askForBottomUp();
    });
    m_building = new QLabel(tr("Building the bottom-up tree…"), m_pages[BottomUp].view->viewport());
    m_building->setObjectName(QStringLiteral("bottomUpBuilding"));
    m_building->setAlignment(Qt::AlignCenter);
    m_building->setForegroundRole(QPalette::PlaceholderText);
    m_building->hide();
}

bool CallTreeTables::bottomUpShown() const {
    return m_tabs->currentIndex() == BottomUp;
}

void CallTreeTables::askForBottomUp() {
    const bool missing = m_data && !m_data->bottomUp;
    m_building->setVisible(missing && bottomUpShown());
    if (m_building->isVisible())
        m_building->setGeometry(m_pages[BottomUp].view->viewport()->rect());
    if (missing && bottomUpShown() && m_bottomUpAsked.lock() != m_data->chart) {
        m_bottomUpAsked = m_data->chart;
        Q_EMIT bottomUpWanted(m_data->chart);
    }
}

void CallTreeTables::setBottomUp(std::shared_ptr<const TreeTableData> tree) {
    if (!m_data || !tree || tree->chart != m_data->chart || m_data->bottomUp)
        return;
    std::shared_ptr<const TableData> old = std::exchange(m_data, m_data->withBottomUp(tree));
    m_bottomUp->setTableData(std::move(tree));
    m_building->hide();
    if (m_selectedFrame.value != 0) {
        m_selecting = true;
        showSource(BottomUp, m_bottomUp->indexOfFrame(m_selectedFrame));
        m_selecting = false;
    }
    if (bottomUpShown())
        fitColumns(BottomUp);
    releaseInBackground(std::move(old));
}

CallTreeTables::~CallTreeTables() = default;

CallTreeTables::PageParts CallTreeTables::makePage(Page page, QAbstractItemModel* model,
                                                   const QString& title) {
    PageParts parts;
    parts.proxy = new CostSortProxy(this);
    parts.proxy->setSourceModel(model);
    parts.proxy->setSortRole(SortRole);
    parts.proxy->setFilterKeyColumn(static_cast<int>(CostColumn::Function));
    parts.proxy->setFilterRole(SortRole); // the full function name, not the shortened one on display
    parts.proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    parts.proxy->setRecursiveFilteringEnabled(page != Functions); // keep the ancestors of matches

    parts.view = new QTreeView(m_tabs);
    parts.view->setObjectName(title);
    parts.view->setModel(parts.proxy);
    parts.view->setUniformRowHeights(true);
    parts.view->setTextElideMode(Qt::ElideLeft); // keep the end of a name (the method) visible
    parts.view->setSortingEnabled(true);
    parts.view->sortByColumn(static_cast<int>(CostColumn::Total), Qt::DescendingOrder);
    parts.view->setAlternatingRowColors(true);
    parts.view->setSelectionBehavior(QAbstractItemView::SelectRows);
    parts.view->setSelectionMode(QAbstractItemView::SingleSelection);
    auto* delegate = new CostDelegate(parts.view);
    parts.view->setItemDelegateForColumn(static_cast<int>(CostColumn::SelfPercent), delegate);
    parts.view->setItemDelegateForColumn(static_cast<int>(CostColumn::TotalPercent), delegate);
    QHeaderView* header = parts.view->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::Interactive); // every column can be widened by hand
    header->setMinimumSectionSize(24);
    // fitColumns() measures the rows in view and then up to this many in all (Qt's default is 1000): the
    // rows come sorted by cost, the widest numbers first, and measuring a thousand rows of text took 10 to
    // 25 ms of the GUI thread each time a time range's tables were shown (fp-medium, a drag on the timeline)
    header->setResizeContentsPrecision(100);
    parts.view->viewport()->installEventFilter(this); // fitColumns() on resize
    // A row the user selected (click or keys). Not the bare current row: a view that gains focus without one
    // makes its first row current without selecting it, and that must not move the selection elsewhere.
    connect(parts.view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this, page, view = parts.view] {
                const QModelIndex current = view->currentIndex();
                if (view->selectionModel()->isRowSelected(current.row(), current.parent()))
                    onCurrentChanged(page, current);
            });
    parts.view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(parts.view, &QWidget::customContextMenuRequested, this,
            [this, page, view = parts.view](QPoint pos) {
                std::unique_ptr<QMenu> menu(createContextMenu(page, view->indexAt(pos), this));
                if (!menu->isEmpty())
                    menu->exec(view->viewport()->mapToGlobal(pos));
            });
    m_tabs->addTab(parts.view, title);
    return parts;
}

void CallTreeTables::setTableData(std::shared_ptr<const TableData> data) {
    std::shared_ptr<const TableData> old = std::exchange(m_data, std::move(data));
    // A function selected in another profile (a reload, another file) is not this one's: frame ids differ
    if (!m_data || !old || m_data->chart->profile != old->chart->profile)
        m_selectedFrame = FrameId{};
    m_topDown->setTableData(m_data ? m_data->topDown : nullptr);
    m_bottomUp->setTableData(m_data ? m_data->bottomUp : nullptr);
    m_functions->setTableData(m_data ? m_data->functions : nullptr);
    // Open the hot path only, and only while it stays hot: each level's heaviest row (the tables sort by
    // total) while it carries at least half of its parent, three levels at most, so that names keep their
    // width instead of being indented away.
    QTreeView* topDown = m_pages[TopDown].view;
    const QAbstractItemModel* model = topDown->model();
    const int total = static_cast<int>(CostColumn::Total);
    QModelIndex index = model->index(0, 0);
    for (int depth = 0; depth < 3 && index.isValid(); ++depth) {
        topDown->expand(index);
        const QModelIndex child = model->index(0, 0, index);
        const double parentCost = model->index(index.row(), total, index.parent()).data(SortRole).toDouble();
        const double childCost = model->index(0, total, index).data(SortRole).toDouble();
        if (!child.isValid() || childCost * 2 < parentCost)
            break;
        index = child;
    }
    releaseInBackground(std::move(old)); // (after the models let go of its tables)
    // the page in view; the others when they are shown (each took a few ms on fp-large)
    fitColumns(static_cast<Page>(m_tabs->currentIndex()));
    askForBottomUp();
}

void CallTreeTables::fitColumns(Page page) {
    QTreeView* view = m_pages[page].view;
    QHeaderView* header = view->header();
    const int available = view->viewport()->width();
    if (available <= 0)
        return;
    auto contentWidth = [&](int column) {
        // (public through the base class; QTreeView makes its override protected)
        return std::max(static_cast<const QAbstractItemView*>(view)->sizeHintForColumn(column),
                        header->sectionSizeHint(column));
    };
    int numbers = 0;
    for (int c = static_cast<int>(CostColumn::Self); c < static_cast<int>(CostColumn::Count); ++c) {
        if (view->isColumnHidden(c))
            continue;
        const int width = contentWidth(c);
        header->resizeSection(c, width);
        numbers += width;
    }
    const int nameMin = available * 2 / 5;
    const int module = static_cast<int>(CostColumn::Module);
    const int moduleWidth = std::clamp(available - nameMin - numbers, 0, std::min(contentWidth(module), 220));
    header->setSectionHidden(module, moduleWidth < 48);
    if (moduleWidth >= 48)
        header->resizeSection(module, moduleWidth);
    header->resizeSection(static_cast<int>(CostColumn::Function),
                          std::max(nameMin, available - numbers - (moduleWidth >= 48 ? moduleWidth : 0)));
}

bool CallTreeTables::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Resize)
        for (int page = 0; page < PageCount; ++page)
            if (m_pages[page].view && watched == m_pages[page].view->viewport()) {
                fitColumns(static_cast<Page>(page));
                if (page == BottomUp)
                    m_building->setGeometry(m_pages[page].view->viewport()->rect());
            }
    return QWidget::eventFilter(watched, event);
}

void CallTreeTables::setFilter(const QString& text) {
    if (m_filter->text() != text) {
        const QSignalBlocker blocker(m_filter);
        m_filter->setText(text);
    }
    m_filterDelay->stop();
    for (const PageParts& parts : m_pages)
        parts.proxy->setFilterFixedString(text);
}

QMenu* CallTreeTables::createContextMenu(Page page, const QModelIndex& index, QWidget* parent) {
    auto* menu = new QMenu(parent);
    const FrameId frame{index.data(FrameRole).toUInt()};
    if (!index.isValid() || frame.value == 0)
        return menu;
    QAction* show = menu->addAction(tr("Show Source"));
    show->setObjectName(QStringLiteral("showSource"));
    connect(show, &QAction::triggered, this, [this, page, index = QPersistentModelIndex(index), frame] {
        if (index.isValid())
            m_pages[page].view->setCurrentIndex(index);
        Q_EMIT sourceRequested(frame);
    });
    QAction* sandwich = menu->addAction(tr("Show in Sandwich"));
    sandwich->setObjectName(QStringLiteral("sandwich"));
    connect(sandwich, &QAction::triggered, this, [this, page, index = QPersistentModelIndex(index), frame] {
        if (index.isValid())
            m_pages[page].view->setCurrentIndex(index);
        Q_EMIT sandwichRequested(frame);
    });
    return menu;
}

void CallTreeTables::onCurrentChanged(Page page, const QModelIndex& current) {
    if (m_selecting || !current.isValid())
        return;
    // The other tables follow, so that switching tabs keeps the function selected.
    if (page == TopDown) {
        const auto node = static_cast<NodeId>(current.data(NodeRole).toUInt());
        selectNode(node);
        Q_EMIT nodeActivated(node);
    } else {
        const FrameId frame{current.data(FrameRole).toUInt()};
        m_selectedFrame = frame;
        m_selecting = true;
        if (m_data) { // the heaviest top-down node of the function, unless one of it is current
            const QModelIndex now = m_pages[TopDown].view->currentIndex();
            const auto nowNode = static_cast<NodeId>(now.data(NodeRole).toUInt());
            const CallTree& tree = m_data->chart->tree;
            if (!now.isValid() || nowNode >= tree.size() || tree.frame(nowNode) != frame)
                if (const NodeId best = heaviestNode(frame); best != kRootNode)
                    showSource(TopDown, m_topDown->indexOfNode(best));
        }
        for (const Page other : {BottomUp, Functions})
            if (other != page)
                showSource(other, other == BottomUp ? m_bottomUp->indexOfFrame(frame)
                                                    : m_functions->indexOfFrame(frame));
        m_selecting = false;
        Q_EMIT functionActivated(frame);
    }
}

NodeId CallTreeTables::heaviestNode(FrameId frame) const {
    NodeId best = kRootNode;
    if (!m_data)
        return best;
    const CallTree& tree = m_data->chart->tree;
    const std::size_t type = m_data->chart->costType;
    for (NodeId n = 1; n < tree.size(); ++n)
        if (tree.frame(n) == frame && (best == kRootNode || tree.total(type, n) > tree.total(type, best)))
            best = n;
    return best;
}

void CallTreeTables::showSource(Page page, const QModelIndex& source) {
    QTreeView* view = m_pages[page].view;
    const QModelIndex index = m_pages[page].proxy->mapFromSource(source);
    if (!index.isValid()) {
        view->selectionModel()->clearSelection();
        return;
    }
    view->selectionModel()->setCurrentIndex(index,
                                            QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    view->scrollTo(index); // expands collapsed ancestors
}

void CallTreeTables::selectNode(NodeId node) {
    if (!m_data || node == kRootNode || node >= m_data->chart->tree.size())
        return;
    m_selecting = true;
    const FrameId frame = m_data->chart->tree.frame(node);
    m_selectedFrame = frame;
    showSource(TopDown, m_topDown->indexOfNode(node));
    showSource(BottomUp, m_bottomUp->indexOfFrame(frame));
    showSource(Functions, m_functions->indexOfFrame(frame));
    m_selecting = false;
}

void CallTreeTables::selectFunction(FrameId frame) {
    if (!m_data)
        return;
    m_selectedFrame = frame;
    const NodeId best = heaviestNode(frame); // as the chart selects it
    m_selecting = true;
    if (best != kRootNode)
        showSource(TopDown, m_topDown->indexOfNode(best));
    showSource(BottomUp, m_bottomUp->indexOfFrame(frame));
    showSource(Functions, m_functions->indexOfFrame(frame));
    m_selecting = false;
}

} // namespace scorch
