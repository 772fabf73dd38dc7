// FlameLayout: the flattened horizontal layout of a call tree for the flame graph, with level of detail.
// Qt-free on purpose: it is pure geometry over the core CallTree and is unit-tested without painting.
#pragma once

#include "scorch/calltree.h"
#include "scorch/costs.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace scorch {

/// One thing to draw: a single frame, or a run of adjacent sibling frames that are each too narrow to draw
/// and are merged into one neutral block of their exact combined width. Positions are in pixels relative to
/// the left edge of the view; `start`/`cost` are the same extent in cost units.
struct FlameBlock {
    NodeId node = kRootNode; ///< the frame; for a merged run, its first node
    uint32_t depth = 0;      ///< row; 0 is the tree's invisible root ("all")
    uint32_t count = 1;      ///< frames in this block (> 1: merged run)
    int64_t start = 0;       ///< offset of the block in cost units
    int64_t cost = 0;        ///< exact combined total cost of the block's frames
    double x = 0;            ///< left edge in pixels (may be < 0 or beyond the width for clipped frames)
    double width = 0;        ///< width in pixels, unclipped

    bool tiny = false; ///< narrower than the minimum width: drawn without label or gap

    bool merged() const { return count > 1; }
};

/// Visible cost range and the viewport it maps to.
struct FlameViewport {
    double start = 0;         ///< first visible cost unit
    double end = 1;           ///< one past the last visible cost unit
    double pixelWidth = 1;    ///< width of the view in pixels
    uint32_t firstDepth = 0;  ///< first row to report
    uint32_t lastDepth = ~0u; ///< last row to report (inclusive)
    double minFrameWidth = 2; ///< frames narrower than this (pixels) are merged, their descendants skipped
    double scale() const { return end > start ? pixelWidth / (end - start) : 0; }
};

class FlameLayout {
public:
    FlameLayout() = default;
    /// Lays out `tree` by the total cost of `costType`. Children keep the tree's (name) order; frames with
    /// total <= 0 take no space and are never reported. The tree must outlive the layout.
    void setTree(const CallTree* tree, std::size_t costType);

    const CallTree* tree() const { return m_tree; }
    std::size_t costType() const { return m_costType; }
    bool isEmpty() const { return m_tree == nullptr || m_offset.empty(); }

    /// Offset of a node in cost units (its left edge); its width is max(total, 0).
    int64_t offset(NodeId n) const { return m_offset[n]; }
    int64_t width(NodeId n) const;
    /// Width of the whole chart (the root's total, or 0).
    int64_t totalWidth() const { return isEmpty() ? 0 : width(kRootNode); }

    /// Calls f(const FlameBlock&) for every block intersecting the viewport. Walks the tree in preorder
    /// and skips whole subtrees that are off screen, below the row range or inside a merged run, so the
    /// work is proportional to what is drawn, not to the tree size.
    template <typename F>
    void visit(const FlameViewport& vp, F&& f) const;

    /// All blocks of a viewport (convenience for tests and hit testing).
    std::vector<FlameBlock> blocks(const FlameViewport& vp) const;

private:
    const CallTree* m_tree = nullptr;
    std::size_t m_costType = 0;
    std::vector<int64_t> m_offset;
};

template <typename F>
void FlameLayout::visit(const FlameViewport& vp, F&& f) const {
    if (isEmpty() || vp.end <= vp.start)
        return;
    const CallTree& t = *m_tree;
    const double scale = vp.scale();
    const CallTree::Costs costs = t.costs(m_costType);
    const auto n0 = static_cast<NodeId>(t.size());

    // One pending run of tiny siblings per depth; only depths on the current path can hold one.
    struct Run {
        FlameBlock block;
        bool open = false;
    };
    std::vector<Run> runs(
        std::min<std::size_t>(std::size_t{t.maxDepth()} + 2, std::size_t{vp.lastDepth} + 2));
    uint32_t deepestOpen = 0;
    auto flushFrom = [&](uint32_t depth) { // emits and closes runs at depths >= depth
        for (uint32_t d = depth; d <= deepestOpen && d < runs.size(); ++d) {
            if (runs[d].open) {
                runs[d].open = false;
                f(static_cast<const FlameBlock&>(runs[d].block));
            }
        }
        if (depth <= deepestOpen)
            deepestOpen = depth == 0 ? 0 : depth - 1;
    };

    NodeId n = 0;
    while (n < n0) {
        const int64_t total = costs.total(n);
        const uint32_t depth = t.depth(n);
        if (total <= 0 || depth > vp.lastDepth) {
            n = t.subtreeEnd(n);
            continue;
        }
        const int64_t x0 = m_offset[n];
        int64_t x1 = x0;
        addCost(x1, total); // saturating: a corrupt profile may overflow
        if (static_cast<double>(x1) <= vp.start || static_cast<double>(x0) >= vp.end) {
            n = t.subtreeEnd(n);
            continue;
        }
        flushFrom(depth + 1); // a node at this depth ends every run below it (other parent)
        const double w = static_cast<double>(total) * scale;
        if (w < vp.minFrameWidth) {
            if (depth >= vp.firstDepth) {
                Run& r = runs[depth];
                int64_t runEnd = r.block.start;
                addCost(runEnd, r.block.cost);
                if (r.open && runEnd == x0) {
                    addCost(r.block.cost, total);
                    r.block.width = static_cast<double>(r.block.cost) * scale;
                    ++r.block.count;
                } else {
                    if (r.open)
                        f(static_cast<const FlameBlock&>(r.block));
                    r.open = true;
                    r.block = FlameBlock{n, depth, 1, x0, total, (static_cast<double>(x0) - vp.start) * scale,
                                         w, true};
                    deepestOpen = std::max(deepestOpen, depth);
                }
            }
            n = t.subtreeEnd(n);
            continue;
        }
        if (runs[depth].open) {
            runs[depth].open = false;
            f(static_cast<const FlameBlock&>(runs[depth].block));
        }
        if (depth >= vp.firstDepth)
            f(FlameBlock{n, depth, 1, x0, total, (static_cast<double>(x0) - vp.start) * scale, w});
        ++n;
    }
    flushFrom(0);
}

} // namespace scorch
