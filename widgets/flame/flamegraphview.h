// FlameGraphView: the flame (root at the bottom) / icicle (root at the top) chart of a ChartData.
// Custom painted over a flattened, level-of-detail layout; never one item per frame.
//
// This header is the contract the main window relies on; extend it, but keep these members working.
#pragma once

#include "flame/flamepalette.h"
#include "scorch/chartdata.h"
#include "scorch/flamelayout.h"
#include "scorch/search.h"

#include <QImage>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <memory>
#include <optional>

class QIODevice;
class QMenu;

namespace scorch {

class FlameGraphView : public QWidget {
    Q_OBJECT
public:
    enum class Orientation { Flame, Icicle };
    /// Differential: the data is a diff profile (scorch/diff.h), coloured by delta (see setDiffColoring()).
    /// The window's schemes: the first five of core's FlameColorScheme, with the same values.
    enum class ColorScheme {
        Hot = static_cast<int>(FlameColorScheme::Hot),
        Module = static_cast<int>(FlameColorScheme::Module),
        Kind = static_cast<int>(FlameColorScheme::Kind),
        System = static_cast<int>(FlameColorScheme::System),
        Differential = static_cast<int>(FlameColorScheme::Differential),
    };

    explicit FlameGraphView(QWidget* parent = nullptr);
    ~FlameGraphView() override;

    /// Shows new data; resets zoom, selection and history, keeps orientation, colours and search.
    void setData(std::shared_ptr<const ChartData> data);
    std::shared_ptr<const ChartData> data() const;

    void setOrientation(Orientation orientation);
    Orientation orientation() const;
    void setColorScheme(ColorScheme scheme);
    ColorScheme colorScheme() const;
    /// What the Differential scheme colours by (metric, noise floor).
    void setDiffColoring(const DiffColoring& coloring);
    DiffColoring diffColoring() const;

    /// Highlights matching frames and dims the rest; an empty pattern clears the search.
    void setSearch(const SearchQuery& query);
    SearchQuery search() const;
    /// Steps the selection to the next (or previous) matching frame and makes it visible. Matches are
    /// visited from the heaviest (total cost of the shown cost type) to the lightest, wrapping around.
    void nextMatch(bool backwards = false);
    /// The matching frames drawn, heaviest first.
    const std::vector<NodeId>& matchOrder() const;
    /// The selected frame's position in matchOrder(), or -1 when the selection is not a match.
    int currentMatch() const;
    /// Asks for the sandwich (sandwichRequested) of the selected match's function, or of the heaviest
    /// match when the selection is none; nothing without matches.
    void sandwichOfMatch();

    NodeId zoomRoot() const;
    void zoomTo(NodeId node);
    void resetZoom();
    bool canGoBack() const;
    bool canGoForward() const;
    void back();
    void forward();

    NodeId selectedNode() const; ///< kRootNode when nothing is selected
    void selectNode(NodeId node);
    /// Selects the heaviest node of this function (used when a table selects a function).
    void selectFunction(FrameId frame);

    /// The node drawn at a widget position, or kRootNode.
    NodeId nodeAt(QPoint pos) const;
    /// Where a node is drawn in widget coordinates (empty when not visible).
    QRectF nodeRect(NodeId node) const;

    /// Zoom animation length in milliseconds (0 = jump; default 150).
    void setAnimationDuration(int ms);
    /// The cost range shown across the width (zoom and pan), in cost units of the layout.
    double visibleStart() const;
    double visibleEnd() const;
    /// Shows an arbitrary cost range without changing zoomRoot or history (wheel zoom, pan, animation).
    void setVisibleRange(double start, double end);
    void zoomIn();  ///< narrows the range around the selection or the centre
    void zoomOut(); ///< widens it

    const FlameLayout& layout() const;
    int rowHeight() const;
    /// Height that shows every row of what is in view: the deepest stack among the frames of the current
    /// zoom range, not of the whole profile (the view keeps it as its minimum height, which the panel's
    /// scroll area scrolls over).
    int chartHeight() const;
    /// Sets the minimum height to chartHeight() (after data or zoom range changes).
    void updateChartHeight();
    /// The band of one row (depth 0 is the root "all") in widget coordinates.
    QRect rowRect(uint32_t depth) const;
    QSize sizeHint() const override;

    /// Rich-text tooltip for a widget position (empty when nothing is there).
    QString toolTipText(QPoint pos) const;
    /// Off-CPU profiles: the lines that split a node's wall time into on-CPU and off-CPU and the off-CPU time
    /// by kind ([blocked: S], [preempted], ...); empty for other profiles.
    QString offCpuSplit(NodeId node) const;
    /// Replaces the tooltip of single frames (merged runs keep theirs), e.g. before/after/delta of a diff.
    void setToolTipProvider(std::function<QString(NodeId)> provider);

    /// The frame outlined as hovered (by the mouse or setHoveredNode()).
    std::optional<NodeId> hoveredNode() const;
    /// Outlines a frame as hovered without a mouse (a synchronised chart); does not emit hoveredChanged.
    void setHoveredNode(std::optional<NodeId> node);
    /// The context menu of a node (zoom, copy, show source, sandwich, focus, hide, collapse recursion); the
    /// caller owns it. Actions have object names "zoom", "copyName", "copyStack", "showSource", "sandwich",
    /// "focus", "hide", "collapseRecursion"; the root's menu has "zoom" only.
    QMenu* createContextMenu(NodeId node, QWidget* parent = nullptr);

    /// Context menu actions (by object name) left out of createContextMenu().
    void setHiddenMenuActions(const QStringList& objectNames);
    /// The label of the root row (default "all").
    void setRootLabel(const QString& label);

    /// The chart as shown (zoom, search, colours) rendered at the given size.
    QImage renderImage(QSize size) const;
    /// The chart as shown written as SVG; returns false on a write error.
    bool renderSvg(QIODevice* device, QSize size) const;

Q_SIGNALS:
    void zoomChanged(scorch::NodeId root);
    void nodeSelected(scorch::NodeId node);
    void functionSelected(scorch::FrameId frame);
    void transformRequested(scorch::TreeTransform transform);
    /// "Show Source" in the context menu.
    void sourceRequested(scorch::FrameId frame);
    /// "Show in Sandwich" in the context menu, or the S key on the selected frame.
    void sandwichRequested(scorch::FrameId frame);
    /// A frame (not a merged run) was double-clicked; the clicks have selected and zoomed it as usual.
    void nodeDoubleClicked(scorch::NodeId node);
    /// After setSearch(): number of matching frames drawn, matched cost (each sample once) and total.
    void searchResultChanged(int matchingNodes, qint64 matchedCost, qint64 totalCost);
    /// The selection moved onto match `index` of `count` (or off the matches: index -1).
    void matchPositionChanged(int index, int count);
    /// Back/forward availability may have changed.
    void historyChanged();
    /// The mouse moved onto another frame; -1 when it left the frames.
    void hoveredChanged(qint64 node);

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace scorch
