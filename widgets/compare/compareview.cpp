#include "compare/compareview.h"

#include "common/contrast.h"
#include "common/qtprofile.h"
#include "compare/comparesummary.h"
#include "compare/comparetoolbar.h"
#include "compare/diffbuild.h"
#include "flame/breadcrumbbar.h"
#include "flame/searchbar.h"
#include "sandwich/sandwichview.h"

#include <QLabel>
#include <QScopedValueRollback>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace scorch {

namespace {

QString swatch(QRgb color, const QString& text, bool hatched = false) {
    const QString square = hatched ? QStringLiteral("▨") : QStringLiteral("■");
    return QStringLiteral("<span style=\"color:%1;font-size:large\">%2</span>&nbsp;%3")
        .arg(QColor::fromRgb(color).name(), square, text);
}

} // namespace

CompareView::CompareView(QWidget* parent)
    : QWidget(parent)
    , m_stack(new QStackedWidget(this))
    , m_status(new QLabel(this))
    , m_toolbar(new CompareToolBar(this))
    , m_summary(new CompareSummary(this))
    , m_search(new SearchBar(this))
    , m_crumbs(new BreadcrumbBar(this))
    , m_sandwich(new SandwichView(this)) {
    m_search->setObjectName(QStringLiteral("compareSearch"));
    m_crumbs->setObjectName(QStringLiteral("compareCrumbs"));

    // Differential page: one chart and its legend.
    auto* diffPage = new QWidget(m_stack);
    auto* diffLayout = new QVBoxLayout(diffPage);
    diffLayout->setContentsMargins(0, 0, 0, 0);
    diffLayout->setSpacing(0);
    diffLayout->addWidget(makeChart(Diff, QString()), 1);
    auto* legend = new QLabel(diffPage);
    legend->setObjectName(QStringLiteral("legend"));
    const QRgb grew = FlamePalette::diffColor(1, 1), shrank = FlamePalette::diffColor(-1, 1);
    FlamePalette merged; // the grey of merged runs follows the widget palette
    merged.reset(nullptr, FlameColorScheme::Differential, palette());
    legend->setText(
        swatch(grew, tr("grew")) + QStringLiteral("&nbsp;&nbsp; ") + swatch(shrank, tr("shrank")) +
        QStringLiteral("&nbsp;&nbsp; ") +
        swatch(FlamePalette::neutralDiffColor(), tr("unchanged or below the noise floor")) +
        QStringLiteral("&nbsp;&nbsp; ") + swatch(grew, tr("added (striped)"), true) +
        QStringLiteral("&nbsp;&nbsp; ") + swatch(shrank, tr("removed (striped)"), true) +
        QStringLiteral("&nbsp;&nbsp; ") + swatch(merged.mergedColor(), tr("merged small frames")) +
        QStringLiteral("&nbsp;&nbsp; ") + tr("— colour intensity is |Δ| relative to the largest Δ"));
    legend->setContentsMargins(6, 2, 6, 2);
    diffLayout->addWidget(legend);
    m_stack->addWidget(diffPage);

    // Side by side page.
    auto* sides = new QSplitter(Qt::Horizontal, m_stack);
    sides->addWidget(makeChart(Before, tr("Before")));
    sides->addWidget(makeChart(After, tr("After")));
    sides->setChildrenCollapsible(false);
    // the two charts show the same tree, hence the same rows: scroll them together
    QScrollBar* left = m_scrolls[Before]->verticalScrollBar();
    QScrollBar* right = m_scrolls[After]->verticalScrollBar();
    connect(left, &QScrollBar::valueChanged, right, &QScrollBar::setValue);
    connect(right, &QScrollBar::valueChanged, left, &QScrollBar::setValue);
    m_stack->addWidget(sides);

    // Sandwich page: the callers and callees of one function, in the differential colours.
    m_sandwich->setObjectName(QStringLiteral("compareSandwich"));
    m_sandwich->setToolTipProvider([this](const CallTree& t, NodeId n) { return nodeToolTip(t, n); });
    m_stack->addWidget(m_sandwich);

    auto* split = new QSplitter(Qt::Vertical, this);
    auto* top = new QWidget(split);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->setSpacing(0);
    topLayout->addWidget(m_crumbs);
    topLayout->addWidget(m_search);
    topLayout->addWidget(m_stack, 1);
    split->addWidget(top);
    split->addWidget(m_summary);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);

    m_status->setContentsMargins(6, 2, 6, 2);
    m_status->setObjectName(QStringLiteral("compareStatus"));
    m_status->hide();
    m_search->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_toolbar);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);

    connectToolBar();
    connect(m_summary, &CompareSummary::functionActivated, this, &CompareView::selectFunction);
    connect(m_crumbs, &BreadcrumbBar::crumbClicked, this, &CompareView::zoomAll);
    connect(m_search, &SearchBar::queryChanged, this, [this](const SearchQuery& q) {
        for (FlameGraphView* v : m_views)
            v->setSearch(q);
    });
    connect(m_search, &SearchBar::nextRequested, this, [this] { primaryView()->nextMatch(false); });
    connect(m_search, &SearchBar::previousRequested, this, [this] { primaryView()->nextMatch(true); });
    connect(m_search, &SearchBar::closeRequested, this, [this] {
        m_search->clear();
        m_search->hide();
        for (FlameGraphView* v : m_views)
            v->setSearch({});
    });
    for (FlameGraphView* v : m_views) {
        connect(v, &FlameGraphView::matchPositionChanged, this, [this, v](int index, int count) {
            if (v == primaryView())
                m_search->setPosition(index, count);
        });
        connect(v, &FlameGraphView::searchResultChanged, this,
                [this, v](int nodes, qint64 matched, qint64 all) {
                    if (v != primaryView() || !m_diff)
                        return;
                    m_search->setResult(
                        nodes, toQString(formatCost(matched, m_diff->costTypes[kAfter])),
                        all != 0 ? 100.0 * static_cast<double>(matched) / static_cast<double>(all) : 0.0);
                });
    }
    setMode(Mode::Differential);
    updateTotals();
}

