// CompareView: a before/after comparison of two profiles. Builds the diff profile (scorch/diff.h) off the
// GUI thread and shows it as a differential flame graph (one chart coloured by delta) or as the two charts
// side by side, with zoom, selection, search and hover synchronised across all of them, plus a summary:
// totals, their ratio and a sortable table of the functions that changed most.
//
// All three charts show the same diff tree (before widths, after widths, the chosen differential widths),
// so one node id names the same call path in each; a path missing on one side has no width there.
#pragma once

#include "flame/flamegraphview.h"
#include "scorch/diff.h"

#include <QWidget>

#include <memory>
#include <optional>

class QAction;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QScrollArea;
class QSpinBox;
class QStackedWidget;
class QTableView;

namespace scorch {

class BreadcrumbBar;
class DiffFunctionModel;
class DiffFunctionProxy;
class SearchBar;

class CompareView final : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Differential, SideBySide };
    enum class Side { Before, After, Diff };

    explicit CompareView(QWidget* parent = nullptr);
    ~CompareView() override;

    /// Compares two loaded profiles (the first cost type of each). The diff is built on a pool thread;
    /// ready() follows (or failed()).
    void setProfiles(std::shared_ptr<const Profile> before, std::shared_ptr<const Profile> after,
                     const QString& beforeName, const QString& afterName);
    bool isReady() const { return m_ready; }
    std::shared_ptr<const Profile> diffProfile() const { return m_diff; }

    /// Normalise / strip hex / module matching: rebuilds the diff (asynchronously, like setProfiles()).
    void setDiffOptions(const DiffOptions& options);
    DiffOptions diffOptions() const { return m_options; }

    void setMode(Mode mode);
    Mode mode() const { return m_mode; }
    /// Self or total delta: colours, noise floor and the table's filter.
    void setMetric(DiffMetric metric);
    DiffMetric metric() const { return m_metric; }
    /// What the differential chart's widths are and whether stacks missing there are drawn.
    void setWidthBasis(DiffWidth width, bool showMissing);
    /// Deltas below the floor are drawn grey, or hidden (chart and table) when `hide`.
    void setNoiseFloor(NoiseFloor floor, bool hide);
    void setOrientation(FlameGraphView::Orientation orientation);

    FlameGraphView* view(Side side) const;
    /// The line above a chart that says when the zoomed or selected path does not exist there.
    QLabel* notice(Side side) const;
    QLabel* totalsLabel() const { return m_totals; }
    QTableView* functionTable() const { return m_table; }
    QCheckBox* modulesCheckBox() const { return m_modulesBox; }
    DiffFunctionModel* functionModel() const { return m_model; }
    DiffFunctionProxy* functionProxy() const { return m_proxy; }
    SearchBar* searchBar() const { return m_search; }
    BreadcrumbBar* breadcrumbBar() const { return m_crumbs; }

    void focusSearch();
    /// Zooms every chart to `node` (or, where it does not exist, to its deepest ancestor that does).
    void zoomAll(NodeId node);
    /// Selects the function's widest frame in the shown chart (the table's row click).
    void selectFunction(FrameId frame);
    /// Rich-text tooltip of a node: before, after, delta and delta % (total and self).
    QString nodeToolTip(NodeId node) const;

Q_SIGNALS:
    void ready();
    void failed(const QString& message);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Job;
    struct Built;
    QWidget* makeToolBar();
    QWidget* makeChart(Side side, const QString& title);
    QWidget* makeSummary();
    void rebuild();
    void applyDiff(uint64_t generation, std::shared_ptr<Built> built, const QString& error);
    /// Rebuilds the differential chart's tree, or takes `tree` when it was built for the current options.
    void relayoutDiff(std::optional<CallTree> tree = std::nullopt);
    DiffLayoutOptions layoutOptions(const CallTree& diffTree) const;
    void recolor();
    void syncZoom(FlameGraphView* source, NodeId node);
    void syncSelection(FlameGraphView* source, NodeId node);
    void syncHover(FlameGraphView* source, qint64 node);
    void updateNotices();
    void updateBreadcrumbs();
    void updateTotals();
    void updateFilter();
    void scrollToRoot();
    FlameGraphView* primaryView() const;
    int64_t noiseThreshold() const;

    std::shared_ptr<Job> m_job;
    uint64_t m_generation = 0;
    bool m_ready = false;
    bool m_syncing = false;
    bool m_tableKeyNavigation = false; // a key press in the table is being handled
    std::shared_ptr<const Profile> m_beforeProfile, m_afterProfile, m_diff;
    QString m_beforeName, m_afterName;
    DiffOptions m_options;
    bool m_builtStripHex = false, m_builtMatchModules = true; // the options m_diff's shape was built with
    Mode m_mode = Mode::Differential;
    DiffMetric m_metric = DiffMetric::Total;
    DiffWidth m_width = DiffWidth::After;
    bool m_showMissing = true;
    NoiseFloor m_noise;
    bool m_hideNoise = false;
    NodeId m_zoomNode = kRootNode;

    FlameGraphView* m_views[3];
    QLabel* m_notices[3];
    QLabel* m_titles[3];
    QScrollArea* m_scrolls[3];
    QStackedWidget* m_stack;
    QLabel* m_status;
    QLabel* m_totals;
    QTableView* m_table;
    DiffFunctionModel* m_model;
    DiffFunctionProxy* m_proxy;
    SearchBar* m_search;
    BreadcrumbBar* m_crumbs;
    QAction* m_diffMode;
    QAction* m_sideMode;
    QAction* m_flame;
    QAction* m_icicle;
    QComboBox* m_metricBox;
    QComboBox* m_widthBox;
    QCheckBox* m_missingBox;
    QCheckBox* m_normalizeBox;
    QCheckBox* m_stripHexBox;
    QCheckBox* m_modulesBox;
    QSpinBox* m_noiseSamples;
    QDoubleSpinBox* m_noisePercent;
    QComboBox* m_noiseMode;
    QComboBox* m_showBox;
};

} // namespace scorch
