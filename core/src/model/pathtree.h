// Internal: builds a CallTree from whole root->leaf paths (used by bottom-up inversion and transforms).
#pragma once

#include "scorch/calltree.h"
#include "scorch/costs.h"
#include "scorch/frames.h"
#include "scorch/strings.h"

#include "util/hash.h"
#include <span>
#include <vector>

namespace scorch::detail {

class PathTree {
public:
    explicit PathTree(std::size_t costTypes)
        : m_parent{0}
        , m_frame{FrameId{}}
        , m_self(costTypes, std::vector<int64_t>(1, 0)) {}

    /// Adds `self[t]` of every cost type t at the end of `path` (root first); an empty path adds to the root.
    template <typename CostOf>
    void add(std::span<const FrameId> path, CostOf&& costOf) {
        NodeId n = kRootNode;
        for (FrameId f : path)
            n = child(n, f);
        for (std::size_t t = 0; t < m_self.size(); ++t)
            addCost(m_self[t][n], costOf(t));
    }

    CallTree finish(const FrameTable& frames, const StringTable& strings) {
        return CallTree::fromParentArray(m_parent, m_frame, std::move(m_self), frames, strings);
    }

private:
    NodeId child(NodeId p, FrameId f) {
        bool inserted;
        const NodeId n = m_children.findOrInsert((static_cast<uint64_t>(p) << 32) | f.value,
                                                 static_cast<NodeId>(m_parent.size()), inserted);
        if (inserted) {
            m_parent.push_back(p);
            m_frame.push_back(f);
            for (auto& s : m_self)
                s.push_back(0);
        }
        return n;
    }

    std::vector<NodeId> m_parent;
    std::vector<FrameId> m_frame;
    std::vector<std::vector<int64_t>> m_self;
    FlatMap64 m_children;
};

/// Calls f(node) for every node that has a non-zero self cost of any type.
template <typename F>
void forEachNodeWithSelfCost(const CallTree& tree, F&& f) {
    for (NodeId n = 0; n < tree.size(); ++n)
        if (tree.hasSelfCost(n))
            f(n);
}

} // namespace scorch::detail