CompareView::~CompareView() = default; // the job drops a diff still being built

void CompareView::connectToolBar() {
    connect(m_toolbar, &CompareToolBar::modeChosen, this,
            [this](bool sideBySide) { setMode(sideBySide ? Mode::SideBySide : Mode::Differential); });
    connect(m_toolbar, &CompareToolBar::sandwichChosen, this, [this] {
        setMode(Mode::Sandwich);
        if (m_sandwich->function().value == 0) // start with the function the differential chart selects
            if (const NodeId n = m_views[Diff]->selectedNode(); m_diff && n != kRootNode)
                m_sandwich->showFunction(m_diff->tree.frame(n));
    });
    connect(m_toolbar, &CompareToolBar::orientationChosen, this, &CompareView::setOrientation);
    connect(m_toolbar, &CompareToolBar::metricChosen, this, &CompareView::setMetric);
    connect(m_toolbar, &CompareToolBar::widthBasisChosen, this, &CompareView::setWidthBasis);
    connect(m_toolbar, &CompareToolBar::diffOptionsChosen, this,
            [this](bool normalize, bool stripHex, bool matchModules) {
                DiffOptions o = m_options;
                o.normalize = normalize;
                o.stripHex = stripHex;
                o.matchModules = matchModules;
                setDiffOptions(o);
            });
    connect(m_toolbar, &CompareToolBar::noiseFloorChosen, this,
            [this](int samples, double percent, bool hide) {
                const int decimals = m_diff ? m_diff->costTypes[kAfter].decimals : 0;
                setNoiseFloor({mulCost(samples, pow10(decimals)), percent}, hide);
            });
    m_toolbar->showNoiseFloor(m_noise, m_hideNoise, 0);
    connect(m_toolbar, &CompareToolBar::findRequested, this, &CompareView::focusSearch);
    connect(m_toolbar, &CompareToolBar::resetZoomRequested, this, [this] { zoomAll(kRootNode); });
}

