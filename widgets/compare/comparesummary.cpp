#include "compare/comparesummary.h"

#include "common/qtprofile.h"
#include "compare/difffunctionmodel.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace scorch {

CompareSummary::CompareSummary(QWidget* parent)
    : QWidget(parent)
    , m_totals(new QLabel(this))
    , m_showBox(new QComboBox(this))
    , m_table(new QTableView(this))
    , m_model(new DiffFunctionModel(this))
    , m_proxy(new DiffFunctionProxy(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* row = new QHBoxLayout;
    row->setContentsMargins(6, 4, 6, 0);
    m_totals->setObjectName(QStringLiteral("totals"));
    m_totals->setTextInteractionFlags(Qt::TextSelectableByMouse);
    row->addWidget(m_totals, 1);
    row->addWidget(new QLabel(tr("Show"), this));
    m_showBox->setObjectName(QStringLiteral("showFunctions"));
    m_showBox->addItems({tr("All functions"), tr("Regressions (grew)"), tr("Improvements (shrank)")});
    row->addWidget(m_showBox);
    layout->addLayout(row);

    m_proxy->setSourceModel(m_model);
    m_table->setObjectName(QStringLiteral("functions"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->horizontalHeader()->setSectionResizeMode(DiffFunctionModel::Function, QHeaderView::Stretch);
    m_table->sortByColumn(DiffFunctionModel::DeltaTotal, Qt::DescendingOrder);
    layout->addWidget(m_table, 1);

    connect(m_showBox, &QComboBox::currentIndexChanged, this, &CompareSummary::updateFilter);
    // A row selects its function when clicked or reached with the keys; not when the table merely gets
    // the focus (Qt makes the first row current then), which would zoom the charts unasked.
    auto selectRow = [this](const QModelIndex& index) {
        if (index.isValid())
            Q_EMIT functionActivated(FrameId{static_cast<uint32_t>(
                index.siblingAtColumn(0).data(DiffFunctionModel::FrameRole).toULongLong())});
    };
    connect(m_table, &QTableView::clicked, this, selectRow);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this, selectRow](const QModelIndex& current) {
                if (m_keyNavigation)
                    selectRow(current);
            });
    m_table->installEventFilter(this);
}

bool CompareSummary::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_table && event->type() == QEvent::KeyPress) { // the table handles it right after this
        m_keyNavigation = true;
        QTimer::singleShot(0, this, [this] { m_keyNavigation = false; });
    }
    return QWidget::eventFilter(watched, event);
}

void CompareSummary::showTotals(const Profile* before, const Profile* after, const Profile* diff,
                                const DiffOptions& options) {
    if (!before || !after || before->costTypes.empty() || after->costTypes.empty() ||
        before->tree.size() == 0 || after->tree.size() == 0) {
        m_totals->setText(tr("No profiles to compare"));
        return;
    }
    const int64_t b = before->tree.grandTotal(0), a = after->tree.grandTotal(0);
    QString text = tr("<b>Before</b> %1 &nbsp;·&nbsp; <b>After</b> %2")
                       .arg(toQString(formatCost(b, before->costTypes[0])).toHtmlEscaped(),
                            toQString(formatCost(a, after->costTypes[0])).toHtmlEscaped());
    if (b != 0) {
        const double ratio = static_cast<double>(a) / static_cast<double>(b);
        text += tr(" &nbsp;·&nbsp; <b>After / Before</b> %1× (%2)")
                    .arg(QString::number(ratio, 'f', 3), signedPercentText(100.0 * (ratio - 1.0)));
    }
    if (before->costTypes[0].name != after->costTypes[0].name)
        text += tr(" &nbsp;·&nbsp; <b>comparing %1 with %2</b>")
                    .arg(displayText(before->costTypes[0].name).toHtmlEscaped(),
                         displayText(after->costTypes[0].name).toHtmlEscaped());
    if (options.normalize && diff)
        text += tr(" &nbsp;·&nbsp; before scaled to %1")
                    .arg(toQString(formatCost(diff->tree.grandTotal(kBefore), diff->costTypes[kBefore])));
    if (diff && diffMatchesModules(*before, *after, options))
        text += tr(" &nbsp;·&nbsp; frames matched by function and module");
    else if (diff)
        text += tr(" &nbsp;·&nbsp; frames matched by function name");
    m_totals->setText(text);
}

void CompareSummary::setDiff(std::shared_ptr<const Profile> diff, std::vector<FunctionDelta> functions) {
    m_model->setDiff(std::move(diff), std::move(functions));
    updateFilter();
    for (int c = DiffFunctionModel::DeltaSelf; c < DiffFunctionModel::ColumnCount; ++c)
        m_table->resizeColumnToContents(c); // the function column stretches over the rest
}

void CompareSummary::setFilter(DiffMetric metric, int64_t hideBelow) {
    m_metric = metric;
    m_hideBelow = hideBelow;
    updateFilter();
}

void CompareSummary::updateFilter() {
    const auto show = static_cast<DiffFunctionProxy::Show>(std::clamp(m_showBox->currentIndex(), 0, 2));
    m_proxy->setFilter(show, m_metric, m_hideBelow);
}

void CompareSummary::sortBy(DiffMetric metric) {
    m_table->sortByColumn(metric == DiffMetric::Self ? DiffFunctionModel::DeltaSelf
                                                     : DiffFunctionModel::DeltaTotal,
                          Qt::DescendingOrder);
}

void CompareSummary::showFunction(std::optional<FrameId> frame) {
    const int row = frame ? m_model->rowOfFrame(*frame) : -1;
    const QModelIndex index = row >= 0 ? m_proxy->mapFromSource(m_model->index(row, 0)) : QModelIndex();
    if (index.isValid()) {
        m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                              QItemSelectionModel::Rows);
        m_table->scrollTo(index);
    } else {
        m_table->selectionModel()->clearSelection();
    }
}

} // namespace scorch
