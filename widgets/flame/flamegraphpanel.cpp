#include "flame/flamegraphpanel.h"

#include "common/layoutfence.h"
#include "flame/flamelegend.h"

#include "common/layoututil.h"

#include "common/qtprofile.h"
#include "flame/breadcrumbbar.h"
#include "flame/searchbar.h"
#include "scorch/analysis.h"

#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace scorch {

namespace {

/// From this many nodes on, a chart is laid out off the GUI thread (a pass over the tree: 9 ms at 3.5 M).
constexpr std::size_t kLayoutAside = 100000;

const QString kOrientationKey = QStringLiteral("FlameGraph/orientation");
const QString kSchemeKey = QStringLiteral("FlameGraph/colorScheme");

struct SchemeName {
    FlameGraphView::ColorScheme scheme;
    const char* key;
    const char* label;
};
constexpr SchemeName kSchemes[] = {
    {FlameGraphView::ColorScheme::Hot, "hot", QT_TRANSLATE_NOOP("scorch::FlameGraphPanel", "Hot")},
    {FlameGraphView::ColorScheme::Module, "module",
     QT_TRANSLATE_NOOP("scorch::FlameGraphPanel", "By Module")},
    {FlameGraphView::ColorScheme::Kind, "kind", QT_TRANSLATE_NOOP("scorch::FlameGraphPanel", "By Kind")},
    {FlameGraphView::ColorScheme::System, "system", QT_TRANSLATE_NOOP("scorch::FlameGraphPanel", "System")},
};

QString transformLabel(const TreeTransform& t) {
    switch (t.kind) {
    case TreeTransform::Kind::Focus:
        return FlameGraphPanel::tr("Focus");
    case TreeTransform::Kind::Hide:
        return FlameGraphPanel::tr("Hide");
    case TreeTransform::Kind::CollapseRecursion:
        return FlameGraphPanel::tr("Collapse recursion");
    case TreeTransform::Kind::FocusSubtree:
        return FlameGraphPanel::tr("Focus subtree");
    case TreeTransform::Kind::Drop:
        return FlameGraphPanel::tr("Drop");
    case TreeTransform::Kind::CollapseModule:
        return FlameGraphPanel::tr("Collapse module");
    case TreeTransform::Kind::MergeModule:
        return FlameGraphPanel::tr("Merge module");
    case TreeTransform::Kind::CollapseAllRecursion:
        return FlameGraphPanel::tr("Collapse all recursion");
    }
    return {};
}

/// What a chip names: the function, the module `[libfoo.so]`, or the subtree's path `a › b › c`.
QString transformSubject(const Profile& profile, const TreeTransform& t) {
    switch (t.kind) {
    case TreeTransform::Kind::CollapseModule:
    case TreeTransform::Kind::MergeModule:
        return toQString(moduleFrameName(profile.strings.view(t.module)));
    case TreeTransform::Kind::FocusSubtree: {
        QStringList names;
        for (FrameId f : t.path)
            names << frameDisplayName(profile, f);
        return names.join(QStringLiteral(" › "));
    }
    case TreeTransform::Kind::CollapseAllRecursion:
        return FlameGraphPanel::tr("every function");
    default:
        return frameDisplayName(profile, t.frame);
    }
}

} // namespace

