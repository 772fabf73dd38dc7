#include "compare/compareview.h"

#include "common/qtprofile.h"
#include "compare/difffunctionmodel.h"
#include "flame/breadcrumbbar.h"
#include "flame/searchbar.h"

#include <QAction>
#include <QActionGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMetaObject>
#include <QScopedValueRollback>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QThreadPool>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <cmath>
#include <mutex>

namespace scorch {

/// Shared by the view and the pool thread building a diff: the task posts its result only while
/// `receiver` is set, and the view clears it under the mutex before it dies.
struct CompareView::Job {
    std::mutex mutex;
    CompareView* receiver = nullptr;
};

/// What the pool thread builds: the diff, the table's rows and the differential chart's tree.
struct CompareView::Built {
    std::shared_ptr<const Profile> diff;
    std::vector<FunctionDelta> functions;
    std::optional<CallTree> layout;
    DiffLayoutOptions layoutOptions;
};

namespace {

QString swatch(QRgb color, const QString& text, bool hatched = false) {
    const QString square = hatched ? QStringLiteral("▨") : QStringLiteral("■");
    return QStringLiteral("<span style=\"color:%1;font-size:large\">%2</span>&nbsp;%3")
        .arg(QColor::fromRgb(color).name(), square, text);
}

} // namespace

CompareView::CompareView(QWidget* parent)
    : QWidget(parent)
    , m_job(std::make_shared<Job>())
    , m_stack(new QStackedWidget(this))
    , m_status(new QLabel(this))
    , m_totals(new QLabel(this))
    , m_table(new QTableView(this))
    , m_model(new DiffFunctionModel(this))
    , m_proxy(new DiffFunctionProxy(this))
    , m_search(new SearchBar(this))
    , m_crumbs(new BreadcrumbBar(this)) {
    m_job->receiver = this;
    QWidget* toolbar = makeToolBar();

    // Differential page: one chart and its legend.
    auto* diffPage = new QWidget(m_stack);
    auto* diffLayout = new QVBoxLayout(diffPage);
    diffLayout->setContentsMargins(0, 0, 0, 0);
    diffLayout->setSpacing(0);
    diffLayout->addWidget(makeChart(Side::Diff, QString()), 1);
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
    sides->addWidget(makeChart(Side::Before, tr("Before")));
    sides->addWidget(makeChart(Side::After, tr("After")));
    sides->setChildrenCollapsible(false);
    // the two charts show the same tree, hence the same rows: scroll them together
    QScrollBar* left = m_scrolls[0]->verticalScrollBar();
    QScrollBar* right = m_scrolls[1]->verticalScrollBar();
    connect(left, &QScrollBar::valueChanged, right, &QScrollBar::setValue);
    connect(right, &QScrollBar::valueChanged, left, &QScrollBar::setValue);
    m_stack->addWidget(sides);

    auto* split = new QSplitter(Qt::Vertical, this);
    auto* top = new QWidget(split);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->setSpacing(0);
    topLayout->addWidget(m_crumbs);
    topLayout->addWidget(m_search);
    topLayout->addWidget(m_stack, 1);
    split->addWidget(top);
    split->addWidget(makeSummary());
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
    layout->addWidget(toolbar);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);

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

CompareView::~CompareView() {
    std::lock_guard lock(m_job->mutex);
    m_job->receiver = nullptr; // a diff still being built is dropped
}

QWidget* CompareView::makeToolBar() {
    auto* bar = new QToolBar(this);
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto* modes = new QActionGroup(this);
    m_diffMode = bar->addAction(tr("Differential"), this, [this] { setMode(Mode::Differential); });
    m_diffMode->setToolTip(tr("One flame graph coloured by the change of each frame"));
    m_sideMode = bar->addAction(tr("Side by Side"), this, [this] { setMode(Mode::SideBySide); });
    m_sideMode->setToolTip(tr("The two flame graphs next to each other, zoom and selection synchronised"));
    for (QAction* a : {m_diffMode, m_sideMode}) {
        a->setCheckable(true);
        modes->addAction(a);
    }
    bar->addSeparator();
    auto* orientation = new QActionGroup(this);
    m_flame =
        bar->addAction(tr("Flame"), this, [this] { setOrientation(FlameGraphView::Orientation::Flame); });
    m_icicle =
        bar->addAction(tr("Icicle"), this, [this] { setOrientation(FlameGraphView::Orientation::Icicle); });
    for (QAction* a : {m_flame, m_icicle}) {
        a->setCheckable(true);
        orientation->addAction(a);
    }
    m_flame->setChecked(true);
    bar->addSeparator();

    auto label = [bar](const QString& text) {
        bar->addWidget(new QLabel(text + QLatin1Char(' '), bar));
    };
    label(tr("Δ of"));
    m_metricBox = new QComboBox(bar);
    m_metricBox->addItems({tr("Total"), tr("Self")});
    m_metricBox->setToolTip(tr("Compare each frame's total (inclusive) cost or its self cost"));
    bar->addWidget(m_metricBox);
    label(tr(" Widths"));
    m_widthBox = new QComboBox(bar);
    m_widthBox->addItems({tr("After"), tr("Before"), tr("Max")});
    m_widthBox->setToolTip(tr("What the differential chart's frame widths show"));
    bar->addWidget(m_widthBox);
    m_missingBox = new QCheckBox(tr("Show removed"), bar);
    m_missingBox->setChecked(true);
    m_missingBox->setToolTip(tr("Draw the stacks that exist only in the profile the widths do not follow"));
    bar->addWidget(m_missingBox);
    bar->addSeparator();
    m_normalizeBox = new QCheckBox(tr("Normalize"), bar);
    m_normalizeBox->setToolTip(tr("Scale “before” to the total of “after” (difffolded -n)"));
    bar->addWidget(m_normalizeBox);
    m_stripHexBox = new QCheckBox(tr("Strip hex"), bar);
    m_stripHexBox->setToolTip(tr("Treat hexadecimal literals in names as equal (difffolded -s)"));
    bar->addWidget(m_stripHexBox);
    m_modulesBox = new QCheckBox(tr("Modules"), bar);
    m_modulesBox->setChecked(true);
    m_modulesBox->setToolTip(tr("Match frames by module as well as function name (when both profiles "
                                "know modules; folded stacks have none)"));
    bar->addWidget(m_modulesBox);
    bar->addSeparator();
    label(tr("Noise floor"));
    m_noiseSamples = new QSpinBox(bar);
    m_noiseSamples->setRange(0, 1000000000);
    m_noiseSamples->setToolTip(tr("Deltas smaller than this many cost units are noise"));
    bar->addWidget(m_noiseSamples);
    label(tr(" or"));
    m_noisePercent = new QDoubleSpinBox(bar);
    m_noisePercent->setRange(0, 100);
    m_noisePercent->setDecimals(2);
    m_noisePercent->setSingleStep(0.1);
    m_noisePercent->setSuffix(QStringLiteral(" %"));
    m_noisePercent->setToolTip(tr("Deltas smaller than this share of the larger total are noise"));
    bar->addWidget(m_noisePercent);
    m_noiseMode = new QComboBox(bar);
    m_noiseMode->addItems({tr("Grey"), tr("Hide")});
    m_noiseMode->setToolTip(tr("Draw noise grey, or hide it from the differential chart and the table"));
    bar->addWidget(m_noiseMode);
    bar->addSeparator();
    bar->addAction(tr("Find…"), this, &CompareView::focusSearch);
    bar->addAction(tr("Reset Zoom"), this, [this] { zoomAll(kRootNode); });

    connect(m_metricBox, &QComboBox::activated, this,
            [this](int i) { setMetric(i == 1 ? DiffMetric::Self : DiffMetric::Total); });
    auto widthChanged = [this] {
        setWidthBasis(static_cast<DiffWidth>(std::clamp(m_widthBox->currentIndex(), 0, 2)),
                      m_missingBox->isChecked());
    };
    connect(m_widthBox, &QComboBox::activated, this, widthChanged);
    connect(m_missingBox, &QCheckBox::toggled, this, widthChanged);
    auto optionsChanged = [this] {
        DiffOptions o = m_options;
        o.normalize = m_normalizeBox->isChecked();
        o.stripHex = m_stripHexBox->isChecked();
        o.matchModules = m_modulesBox->isChecked();
        setDiffOptions(o);
    };
    connect(m_normalizeBox, &QCheckBox::toggled, this, optionsChanged);
    connect(m_stripHexBox, &QCheckBox::toggled, this, optionsChanged);
    connect(m_modulesBox, &QCheckBox::toggled, this, optionsChanged);
    auto noiseChanged = [this] {
        const int decimals = m_diff ? m_diff->costTypes[kAfter].decimals : 0;
        setNoiseFloor({mulCost(m_noiseSamples->value(), pow10(decimals)), m_noisePercent->value()},
                      m_noiseMode->currentIndex() == 1);
    };
    connect(m_noiseSamples, &QSpinBox::valueChanged, this, noiseChanged);
    connect(m_noisePercent, &QDoubleSpinBox::valueChanged, this, noiseChanged);
    connect(m_noiseMode, &QComboBox::activated, this, noiseChanged);
    return bar;
}

QWidget* CompareView::makeChart(Side side, const QString& title) {
    const auto i = static_cast<std::size_t>(side);
    auto* box = new QWidget(this);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_titles[i] = new QLabel(title, box);
    m_titles[i]->setContentsMargins(6, 3, 6, 3);
    m_titles[i]->setVisible(side != Side::Diff);
    m_notices[i] = new QLabel(box);
    m_notices[i]->setObjectName(QStringLiteral("notice"));
    m_notices[i]->setContentsMargins(6, 2, 6, 2);
    m_notices[i]->setStyleSheet(QStringLiteral("color: #b01010"));
    m_notices[i]->hide();
    auto* view = new FlameGraphView;
    m_views[i] = view;
    view->setColorScheme(side == Side::Diff ? FlameGraphView::ColorScheme::Differential
                                            : FlameGraphView::ColorScheme::Hot);
    view->setToolTipProvider([this](NodeId n) { return nodeToolTip(n); });
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
    return box;
}

QWidget* CompareView::makeSummary() {
    auto* box = new QWidget(this);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* row = new QHBoxLayout;
    row->setContentsMargins(6, 4, 6, 0);
    m_totals->setObjectName(QStringLiteral("totals"));
    m_totals->setTextInteractionFlags(Qt::TextSelectableByMouse);
    row->addWidget(m_totals, 1);
    row->addWidget(new QLabel(tr("Show"), box));
    m_showBox = new QComboBox(box);
    m_showBox->addItems({tr("All functions"), tr("Regressions (grew)"), tr("Improvements (shrank)")});
    row->addWidget(m_showBox);
    layout->addLayout(row);

    m_proxy->setSourceModel(m_model);
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

    connect(m_showBox, &QComboBox::activated, this, &CompareView::updateFilter);
    // A row selects its function when clicked or reached with the keys; not when the table merely gets
    // the focus (Qt makes the first row current then), which would zoom the charts unasked.
    auto selectRow = [this](const QModelIndex& index) {
        if (index.isValid())
            selectFunction(FrameId{static_cast<uint32_t>(
                index.siblingAtColumn(0).data(DiffFunctionModel::FrameRole).toULongLong())});
    };
    connect(m_table, &QTableView::clicked, this, selectRow);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this, selectRow](const QModelIndex& current) {
                if (m_tableKeyNavigation)
                    selectRow(current);
            });
    m_table->installEventFilter(this);
    return box;
}

