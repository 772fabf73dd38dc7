#include "scorch/transform.h"

#include "model/pathtree.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace scorch {

TreeTransform TreeTransform::forFrames(Kind kind, std::span<const FrameId> frames) {
    TreeTransform t{kind, frames.empty() ? FrameId{} : frames.front()};
    if (frames.size() > 1)
        t.also.assign(frames.begin() + 1, frames.end());
    return t;
}

std::string moduleFrameName(std::string_view modulePath) {
    if (modulePath.starts_with('[') && modulePath.ends_with(']'))
        return std::string(modulePath);
    const std::size_t slash = modulePath.find_last_of('/');
    const std::string_view base = slash == std::string_view::npos ? modulePath : modulePath.substr(slash + 1);
    return "[" + std::string(base.empty() ? modulePath : base) + "]";
}

namespace {

Frame moduleFrameKey(const Frame& member, StringId name, StringId module) {
    Frame f;
    f.name = name;
    f.module = module;
    f.kind = member.kind == FrameKind::Kernel ? FrameKind::Kernel : FrameKind::Native;
    return f;
}

/// A transform made ready for many paths: which frames it concerns, as one flag per frame id.
struct Compiled {
    TreeTransform::Kind kind;
    std::vector<char> match;   ///< per frame id
    std::vector<FrameId> path; ///< FocusSubtree
    FrameId moduleFrame;       ///< CollapseModule: the `[name]` frame, or 0 (use the run's first frame)
    mutable std::vector<uint32_t> last; ///< CollapseAllRecursion: scratch, per frame id
};

Compiled compile(const Profile& profile, const TreeTransform& t) {
    using Kind = TreeTransform::Kind;
    Compiled c{t.kind, std::vector<char>(profile.frames.size(), 0), t.path, FrameId{}, {}};
    auto mark = [&](FrameId f) {
        if (f.value != 0 && f.value < c.match.size())
            c.match[f.value] = 1;
    };
    if (t.kind == Kind::CollapseModule || t.kind == Kind::MergeModule) {
        if (t.module)
            for (uint32_t f = 1; f < profile.frames.size(); ++f)
                if (profile.frames[FrameId{f}].module == t.module)
                    c.match[f] = 1;
        if (t.kind == Kind::CollapseModule) {
            c.moduleFrame = moduleFrame(profile, t.module);
            if (c.moduleFrame.value != 0)
                c.match[c.moduleFrame.value] = 1; // an already collapsed run joins the next one
        }
    } else if (t.kind == Kind::CollapseAllRecursion) {
        c.last.resize(profile.frames.size());
    } else if (t.kind != Kind::FocusSubtree) {
        mark(t.frame);
        for (FrameId f : t.also)
            mark(f);
    }
    return c;
}

/// Applies one transform to a root->leaf path; returns false when the sample is dropped.
bool apply(const Compiled& t, std::vector<FrameId>& path) {
    using Kind = TreeTransform::Kind;
    auto matches = [&](FrameId f) {
        return t.match[f.value] != 0;
    };
    switch (t.kind) {
    case Kind::Focus: {
        const auto first = std::find_if(path.begin(), path.end(), matches);
        if (first == path.end())
            return false;
        path.erase(path.begin(), first);
        return true;
    }
    case Kind::Hide:
    case Kind::MergeModule:
        std::erase_if(path, matches);
        return true;
    case Kind::CollapseRecursion: {
        const auto first = std::find_if(path.begin(), path.end(), matches);
        if (first == path.end())
            return true;
        const auto last = std::find_if(path.rbegin(), path.rend(), matches).base(); // one past the innermost
        path.erase(first + 1, last);
        return true;
    }
    case Kind::CollapseAllRecursion: {
        // keep each frame's outermost call and go on after its innermost one
        for (std::size_t i = 0; i < path.size(); ++i)
            t.last[path[i].value] = static_cast<uint32_t>(i);
        std::size_t out = 0;
        for (std::size_t i = 0; i < path.size(); i = t.last[path[i].value] + 1)
            path[out++] = path[i];
        path.resize(out);
        return true;
    }
    case Kind::FocusSubtree:
        if (t.path.empty() || path.size() < t.path.size() ||
            !std::equal(t.path.begin(), t.path.end(), path.begin()))
            return false;
        path.erase(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(t.path.size() - 1));
        return true;
    case Kind::Drop:
        return std::none_of(path.begin(), path.end(), matches);
    case Kind::CollapseModule: {
        std::size_t out = 0;
        for (std::size_t i = 0; i < path.size(); ++i) {
            if (matches(path[i]) && out > 0 && matches(path[out - 1]))
                continue; // inside a run: merged into its first frame
            path[out++] = matches(path[i]) && t.moduleFrame.value != 0 ? t.moduleFrame : path[i];
        }
        path.resize(out);
        return true;
    }
    }
    return true;
}

constexpr NodeId kDropped = std::numeric_limits<NodeId>::max();
constexpr NodeId kUnknown = kDropped - 1;

/// Transforms the paths of `tree` into a new tree; `nodeOf` (optional, sized tree.size()) receives, for the
/// nodes asked for with kUnknown, the new node their cost went to, or kDropped.
CallTree transformTree(const Profile& profile, const CallTree& tree,
                       std::span<const TreeTransform> transforms, std::vector<NodeId>* nodeOf) {
    std::vector<Compiled> compiled;
    compiled.reserve(transforms.size());
    for (const TreeTransform& t : transforms)
        compiled.push_back(compile(profile, t));
    detail::PathTree out(tree.costTypeCount());
    std::vector<FrameId> path;
    auto transformed = [&](NodeId n) {
        path.clear();
        for (NodeId m = n; m != kRootNode; m = tree.parent(m))
            path.push_back(tree.frame(m));
        std::reverse(path.begin(), path.end());
        for (const Compiled& t : compiled)
            if (!apply(t, path))
                return kDropped;
        NodeId node = kRootNode;
        for (FrameId f : path)
            node = out.child(node, f);
        return node;
    };
    for (NodeId n = 0; n < tree.size(); ++n) {
        const bool wanted = nodeOf && (*nodeOf)[n] == kUnknown;
        if (!wanted && !tree.hasSelfCost(n))
            continue;
        const NodeId to = transformed(n);
        if (wanted)
            (*nodeOf)[n] = to;
        if (to != kDropped)
            for (std::size_t t = 0; t < tree.costTypeCount(); ++t)
                out.addSelf(t, to, tree.self(t, n));
    }
    std::vector<NodeId> remap;
    CallTree result = out.finish(profile.frames, profile.strings, nodeOf ? &remap : nullptr);
    if (nodeOf)
        for (NodeId& n : *nodeOf)
            if (n != kDropped && n != kUnknown)
                n = remap[n];
    return result;
}

} // namespace

