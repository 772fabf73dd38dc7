#include "profiletab.h"

#include "symbolpaths.h"

#include "scorch/flamecolors.h"

#include "common/heaptrim.h"
#include "common/layoutfence.h"
#include "common/qtprofile.h"
#include "disasm/disassemblyview.h"
#include "flame/flamegraphpanel.h"
#include "loader.h"
#include "sandwich/sandwichview.h"
#include "selectionsync.h"
#include "source/sourceview.h"
#include "summarybar.h"
#include "summarypage.h"
#include "tables/calltreetables.h"
#include "tables/modeldata.h"
#include "threadlist.h"
#include "timeline/timelinepanel.h"
#include "timeline/timelineview.h"
#include "warningbanner.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>

#include <utility>

namespace scorch {

ProfileTab::ProfileTab(const QString& path, QWidget* parent)
    : QWidget(parent)
    , m_path(path)
    , m_loader(new ProfileLoader(this))
    , m_stack(new QStackedWidget(this))
    , m_messagePage(makeMessagePage())
    , m_contentPage(makeContentPage()) {
    m_stack->addWidget(m_messagePage);
    m_stack->addWidget(m_contentPage);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);
    // the memory kept for the next slice is given to the kernel lazily once no range has been sliced for a
    // while (SliceMemory::release(): it takes the pages when it needs them; until then the next drag writes
    // them again without mapping new memory, which on a VM can cost ten times more); freed for a new profile
    // and with the tab. (The range shown gives its arrays back when it is replaced.)
    m_sliceMemoryTimer = new QTimer(this);
    m_sliceMemoryTimer->setSingleShot(true);
    m_sliceMemoryTimer->setInterval(3000);
    connect(m_sliceMemoryTimer, &QTimer::timeout, this,
            [this] { backgroundPool()->start([memory = m_sliceMemory] { memory->release(); }); });
    showMessage(QStyle::SP_BrowserReload, tr("Loading %1…").arg(QFileInfo(path).fileName()));

    connect(m_loader, &ProfileLoader::progress, this, &ProfileTab::onProgress);
    connect(m_loader, &ProfileLoader::status, this, [this](const QString& text) {
        m_loadingStatus = text;
        Q_EMIT progressChanged(m_percent);
    });
    connect(m_loader, &ProfileLoader::partial, this, &ProfileTab::onPartial);
    connect(m_loader, &ProfileLoader::loaded, this, &ProfileTab::onLoaded);
    connect(m_loader, &ProfileLoader::failed, this, &ProfileTab::onFailed);
    connect(m_loader, &ProfileLoader::cancelled, this, &ProfileTab::onCancelled);
    m_loader->start(path);
}

ProfileTab::~ProfileTab() = default;

QWidget* ProfileTab::makeMessagePage() {
    auto* page = new QWidget(this);
    m_messageIcon = new QLabel(page);
    m_message = new QLabel(page);
    m_message->setWordWrap(true);
    m_message->setTextFormat(Qt::PlainText);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_message->setMaximumWidth(800);
    auto* row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(m_messageIcon, 0, Qt::AlignTop);
    row->addWidget(m_message, 1);
    row->addStretch(1);
    m_retry = new QPushButton(tr("&Retry"), page);
    m_retry->setToolTip(tr("Load the file again (F5)"));
    m_retry->hide();
    connect(m_retry, &QPushButton::clicked, this, &ProfileTab::retryRequested);
    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_retry);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(page);
    layout->addStretch(1);
    layout->addLayout(row);
    layout->addLayout(buttons);
    layout->addStretch(2);
    return page;
}