void CompareView::setProfiles(std::shared_ptr<const Profile> before, std::shared_ptr<const Profile> after,
                              const QString& beforeName, const QString& afterName) {
    m_beforeProfile = std::move(before);
    m_afterProfile = std::move(after);
    m_beforeName = beforeName;
    m_afterName = afterName;
    m_titles[0]->setText(tr("Before: %1").arg(beforeName));
    m_titles[1]->setText(tr("After: %1").arg(afterName));
    rebuild();
}

void CompareView::setDiffOptions(const DiffOptions& options) {
    m_options = options;
    const QSignalBlocker a(m_normalizeBox), b(m_stripHexBox), c(m_modulesBox);
    m_modulesBox->setChecked(options.matchModules);
    m_normalizeBox->setChecked(options.normalize);
    m_stripHexBox->setChecked(options.stripHex);
    rebuild();
}

void CompareView::rebuild() {
    if (!m_beforeProfile || !m_afterProfile)
        return;
    const uint64_t generation = ++m_generation;
    m_ready = false;
    m_status->setText(tr("Comparing %1 with %2…").arg(m_beforeName, m_afterName));
    m_status->show();
    // the layout options as they will be then (the noise threshold depends on the new totals)
    DiffLayoutOptions layout;
    layout.width = m_width;
    layout.showMissing = m_showMissing;
    layout.metric = m_metric;
    QThreadPool::globalInstance()->start(
        [job = m_job, generation, before = m_beforeProfile, after = m_afterProfile, options = m_options,
         layout, noise = m_hideNoise ? std::optional<NoiseFloor>(m_noise) : std::nullopt] {
            auto built = std::make_shared<Built>();
            QString error;
            try {
                built->diff = std::make_shared<const Profile>(diffProfiles(*before, 0, *after, 0, options));
                built->functions = functionDeltas(*built->diff);
                built->layoutOptions = layout;
                built->layoutOptions.hideBelow = noise ? noise->threshold(built->diff->tree) : 0;
                built->layout = diffLayoutTree(built->diff->tree, built->layoutOptions);
            } catch (const std::bad_alloc&) {
                error = QStringLiteral("out of memory while comparing the profiles");
            } catch (const std::exception& e) {
                error = QString::fromUtf8(e.what());
            }
            if (!error.isEmpty())
                built.reset();
            std::lock_guard lock(job->mutex);
            if (CompareView* view = job->receiver)
                QMetaObject::invokeMethod(
                    view,
                    [view, generation, built = std::move(built), error] {
                        view->applyDiff(generation, built, error);
                    },
                    Qt::QueuedConnection);
        });
}