FlameGraphPanel::FlameGraphPanel(QWidget* parent)
    : QWidget(parent)
    , m_view(new FlameGraphView)
    , m_scroll(new QScrollArea(this))
    , m_search(new SearchBar(this))
    , m_crumbs(new BreadcrumbBar(this))
    , m_chipBox(new QWidget(this))
    , m_chipLayout(new QHBoxLayout(m_chipBox))
    , m_legend(new QLabel(this))
    , m_scheme(new QComboBox(this)) {
    auto* toolbar = new QToolBar(this);
    toolbar->setIconSize(QSize(16, 16));
    toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto* orientation = new QActionGroup(this);
    m_flame = toolbar->addAction(tr("Flame"));
    m_flame->setToolTip(tr("Root at the bottom"));
    m_icicle = toolbar->addAction(tr("Icicle"));
    m_icicle->setToolTip(tr("Root at the top"));
    for (QAction* a : {m_flame, m_icicle}) {
        a->setCheckable(true);
        orientation->addAction(a);
    }
    m_reversedAction = toolbar->addAction(tr("Reversed"), this, &FlameGraphPanel::setReversed);
    m_reversedAction->setObjectName(QStringLiteral("reversed"));
    m_reversedAction->setCheckable(true);
    m_reversedAction->setToolTip(tr("Every stack flipped: the functions where time was spent at the base, "
                                    "their callers above"));
    toolbar->addSeparator();
    for (const SchemeName& s : kSchemes)
        m_scheme->addItem(tr(s.label), QLatin1String(s.key));
    m_scheme->setToolTip(tr("Colour scheme"));
    toolbar->addWidget(m_scheme);
    toolbar->addSeparator();
    m_back = toolbar->addAction(tr("Back"), m_view, &FlameGraphView::back);
    m_back->setToolTip(tr("Previous zoom (Alt+Left)"));
    m_forward = toolbar->addAction(tr("Forward"), m_view, &FlameGraphView::forward);
    m_forward->setToolTip(tr("Next zoom (Alt+Right)"));
    m_reset = toolbar->addAction(tr("Reset Zoom"), m_view, &FlameGraphView::resetZoom);
    m_reset->setToolTip(tr("Show the whole profile (Esc)"));
    // Ctrl+F is handled by an event filter on the view rather than a shortcut, so that it does not become
    // ambiguous with a main window action on the same key (which should call focusSearch()).
    auto* find = toolbar->addAction(tr("Find…"), this, &FlameGraphPanel::focusSearch);
    find->setToolTip(
        tr("Find functions (%1)").arg(QKeySequence(QKeySequence::Find).toString(QKeySequence::NativeText)));
    m_view->installEventFilter(this);

    m_chipLayout->setContentsMargins(4, 0, 4, 0);
    m_chipBox->hide();

    m_scroll->setWidget(m_view);
    m_scroll->setWidgetResizable(true);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_search->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(toolbar);
    layout->addWidget(new LayoutFence(m_crumbs, this)); // rebuilt for every chart shown
    layout->addWidget(m_chipBox);
    layout->addWidget(m_search);
    layout->addWidget(m_scroll, 1);
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setContentsMargins(6, 2, 6, 2);
    m_legend->setWordWrap(true);
    m_legend->hide();
    layout->addWidget(m_legend);

    connect(m_flame, &QAction::triggered, this,
            [this] { setOrientation(FlameGraphView::Orientation::Flame); });
    connect(m_icicle, &QAction::triggered, this,
            [this] { setOrientation(FlameGraphView::Orientation::Icicle); });
    connect(m_scheme, &QComboBox::activated, this,
            [this](int index) { setColorScheme(kSchemes[std::clamp(index, 0, 3)].scheme); });
    connect(m_view, &FlameGraphView::zoomChanged, this, &FlameGraphPanel::updateBreadcrumbs);
    connect(m_view, &FlameGraphView::historyChanged, this, &FlameGraphPanel::updateHistoryActions);
    connect(m_view, &FlameGraphView::transformRequested, this, &FlameGraphPanel::addTransform);
    connect(m_view, &FlameGraphView::searchResultChanged, this, &FlameGraphPanel::updateSearchResult);
    connect(m_view, &FlameGraphView::matchPositionChanged, m_search, &SearchBar::setPosition);
    connect(m_view, &FlameGraphView::nodeSelected, this, [this](NodeId n) {
        const QRect row = m_view->rowRect(m_view->data() ? m_view->data()->tree.depth(n) : 0);
        m_scroll->ensureVisible(m_scroll->horizontalScrollBar()->value(), row.center().y(), 0, row.height());
    });
    connect(m_crumbs, &BreadcrumbBar::crumbClicked, m_view, &FlameGraphView::zoomTo);
    // The chart's height follows the zoom's deepest stack; in flame mode the root row is at the bottom, so
    // a change of height keeps the distance from the bottom, not from the top.
    QScrollBar* bar = m_scroll->verticalScrollBar();
    connect(bar, &QScrollBar::valueChanged, this, [this, bar](int value) {
        if (!m_anchoring)
            m_fromBottom = bar->maximum() - value;
    });
    connect(bar, &QScrollBar::rangeChanged, this, [this, bar](int, int maximum) {
        if (m_view->orientation() != FlameGraphView::Orientation::Flame)
            return;
        m_anchoring = true;
        bar->setValue(std::max(0, maximum - m_fromBottom));
        m_anchoring = false;
    });
    connect(m_search, &SearchBar::queryChanged, m_view, &FlameGraphView::setSearch);
    connect(m_search, &SearchBar::nextRequested, m_view, [this] { m_view->nextMatch(false); });
    connect(m_search, &SearchBar::previousRequested, m_view, [this] { m_view->nextMatch(true); });
    connect(m_search, &SearchBar::closeRequested, this, &FlameGraphPanel::closeSearch);
    connect(m_search, &SearchBar::sandwichRequested, m_view, &FlameGraphView::sandwichOfMatch);

    const QSettings settings;
    m_restoring = true;
    setOrientation(settings.value(kOrientationKey).toString() == QLatin1String("icicle")
                       ? FlameGraphView::Orientation::Icicle
                       : FlameGraphView::Orientation::Flame);
    const QString scheme = settings.value(kSchemeKey, QStringLiteral("hot")).toString();
    for (const SchemeName& s : kSchemes)
        if (scheme == QLatin1String(s.key))
            setColorScheme(s.scheme);
    m_restoring = false;
    updateHistoryActions();
    updateBreadcrumbs();
}

