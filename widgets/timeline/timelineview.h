// TimelineView: the time dimension of a profile drawn as one lane per thread (busiest first) under a time
// axis: samples per pixel-wide time bucket (scorch/samples.h activitySeries, computed off the GUI thread for
// the visible range and width), the selected function's on-stack periods over it (onStackSeries), and a
// dragged time-range selection. Double-click zooms into the selection (or back out); Esc clears the
// selection, then the zoom; Ctrl+wheel zooms around the mouse; a click on a lane's label asks to show only
// that thread.
#pragma once

#include "common/backgroundjob.h"
#include "scorch/frames.h"
#include "scorch/samples.h"

#include <QPixmap>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

class QScrollBar;

namespace scorch {

/// `ns` as text with a unit chosen for `resolutionNs` (the smallest difference that matters): "1.25 s",
/// "120 ms", "35.5 µs", "800 ns".
QString formatTimelineTime(int64_t ns, int64_t resolutionNs);
/// "0.52 s – 1.30 s": a range with one resolution for both ends (a hundredth of its length).
QString formatTimelineRange(TimeRange range);

/// A thread as the timeline names it: "name (tid)", "(unnamed)" without a name.
QString threadName(const Profile& profile, uint32_t thread);
QString threadLabel(const Profile& profile, uint32_t thread);

class TimelineView final : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);
    ~TimelineView() override;

    /// Shows `profile`'s samples (none when it has no sample store): whole time span, no selection, no
    /// highlight, every thread.
    void setProfile(std::shared_ptr<const Profile> profile);
    bool hasTimeline() const;
    const std::shared_ptr<const Profile>& profile() const { return m_profile; }
    /// The thread filter (indexes into Profile::threads; empty = all): other lanes are drawn dimmed.
    void setThreads(std::vector<uint32_t> threads);
    /// Highlights when `frame` was on the stack; FrameId{} clears it.
    void setHighlightFrame(FrameId frame);
    FrameId highlightFrame() const { return m_highlight; }

    /// A range marked as the baseline of a comparison: drawn as a grey band labelled "Baseline".
    void setBaseline(std::optional<TimeRange> range);
    std::optional<TimeRange> baseline() const { return m_baseline; }

    /// The selected time range (ns since the first sample), if any.
    std::optional<TimeRange> selection() const { return m_selection; }
    /// Emits selectionChanged when it differs.
    void setSelection(std::optional<TimeRange> range);
    /// The time span shown, [begin, end).
    TimeRange visibleRange() const { return m_visible; }
    void zoomTo(TimeRange range);
    void resetZoom();
    bool zoomed() const;

    /// Geometry, also for tests: the plot area (right of the labels, below the axis), the x of a time
    /// and the time at an x, the row of a thread's lane (label included; empty when scrolled out of view).
    QRect plotRect() const;
    int timeToX(int64_t t) const;
    /// The same within `plot` (plotRect(), which measures every lane label: a paint passes its own).
    int timeToX(int64_t t, const QRect& plot) const;
    int64_t xToTime(int x) const;
    QRect laneRect(uint32_t thread) const;
    QRect labelRect(uint32_t thread) const;
    /// The lanes' threads, top to bottom (the threads of collapsed processes left out).
    const std::vector<uint32_t>& lanes() const { return m_lanes; }
    /// How often the lanes and the axis were painted (into their cache), for tests.
    int lanesPainted() const { return m_lanesPainted; }
    /// The axis's ticks as painted (also for tests): each tick's x, and its label's text and rectangle when
    /// the whole label fits before the axis ends (else the tick stays unlabelled: never a clipped label).
    struct AxisTick {
        int x;
        QString label; ///< empty when unlabelled
        QRect labelRect;
    };
    std::vector<AxisTick> axisTicks() const { return axisTicks(plotRect()); }
    /// The same within `plot` (as timeToX(t, plot)).
    std::vector<AxisTick> axisTicks(const QRect& plot) const;

    /// Profiles of several processes (perf record -a): the threads are grouped by process, busiest first;
    /// a process with more than one thread has a header row (its threads' activity summed) whose label
    /// collapses or expands it. Processes of one thread, and profiles of one process, have no header.
    /// The processes with a header, top to bottom (their pids).
    std::vector<int64_t> groupedProcesses() const;
    bool processCollapsed(int64_t pid) const;
    void setProcessCollapsed(int64_t pid, bool collapsed);
    /// The header row of a process (empty when it has none or it is scrolled out of view).
    QRect processRect(int64_t pid) const;
    /// A header's label ("▾ name (pid)", elided; its tooltip counts the threads) and its summed activity as
    /// drawn.
    QString processLabel(int64_t pid) const;
    std::vector<uint32_t> processActivity(int64_t pid) const;
    /// The elided label drawn for a thread, and its tooltip (full name, ids, samples; HTML-escaped).
    QString laneLabel(uint32_t thread) const;
    QString laneToolTip(uint32_t thread) const;

    /// The activity drawn now matches the visible range and width (no computation pending).
    bool activityCurrent() const;
    /// The on-stack series drawn now matches the highlight frame, visible range and width.
    bool highlightCurrent() const;
    /// Samples per bucket (one bucket per plot pixel) of a lane, as drawn; empty before it is computed.
    std::vector<uint32_t> activityOf(uint32_t thread) const;
    std::vector<uint32_t> highlightOf(uint32_t thread) const;
    /// Off-CPU profiles: the thousandths of each bucket the lane's thread spent off the CPU (drawn as a blue
    /// band behind the samples, unlike stretches without samples); empty for other profiles.
    std::vector<uint32_t> offCpuOf(uint32_t thread) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void selectionChanged(std::optional<scorch::TimeRange> range);
    void threadClicked(uint32_t thread);
    void visibleRangeChanged(scorch::TimeRange range);
    /// A computed series arrived and is drawn.
    void activityUpdated();
    void highlightUpdated();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    bool event(QEvent* event) override;