void CompareView::applyDiff(uint64_t generation, std::shared_ptr<Built> built, const QString& error) {
    if (generation != m_generation)
        return; // superseded by newer options
    if (!built) {
        m_status->setText(tr("Cannot compare: %1").arg(error));
        Q_EMIT failed(error);
        return;
    }
    m_status->hide();
    // Normalising changes costs only, so the tree keeps its shape and node ids: keep the zoom then.
    const bool sameShape = m_diff && m_diff->tree.size() == built->diff->tree.size() &&
                           m_builtStripHex == m_options.stripHex &&
                           m_builtMatchModules == m_options.matchModules;
    const NodeId zoom = sameShape ? m_zoomNode : kRootNode;
    m_builtStripHex = m_options.stripHex;
    m_builtMatchModules = m_options.matchModules;
    m_diff = built->diff;
    m_zoomNode = kRootNode;
    {
        const QScopedValueRollback guard(m_syncing, true);
        m_views[0]->setData(ChartData::fromProfile(m_diff, kBefore));
        m_views[1]->setData(ChartData::fromProfile(m_diff, kAfter));
        m_views[0]->setMinimumHeight(m_views[0]->chartHeight());
        m_views[1]->setMinimumHeight(m_views[1]->chartHeight());
    }
    // built for the options of the time; they may have changed since (widths, noise)
    relayoutDiff(built->layoutOptions == layoutOptions(m_diff->tree) ? std::move(built->layout)
                                                                     : std::nullopt);
    recolor();
    m_model->setDiff(m_diff, std::move(built->functions));
    updateFilter();
    for (int c = DiffFunctionModel::DeltaSelf; c < DiffFunctionModel::ColumnCount; ++c)
        m_table->resizeColumnToContents(c); // the function column stretches over the rest
    updateTotals();
    // options changed under the same two profiles keep the tree's shape, hence its node ids
    if (zoom != kRootNode && zoom < m_diff->tree.size())
        zoomAll(zoom);
    updateBreadcrumbs();
    updateNotices();
    scrollToRoot();
    if (!m_table->hasFocus() && !m_search->isAncestorOf(focusWidget()))
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
    FlameGraphView* v = m_views[2];
    const NodeId selected = v->selectedNode();
    {
        const QScopedValueRollback guard(m_syncing, true);
        v->setData(std::move(data));
        v->setMinimumHeight(v->chartHeight());
        if (selected != kRootNode)
            v->selectNode(selected);
    }
    if (m_zoomNode != kRootNode) { // keep the zoom (or its nearest ancestor that still has a width)
        const NodeId zoom = m_zoomNode;
        m_zoomNode = kRootNode;
        zoomAll(zoom);
    }
    updateNotices();
}

