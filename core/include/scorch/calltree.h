// The call tree: one contiguous, immutable tree shape shared by every view, with costs kept apart from it.
#pragma once

#include "scorch/frames.h"

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace scorch {

using NodeId = uint32_t;
inline constexpr NodeId kRootNode = 0;

/// Bytewise comparison of two names as segments of a `a;b;c` stack string (a prefix is followed by ';').
int compareAsStackSegments(std::string_view a, std::string_view b);

/// Nodes are stored in depth-first preorder: the descendants of node n are exactly the nodes
/// (n, subtreeEnd(n)), and siblings are ordered by their frame's name (bytewise, as flamegraph.pl does; a
/// name that is a prefix of another compares as if followed by ';', so that preorder is also the bytewise
/// order of the folded stack strings, see compareAsStackSegments).
/// Node 0 is an invisible root with frame id 0. Costs are one signed array per cost type for self cost
/// and one for total (inclusive) cost.
class CallTree {
public:
    std::size_t size() const { return m_parent.size(); }
    NodeId parent(NodeId n) const { return m_parent[n]; }
    FrameId frame(NodeId n) const { return m_frame[n]; }
    uint32_t depth(NodeId n) const { return m_depth[n]; }
    NodeId subtreeEnd(NodeId n) const { return m_end[n]; }
    uint32_t maxDepth() const { return m_maxDepth; }

    /// Calls f(child) for every child of n in stored (name) order.
    template <typename F>
    void forEachChild(NodeId n, F&& f) const {
        for (NodeId c = n + 1; c < m_end[n]; c = m_end[c])
            f(c);
    }
    std::vector<NodeId> children(NodeId n) const;
    /// Children sorted by descending total cost of `costType` (ties by stored order).
    std::vector<NodeId> childrenByCost(NodeId n, std::size_t costType) const;
    /// The child of n with this frame, or kRootNode when there is none.
    NodeId findChild(NodeId n, FrameId frame) const;
    /// Nodes from the first real frame down to n (the invisible root is not included).
    std::vector<NodeId> path(NodeId n) const;

    std::size_t costTypeCount() const { return m_self.size(); }
    int64_t self(std::size_t costType, NodeId n) const { return m_self[costType][n]; }
    int64_t total(std::size_t costType, NodeId n) const { return m_total[costType][n]; }
    std::span<const int64_t> selfCosts(std::size_t costType) const { return m_self[costType]; }
    std::span<const int64_t> totalCosts(std::size_t costType) const { return m_total[costType]; }
    int64_t grandTotal(std::size_t costType) const { return m_total[costType][kRootNode]; }
    /// True when n has a non-zero self cost of any type (a stack that samples end in).
    bool hasSelfCost(NodeId n) const {
        for (const auto& s : m_self)
            if (s[n] != 0)
                return true;
        return false;
    }

    /// Replaces all self costs (one array per cost type, each of size()) and recomputes the totals.
    void setSelfCosts(std::vector<std::vector<int64_t>> self);

    /// Builds a tree from nodes in any order where a parent comes before its children (parent[0] unused).
    /// Reorders into preorder with name-sorted siblings; `remap` (optional) receives old -> new ids.
    static CallTree fromParentArray(std::span<const NodeId> parent, std::span<const FrameId> frame,
                                    std::vector<std::vector<int64_t>> self, const FrameTable& frames,
                                    const class StringTable& strings, std::vector<NodeId>* remap = nullptr);

    /// The same for nodes that are already in that order: depth-first preorder with name-sorted siblings
    /// (parent[0] unused). Much cheaper (no sorting, no reordering). Only the preorder is checked: returns
    /// false, leaving `out` and `self` alone, when a node's parent is not on the path to the node before it;
    /// otherwise `self` is moved into the tree.
    static bool fromPreorder(std::span<const NodeId> parent, std::span<const FrameId> frame,
                             std::vector<std::vector<int64_t>>& self, CallTree& out);
    /// The same, taking `parent` and `frame` over instead of copying them (moved from only on success).
    static bool fromPreorder(std::vector<NodeId>&& parent, std::vector<FrameId>&& frame,
                             std::vector<std::vector<int64_t>>& self, CallTree& out);

    /// The shape of a tree in CallTree's order, worked out by a builder that makes the preorder itself.
    struct Shape {
        std::vector<NodeId> parent, end; ///< per node: its parent (parent[0] unused), its subtreeEnd()
        std::vector<uint32_t> depth;
        std::vector<FrameId> frame;
        uint32_t maxDepth = 0;
    };
    /// A tree from its shape and its self and total costs (one array per cost type, each of size()), all
    /// taken over. Only the sizes are checked (std::invalid_argument): the caller vouches for the order and
    /// the totals. For builders that know them anyway, such as time slices, which so spare the passes of
    /// fromPreorder() and can sum each cost type's totals on its own core (totalsOf()).
    static CallTree fromShape(Shape&& shape, std::vector<std::vector<int64_t>>&& self,
                              std::vector<std::vector<int64_t>>&& total);
    /// The reverse of fromShape(): the arrays of a tree no longer needed taken out (the tree is left empty),
    /// for their memory to be reused (SliceMemory).
    static void release(CallTree&& tree, Shape& shape, std::vector<std::vector<int64_t>>& self,
                        std::vector<std::vector<int64_t>>& total);
    /// The total (inclusive) costs of the nodes of a tree in preorder from their self costs.
    static std::vector<int64_t> totalsOf(std::span<const NodeId> parent, std::span<const int64_t> self);

private:
    void computeTotals();

    std::vector<NodeId> m_parent, m_end;
    std::vector<FrameId> m_frame;
    std::vector<uint32_t> m_depth;
    std::vector<std::vector<int64_t>> m_self, m_total;
    uint32_t m_maxDepth = 0;
};

} // namespace scorch
