// SandwichView: the caller/callee "sandwich" of one function (core's sandwich()): its callers as an inverted
// flame graph above (the function at the bottom, its callers growing upwards, all call sites merged) and its
// callees below (the function at the top, all its invocations merged), with its self and total cost.
// Double-clicking a caller or callee moves the sandwich to that function; back/forward (buttons,
// Alt+Left/Alt+Right) walk the functions shown. The sandwich is computed off the GUI thread from the chart
// data it is given (thread filter, transforms and time range applied); a diff profile's sandwich is drawn
// in the differential colours.
//
// Child widgets carry object names ("sandwichBack", "sandwichForward", "sandwichTitle", "callersChart",
// "calleesChart", "sandwichNote") for tests and accessibility.
#pragma once

#include "common/backgroundjob.h"
#include "flame/flamegraphview.h"
#include "scorch/chartdata.h"

#include <QWidget>

#include <functional>
#include <memory>
#include <vector>

class QLabel;
class QScrollArea;
class QToolButton;

namespace scorch {

class SandwichView final : public QWidget {
    Q_OBJECT
public:
    explicit SandwichView(QWidget* parent = nullptr);
    ~SandwichView() override;

    /// The data the sandwich is taken from (its tree and cost type); the shown function's sandwich is
    /// recomputed for it. Null clears the view.
    void setData(std::shared_ptr<const ChartData> data);
    std::shared_ptr<const ChartData> data() const { return m_data; }

    /// Shows the sandwich of `frame` and adds it to the history (after the current entry; the entries after
    /// it are dropped, as in a browser).
    void showFunction(FrameId frame);
    /// The function shown (or being computed); FrameId{} when none.
    FrameId function() const;
    bool canGoBack() const { return m_index > 0; }
    bool canGoForward() const { return m_index + 1 < m_history.size(); }
    void back();
    void forward();

    /// True while a sandwich is being computed (the charts still show the previous one).
    bool isBusy() const { return m_busy; }

    /// Draws both charts in the differential colours of a diff profile (scorch/diff.h) by `coloring`.
    void setDiffColoring(const DiffColoring& coloring);
    /// Tooltips of single frames for both charts: `provider(tree, node)` over the chart's own tree.
    void setToolTipProvider(std::function<QString(const CallTree&, NodeId)> provider);

    FlameGraphView* callersView() const { return m_callers; }
    FlameGraphView* calleesView() const { return m_callees; }
    QLabel* titleLabel() const { return m_title; }
    QToolButton* backButton() const { return m_back; }
    QToolButton* forwardButton() const { return m_forward; }

Q_SIGNALS:
    /// The charts now show the sandwich of function() over data() (or the note that it has no cost there).
    void sandwichShown();
    /// The history or the shown function changed.
    void historyChanged();
    /// "Show Source" in a chart's context menu.
    void sourceRequested(scorch::FrameId frame);

private:
    struct Result;
    void recompute();
    void apply(std::shared_ptr<const Result> result);
    void updateButtons();
    void scrollToFunction();
    void onDoubleClicked(FlameGraphView* view, NodeId node);

    std::shared_ptr<const ChartData> m_data;
    std::vector<FrameId> m_history;
    std::size_t m_index = 0;
    bool m_busy = false;
    BackgroundJob m_job{this}; // the sandwich of the newest data and function

    QToolButton* m_back;
    QToolButton* m_forward;
    QLabel* m_title;
    QLabel* m_note;
    FlameGraphView* m_callers;
    FlameGraphView* m_callees;
    QScrollArea* m_callersScroll;
    QScrollArea* m_calleesScroll;
};

} // namespace scorch