void CompareView::recolor() {
    const int64_t grey = m_hideNoise ? 0 : noiseThreshold();
    m_views[2]->setDiffColoring({m_metric, grey});
}

int64_t CompareView::noiseThreshold() const {
    return m_diff ? m_noise.threshold(m_diff->tree) : 0;
}

void CompareView::setMode(Mode mode) {
    m_mode = mode;
    m_stack->setCurrentIndex(mode == Mode::Differential ? 0 : 1);
    (mode == Mode::Differential ? m_diffMode : m_sideMode)->setChecked(true);
    m_widthBox->setEnabled(mode == Mode::Differential);
    m_missingBox->setEnabled(mode == Mode::Differential);
    if (!m_search->query().pattern.empty()) // the result line follows the shown chart
        primaryView()->setSearch(m_search->query());
    scrollToRoot();
}

void CompareView::setMetric(DiffMetric metric) {
    m_metric = metric;
    m_metricBox->setCurrentIndex(metric == DiffMetric::Self ? 1 : 0);
    m_table->sortByColumn(metric == DiffMetric::Self ? DiffFunctionModel::DeltaSelf
                                                     : DiffFunctionModel::DeltaTotal,
                          Qt::DescendingOrder);
    recolor();
    if (m_hideNoise)
        relayoutDiff();
    updateFilter();
}

