// The stack chart: a thread's stacks in time order (x = time, y = stack depth, root at the top), like the
// Firefox Profiler's stack chart and speedscope's "time order"; several threads are drawn stacked, a band of
// rows each. stackBoxes() turns a thread's samples in a time range into boxes, stackedBoxes() several
// threads' into bands (plain C++, run off the GUI thread); StackChartView draws them under the timeline's
// axis and follows its visible range.
#pragma once

#include "common/backgroundjob.h"
#include "scorch/samples.h"

#include <QWidget>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace scorch {

/// A node of the profile's tree on the stack of consecutive samples of one thread, from `begin` to `end`.
struct StackBox {
    int64_t begin = 0, end = 0; ///< ns since the first sample
    NodeId node = kRootNode;
    uint32_t row = 0; ///< depth below the root (the root's children are row 0)
};

/// The boxes of `thread`'s samples in `range`. A sample lasts until the next sample of the thread, but at
/// most twice the median interval between the thread's samples (a longer gap is idle time); a node on
/// the stack of consecutive samples is one box. std::nullopt when cancelled.
std::optional<std::vector<StackBox>> stackBoxes(const Profile& profile, uint32_t thread, TimeRange range,
                                                const std::atomic<bool>* cancel = nullptr);

/// One thread's rows in a stack chart of several: its boxes' rows are [firstRow, firstRow + rows).
struct StackBand {
    uint32_t thread = 0;
    uint32_t firstRow = 0, rows = 1;
};
struct StackedBoxes {
    std::vector<StackBox> boxes; ///< sorted by row, then time
    std::vector<StackBand> bands;
};
/// The boxes of each of `threads` in `range`, a band of rows per thread in the order given, one below the
/// other (a thread without samples there keeps one empty row). std::nullopt when cancelled.
std::optional<StackedBoxes> stackedBoxes(const Profile& profile, const std::vector<uint32_t>& threads,
                                         TimeRange range, const std::atomic<bool>* cancel = nullptr);

class StackChartView final : public QWidget {
    Q_OBJECT
public:
    explicit StackChartView(QWidget* parent = nullptr);

    void setProfile(std::shared_ptr<const Profile> profile);
    /// One thread's stacks.
    void setThread(uint32_t thread);
    /// These threads' stacks, a band each, in this order (one thread: as setThread; none: unchanged).
    void setThreads(std::vector<uint32_t> threads);
    /// The (first) thread drawn.
    uint32_t thread() const { return m_threads.front(); }
    const std::vector<uint32_t>& threads() const { return m_threads; }
    /// The time span drawn across [plotLeft, plotLeft + plotWidth) (the timeline's plot).
    void setVisibleRange(TimeRange range);
    void setPlotSpan(int left, int width);

    /// The boxes drawn now match the threads and range (no computation pending).
    bool current() const;
    const std::vector<StackBox>& boxes() const { return m_boxes; }
    const std::vector<StackBand>& bands() const { return m_bands; }
    /// The band of a row (nullptr past the last).
    const StackBand* bandOfRow(uint32_t row) const;
    int rowHeight() const;
    int timeToX(int64_t t) const;
    /// The box drawn at a position, if any.
    const StackBox* boxAt(QPoint pos) const;

    QSize sizeHint() const override;

Q_SIGNALS:
    void boxesUpdated();

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    void recompute();
    /// The rows of all bands.
    uint32_t rowCount() const;

    std::shared_ptr<const Profile> m_profile;
    std::vector<uint32_t> m_threads{0};
    TimeRange m_range{0, 1};
    TimeRange m_boxesRange{0, 0};
    std::vector<uint32_t> m_boxesThreads;
    std::vector<StackBox> m_boxes;
    std::vector<StackBand> m_bands;
    int m_plotLeft = 0, m_plotWidth = 1;
    BackgroundJob m_job{this};
};

} // namespace scorch