QWidget* CompareView::makeChart(Side side, const QString& title) {
    const auto i = static_cast<std::size_t>(side);
    const QString name = side == Before  ? QStringLiteral("before")
                         : side == After ? QStringLiteral("after")
                                         : QStringLiteral("diff");
    auto* box = new QWidget(this);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_titles[i] = new QLabel(title, box);
    m_titles[i]->setContentsMargins(6, 3, 6, 3);
    m_titles[i]->setVisible(side != Diff);
    m_notices[i] = new QLabel(box);
    m_notices[i]->setObjectName(name + QStringLiteral("Notice"));
    m_notices[i]->setContentsMargins(6, 2, 6, 2);
    m_notices[i]->setStyleSheet(
        QStringLiteral("color: %1")
            .arg(readableOn(QColor(0xb0, 0x10, 0x10), palette().color(QPalette::Window)).name()));
    m_notices[i]->hide();
    auto* view = new FlameGraphView;
    m_views[i] = view;
    view->setObjectName(name + QStringLiteral("Chart"));
    view->setColorScheme(side == Diff ? FlameGraphView::ColorScheme::Differential
                                      : FlameGraphView::ColorScheme::Hot);
    view->setToolTipProvider([this](NodeId n) { return m_diff ? nodeToolTip(m_diff->tree, n) : QString(); });
    view->installEventFilter(this);
    m_scrolls[i] = new QScrollArea(box);
    m_scrolls[i]->setWidget(view);
    m_scrolls[i]->setWidgetResizable(true);
    m_scrolls[i]->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_scrolls[i]->setFrameShape(QFrame::NoFrame);
    layout->addWidget(m_titles[i]);
    layout->addWidget(m_notices[i]);
    layout->addWidget(m_scrolls[i], 1);
    connect(view, &FlameGraphView::zoomChanged, this, [this, view](NodeId n) { syncZoom(view, n); });
    connect(view, &FlameGraphView::nodeSelected, this, [this, view](NodeId n) { syncSelection(view, n); });
    connect(view, &FlameGraphView::hoveredChanged, this, [this, view](qint64 n) { syncHover(view, n); });
    connect(view, &FlameGraphView::sandwichRequested, this, &CompareView::showSandwich);
    return box;
}

void CompareView::setProfiles(std::shared_ptr<const Profile> before, std::shared_ptr<const Profile> after,
                              const QString& beforeName, const QString& afterName) {
    m_beforeProfile = std::move(before);
    m_afterProfile = std::move(after);
    m_beforeName = beforeName;
    m_afterName = afterName;
    m_titles[Before]->setText(tr("Before: %1").arg(beforeName));
    m_titles[After]->setText(tr("After: %1").arg(afterName));
    rebuild();
}

void CompareView::setDiffOptions(const DiffOptions& options) {
    m_options = options;
    m_toolbar->showDiffOptions(options);
    rebuild();
}

void CompareView::rebuild() {
    if (!m_beforeProfile || !m_afterProfile)
        return;
    m_ready = false;
    m_status->setText(tr("Comparing %1 with %2…").arg(m_beforeName, m_afterName));
    m_status->show();
    // the layout options as they will be then (the noise threshold depends on the new totals)
    DiffLayoutOptions layout;
    layout.width = m_width;
    layout.showMissing = m_showMissing;
    layout.metric = m_metric;
    m_build.start([before = m_beforeProfile, after = m_afterProfile, options = m_options, layout,
                   noise = m_hideNoise ? std::optional<NoiseFloor>(m_noise) : std::nullopt](
                      const JobContext&) { return DiffBuild::run(*before, *after, options, layout, noise); },
                  [this](DiffBuild built) { applyDiff(std::move(built)); });
}

void CompareView::applyDiff(DiffBuild built) {
    if (!built.diff) {
        m_status->setText(tr("Cannot compare: %1").arg(built.error));
        Q_EMIT failed(built.error);
        return;
    }
    m_status->hide();
    // Normalising changes costs only, so the tree keeps its shape and node ids: keep the zoom then.
    const bool sameShape = m_diff && m_diff->tree.size() == built.diff->tree.size() &&
                           m_builtStripHex == m_options.stripHex &&
                           m_builtMatchModules == m_options.matchModules;
    const NodeId zoom = sameShape ? m_zoomNode : kRootNode;
    m_builtStripHex = m_options.stripHex;
    m_builtMatchModules = m_options.matchModules;
    m_diff = built.diff;
    m_zoomNode = kRootNode;
    {
        const QScopedValueRollback guard(m_syncing, true);
        m_views[Before]->setData(ChartData::fromProfile(m_diff, kBefore));
        m_views[After]->setData(ChartData::fromProfile(m_diff, kAfter));
        m_views[Before]->setMinimumHeight(m_views[Before]->chartHeight());
        m_views[After]->setMinimumHeight(m_views[After]->chartHeight());
    }
    // built for the options of the time; they may have changed since (widths, noise)
    relayoutDiff(built.layoutOptions == layoutOptions(m_diff->tree) ? std::move(built.layout) : std::nullopt);
    recolor();
    m_summary->setDiff(m_diff, std::move(built.functions));
    updateFilter();
    updateTotals();
    // options changed under the same two profiles keep the tree's shape, hence its node ids
    if (zoom != kRootNode && zoom < m_diff->tree.size())
        zoomAll(zoom);
    updateBreadcrumbs();
    updateNotices();
    scrollToRoot();
    if (!m_summary->isAncestorOf(focusWidget()) && !m_search->isAncestorOf(focusWidget()))
        primaryView()->setFocus(Qt::OtherFocusReason);
    m_ready = true;
    Q_EMIT ready();
}