QWidget* ProfileTab::makeContentPage() {
    auto* page = new QWidget(this);
    m_summary = new SummaryBar(page);
    m_banner = new WarningBanner(page);
    m_summaryPage = new SummaryPage(page);
    m_threads = new ThreadList(page);
    m_panel = new FlameGraphPanel(page);
    m_sandwich = new SandwichView(page);
    m_timeline = new TimelinePanel(page);
    m_tables = new CallTreeTables(page);
    m_source = new SourceView(page);
    m_source->setDebuginfodUrls(loadSymbolPaths().debuginfod); // sources by build-id, as the binaries
    m_disasm = new DisassemblyView(page);
    // Source and Disassembly share the place beside the tables, hidden when the profile has neither
    m_detailTabs = new QTabWidget(page);
    m_detailTabs->setObjectName(QStringLiteral("detailTabs"));
    m_detailTabs->setDocumentMode(true);
    m_detailTabs->addTab(m_source, tr("Source"));
    m_detailTabs->addTab(m_disasm, tr("Disassembly"));
    m_detailTabs->setTabToolTip(1, tr("The selected function's instructions with the samples at each"));
    m_detailTabs->setMinimumSize(240, 80);
    m_detailTabs->setVisible(false);

    // Explicit minimums: a child's wide minimum size hint (a long breadcrumb path) must not push the
    // splitter, and with it the window, wider than the screen.
    m_panel->setMinimumSize(240, 120);
    m_tables->setMinimumSize(240, 80);
    m_threads->setMinimumWidth(120);
    m_chartSplitter = new QSplitter(Qt::Vertical, page);
    m_chartSplitter->addWidget(m_timeline);
    m_chartSplitter->setCollapsible(0, false);
    // The flame graph and the sandwich of one function share the chart's place, one tab each.
    m_chartTabs = new QTabWidget(page);
    m_chartTabs->setObjectName(QStringLiteral("chartTabs"));
    m_chartTabs->setDocumentMode(true);
    m_chartTabs->addTab(m_panel, tr("Flame Graph"));
    m_chartTabs->addTab(m_sandwich, tr("Sandwich"));
    m_chartTabs->setTabToolTip(1, tr("Callers and callees of one function over all its call sites"));
    m_chartTabs->setMinimumSize(240, 120);
    m_chartSplitter->addWidget(m_chartTabs);
    m_tableSplitter = new QSplitter(Qt::Horizontal, page);
    m_tableSplitter->addWidget(m_tables);
    m_tableSplitter->addWidget(m_detailTabs);
    // The tables keep most of the width: the source panel is empty until a function is picked.
    m_tableSplitter->setStretchFactor(0, 2);
    m_tableSplitter->setStretchFactor(1, 1);
    m_tableSplitter->setSizes({700, 300});
    m_chartSplitter->addWidget(m_tableSplitter);
    m_chartSplitter->setStretchFactor(0, 0);
    m_chartSplitter->setStretchFactor(1, 3);
    m_chartSplitter->setStretchFactor(2, 2);
    // Scaled to the real height: the chart gets most, the timeline its preferred height.
    m_chartSplitter->setSizes({m_timeline->sizeHint().height(), 600, 400});
    m_sideSplitter = new QSplitter(Qt::Horizontal, page);
    m_sideSplitter->addWidget(m_threads);
    m_sideSplitter->addWidget(m_chartSplitter);
    m_sideSplitter->setStretchFactor(1, 1);
    m_sideSplitter->setSizes({280, 1220});

    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    // (fenced: their texts change with each time range shown, see LayoutFence)
    layout->addWidget(new LayoutFence(m_summary, page));
    layout->addWidget(new LayoutFence(m_banner, page));
    m_pages = new QTabWidget(page);
    m_pages->setDocumentMode(true);
    m_pages->addTab(m_sideSplitter, tr("&Profile")); // threads, timeline, flame graph or sandwich, tables
    m_pages->addTab(m_summaryPage, tr("S&ummary"));
    m_pages->setTabToolTip(1, tr("What was recorded: command line, host, duration, samples, events, threads, "
                                 "warnings and the top functions"));
    layout->addWidget(m_pages, 1);
    connect(m_banner, &WarningBanner::detailsRequested, this, &ProfileTab::showWarnings);
    connect(m_summary, &SummaryBar::warningsRequested, this, &ProfileTab::showWarnings);

    auto* sync = new SelectionSync(m_panel->view(), m_tables, page);
    connect(sync, &SelectionSync::frameSelected, this, [this](FrameId frame) {
        m_timeline->view()->setHighlightFrame(frame);
        if (m_detailTabs->isVisible())
            showDetails(frame);
        if (m_chartTabs->currentWidget() == m_sandwich) // a table row picks the sandwich's function
            m_sandwich->showFunction(frame);
    });
    connect(m_panel->view(), &FlameGraphView::sandwichRequested, this, &ProfileTab::showSandwich);
    connect(m_tables, &CallTreeTables::sandwichRequested, this, &ProfileTab::showSandwich);
    connect(m_sandwich, &SandwichView::sourceRequested, this, &ProfileTab::showSource);
    connect(m_panel, &FlameGraphPanel::dataChanged, m_sandwich, &SandwichView::setData);
    connect(m_panel->view(), &FlameGraphView::sourceRequested, this, &ProfileTab::showSource);
    connect(m_tables, &CallTreeTables::sourceRequested, this, &ProfileTab::showSource);
    connect(m_summary, &SummaryBar::costTypeChanged, m_panel, &FlameGraphPanel::setCostType);
    connect(m_summary, &SummaryBar::costTypeChanged, this, [this](std::size_t costType) {
        m_source->setProfile(m_detailProfile, costType);
        m_disasm->setProfile(m_detailProfile, costType);
    });
    connect(m_detailTabs, &QTabWidget::currentChanged, this, [this] {
        if (m_detailTabs->currentWidget() != m_disasm)
            return;
        // instructions, their costs and source lines want room: at least half of the width beside the tables
        const QList<int> sizes = m_tableSplitter->sizes();
        const int total = sizes.value(0) + sizes.value(1);
        if (sizes.value(1) < total / 2)
            m_tableSplitter->setSizes({total - total / 2, total / 2});
        m_disasm->setSourceConfig(m_source->locatorConfig());
        if (m_detailFrame)
            m_disasm->showFrame(*m_detailFrame); // computed when looked at
    });
    connect(m_threads, &ThreadList::threadsChanged, m_panel, &FlameGraphPanel::setThreads);
    connect(m_threads, &ThreadList::threadsChanged, m_timeline, &TimelinePanel::setThreads);
    connect(m_timeline, &TimelinePanel::threadClicked, m_threads, &ThreadList::toggleOnly);
    connect(m_timeline, &TimelinePanel::rangeChanged, this, &ProfileTab::setTimeRange);
    connect(m_timeline, &TimelinePanel::compareRequested, this, &ProfileTab::compareRanges);
    connect(m_panel, &FlameGraphPanel::dataChanged, this, &ProfileTab::rebuildTables);
    connect(m_tables, &CallTreeTables::bottomUpWanted, this, [this](std::shared_ptr<const ChartData> chart) {
        m_bottomUpJob.start(
            [chart](const JobContext& job) { return TreeTableData::bottomUp(chart, job.cancelFlag()); },
            [this](std::shared_ptr<const TreeTableData> tree) {
                if (tree)
                    m_tables->setBottomUp(std::move(tree));
            });
    });
    return page;
}