FlameGraphPanel::~FlameGraphPanel() = default;

bool FlameGraphPanel::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_view &&
        (event->type() == QEvent::ShortcutOverride || event->type() == QEvent::KeyPress)) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->matches(QKeySequence::Find)) {
            event->accept();
            if (event->type() == QEvent::KeyPress)
                focusSearch();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void FlameGraphPanel::setProfile(std::shared_ptr<const Profile> profile) {
    m_profile = std::move(profile);
    m_costType = 0;
    m_threads.clear();
    m_transforms.clear();
    rederive();
}

void FlameGraphPanel::replaceProfile(std::shared_ptr<const Profile> profile) {
    m_profile = std::move(profile);
    rederive();
}

void FlameGraphPanel::setCostType(std::size_t costType) {
    if (costType == m_costType)
        return;
    m_costType = costType;
    rederive();
}

void FlameGraphPanel::setThreads(std::vector<uint32_t> threads) {
    if (threads == m_threads)
        return;
    m_threads = std::move(threads);
    rederive();
}

void FlameGraphPanel::setTransforms(std::vector<TreeTransform> transforms) {
    if (transforms == m_transforms)
        return;
    m_transforms = std::move(transforms);
    rederive();
}

void FlameGraphPanel::addTransform(TreeTransform transform) {
    if (std::find(m_transforms.begin(), m_transforms.end(), transform) != m_transforms.end())
        return;
    m_transforms.push_back(transform);
    rederive();
}

void FlameGraphPanel::removeTransform(std::size_t index) {
    if (index >= m_transforms.size())
        return;
    m_transforms.erase(m_transforms.begin() + static_cast<std::ptrdiff_t>(index));
    rederive();
}

std::shared_ptr<const ChartData> FlameGraphPanel::data() const {
    return m_data;
}
FlameGraphView* FlameGraphPanel::view() const {
    return m_view;
}
SearchBar* FlameGraphPanel::searchBar() const {
    return m_search;
}
BreadcrumbBar* FlameGraphPanel::breadcrumbBar() const {
    return m_crumbs;
}

std::vector<QWidget*> FlameGraphPanel::chips() const {
    std::vector<QWidget*> out;
    for (int i = 0; i < m_chipLayout->count(); ++i)
        if (QWidget* w = m_chipLayout->itemAt(i)->widget())
            out.push_back(w);
    return out;
}

void FlameGraphPanel::setOrientation(FlameGraphView::Orientation orientation) {
    m_view->setOrientation(orientation);
    (orientation == FlameGraphView::Orientation::Flame ? m_flame : m_icicle)->setChecked(true);
    if (!m_restoring)
        QSettings().setValue(kOrientationKey, orientation == FlameGraphView::Orientation::Flame
                                                  ? QStringLiteral("flame")
                                                  : QStringLiteral("icicle"));
    scrollToRoot();
}

void FlameGraphPanel::updateLegend() {
    const QString html = m_data
                             ? flameLegendHtml(*m_data, static_cast<FlameColorScheme>(m_view->colorScheme()),
                                               m_view->palette())
                             : QString();
    m_legend->setText(html);
    m_legend->setVisible(!html.isEmpty());
}

void FlameGraphPanel::setColorScheme(FlameGraphView::ColorScheme scheme) {
    m_view->setColorScheme(scheme);
    updateLegend();
    for (int i = 0; i < 4; ++i) {
        if (kSchemes[i].scheme == scheme) {
            m_scheme->setCurrentIndex(i);
            if (!m_restoring)
                QSettings().setValue(kSchemeKey, QLatin1String(kSchemes[i].key));
        }
    }
}

void FlameGraphPanel::focusSearch() {
    m_search->show();
    m_search->lineEdit()->setFocus(Qt::ShortcutFocusReason);
    m_search->lineEdit()->selectAll();
}

void FlameGraphPanel::findNext(bool backwards) {
    if (m_search->isHidden() || m_search->lineEdit()->text().isEmpty())
        focusSearch();
    else
        m_view->nextMatch(backwards);
}

void FlameGraphPanel::closeSearch() {
    m_search->clear();
    m_search->hide();
    m_view->setSearch({});
    m_view->setFocus(Qt::OtherFocusReason);
}

void FlameGraphPanel::rederive() {
    updateChips(); // the chips show the request at once; the chart follows when it is derived
    if (!m_profile) {
        m_derive.drop();
        showData(nullptr);
        return;
    }
    if (m_costType >= m_profile->costTypes.size())
        m_costType = 0;
    // (a small tree's chart at once; a large one's layout, too, is made off the GUI thread)
    if (!ChartData::needsDerivedTree(*m_profile, m_threads, m_transforms) &&
        m_profile->tree.size() < kLayoutAside) {
        m_derive.drop(); // a slower request still running is superseded
        showData(ChartData::derive(m_profile, m_costType, m_threads, m_transforms));
        return;
    }
    m_derive.start(
        [profile = m_profile, costType = m_costType, threads = m_threads,
         transforms = m_transforms](const JobContext&) {
            auto data = ChartData::derive(profile, costType, threads, transforms);
            data->layout();
            return data;
        },
        [this](std::shared_ptr<const ChartData> data) { showData(std::move(data)); });
}

void FlameGraphPanel::showData(std::shared_ptr<const ChartData> data) {
    std::shared_ptr<const ChartData> old = std::exchange(m_data, std::move(data));
    showChart();
    Q_EMIT dataChanged(m_data);
    releaseInBackground(std::move(old));
}

void FlameGraphPanel::setReversed(bool reversed) {
    m_reversedAction->setChecked(reversed);
    if (reversed == m_reversed)
        return;
    m_reversed = reversed;
    showChart();
}

void FlameGraphPanel::showChart() {
    if (!m_reversed || !m_data) {
        m_reverse.drop();
        setViewData(m_data);
        return;
    }
    // Inverting walks every sample's stack: off the GUI thread; the chart shown stays until it is done.
    m_reverse.start(
        [data = m_data](const JobContext&) -> std::shared_ptr<const ChartData> {
            auto reversed =
                std::make_shared<ChartData>(data->profile, bottomUpTree(*data->profile, data->tree));
            reversed->costType = data->costType;
            reversed->transforms = data->transforms;
            reversed->threads = data->threads;
            reversed->layout();
            return reversed;
        },
        [this](std::shared_ptr<const ChartData> reversed) { setViewData(std::move(reversed)); });
}

void FlameGraphPanel::setViewData(std::shared_ptr<const ChartData> data) {
    // A path of the reversed tree is no call path: "Focus on This Subtree" is not offered there.
    m_view->setHiddenMenuActions(m_reversed ? QStringList{QStringLiteral("focusSubtree")} : QStringList{});
    m_view->setData(std::move(data));
    updateLegend();
    updateBreadcrumbs();
    scrollToRoot();
}

void FlameGraphPanel::updateChips() {
    clearLayoutLater(m_chipLayout);
    if (m_transforms.empty() || !m_profile) {
        m_chipBox->hide();
        return;
    }
    const QFontMetrics fm(font());
    for (std::size_t i = 0; i < m_transforms.size(); ++i) {
        const TreeTransform& t = m_transforms[i];
        const QString name = transformSubject(*m_profile, t);
        auto* chip = new QToolButton(m_chipBox);
        chip->setObjectName(QStringLiteral("transformChip"));
        chip->setText(
            transformLabel(t) + QStringLiteral(": ") +
            fm.elidedText(name, Qt::ElideMiddle, 220).replace(QLatin1Char('&'), QStringLiteral("&&")) +
            QStringLiteral("  ✕"));
        chip->setToolTip(tr("%1: %2\nClick to remove this transform").arg(transformLabel(t), name));
        connect(chip, &QToolButton::clicked, this, [this, i] { removeTransform(i); });
        m_chipLayout->addWidget(chip);
    }
    m_chipLayout->addStretch(1);
    m_chipBox->show();
}

void FlameGraphPanel::updateBreadcrumbs() {
    std::vector<BreadcrumbBar::Crumb> crumbs;
    if (m_data && m_data->tree.size() > 0) {
        crumbs.push_back({kRootNode, tr("all")});
        const NodeId root = m_view->zoomRoot();
        if (root != kRootNode && root < m_data->tree.size())
            for (NodeId n : m_data->tree.path(root))
                crumbs.push_back({n, frameDisplayName(*m_data->profile, m_data->tree.frame(n))});
    }
    m_crumbs->setPath(std::move(crumbs));
    m_reset->setEnabled(m_view->zoomRoot() != kRootNode);
}

void FlameGraphPanel::updateHistoryActions() {
    m_back->setEnabled(m_view->canGoBack());
    m_forward->setEnabled(m_view->canGoForward());
}

void FlameGraphPanel::updateSearchResult(int nodes, qint64 matched, qint64 total) {
    if (!m_data || m_data->costType >= m_data->profile->costTypes.size())
        return;
    const QString text = toQString(formatCost(matched, m_data->profile->costTypes[m_data->costType]));
    m_search->setResult(nodes, text, total != 0 ? 100.0 * static_cast<double>(matched) / total : 0.0);
}

void FlameGraphPanel::scrollToRoot() {
    // The root row is at the bottom in flame mode: keep it in view after the layout settles.
    QTimer::singleShot(0, this, [this] {
        QScrollBar* bar = m_scroll->verticalScrollBar();
        bar->setValue(m_view->orientation() == FlameGraphView::Orientation::Flame ? bar->maximum() : 0);
    });
}

} // namespace scorch
