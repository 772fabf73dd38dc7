#include "scorch/transform.h"

#include "model/pathtree.h"

#include <algorithm>

namespace scorch {

namespace {

/// Applies one transform to a root->leaf path; returns false when the sample is dropped.
bool apply(const TreeTransform& t, std::vector<FrameId>& path) {
    switch (t.kind) {
    case TreeTransform::Kind::Focus: {
        const auto first = std::find(path.begin(), path.end(), t.frame);
        if (first == path.end())
            return false;
        path.erase(path.begin(), first);
        return true;
    }
    case TreeTransform::Kind::Hide:
        std::erase(path, t.frame);
        return true;
    case TreeTransform::Kind::CollapseRecursion: {
        const auto first = std::find(path.begin(), path.end(), t.frame);
        if (first == path.end())
            return true;
        const auto last = std::find(path.rbegin(), path.rend(), t.frame).base(); // one past the innermost
        path.erase(first + 1, last);
        return true;
    }
    }
    return true;
}

} // namespace

CallTree applyTransforms(const Profile& profile, const CallTree& tree,
                         std::span<const TreeTransform> transforms) {
    detail::PathTree out(tree.costTypeCount());
    std::vector<FrameId> path;
    detail::forEachNodeWithSelfCost(tree, [&](NodeId n) {
        path.clear();
        for (NodeId m = n; m != kRootNode; m = tree.parent(m))
            path.push_back(tree.frame(m));
        std::reverse(path.begin(), path.end());
        for (const TreeTransform& t : transforms)
            if (!apply(t, path))
                return;
        out.add(path, [&](std::size_t t) { return tree.self(t, n); });
    });
    return out.finish(profile.frames, profile.strings);
}

} // namespace scorch
