// Internal: whether each node of a call tree, met in preorder, is the outermost node of its frame on its path
// (no ancestor has the same frame): the node whose total counts in its function's (functionCosts(), a
// slice's per-function costs).
#pragma once

#include "scorch/calltree.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace scorch::detail {

/// Per frame, the end of the subtree of its outermost node met last: a node before that end lies inside
/// it. Walks from any node on, seeded with that node's ancestors (met first, from the root down). With no
/// frames, visit() is not to be called.
class OutermostOfFrame {
public:
    OutermostOfFrame(const CallTree& tree, std::size_t frames, NodeId first)
        : m_tree(tree)
        , m_end(frames, 0) {
        // (no frames: a caller that does not ask; nothing to seed)
        if (frames == 0)
            return;
        std::vector<NodeId> up; // (the ancestors of `first` but the root)
        for (NodeId a = first < tree.size() ? tree.parent(first) : kRootNode; a != kRootNode;
             a = tree.parent(a))
            up.push_back(a);
        for (auto a = up.rbegin(); a != up.rend(); ++a)
            visit(*a, tree.frame(*a).value);
    }

    /// Whether node n, of frame f, is the outermost of its frame; the nodes visited in preorder.
    bool visit(NodeId n, uint32_t f) {
        NodeId& end = m_end[f];
        const bool outermost = end <= n;
        end = outermost ? m_tree.subtreeEnd(n) : end;
        return outermost;
    }

private:
    const CallTree& m_tree;
    std::vector<NodeId> m_end;
};

} // namespace scorch::detail