void CompareView::setWidthBasis(DiffWidth width, bool showMissing) {
    m_width = width;
    m_showMissing = showMissing;
    const QSignalBlocker a(m_widthBox), b(m_missingBox);
    m_widthBox->setCurrentIndex(static_cast<int>(width));
    m_missingBox->setChecked(showMissing);
    m_missingBox->setText(width == DiffWidth::Before ? tr("Show added") : tr("Show removed"));
    m_missingBox->setEnabled(width != DiffWidth::Max && m_mode == Mode::Differential);
    relayoutDiff();
}

void CompareView::setNoiseFloor(NoiseFloor floor, bool hide) {
    m_noise = floor;
    m_hideNoise = hide;
    const int decimals = m_diff ? m_diff->costTypes[kAfter].decimals : 0;
    const QSignalBlocker a(m_noiseSamples), b(m_noisePercent), c(m_noiseMode);
    m_noiseSamples->setValue(
        static_cast<int>(std::min<int64_t>(floor.samples / pow10(decimals), 1000000000)));
    m_noisePercent->setValue(floor.percent);
    m_noiseMode->setCurrentIndex(hide ? 1 : 0);
    recolor();
    relayoutDiff();
    updateFilter();
}

void CompareView::setOrientation(FlameGraphView::Orientation orientation) {
    for (FlameGraphView* v : m_views)
        v->setOrientation(orientation);
    (orientation == FlameGraphView::Orientation::Flame ? m_flame : m_icicle)->setChecked(true);
    scrollToRoot();
}

FlameGraphView* CompareView::view(Side side) const {
    return m_views[static_cast<std::size_t>(side)];
}

QLabel* CompareView::notice(Side side) const {
    return m_notices[static_cast<std::size_t>(side)];
}

FlameGraphView* CompareView::primaryView() const {
    return m_mode == Mode::Differential ? m_views[2] : m_views[1];
}

} // namespace scorch
