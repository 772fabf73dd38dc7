// Internal: FlameGraphView's private state, shared by flamegraphview.cpp (state, navigation, rendering entry
// points) and flamegraphinput.cpp (mouse, keyboard, tooltip and context menu).
#pragma once

#include "flame/flamegraphview.h"

#include "common/qtprofile.h"
#include "flame/flamerenderer.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QMenu>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>
#include <QVariantAnimation>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <regex>

namespace scorch {

struct FlameGraphView::Private {
    explicit Private(FlameGraphView* view)
        : q(view) {}

    FlameGraphView* q;
    std::shared_ptr<const ChartData> data;
    /// data's layout (made off the GUI thread by the job that made data, where there was one), or an empty
    /// one
    const FlameLayout& layout() const {
        static const FlameLayout kNone;
        return data ? data->layout() : kNone;
    }
    FlamePalette palette;
    bool paletteDirty = true;
    Orientation orientation = Orientation::Flame;
    ColorScheme scheme = ColorScheme::Hot;
    DiffColoring diffColoring;
    std::function<QString(NodeId)> toolTipProvider;
    QString rootLabel = FlameGraphView::tr("all");
    QStringList hiddenActions;
    FlameRenderer renderer;

    SearchQuery query;
    std::vector<char> matches;     // per frame id; empty = no search
    std::vector<NodeId> matchList; // drawn matching nodes, heaviest first
    int matchIndexOf(NodeId n) const;

    NodeId selected = kRootNode;
    NodeId zoomRoot = kRootNode;
    std::vector<NodeId> history{kRootNode};
    std::size_t historyIndex = 0;
    std::vector<NodeId> heaviest; // per frame id: its widest node (kRootNode = none); built on first use
    bool heaviestReady = false;

    double viewStart = 0, viewEnd = 1;
    QVariantAnimation animation;
    int animationMs = 150;

    std::optional<NodeId> hovered; // frame under the mouse (outlined on screen only)
    QPoint pressPos;
    double pressViewStart = 0;
    bool dragging = false;
    mutable int cachedRowHeight = 0;

    bool valid(NodeId n) const { return data && n < data->tree.size() && !layout().isEmpty(); }
    double totalWidth() const { return std::max<double>(1.0, static_cast<double>(layout().totalWidth())); }

    int rowHeight() const {
        if (cachedRowHeight == 0)
            cachedRowHeight = QFontMetrics(q->font()).height() + 5;
        return cachedRowHeight;
    }
    FlameGeometry geometry(const QRect& area) const {
        return {&layout(), orientation == Orientation::Flame, rowHeight(), viewStart, viewEnd, area};
    }
    /// What to paint in `area`; the hovered frame is outlined only on screen.
    FlameScene scene(const QRect& area, bool onScreen) {
        if (paletteDirty) {
            palette.reset(data ? data->profile.get() : nullptr, static_cast<FlameColorScheme>(scheme),
                          q->palette());
            if (scheme == ColorScheme::Differential && data)
                palette.setDiff(&data->tree, diffColoring);
            else if (data)
                palette.setHotCold(&data->tree, data->costType);
            paletteDirty = false;
        }
        return {geometry(area), data ? data->profile.get() : nullptr, &palette,  &matches,
                selected,       onScreen ? hovered : std::nullopt,    q->font(), q->palette(),
                rootLabel};
    }
    void resetText() {
        cachedRowHeight = 0;
        renderer.resetFont(q->font());
    }

    void setRange(double start, double end);
    void animateTo(double start, double end);
    void pushHistory(NodeId n);
    void applyZoom(NodeId n, bool animate);
    void recomputeSearch();
    void select(NodeId n);
    void ensureVisible(NodeId n);
    NodeId heaviestNode(FrameId frame);
};

} // namespace scorch