QString ProfileTab::title() const {
    return displayText(QFileInfo(m_path).fileName()); // a file name may hold a newline or ESC too
}

QString ProfileTab::messageText() const {
    return m_message->text();
}

void ProfileTab::showMessage(QStyle::StandardPixmap icon, const QString& text) {
    m_messageIcon->setPixmap(style()->standardIcon(icon).pixmap(48, 48));
    m_message->setText(text);
    m_stack->setCurrentWidget(m_messagePage);
}

void ProfileTab::setState(State state) {
    m_state = state;
    m_retry->setVisible(state == State::Failed || state == State::Cancelled);
    Q_EMIT stateChanged(state);
}

void ProfileTab::cancelLoad() {
    if (m_state == State::Loading)
        m_loader->cancel();
}

void ProfileTab::onProgress(qint64 done, qint64 total) {
    const int percent = total > 0 ? static_cast<int>(std::min<qint64>(100, done * 100 / total)) : -1;
    if (percent == m_percent)
        return;
    m_percent = percent;
    Q_EMIT progressChanged(percent);
}

void ProfileTab::onPartial(std::shared_ptr<const Profile> profile) {
    // Progressive loading: the flame graph of what was read so far, replaced as more arrives and at the end.
    if (m_state == State::Loading)
        showProfile(std::move(profile));
}

void ProfileTab::onLoaded(std::shared_ptr<const Profile> profile) {
    showProfile(std::move(profile));
    setState(State::Loaded);
}

