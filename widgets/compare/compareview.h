// CompareView: a before/after comparison of two profiles, shown as a differential flame graph (one chart
// coloured by delta) or as the two charts side by side, with zoom, selection, search and hover synchronised
// across all of them (comparesync.cpp). Its parts: the toolbar (CompareToolBar), the diff built off the GUI
// thread (DiffBuild, run by a BackgroundJob), the summary with the function table (CompareSummary).
//
// All three charts show the same diff tree (before widths, after widths, the chosen differential widths),
// so one node id names the same call path in each; a path missing on one side has no width there.
// Child widgets carry object names ("beforeChart", "afterChart", "diffChart", "…Notice", "totals",
// "functions", "compareSearch", "compareCrumbs", the toolbar's boxes, "compareSandwich") for tests and
// accessibility.
#pragma once

#include "common/backgroundjob.h"
#include "flame/flamegraphview.h"
#include "scorch/diff.h"

#include <QWidget>

#include <memory>
#include <optional>

class QLabel;
class QScrollArea;
class QStackedWidget;

namespace scorch {

class BreadcrumbBar;
class CompareSummary;
class CompareToolBar;
class SandwichView;
struct DiffBuild;
class SearchBar;

class CompareView final : public QWidget {
    Q_OBJECT
public:
    /// Sandwich: the caller/callee sandwich of one function of the diff, in the differential colours.
    enum class Mode { Differential, SideBySide, Sandwich };

    explicit CompareView(QWidget* parent = nullptr);
    ~CompareView() override;

    /// Compares two loaded profiles (the first cost type of each). The diff is built on a pool thread;
    /// ready() follows (or failed()).
    void setProfiles(std::shared_ptr<const Profile> before, std::shared_ptr<const Profile> after,
                     const QString& beforeName, const QString& afterName);
    /// The diff of the current options is shown (false while it is being built).
    bool isReady() const { return m_ready; }

    /// Normalise / strip hex / module matching: rebuilds the diff (asynchronously, like setProfiles()).
    void setDiffOptions(const DiffOptions& options);

    void setMode(Mode mode);
    /// Self or total delta: colours, noise floor and the table's filter.
    void setMetric(DiffMetric metric);
    /// What the differential chart's widths are and whether stacks missing there are drawn.
    void setWidthBasis(DiffWidth width, bool showMissing);
    /// Deltas below the floor are drawn grey, or hidden (chart and table) when `hide`.
    void setNoiseFloor(NoiseFloor floor, bool hide);
    void setOrientation(FlameGraphView::Orientation orientation);

    void focusSearch();
    /// F3 / Shift+F3 over the primary chart (as FlameGraphPanel::findNext).
    void findNext(bool backwards = false);
    /// Zooms every chart to `node` (or, where it does not exist, to its deepest ancestor that does).
    void zoomAll(NodeId node);
    /// Switches to the sandwich with the function of `frame`.
    void showSandwich(FrameId frame);
    SandwichView* sandwich() const { return m_sandwich; }

Q_SIGNALS:
    void ready();
    void failed(const QString& message);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    enum Side { Before = 0, After = 1, Diff = 2 };
    QWidget* makeChart(Side side, const QString& title);
    void connectToolBar();
    void rebuild();
    void applyDiff(DiffBuild built);
    /// Rebuilds the differential chart's tree, or takes `tree` when it was built for the current options.
    void relayoutDiff(std::optional<CallTree> tree = std::nullopt);
    DiffLayoutOptions layoutOptions(const CallTree& diffTree) const;
    void recolor();
    void updateFilter();
    void updateTotals();
    /// Selects the function's widest frame in the shown chart (the table's row click).
    void selectFunction(FrameId frame);
    /// Rich-text tooltip of a node: before, after, delta and delta % (total and self).
    QString nodeToolTip(const CallTree& tree, NodeId node) const;
    void syncZoom(FlameGraphView* source, NodeId node);
    void syncSelection(FlameGraphView* source, NodeId node);
    void syncHover(FlameGraphView* source, qint64 node);
    void updateNotices();
    void updateBreadcrumbs();
    void scrollToRoot();
    FlameGraphView* primaryView() const;
    int64_t noiseThreshold() const;

    BackgroundJob m_build{this}; // the diff of the newest profiles and options
    bool m_ready = false;
    bool m_syncing = false;
    std::shared_ptr<const Profile> m_beforeProfile, m_afterProfile, m_diff;
    QString m_beforeName, m_afterName;
    DiffOptions m_options;
    bool m_builtStripHex = false, m_builtMatchModules = true; // the options m_diff's shape was built with
    Mode m_mode = Mode::Differential;
    DiffMetric m_metric = DiffMetric::Total;
    DiffWidth m_width = DiffWidth::After;
    bool m_showMissing = true;
    /// By default deltas under 0.1% of the larger total are noise (drawn grey), so sub-sample changes
    /// neither colour the chart nor lead the table.
    NoiseFloor m_noise{.samples = 0, .percent = 0.1};
    bool m_hideNoise = false;
    NodeId m_zoomNode = kRootNode;

    FlameGraphView* m_views[3];
    QLabel* m_notices[3];
    QLabel* m_titles[3];
    QScrollArea* m_scrolls[3];
    QStackedWidget* m_stack;
    QLabel* m_status;
    CompareToolBar* m_toolbar;
    CompareSummary* m_summary;
    SearchBar* m_search;
    BreadcrumbBar* m_crumbs;
    SandwichView* m_sandwich;
};

} // namespace scorch
