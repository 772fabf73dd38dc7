#include "scorch/sandwich.h"

#include "model/pathtree.h"

#include <algorithm>

namespace scorch {

Sandwich sandwich(const Profile& profile, const CallTree& tree, FrameId function,
                  std::span<const FrameId> also) {
    const std::size_t types = tree.costTypeCount();
    std::vector<char> match(profile.frames.size(), 0);
    for (FrameId f : {function})
        if (f.value != 0)
            match[f.value] = 1;
    for (FrameId f : also)
        if (f.value != 0 && f.value < match.size())
            match[f.value] = 1;
    const FrameId root = function.value != 0 ? function : (also.empty() ? FrameId{} : also.front());

    Sandwich s;
    s.self.assign(types, 0);
    s.total.assign(types, 0);
    detail::PathTree callers(types), callees(types);
    std::vector<FrameId> path;
    for (NodeId n = 1; n < tree.size(); ++n) {
        if (match[tree.frame(n).value])
            for (std::size_t t = 0; t < types; ++t)
                addCost(s.self[t], tree.self(t, n));
        if (!tree.hasSelfCost(n))
            continue;
        path.clear();
        for (NodeId m = n; m != kRootNode; m = tree.parent(m))
            path.push_back(tree.frame(m));
        std::reverse(path.begin(), path.end());
        const auto outermost =
            std::find_if(path.begin(), path.end(), [&](FrameId f) { return match[f.value] != 0; });
        if (outermost == path.end())
            continue;
        auto cost = [&](std::size_t t) {
            return tree.self(t, n);
        };
        for (std::size_t t = 0; t < types; ++t)
            addCost(s.total[t], tree.self(t, n));
        // callers: the function, then its callers outward (the frames of the other matches become it)
        std::vector<FrameId> up{root};
        for (auto it = std::make_reverse_iterator(outermost); it != path.rend(); ++it)
            up.push_back(*it);
        callers.add(up, cost);
        // callees: from the outermost call down, every match named as the function
        std::vector<FrameId> down(outermost, path.end());
        for (FrameId& f : down)
            if (match[f.value])
                f = root;
        callees.add(down, cost);
    }
    s.callers = callers.finish(profile.frames, profile.strings);
    s.callees = callees.finish(profile.frames, profile.strings);
    return s;
}

} // namespace scorch