void ProfileTab::showProfile(std::shared_ptr<const Profile> profile) {
    Q_ASSERT(QThread::currentThread() == thread());
    m_profile = std::move(profile);
    m_detailFrame.reset();
    m_summary->setProfile(*m_profile);
    m_banner->setMeta(m_profile->meta);
    m_summaryPage->setProfile(m_profile);
    m_threads->setProfile(*m_profile);
    m_threads->setVisible(m_profile->threads.size() > 1);
    if (m_profile->threads.size() > 1) { // thread names in full, up to a third of the width
        const int total = std::max({m_sideSplitter->width(), window()->width() - 20, 900});
        const int side = std::min(m_threads->preferredWidth(), total / 3);
        m_sideSplitter->setSizes({side, total - side});
    }
    m_stack->setCurrentWidget(m_contentPage);
    m_detailProfile = m_profile;
    m_source->setProfile(m_profile);
    bool sourceInfo = m_profile->lineCosts.size() > 0; // or frames that know their file (speedscope, Chrome)
    for (uint32_t f = 1; !sourceInfo && f < m_profile->frames.size(); ++f)
        sourceInfo = bool(m_profile->frames[FrameId{f}].file);
    m_disasm->setProfile(m_profile);
    const bool instructions = m_profile->addressCosts.size() > 0;
    m_detailTabs->setTabVisible(1, instructions);
    m_detailTabs->setTabVisible(0, sourceInfo || !instructions);
    m_detailTabs->setVisible(sourceInfo || instructions);
    dropSlices();
    freeSliceMemory();
    m_slicesPrepared = false;
    m_range.reset();
    m_panel->setProfile(m_profile); // emits dataChanged -> summary total and tables
    // an off-CPU profile opens drawn by wall time: the hot/cold chart of on- and off-CPU time together
    std::size_t offType = 0, wallType = 0;
    if (FlameColors::offCpuTypes(*m_profile, offType, wallType)) {
        m_panel->setCostType(wallType);
        m_source->setProfile(m_profile, wallType);
        m_disasm->setProfile(m_profile, wallType);
    }
    m_timeline->setProfile(m_profile);
    updateChartSizes();
}

void ProfileTab::updateChartSizes() {
    // The timeline gets its preferred height (a few lanes, or the one-line note) but at most 30 % of the
    // height, so that on a small screen (1024x700) the chart is not squeezed to a few rows; the chart and
    // the tables share the rest 3:2.
    const QList<int> sizes = m_chartSplitter->sizes();
    int total = 0;
    for (int s : sizes)
        total += s;
    if (total <= 0)
        total = 1000;
    const int preferred = std::min(m_timeline->sizeHint().height(), m_timeline->maximumHeight());
    const int timeline =
        std::max(std::min(preferred, total * 3 / 10), m_timeline->minimumSizeHint().height());
    const int rest = std::max(0, total - timeline);
    m_chartSplitter->setSizes({timeline, rest * 3 / 5, rest - rest * 3 / 5});
}

namespace {
/// The profile of the samples `request` selects; null when it was cancelled. With `memory`, the slice reuses
/// the arrays kept there (request.memory) and the profile gives its own back when it is let go of.
std::shared_ptr<const Profile> slicedProfile(const Profile& profile, SliceRequest request,
                                             std::shared_ptr<SliceMemory> memory = nullptr) {
    request.memory = memory.get();
    std::optional<TimeSlice> slice = sliceSamples(profile, request);
    if (!slice)
        return nullptr;
    if (memory)
        return sliceProfile(profile, std::move(*slice), std::move(memory));
    return std::make_shared<const Profile>(sliceProfile(profile, std::move(*slice)));
}
} // namespace

void ProfileTab::setTimeRange(std::optional<TimeRange> range) {
    if (!m_profile || (!range && !m_range))
        return; // already the whole profile (a new profile clears the range before the timeline does)
    m_range = range;
    if (!range || !m_profile->samples) {
        dropSlices();
        m_sliceMemoryTimer->start(); // (the range shown gives its arrays back below)
        m_panel->replaceProfile(m_profile);
        m_detailProfile = m_profile;
        m_source->setCosts(m_profile);
        m_disasm->setCosts(m_profile, false);
        return;
    }
    // While a range is re-aggregated, the newest range asked for waits for it and those before are skipped:
    // a selection being dragged is shown as fast as ranges can be sliced (about ten a second for fp-large),
    // and the last one shown is the newest. (Cancelling the running slice for each move of the mouse, every
    // slice taking longer than a move, showed none until the mouse stopped.)
    if (m_sliceRunning) {
        m_pendingRange = range;
        return;
    }
    startSlice(*range);
}