CallTree applyTransforms(const Profile& profile, const CallTree& tree,
                         std::span<const TreeTransform> transforms) {
    return transformTree(profile, tree, transforms, nullptr);
}

void applyTransforms(Profile& profile, std::span<const TreeTransform> transforms) {
    if (transforms.empty())
        return;
    if (std::any_of(transforms.begin(), transforms.end(),
                    [](const TreeTransform& t) { return t.kind == TreeTransform::Kind::CollapseModule; }))
        addModuleFrames(profile);
    ThreadCosts& tc = profile.threadCosts;
    std::vector<NodeId> nodeOf(profile.tree.size(), kDropped);
    for (NodeId n : tc.node)
        nodeOf[n] = kUnknown;
    CallTree tree = transformTree(profile, profile.tree, transforms, &nodeOf);
    // per-thread costs follow their nodes; entries that now share a (thread, node) are summed
    ThreadCosts out;
    out.cost.resize(tc.cost.size());
    std::unordered_map<uint64_t, std::size_t> entryOf;
    for (std::size_t e = 0; e < tc.node.size(); ++e) {
        const NodeId to = nodeOf[tc.node[e]];
        if (to == kDropped)
            continue;
        const uint64_t key = (static_cast<uint64_t>(tc.thread[e]) << 32) | to;
        const auto [it, added] = entryOf.try_emplace(key, out.node.size());
        if (added) {
            out.thread.push_back(tc.thread[e]);
            out.node.push_back(to);
            for (auto& c : out.cost)
                c.push_back(0);
        }
        for (std::size_t t = 0; t < tc.cost.size(); ++t)
            addCost(out.cost[t][it->second], tc.cost[t][e]);
    }
    profile.tree = std::move(tree);
    profile.functions.clear(); // (the old tree's)
    profile.threadCosts = std::move(out);
    profile.lineCosts = {};
    profile.samples.reset();
}

void addModuleFrames(Profile& profile) {
    std::vector<std::pair<StringId, FrameKind>> modules;
    std::vector<char> seen(profile.strings.size(), 0);
    for (uint32_t f = 1; f < profile.frames.size(); ++f) {
        const Frame& frame = profile.frames[FrameId{f}];
        if (frame.module && !seen[frame.module.value]) {
            seen[frame.module.value] = 1;
            modules.emplace_back(frame.module, frame.kind);
        }
    }
    for (const auto& [module, kind] : modules) {
        Frame member;
        member.kind = kind;
        const StringId name = profile.strings.intern(moduleFrameName(profile.strings.view(module)));
        profile.frames.intern(moduleFrameKey(member, name, module));
    }
}

FrameId moduleFrame(const Profile& profile, StringId module) {
    if (!module)
        return {};
    const StringId name = profile.strings.find(moduleFrameName(profile.strings.view(module)));
    if (!name)
        return {};
    for (uint32_t f = 1; f < profile.frames.size(); ++f) {
        const Frame& frame = profile.frames[FrameId{f}];
        if (frame.name == name && frame.module == module && !frame.file && frame.line == 0)
            return FrameId{f};
    }
    return {};
}

} // namespace scorch
