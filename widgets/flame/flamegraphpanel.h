// FlameGraphPanel: the flame graph tab: toolbar (orientation, colours, history), breadcrumbs, transform
// chips, find bar and the scrollable FlameGraphView. Owns the re-derivation of ChartData: a thread subset
// or transforms are applied on a pool thread (the newest request wins; the old chart stays until the new
// one arrives); the whole profile without transforms needs no work and is shown at once.
#pragma once

#include "common/backgroundjob.h"
#include "flame/flamegraphview.h"
#include "scorch/chartdata.h"

#include <QWidget>

#include <memory>
#include <vector>

class QAction;
class QComboBox;
class QLabel;
class QHBoxLayout;
class QScrollArea;
class QWidget;

namespace scorch {

class BreadcrumbBar;
class SearchBar;

class FlameGraphPanel : public QWidget {
    Q_OBJECT
public:
    explicit FlameGraphPanel(QWidget* parent = nullptr);
    ~FlameGraphPanel() override;

    /// Shows a new profile: all threads, cost type 0, no transforms; emits dataChanged once.
    /// The setters after it re-derive the chart and emit dataChanged once when they change something, and
    /// do nothing (no signal) when they do not: the same cost type, thread subset or transforms, a
    /// transform already active, an index out of range.
    void setProfile(std::shared_ptr<const Profile> profile);
    /// Shows another profile over the same frames, threads and cost types (a time range of the one shown,
    /// scorch/samples.h sliceProfile) keeping the cost type, thread subset and transforms; emits dataChanged.
    void replaceProfile(std::shared_ptr<const Profile> profile);
    void setCostType(std::size_t costType);
    /// Thread subset (indices into profile->threads); empty = all threads.
    void setThreads(std::vector<uint32_t> threads);
    /// Replaces the transform list (the chips).
    void setTransforms(std::vector<TreeTransform> transforms);
    /// Appends a transform (ignored when already active).
    void addTransform(TreeTransform transform);
    void removeTransform(std::size_t index);

    std::shared_ptr<const ChartData> data() const;
    FlameGraphView* view() const;
    SearchBar* searchBar() const;
    BreadcrumbBar* breadcrumbBar() const;
    /// What the colours of the current scheme mean (hidden for schemes whose colours mean nothing).
    QLabel* legend() const { return m_legend; }
    /// The chips' buttons, one per active transform (clicking one removes its transform).
    std::vector<QWidget*> chips() const;

    void setOrientation(FlameGraphView::Orientation orientation);
    void setColorScheme(FlameGraphView::ColorScheme scheme);
    /// Reversed flame graph (flamegraph.pl --reverse): every stack flipped, the functions where cost was
    /// spent at the base and their callers above them. Only the chart is reversed (computed off the GUI
    /// thread): data() and dataChanged keep the forward tree the tables and the sandwich show.
    void setReversed(bool reversed);
    bool isReversed() const { return m_reversed; }

    /// Shows the find bar and focuses its line edit (Ctrl+F).
    void focusSearch();
    /// F3 / Shift+F3: steps to the next (previous) match, heaviest first; opens the find bar when no search
    /// is active.
    void findNext(bool backwards = false);
    /// Hides the find bar and clears the search (Esc in the find bar).
    void closeSearch();

Q_SIGNALS:
    /// After any re-derivation (profile, transforms, threads, cost type), once the new data is shown.
    void dataChanged(std::shared_ptr<const scorch::ChartData> data);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rederive();
    void showData(std::shared_ptr<const ChartData> data);
    /// Gives the view m_data, or its reversed tree when reversed.
    void showChart();
    void setViewData(std::shared_ptr<const ChartData> data);
    void updateChips();
    void updateLegend();
    void updateBreadcrumbs();
    void updateHistoryActions();
    void updateSearchResult(int nodes, qint64 matched, qint64 total);
    void scrollToRoot();

    std::shared_ptr<const Profile> m_profile;
    std::shared_ptr<const ChartData> m_data;
    std::size_t m_costType = 0;
    std::vector<uint32_t> m_threads;
    std::vector<TreeTransform> m_transforms;
    bool m_restoring = false; // reading QSettings in the constructor: do not write them back
    BackgroundJob m_derive{this};
    bool m_reversed = false;
    BackgroundJob m_reverse{this}; // the reversed tree of the newest data

    FlameGraphView* m_view;
    QScrollArea* m_scroll;
    int m_fromBottom = 0;     // flame mode: the scroll position kept from the bottom (the root row)
    bool m_anchoring = false; // setting the scroll position after the chart height changed
    SearchBar* m_search;
    BreadcrumbBar* m_crumbs;
    QWidget* m_chipBox;
    QHBoxLayout* m_chipLayout;
    QAction* m_flame;
    QAction* m_icicle;
    QAction* m_reversedAction;
    QAction* m_back;
    QAction* m_forward;
    QAction* m_reset;
    QLabel* m_legend;
    QComboBox* m_scheme;
};

} // namespace scorch