void ProfileTab::dropSlices() {
    m_sliceJob.drop();
    m_sliceRunning = false;
    m_pendingRange.reset();
}

void ProfileTab::freeSliceMemory() {
    m_sliceMemoryTimer->stop();
    // (a slice still shown gives its arrays to the old memory when it is let go of, which then frees them)
    backgroundPool()->start(
        [memory = std::exchange(m_sliceMemory, std::make_shared<SliceMemory>())] { memory->clear(); });
}

void ProfileTab::prepareSlices() {
    // Once the loaded profile is shown with its tables, the memory of its ranges is mapped in ahead of the
    // first one (SliceMemory::prepare(): a slice of everything, on one core at low priority); a range asked
    // for meanwhile cancels it (startSlice() replaces the job). Its pages are given back lazily: they count
    // in the RSS until the kernel needs them (fp-large: 400 MB), so not where they would take more than a
    // quarter of the memory available. SCORCH_NO_SLICE_PREPARE=1 leaves it out (A/B in bench_responsiveness).
    static const bool off = qEnvironmentVariableIntValue("SCORCH_NO_SLICE_PREPARE") != 0;
    const std::shared_ptr<const TableData> tables = m_tables->tableData();
    if (off || m_slicesPrepared || m_state != State::Loaded || !m_profile->samples || m_range ||
        m_sliceRunning || !tables || tables->chart->profile != m_profile)
        return;
    m_slicesPrepared = true;
    if (SliceMemory::preparedBytes(*m_profile) > availableMemoryBytes() / 4)
        return;
    m_sliceJob.start([profile = m_profile, memory = m_sliceMemory](
                         const JobContext& job) { return memory->prepare(*profile, job.cancelFlag()); },
                     [](bool) {});
}

void ProfileTab::startSlice(TimeRange range) {
    // Re-aggregating a range walks its samples: off the GUI thread.
    m_sliceRunning = true;
    m_sliceMemoryTimer->stop();
    m_sliceJob.start(
        [profile = m_profile, range, memory = m_sliceMemory](const JobContext& job) {
            SliceRequest request;
            request.range = range;
            request.cancel = job.cancelFlag();
            request.details = true;   // the range's source lines and instructions too, where kept
            request.functions = true; // and its per-function costs (the Functions table)
            return slicedProfile(*profile, request, memory);
        },
        [this](std::shared_ptr<const Profile> slice) {
            m_sliceRunning = false;
            m_sliceMemoryTimer->start();
            if (slice) {
                m_panel->replaceProfile(slice);
                if (hasSliceDetails(*m_profile)) { // else the tabs keep the whole profile's costs
                    std::shared_ptr<const Profile> old = std::exchange(m_detailProfile, slice);
                    m_source->setCosts(slice);
                    m_disasm->setCosts(slice, true);
                    releaseInBackground(std::move(old)); // (the range shown before, when nothing holds it)
                }
            }
            if (const std::optional<TimeRange> next = std::exchange(m_pendingRange, std::nullopt))
                startSlice(*next);
        });
}