DiffLayoutOptions CompareView::layoutOptions(const CallTree& diffTree) const {
    DiffLayoutOptions o;
    o.width = m_width;
    o.showMissing = m_showMissing;
    o.metric = m_metric;
    o.hideBelow = m_hideNoise ? m_noise.threshold(diffTree) : 0;
    return o;
}

void CompareView::relayoutDiff(std::optional<CallTree> tree) {
    if (!m_diff)
        return;
    if (!tree)
        tree = diffLayoutTree(m_diff->tree, layoutOptions(m_diff->tree));
    auto data = std::make_shared<ChartData>(m_diff, std::move(tree));
    data->costType = kWidth;
    FlameGraphView* v = m_views[Diff];
    const NodeId selected = v->selectedNode();
    {
        const QScopedValueRollback guard(m_syncing, true);
        v->setData(std::move(data));
        v->setMinimumHeight(v->chartHeight());
        if (selected != kRootNode)
            v->selectNode(selected);
    }
    m_sandwich->setData(v->data()); // the sandwich of the same widths
    if (m_zoomNode != kRootNode) {  // keep the zoom (or its nearest ancestor that still has a width)
        const NodeId zoom = m_zoomNode;
        m_zoomNode = kRootNode;
        zoomAll(zoom);
    }
    updateNotices();
}

void CompareView::recolor() {
    const int64_t grey = m_hideNoise ? 0 : noiseThreshold();
    m_views[Diff]->setDiffColoring({m_metric, grey});
    m_sandwich->setDiffColoring({m_metric, grey});
}

int64_t CompareView::noiseThreshold() const {
    return m_diff ? m_noise.threshold(m_diff->tree) : 0;
}

void CompareView::setMode(Mode mode) {
    m_mode = mode;
    m_stack->setCurrentIndex(mode == Mode::Differential ? 0 : mode == Mode::SideBySide ? 1 : 2);
    m_crumbs->setVisible(mode != Mode::Sandwich); // the charts' path; the sandwich has its own title
    if (mode == Mode::Sandwich)
        m_toolbar->showSandwichMode();
    else
        m_toolbar->showMode(mode == Mode::SideBySide);
    if (!m_search->query().pattern.empty()) // the result line follows the shown chart
        primaryView()->setSearch(m_search->query());
    scrollToRoot();
}

void CompareView::setMetric(DiffMetric metric) {
    m_metric = metric;
    m_toolbar->showMetric(metric);
    m_summary->sortBy(metric);
    recolor();
    if (m_hideNoise)
        relayoutDiff();
    updateFilter();
}

void CompareView::setWidthBasis(DiffWidth width, bool showMissing) {
    m_width = width;
    m_showMissing = showMissing;
    m_toolbar->showWidthBasis(width, showMissing);
    relayoutDiff();
}

void CompareView::setNoiseFloor(NoiseFloor floor, bool hide) {
    m_noise = floor;
    m_hideNoise = hide;
    m_toolbar->showNoiseFloor(floor, hide, m_diff ? m_diff->costTypes[kAfter].decimals : 0);
    recolor();
    relayoutDiff();
    updateFilter();
}

void CompareView::setOrientation(FlameGraphView::Orientation orientation) {
    for (FlameGraphView* v : m_views)
        v->setOrientation(orientation);
    m_toolbar->showOrientation(orientation);
    scrollToRoot();
}

void CompareView::updateFilter() {
    m_summary->setFilter(m_metric, m_hideNoise ? noiseThreshold() : 0);
}

void CompareView::updateTotals() {
    m_summary->showTotals(m_beforeProfile.get(), m_afterProfile.get(), m_diff.get(), m_options);
}

FlameGraphView* CompareView::primaryView() const {
    return m_mode == Mode::SideBySide ? m_views[After] : m_views[Diff];
}

void CompareView::showSandwich(FrameId frame) {
    setMode(Mode::Sandwich);
    m_sandwich->showFunction(frame);
}

} // namespace scorch