private:
    static constexpr int kMinDragPixels = 3; ///< a shorter drag is a click
    static constexpr int kGroupIndent = 14;  ///< a grouped thread's label, right of its process's arrow
    /// A row of the lanes: a thread, or the header of a process group (index into m_groups).
    struct Row {
        bool header = false;
        uint32_t index = 0;
    };
    struct Group {
        int64_t pid = -1;
        QString name;
        std::vector<uint32_t> threads; // busiest first
        uint64_t samples = 0;
        bool collapsed = false;
    };
    struct Series {
        TimeRange range;
        std::size_t buckets = 0;
        FrameId frame;
        std::vector<uint32_t> lanes; // the lanes' threads when computed
        std::vector<std::vector<uint32_t>> counts;
        std::vector<std::vector<uint32_t>> offCpu; // activity of off-CPU profiles: thousandths off the CPU
    };
    /// The series of `thread` in `series` (one of s's columns), by its position in s.lanes; null if none.
    static const std::vector<uint32_t>*
    seriesOf(const Series& s, const std::vector<std::vector<uint32_t>>& series, uint32_t thread);
    int axisHeight() const;
    int laneHeight() const;
    int labelWidth() const;
    int visibleLaneCount() const;
    int rowAt(QPoint pos) const; // index into m_rows, or -1
    int rowOfThread(uint32_t thread) const;
    int rowOfGroup(int64_t pid) const;
    QRect rowRect(int row) const; // empty when scrolled out of view
    void rebuildRows();
    QString groupLabel(const Group& g) const;
    QString elidedHeader(const QString& label, int labelWidth) const; ///< bold, to the label column
    QString elidedLane(uint32_t thread, int labelWidth) const;        ///< laneLabel for that column width
    bool hasHeaders() const;                                          ///< some process has a header row
    QString groupToolTip(const Group& g) const;
    /// A group's series summed over its threads.
    std::vector<uint32_t> groupSum(const Series& s, const std::vector<std::vector<uint32_t>>& series,
                                   const Group& g) const;
    QString threadName(uint32_t thread) const; ///< the name, or "(unnamed)"
    QString fullLabel(uint32_t thread) const;  ///< "name (tid)" before eliding
    void updateScrollBar();
    void scheduleSeries();
    void computeSeries();
    int64_t clampTime(int64_t t) const;
    bool seriesMatches(const Series& s, FrameId frame) const;
    void paintAxis(QPainter& p);
    void paintLanes(QPainter& p);
    /// The lanes and the axis changed: painted again into the cache at the next paint.
    void lanesChanged() { ++m_lanesGeneration; }

    std::shared_ptr<const Profile> m_profile;
    std::vector<uint32_t> m_lanes;   // the threads of the thread rows, top to bottom
    std::vector<uint32_t> m_threads; // every thread with samples, in group order: the series' threads
    std::vector<Group> m_groups;
    std::vector<Row> m_rows;
    mutable int m_widestLabel = -1; // labelWidth()'s measure of the rows' labels; -1: to measure
    std::vector<bool> m_inFilter;   // per profile thread
    int64_t m_span = 1;             // [0, m_span) holds every sample
    TimeRange m_visible{0, 1};
    std::optional<TimeRange> m_selection, m_baseline;
    FrameId m_highlight;
    Series m_activity, m_onStack;
    bool m_seriesScheduled = false;
    std::optional<int> m_dragStartX;
    int m_dragX = 0;
    QScrollBar* m_scroll;
    BackgroundJob m_activityJob{this};
    BackgroundJob m_highlightJob{this};
    // The lanes and the axis as last painted, drawn again only when they change: a selection being dragged
    // repaints the view at every mouse move, and painting fp-large's lanes took 4-6 ms of the GUI thread.
    struct LanesKey {
        uint64_t generation = 0; // of lanesChanged()
        QSize size;
        qreal pixelRatio = 1;
        int scroll = 0;
        qint64 palette = 0;
        bool active = false; // (the palette's colour group)
        QString font;
        bool operator==(const LanesKey&) const = default;
    };
    uint64_t m_lanesGeneration = 1;
    LanesKey m_lanesKey;
    QPixmap m_lanesImage;
    int m_lanesPainted = 0;
};

} // namespace scorch