void ProfileTab::compareRanges(TimeRange before, std::optional<TimeRange> after) {
    if (!m_profile || !m_profile->samples)
        return;
    // "fp.data [0.00 s – 1.00 s]", "fp.data [rest]"; with ", 2 of 5 threads" when a subset is shown
    const std::vector<uint32_t> threads = m_threads->selectedThreads();
    const QString subset = threads.empty()
                               ? QString()
                               : tr(", %1 of %2 threads").arg(threads.size()).arg(m_profile->threads.size());
    const QString name = QFileInfo(m_path).fileName();
    const QString beforeLabel = QStringLiteral("%1 [%2%3]").arg(name, formatTimelineRange(before), subset);
    const QString afterLabel =
        QStringLiteral("%1 [%2%3]")
            .arg(name, after ? formatTimelineRange(*after) : tr("rest of the recording"), subset);
    using Pair = std::pair<std::shared_ptr<const Profile>, std::shared_ptr<const Profile>>;
    m_compareJob.start(
        [profile = m_profile, before, after, threads](const JobContext& job) -> Pair {
            const auto slice = [&](TimeRange range, bool outside) {
                SliceRequest request;
                request.range = range;
                request.outside = outside;
                request.threads = threads;
                request.cancel = job.cancelFlag();
                return slicedProfile(*profile, request);
            };
            std::shared_ptr<const Profile> a = slice(before, false);
            std::shared_ptr<const Profile> b = a ? slice(after.value_or(before), !after) : nullptr;
            return {std::move(a), std::move(b)};
        },
        [this, beforeLabel, afterLabel](Pair profiles) {
            if (profiles.first && profiles.second)
                Q_EMIT comparisonReady(std::move(profiles.first), beforeLabel, std::move(profiles.second),
                                       afterLabel);
        });
}

void ProfileTab::showSource(FrameId frame) {
    if (!m_profile)
        return;
    m_detailTabs->setVisible(true);
    m_detailTabs->setTabVisible(0, true);
    m_detailTabs->setCurrentWidget(m_source);
    showDetails(frame);
}

void ProfileTab::showDetails(FrameId frame) {
    m_detailFrame = frame;
    m_source->showFrame(frame);
    if (m_detailTabs->currentWidget() == m_disasm)
        m_disasm->showFrame(frame);
}

void ProfileTab::showSandwich(FrameId frame) {
    if (!m_profile)
        return;
    m_chartTabs->setCurrentWidget(m_sandwich);
    m_sandwich->showFunction(frame);
}

void ProfileTab::showWarnings() {
    m_pages->setCurrentWidget(m_summaryPage);
    m_summaryPage->showWarnings();
}

void ProfileTab::onFailed(const QString& message) {
    showMessage(QStyle::SP_MessageBoxCritical, tr("Could not load %1\n\n%2").arg(m_path, message));
    setState(State::Failed);
}

void ProfileTab::onCancelled() {
    showMessage(QStyle::SP_MessageBoxInformation, tr("Loading cancelled: %1").arg(m_path));
    setState(State::Cancelled);
}

void ProfileTab::rebuildTables(std::shared_ptr<const ChartData> data) {
    Q_ASSERT(QThread::currentThread() == thread());
    if (data)
        m_summary->setData(*data);
    if (!data) {
        m_tableJob.drop();
        m_bottomUpJob.drop();
        m_pendingTables.reset();
        m_tables->setTableData(nullptr);
        return;
    }
    // Inverting the tree and summing functions can take a while on big profiles: off the GUI thread, one
    // build at a time. While a big file loads, the partial snapshots' chart data waits for the running build
    // and only the newest is built next, so that the tables show the file read so far (starting a build
    // per snapshot left the older ones running beside the newest, and on 2 cores they starved the GUI
    // thread: a 10.7 s pause loading fp-large). Once loaded, newer chart data (a time range being dragged,
    // another thread subset) cancels the running build, which stops within milliseconds: its tables would
    // be of a chart no longer shown.
    if (m_tableJob.isRunning() && m_state == State::Loading) {
        m_pendingTables = std::move(data);
        return;
    }
    m_pendingTables.reset();
    m_bottomUpJob.drop();                            // (of the chart these tables replace)
    const bool bottomUp = m_tables->bottomUpShown(); // (otherwise built when its page is shown)
    m_tableJob.start(
        [data, bottomUp](const JobContext& job) {
            return TableData::build(data, job.cancelFlag(), bottomUp);
        },
        [this](std::shared_ptr<const TableData> tables) {
            if (!tables)
                return; // (cancelled: a newer build runs)
            m_tables->setTableData(std::move(tables));
            if (std::shared_ptr<const ChartData> next = std::move(m_pendingTables)) {
                rebuildTables(std::move(next)); // the tables show the older data meanwhile
                return;
            }
            prepareSlices();
            Q_EMIT tablesUpdated();
        });
}

} // namespace scorch
