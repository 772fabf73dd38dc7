// Internal: growing a call tree node by node. growChildKeyed() is the one way a tree gets a child
// (TreeBuilder by its nodes' path keys, PathTree and the diff's merged tree by growChild()); PathTree builds
// a CallTree from whole root->leaf paths (bottom-up inversion, transforms) or node by node (diff).
#pragma once

#include "scorch/calltree.h"
#include "scorch/costs.h"
#include "scorch/frames.h"
#include "scorch/strings.h"

#include "util/hash.h"
#include <span>
#include <vector>

namespace scorch::detail {

inline uint64_t childKey(NodeId parent, FrameId frame) {
    return hashInt((static_cast<uint64_t>(parent) << 32) | frame.value);
}

/// The child of `parent` for `frame` in a tree held as parent and frame arrays (node 0 the root, nobody's
/// child) whose `slots` index the nodes by `key`, a hash that tells (parent, frame) apart (see probeIndex;
/// `keyOf(node)` gives a stored node's key when the index grows). A new node is appended after `onNew(id)`
/// ran, which may throw (nothing changes then) or grow the owner's per-node arrays.
template <typename KeyOf, typename OnNew>
NodeId growChildKeyed(std::vector<NodeId>& parents, std::vector<FrameId>& frames,
                      std::vector<uint64_t>& slots, NodeId parent, FrameId frame, uint64_t key, KeyOf&& keyOf,
                      OnNew&& onNew) {
    const IndexProbe p =
        probeIndex(slots, key, [&](uint32_t n) { return parents[n] == parent && frames[n] == frame; });
    if (p.found())
        return p.index;
    const auto id = static_cast<NodeId>(parents.size());
    onNew(id);
    pushHuge(parents, parent);
    pushHuge(frames, frame);
    insertIndex(slots, p, key, id, parents.size(), keyOf);
    return id;
}

/// growChildKeyed() keyed by childKey(parent, frame).
template <typename OnNew>
NodeId growChild(std::vector<NodeId>& parents, std::vector<FrameId>& frames, std::vector<uint64_t>& slots,
                 NodeId parent, FrameId frame, OnNew&& onNew) {
    return growChildKeyed(
        parents, frames, slots, parent, frame, childKey(parent, frame),
        [&](uint32_t n) { return childKey(parents[n], frames[n]); }, onNew);
}

class PathTree {
public:
    explicit PathTree(std::size_t costTypes)
        : m_parent{0}
        , m_frame{FrameId{}}
        , m_self(costTypes, std::vector<int64_t>(1, 0))
        , m_children(1024, 0) {}

    /// Adds `self[t]` of every cost type t at the end of `path` (root first); an empty path adds to the root.
    template <typename CostOf>
    void add(std::span<const FrameId> path, CostOf&& costOf) {
        NodeId n = kRootNode;
        for (FrameId f : path)
            n = child(n, f);
        for (std::size_t t = 0; t < m_self.size(); ++t)
            addCost(m_self[t][n], costOf(t));
    }

    /// The child of `p` for `f`, made when new.
    NodeId child(NodeId p, FrameId f) {
        return growChild(m_parent, m_frame, m_children, p, f, [&](NodeId) {
            for (auto& s : m_self)
                s.push_back(0);
        });
    }
    /// Adds `value` to the self cost of type `type` of node `n`.
    void addSelf(std::size_t type, NodeId n, int64_t value) { addCost(m_self[type][n], value); }

    /// `remap` (optional) receives this builder's node ids -> the tree's.
    CallTree finish(const FrameTable& frames, const StringTable& strings,
                    std::vector<NodeId>* remap = nullptr) {
        return CallTree::fromParentArray(m_parent, m_frame, std::move(m_self), frames, strings, remap);
    }

private:
    std::vector<NodeId> m_parent;
    std::vector<FrameId> m_frame;
    std::vector<std::vector<int64_t>> m_self;
    std::vector<uint64_t> m_children; // (parent, frame) -> node
};

/// Calls f(node) for every node that has a non-zero self cost of any type.
template <typename F>
void forEachNodeWithSelfCost(const CallTree& tree, F&& f) {
    for (NodeId n = 0; n < tree.size(); ++n)
        if (tree.hasSelfCost(n))
            f(n);
}

} // namespace scorch::detail
