#include "scorch/analysis.h"
#include "scorch/cancel.h"

#include "model/outermost.h"
#include "util/hugepages.h"

#include <algorithm>
#include <future>
#include <thread>
#include <utility>

namespace scorch {

CallTree bottomUpTree(const Profile& profile) {
    return bottomUpTree(profile, profile.tree);
}

namespace {

std::optional<CallTree> invert(const Profile& profile, const CallTree& tree,
                               const std::atomic<bool>* cancel) {
    // Every node with self cost starts a walk up to the root; the inverted tree's nodes are the distinct
    // walk prefixes. Instead of hashing each (prefix, frame) step, walks that share a prefix are kept in one
    // contiguous group and split by the frame of their next step with a counting sort: linear in the total
    // walk length, cache-friendly.
    const std::size_t types = tree.costTypeCount();
    std::vector<NodeId> parent{kRootNode};
    std::vector<FrameId> frame{FrameId{}};
    std::vector<std::vector<int64_t>> self(types, std::vector<int64_t>(1, 0));
    // per tree node: its parent and the parent's frame, where a walk goes next (one read per step, not three
    // into two arrays: the walks' nodes are all over the tree)
    struct Step {
        NodeId up;
        uint32_t upFrame;
    };
    std::vector<Step> step;
    detail::reservePopulated(step, tree.size());
    for (NodeId n = 0; n < tree.size(); ++n)
        step.push_back({tree.parent(n), tree.frame(tree.parent(n)).value});
    // per walk: the node it has reached, that node's frame, the node it started at
    std::vector<NodeId> cursor, origin;
    std::vector<uint32_t> at;
    for (NodeId n = 1; n < tree.size(); ++n)
        if (tree.hasSelfCost(n)) {
            detail::pushHuge(cursor, n);
            detail::pushHuge(origin, n);
            detail::pushHuge(at, tree.frame(n).value);
        }
    std::vector<NodeId> sortedCursor(cursor.size()), sortedOrigin(cursor.size());
    std::vector<uint32_t> sortedAt(cursor.size());
    std::vector<uint32_t> slot(profile.frames.size() + 1, 0); // per frame: count, then write position
    std::vector<uint32_t> touched;                            // frames seen in the current group
    struct Group {
        uint32_t begin, end;
        NodeId parent; // inverted node the group's walks have reached
    };
    std::vector<Group> stack{{0, static_cast<uint32_t>(cursor.size()), kRootNode}};
    CancelPoll<256> cancelled(cancel);
    while (!stack.empty()) {
        if (cancelled())
            return std::nullopt;
        const Group g = stack.back();
        stack.pop_back();
        touched.clear();
        for (uint32_t i = g.begin; i < g.end; ++i)
            if (slot[at[i]]++ == 0)
                touched.push_back(at[i]);
        uint32_t pos = g.begin;
        for (uint32_t f : touched)
            pos += std::exchange(slot[f], pos);
        for (uint32_t i = g.begin; i < g.end; ++i) {
            const uint32_t k = slot[at[i]]++;
            sortedCursor[k] = cursor[i];
            sortedOrigin[k] = origin[i];
            sortedAt[k] = at[i];
        }
        std::copy(sortedCursor.begin() + g.begin, sortedCursor.begin() + g.end, cursor.begin() + g.begin);
        std::copy(sortedOrigin.begin() + g.begin, sortedOrigin.begin() + g.end, origin.begin() + g.begin);
        std::copy(sortedAt.begin() + g.begin, sortedAt.begin() + g.end, at.begin() + g.begin);
        uint32_t begin = g.begin;
        for (uint32_t f : touched) {
            const uint32_t end = std::exchange(slot[f], 0);
            const auto node = static_cast<NodeId>(parent.size());
            detail::pushHuge(parent, g.parent);
            detail::pushHuge(frame, FrameId{f});
            for (auto& s : self)
                detail::pushHuge(s, int64_t{0});
            uint32_t keep = begin; // walks that go on to a caller move to the front
            for (uint32_t i = begin; i < end; ++i) {
                const Step next = step[cursor[i]];
                if (next.up == kRootNode) {
                    for (std::size_t t = 0; t < types; ++t)
                        addCost(self[t][node], tree.self(t, origin[i]));
                } else {
                    cursor[keep] = next.up;
                    at[keep] = next.upFrame;
                    origin[keep++] = origin[i];
                }
            }
            if (keep > begin)
                stack.push_back({begin, keep, node});
            begin = end;
        }
    }
    std::vector<Step>().swap(step);
    if (cancelRequested(cancel))
        return std::nullopt;
    return CallTree::fromParentArray(parent, frame, std::move(self), profile.frames, profile.strings);
}

/// From this many nodes on, a tree's function costs are summed in two parts on two threads.
constexpr std::size_t kFunctionsAside = 200000;

/// The function costs of the nodes [from, to) of a tree in preorder, in flat arrays by frame id (no
/// FunctionCost per node: the walk reads nothing but the tree and these). A node's total counts when no
/// ancestor has its frame (the outermost occurrence on the path: each sample once): per frame, the end of
/// the subtree of its outermost occurrence met last tells (a node inside it is not outermost; a node after
/// it starts the next), without keeping the path (whose pops, a varying number a node, cost more than the
/// sums). The ancestors of `from` are occurrences already met.
struct FunctionSums {
    std::vector<int64_t> self, total; ///< [frame * types + type]
    std::vector<uint32_t> callSites;  ///< [frame]
    std::vector<uint32_t> firstSeen;  ///< frames in the order their first node comes

