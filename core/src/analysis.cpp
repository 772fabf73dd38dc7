#include "scorch/analysis.h"

#include "pathtree.h"

#include <algorithm>

namespace scorch {

CallTree bottomUpTree(const Profile& profile) {
    const CallTree& tree = profile.tree;
    detail::PathTree inverted(tree.costTypeCount());
    std::vector<FrameId> path;
    detail::forEachNodeWithSelfCost(tree, [&](NodeId n) {
        path.clear();
        for (NodeId m = n; m != kRootNode; m = tree.parent(m))
            path.push_back(tree.frame(m)); // leaf first: the inverted tree's root-to-leaf order
        inverted.add(path, [&](std::size_t t) { return tree.self(t, n); });
    });
    return inverted.finish(profile.frames, profile.strings);
}

std::vector<FunctionCost> functionCosts(const Profile& profile) {
    const CallTree& tree = profile.tree;
    const std::size_t types = tree.costTypeCount();
    std::vector<int32_t> slot(profile.frames.size(), -1);
    std::vector<FunctionCost> out;
    std::vector<uint32_t> onPath(profile.frames.size(), 0);
    std::vector<NodeId> open; // ancestors of the current node (preorder walk)
    for (NodeId n = 1; n < tree.size(); ++n) {
        while (!open.empty() && tree.subtreeEnd(open.back()) <= n) {
            --onPath[tree.frame(open.back()).value];
            open.pop_back();
        }
        const FrameId f = tree.frame(n);
        if (slot[f.value] < 0) {
            slot[f.value] = static_cast<int32_t>(out.size());
            out.push_back({f, std::vector<int64_t>(types, 0), std::vector<int64_t>(types, 0), 0});
        }
        FunctionCost& fc = out[static_cast<std::size_t>(slot[f.value])];
        ++fc.callSites;
        for (std::size_t t = 0; t < types; ++t) {
            addCost(fc.self[t], tree.self(t, n));
            if (onPath[f.value] == 0) // outermost occurrence on this path: counts each sample once
                addCost(fc.total[t], tree.total(t, n));
        }
        ++onPath[f.value];
        open.push_back(n);
    }
    return out;
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
