// ProfileTab: one opened file. Shows a loading page while the import runs off the GUI thread, then the
// summary strip, the thread list, the flame graph and the call tree tables; or the error / cancel message.
#pragma once

#include "common/backgroundjob.h"
#include "scorch/chartdata.h"
#include "scorch/samples.h"

#include <QStyle>
#include <QWidget>

#include <memory>
#include <optional>

class QLabel;
class QPushButton;
class QSplitter;
class QStackedWidget;
class QTabWidget;

namespace scorch {

class CallTreeTables;
class DisassemblyView;
class FlameGraphPanel;
class ProfileLoader;
class SourceView;
class SandwichView;
class SummaryBar;
class SummaryPage;
class WarningBanner;
class ThreadList;
class TimelinePanel;

class ProfileTab final : public QWidget {
    Q_OBJECT
public:
    enum class State { Loading, Loaded, Failed, Cancelled };

    /// Starts loading `path` at once.
    explicit ProfileTab(const QString& path, QWidget* parent = nullptr);
    ~ProfileTab() override;

    QString path() const { return m_path; }
    /// The file name, for the tab title.
    QString title() const;
    State state() const { return m_state; }
    /// Loading progress in percent; -1 when the size is unknown.
    int progressPercent() const { return m_percent; }
    /// What the import is doing besides reading (e.g. a debuginfod transfer); empty when nothing special.
    QString loadingStatus() const { return m_loadingStatus; }
    /// The text of the loading / error / cancelled page.
    QString messageText() const;
    std::shared_ptr<const Profile> profile() const { return m_profile; }

    void cancelLoad();
    /// "Retry" on the page of a failed or cancelled load (hidden otherwise).
    QPushButton* retryButton() const { return m_retry; }

    FlameGraphPanel* panel() const { return m_panel; }
    CallTreeTables* tables() const { return m_tables; }
    SummaryBar* summary() const { return m_summary; }
    /// The serious warnings above the chart (hidden when there are none or they were dismissed).
    WarningBanner* warningBanner() const { return m_banner; }
    /// The Summary page (recording, duration, samples, events, threads, warnings, top functions).
    SummaryPage* summaryPage() const { return m_summaryPage; }
    /// The Flame Graph / Summary tabs of a loaded profile.
    QTabWidget* pages() const { return m_pages; }
    /// Shows the Summary page at its list of warnings.
    void showWarnings();
    ThreadList* threadList() const { return m_threads; }
    /// The timeline above the flame graph (or its "no timeline" note).
    TimelinePanel* timeline() const { return m_timeline; }
    /// The time range the chart and tables show (std::nullopt: the whole profile).
    std::optional<TimeRange> timeRange() const { return m_range; }
    /// The memory kept for the next time range's slice (mapped in once the profile is loaded and shown).
    std::shared_ptr<const SliceMemory> sliceMemory() const { return m_sliceMemory; }
    /// The source of the selected function, beside the tables (shown for profiles with line costs, or on
    /// "Show Source").
    SourceView* sourceView() const { return m_source; }
    /// The Disassembly tab beside Source (perf.data and Scorch recordings).
    DisassemblyView* disassemblyView() const { return m_disasm; }
    /// Source and Disassembly, the tabs beside the tables.
    QTabWidget* detailTabs() const { return m_detailTabs; }
    /// Shows the source panel with the function of `frame`.
    void showSource(FrameId frame);
    /// The function's source, and its instructions when the Disassembly tab is the current one.
    void showDetails(FrameId frame);
    /// The caller/callee sandwich, the chart's second tab ("Flame Graph", "Sandwich").
    SandwichView* sandwich() const { return m_sandwich; }
    QTabWidget* chartTabs() const { return m_chartTabs; }
    /// Shows the sandwich tab with the function of `frame`.
    void showSandwich(FrameId frame);

Q_SIGNALS:
    void stateChanged(scorch::ProfileTab::State state);
    void progressChanged(int percent);
    /// The call tree tables now show the chart's current data.
    void tablesUpdated();
    /// The Retry button of a failed or cancelled load (the main window reloads the tab).
    void retryRequested();
    /// Two time ranges of this profile re-aggregated for a comparison tab (TimelinePanel::compareRequested,
    /// with the thread subset shown); the labels name the file and the range ("fp.data [0.00 s – 1.00 s]").
    void comparisonReady(std::shared_ptr<const scorch::Profile> before, const QString& beforeLabel,
                         std::shared_ptr<const scorch::Profile> after, const QString& afterLabel);

private:
    QWidget* makeMessagePage();
    QWidget* makeContentPage();
    void showMessage(QStyle::StandardPixmap icon, const QString& text);
    void setState(State state);
    void onProgress(qint64 done, qint64 total);
    void onPartial(std::shared_ptr<const Profile> profile);
    void onLoaded(std::shared_ptr<const Profile> profile);
    void showProfile(std::shared_ptr<const Profile> profile);
    void onFailed(const QString& message);
    void onCancelled();
    void rebuildTables(std::shared_ptr<const ChartData> data);
    void setTimeRange(std::optional<TimeRange> range);
    void startSlice(TimeRange range);
    void dropSlices();
    void freeSliceMemory(); // drops the memory kept for slices (a new profile)
    void prepareSlices();   // maps in the slices' memory once the loaded profile is shown
    void compareRanges(TimeRange before, std::optional<TimeRange> after);
    void updateChartSizes();