    bool walk(const CallTree& tree, std::size_t frames, NodeId from, NodeId to,
              const std::atomic<bool>* cancel) {
        const std::size_t types = tree.costTypeCount();
        self.assign(frames * types, 0);
        total.assign(frames * types, 0);
        callSites.assign(frames, 0);
        detail::OutermostOfFrame outer(tree, frames, from);
        CancelPoll<65536> cancelled(cancel);
        for (NodeId n = from; n < to; ++n) {
            if (cancelled())
                return false;
            const uint32_t f = tree.frame(n).value;
            if (callSites[f]++ == 0)
                firstSeen.push_back(f);
            const bool outermost = outer.visit(n, f);
            for (std::size_t t = 0; t < types; ++t) {
                addCost(self[f * types + t], tree.self(t, n));
                addCost(total[f * types + t], outermost ? tree.total(t, n) : 0);
            }
        }
        return true;
    }
};

/// Profile::functions, where they are those of `tree`: summed with the profile's own tree, and naming as many
/// call sites as it has nodes (a check that they were cleared when the tree was replaced).
bool summedWithTree(const Profile& profile, const CallTree& tree) {
    if (&tree != &profile.tree || profile.functions.empty())
        return false;
    std::size_t callSites = 0;
    for (const FunctionCost& f : profile.functions)
        callSites += f.callSites;
    return callSites + 1 == tree.size();
}

std::optional<std::vector<FunctionCost>> sumFunctions(const Profile& profile, const CallTree& tree,
                                                      const std::atomic<bool>* cancel) {
    if (summedWithTree(profile, tree))
        return profile.functions;
    const std::size_t types = tree.costTypeCount();
    const std::size_t frames = profile.frames.size(); // (a derived tree's frames are the profile's)
    const auto size = static_cast<NodeId>(tree.size());
    // two parts on two threads for a large tree, split at the middle node (the second starts with its
    // ancestors on the path)
    const bool split = size >= kFunctionsAside && std::thread::hardware_concurrency() > 1;
    const NodeId middle = split ? size / 2 : size;
    FunctionSums head, tail;
    std::future<bool> tailSummed;
    if (split)
        tailSummed =
            std::async(std::launch::async, [&] { return tail.walk(tree, frames, middle, size, cancel); });
    const bool summed = head.walk(tree, frames, 1, middle, cancel);
    if (!(tailSummed.valid() ? tailSummed.get() : true) || !summed)
        return std::nullopt;
    std::vector<FunctionCost> out;
    const auto add = [&](uint32_t f) {
        FunctionCost fc{FrameId{f}, std::vector<int64_t>(types, 0), std::vector<int64_t>(types, 0), 0};
        for (const FunctionSums* part : {&head, &tail}) {
            if (part->callSites.empty() || part->callSites[f] == 0)
                continue;
            fc.callSites += part->callSites[f];
            for (std::size_t t = 0; t < types; ++t) {
                addCost(fc.self[t], part->self[f * types + t]);
                addCost(fc.total[t], part->total[f * types + t]);
            }
        }
        out.push_back(std::move(fc));
    };
    // in the order of the frames' first nodes, as one walk would meet them
    for (const uint32_t f : head.firstSeen)
        add(f);
    for (const uint32_t f : tail.firstSeen)
        if (head.callSites[f] == 0)
            add(f);
    return out;
}

} // namespace

CallTree bottomUpTree(const Profile& profile, const CallTree& tree) {
    return *invert(profile, tree, nullptr);
}

std::optional<CallTree> bottomUpTree(const Profile& profile, const CallTree& tree,
                                     const std::atomic<bool>* cancel) {
    return invert(profile, tree, cancel);
}

std::vector<FunctionCost> functionCosts(const Profile& profile) {
    return functionCosts(profile, profile.tree);
}

std::vector<FunctionCost> functionCosts(const Profile& profile, const CallTree& tree) {
    return *sumFunctions(profile, tree, nullptr);
}

std::optional<std::vector<FunctionCost>> functionCosts(const Profile& profile, const CallTree& tree,
                                                       const std::atomic<bool>* cancel) {
    return sumFunctions(profile, tree, cancel);
}

std::vector<FunctionCost> topFunctions(const Profile& profile, std::size_t costType, std::size_t limit) {
    std::vector<FunctionCost> all = functionCosts(profile);
    std::stable_sort(all.begin(), all.end(), [&](const FunctionCost& a, const FunctionCost& b) {
        if (a.self[costType] != b.self[costType])
            return a.self[costType] > b.self[costType];
        return a.total[costType] > b.total[costType];
    });
    if (all.size() > limit)
        all.resize(limit);
    return all;
}

std::vector<std::vector<int64_t>> selfCostsForThreads(const Profile& profile,
                                                      std::span<const uint32_t> threads) {
    std::vector<char> wanted(profile.threads.size(), 0);
    for (uint32_t t : threads)
        if (t < wanted.size())
            wanted[t] = 1;
    const ThreadCosts& tc = profile.threadCosts;
    std::vector<std::vector<int64_t>> self(tc.cost.size(), std::vector<int64_t>(profile.tree.size(), 0));
    for (std::size_t e = 0; e < tc.node.size(); ++e) {
        if (!wanted[tc.thread[e]])
            continue;
        for (std::size_t t = 0; t < tc.cost.size(); ++t)
            addCost(self[t][tc.node[e]], tc.cost[t][e]);
    }
    return self;
}

} // namespace scorch
