// TimelinePanel: the timeline above a profile tab's flame graph: a header with the selected range as a
// removable chip ("0.52 s – 1.30 s ✕") and a zoom-out button, over the TimelineView. Profiles without
// per-sample times get a one-line note in its place instead of an empty timeline.
#pragma once

#include "scorch/samples.h"

#include <QWidget>

#include <memory>
#include <optional>

class QAction;
class QLabel;
class QMenu;
class QScrollArea;
class QToolButton;

namespace scorch {

class StackChartView;
class TimelineView;

class TimelinePanel final : public QWidget {
    Q_OBJECT
public:
    explicit TimelinePanel(QWidget* parent = nullptr);

    void setProfile(std::shared_ptr<const Profile> profile);
    TimelineView* view() const { return m_view; }
    /// "No timeline: FORMAT has no per-sample times"; hidden when the profile has a timeline.
    QLabel* note() const { return m_note; }
    /// The selected range's chip (hidden without a selection); clicking it clears the selection.
    QToolButton* rangeChip() const { return m_chip; }
    /// The stack chart below the lanes, shown while the "Stack Chart" button is checked: one thread's (the
    /// busiest, or the last lane clicked), or the selected threads' stacked when several are selected.
    StackChartView* stackChart() const { return m_stack; }
    void setStackChartVisible(bool visible);
    /// The threads selected (the thread list's checked ones; empty: all): the lanes mark them, and the
    /// stack chart stacks them, busiest first, when there are two or more.
    void setThreads(const std::vector<uint32_t>& threads);

    /// Comparing two time ranges of the recording: the header's "Compare" menu (also the timeline's context
    /// menu) compares the selection with the rest of the recording, or a baseline range marked before with
    /// the selection. The baseline is drawn on the timeline.
    QMenu* compareMenu() const { return m_compareMenu; }
    QToolButton* compareButton() const { return m_compareButton; }
    std::optional<TimeRange> baseline() const { return m_baseline; }
    void setBaseline(std::optional<TimeRange> range);
    /// What the menu's actions do, also for tests: emit compareRequested (false when the action is not
    /// possible now: no selection, no baseline, or the baseline is the selection).
    bool compareSelectionWithRest();
    bool compareBaselineWithSelection();

Q_SIGNALS:
    /// The selected time range changed (std::nullopt: the whole profile).
    void rangeChanged(std::optional<scorch::TimeRange> range);
    /// A lane's label was clicked.
    void threadClicked(uint32_t thread);
    /// Compare the samples of `before` with those of `after`, or with those outside `before` (the rest of
    /// the recording) when `after` is empty.
    void compareRequested(scorch::TimeRange before, std::optional<scorch::TimeRange> after);

private:
    void updateHeader();
    void updateCompareActions();
    void syncStackSpan();
    void resizeEvent(QResizeEvent* event) override;

    TimelineView* m_view;
    QWidget* m_header;
    QToolButton* m_chip;
    QToolButton* m_zoomOut;
    QToolButton* m_stackButton;
    QToolButton* m_compareButton;
    QMenu* m_compareMenu;
    QAction* m_withRest;
    QAction* m_markBaseline;
    QAction* m_withBaseline;
    QAction* m_clearBaseline;
    std::optional<TimeRange> m_baseline;
    QScrollArea* m_stackArea;
    StackChartView* m_stack;
    QLabel* m_hint;
    QLabel* m_note;
};

} // namespace scorch