    QString m_path;
    State m_state = State::Loading;
    int m_percent = 0;
    QString m_loadingStatus;
    std::shared_ptr<const Profile> m_profile;
    ProfileLoader* m_loader;
    BackgroundJob m_tableJob{this};    // the table rows of the newest chart data
    BackgroundJob m_bottomUpJob{this}; // the bottom-up tree, when its page is shown
    // chart data that arrived while a table build ran: built when that one is done (one build at a time)
    std::shared_ptr<const ChartData> m_pendingTables;
    BackgroundJob m_sliceJob{this}; // the profile of a time range
    bool m_sliceRunning = false;    // started and not yet delivered
    // the range asked for while a slice ran (a selection being dragged): sliced when that one is shown
    std::optional<TimeRange> m_pendingRange;
    // the arrays of the range shown before, for the next slice to reuse (fresh memory costs more than the
    // slice's own work on a VM); given to the kernel lazily a few seconds after the last slice or the range
    // cleared (m_sliceMemoryTimer, SliceMemory::release()), freed for a new profile and with the tab
    std::shared_ptr<SliceMemory> m_sliceMemory = std::make_shared<SliceMemory>();
    class QTimer* m_sliceMemoryTimer = nullptr;
    bool m_slicesPrepared = false; // prepareSlices() ran for this profile
    // the profile whose line and instruction costs the Source and Disassembly tabs show: the whole one, or
    // the time range's slice
    std::shared_ptr<const Profile> m_detailProfile;
    BackgroundJob m_compareJob{this}; // the two profiles of a comparison of time ranges
    std::optional<TimeRange> m_range;

    QStackedWidget* m_stack;
    QLabel* m_messageIcon = nullptr;
    QLabel* m_message = nullptr;
    QPushButton* m_retry = nullptr;
    QWidget* m_messagePage;
    SummaryBar* m_summary = nullptr;
    WarningBanner* m_banner = nullptr;
    SummaryPage* m_summaryPage = nullptr;
    QTabWidget* m_pages = nullptr;
    ThreadList* m_threads = nullptr;
    FlameGraphPanel* m_panel = nullptr;
    SandwichView* m_sandwich = nullptr;
    QTabWidget* m_chartTabs = nullptr;
    TimelinePanel* m_timeline = nullptr;
    CallTreeTables* m_tables = nullptr;
    SourceView* m_source = nullptr;
    DisassemblyView* m_disasm = nullptr;
    QTabWidget* m_detailTabs = nullptr;
    std::optional<FrameId> m_detailFrame; ///< the function the detail tabs show
    QSplitter* m_tableSplitter = nullptr;
    QSplitter* m_chartSplitter = nullptr;
    QSplitter* m_sideSplitter = nullptr;
    QWidget* m_contentPage;
};

} // namespace scorch
