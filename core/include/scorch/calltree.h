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
/// Node 0 is an invisible root with frame id 0. The costs are one array per cost type: the running sum of
/// the nodes' self costs in preorder, from which a node's self cost is the difference of two neighbours and
/// its total (inclusive) cost the difference across its subtree (8 bytes a node and cost type instead of 16
/// for a self and a total array: on a 6 M-node tree with two cost types, 97 MB). The sums wrap around (modulo
/// 2^64), so every difference is exact as long as the sum of the absolute self costs fits; for absurd costs
/// where it does not, the saturated totals are kept beside the sums.
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

    std::size_t costTypeCount() const { return m_sum.size(); }

    /// The costs of one type, read without a copy: a node's self cost and its total.
    class Costs {
    public:
        int64_t self(NodeId n) const { return minus(before(n + 1), before(n)); }
        int64_t total(NodeId n) const { return m_total ? m_total[n] : minus(before(m_end[n]), before(n)); }

    private:
        friend class CallTree;
        Costs(const int64_t* sum, const NodeId* end, const int64_t* total)
            : m_sum(sum)
            , m_end(end)
            , m_total(total) {}
        /// The sum of the self costs of the nodes before n, modulo 2^64.
        int64_t before(NodeId n) const { return n ? m_sum[n - 1] : 0; }
        /// a - b modulo 2^64
        static int64_t minus(int64_t a, int64_t b) {
            return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
        }
        const int64_t* m_sum;
        const NodeId* m_end;
        const int64_t* m_total; ///< only where the sums could overflow
    };
    Costs costs(std::size_t costType) const {
        return {m_sum[costType].data(), m_end.data(),
                m_saturated[costType].empty() ? nullptr : m_saturated[costType].data()};
    }
    int64_t self(std::size_t costType, NodeId n) const { return costs(costType).self(n); }
    int64_t total(std::size_t costType, NodeId n) const { return costs(costType).total(n); }
    /// Every node's self cost / total of a type (copies).
    std::vector<int64_t> selfCosts(std::size_t costType) const;
    std::vector<int64_t> totalCosts(std::size_t costType) const;
    int64_t grandTotal(std::size_t costType) const { return size() ? total(costType, kRootNode) : 0; }
    /// True when n has a non-zero self cost of any type (a stack that samples end in).
    bool hasSelfCost(NodeId n) const {
        for (std::size_t t = 0; t < m_sum.size(); ++t)
            if (self(t, n) != 0)
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
    /// A tree from its shape and its self costs (one array per cost type, each of size()), all taken over
    /// (the self costs become the running sums in place). Only the sizes are checked
    /// (std::invalid_argument): the caller vouches for the order. For builders that know the shape anyway,
    /// such as time slices, which so spare the passes of fromPreorder().
    static CallTree fromShape(Shape&& shape, std::vector<std::vector<int64_t>>&& self);
    /// The reverse of fromShape(): the arrays of a tree no longer needed taken out (the tree is left empty),
    /// for their memory to be reused (SliceMemory); `costs` receives the cost arrays, their values undefined.
    static void release(CallTree&& tree, Shape& shape, std::vector<std::vector<int64_t>>& costs);
    /// The total (inclusive) costs of the nodes of a tree in preorder from their self costs.
    static std::vector<int64_t> totalsOf(std::span<const NodeId> parent, std::span<const int64_t> self);

private:
    /// Takes the self costs over, turning each array into the running sums in place (and keeping saturated
    /// totals where the sums could overflow).
    void takeSelfCosts(std::vector<std::vector<int64_t>>&& self);

    std::vector<NodeId> m_parent, m_end;
    std::vector<FrameId> m_frame;
    std::vector<uint32_t> m_depth;
    std::vector<std::vector<int64_t>> m_sum; ///< [cost type][node]: self(0) + ... + self(node), wrapping
    std::vector<std::vector<int64_t>>
        m_saturated; ///< [cost type]: the totals where m_sum could overflow, else empty
    uint32_t m_maxDepth = 0;
};

} // namespace scorch
