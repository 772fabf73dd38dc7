#include "scorch/diff.h"

#include "model/pathtree.h"
#include "scorch/analysis.h"
#include "scorch/foldedwriter.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

namespace scorch {

std::string stripHexLiterals(std::string_view name) {
    std::string out;
    out.reserve(name.size());
    for (std::size_t i = 0; i < name.size();) {
        if (name[i] == '0' && i + 2 < name.size() && (name[i + 1] == 'x' || name[i + 1] == 'X') &&
            std::isxdigit(static_cast<unsigned char>(name[i + 2]))) {
            out += "0x...";
            i += 2;
            while (i < name.size() && std::isxdigit(static_cast<unsigned char>(name[i])))
                ++i;
            continue;
        }
        out.push_back(name[i++]);
    }
    return out;
}

namespace {

/// Interns the frames of both inputs by name into the diff profile's tables.
class FrameMapper {
public:
    FrameMapper(Profile& out, const DiffOptions& options, bool modules)
        : m_out(out)
        , m_options(options)
        , m_modules(modules) {}

    /// Frame ids of `in` mapped into the output (index = input frame id).
    std::vector<FrameId> map(const Profile& in) {
        std::vector<FrameId> ids(in.frames.size());
        for (uint32_t f = 1; f < in.frames.size(); ++f) {
            const Frame& src = in.frames[FrameId{f}];
            // the folded form of the name, so that `comm` roots and `;` in names match folded input
            std::string name = foldedFrameName(in, FrameId{f}, {});
            std::string display(in.strings.view(src.name));
            if (m_options.stripHex) {
                name = stripHexLiterals(name);
                display = stripHexLiterals(display);
            }
            if (m_modules) { // the module's file name: the same library elsewhere still matches
                const std::string_view module = in.strings.view(src.module);
                name += '\x1f';
                name +=
                    module.substr(module.rfind('/') == std::string_view::npos ? 0 : module.rfind('/') + 1);
            }
            auto it = m_byName.find(name);
            if (it == m_byName.end()) {
                Frame dst;
                dst.name = m_out.strings.intern(display);
                dst.module = m_out.strings.intern(in.strings.view(src.module));
                dst.file = m_out.strings.intern(in.strings.view(src.file));
                dst.line = src.line;
                dst.kind = src.kind;
                it = m_byName.emplace(std::move(name), m_out.frames.intern(dst)).first;
            }
            ids[f] = it->second;
        }
        return ids;
    }

private:
    Profile& m_out;
    const DiffOptions& m_options;
    bool m_modules;
    std::unordered_map<std::string, FrameId> m_byName;
};

bool hasModules(const Profile& p) {
    for (uint32_t f = 1; f < p.frames.size(); ++f)
        if (p.frames[FrameId{f}].module)
            return true;
    return false;
}

} // namespace

bool diffMatchesModules(const Profile& before, const Profile& after, const DiffOptions& options) {
    return options.matchModules && hasModules(before) && hasModules(after);
}

Profile diffProfiles(const Profile& before, std::size_t beforeType, const Profile& after,
                     std::size_t afterType, const DiffOptions& options) {
    Profile out;
    FrameMapper mapper(out, options, diffMatchesModules(before, after, options));
    const std::vector<FrameId> beforeFrames = mapper.map(before), afterFrames = mapper.map(after);

    const int64_t totalBefore = before.tree.grandTotal(beforeType),
                  totalAfter = after.tree.grandTotal(afterType);
    const CostType& bt = before.costTypes[beforeType];
    const CostType& at = after.costTypes[afterType];
    const int decimals = std::max(bt.decimals, at.decimals);
    const CostUnit unit = bt.unit == at.unit ? bt.unit : CostUnit::Count;

    // The merged tree, built in one preorder pass per side: a node's merged id is its parent's merged id
    // plus its frame, so every input node costs one hash lookup (no walk back to the root per stack).
    detail::PathTree tree(4);
    std::vector<NodeId> merged;
    std::vector<char> needed;
    auto addSide = [&](const Profile& in, std::size_t type, const std::vector<FrameId>& frames,
                       std::size_t slot, bool scale) {
        const CallTree& t = in.tree;
        const int64_t factor = pow10(decimals - in.costTypes[type].decimals);
        // only the paths to nodes with a cost of this type (as a tree of whole stacks would have)
        needed.assign(t.size(), 0);
        for (NodeId n = static_cast<NodeId>(t.size()); n-- > 1;) {
            needed[n] |= t.self(type, n) != 0;
            if (needed[n])
                needed[t.parent(n)] = 1;
        }
        merged.assign(t.size(), kRootNode);
        for (NodeId n = 1; n < t.size(); ++n) {
            if (!needed[n]) {
                n = t.subtreeEnd(n) - 1;
                continue;
            }
            const NodeId m = merged[n] = tree.child(merged[t.parent(n)], frames[t.frame(n).value]);
            int64_t v = t.self(type, n);
            if (v == 0)
                continue;
            if (scale && totalBefore != 0) {
                const __int128_t scaled = static_cast<__int128_t>(v) * totalAfter / totalBefore;
                v = scaled > INT64_MAX   ? INT64_MAX
                    : scaled < INT64_MIN ? INT64_MIN
                                         : static_cast<int64_t>(scaled);
            }
            v = mulCost(v, factor);
            tree.addSelf(slot, m, v);
            tree.addSelf(kDelta, m, slot == kAfter ? v : v == INT64_MIN ? INT64_MAX : -v);
            if (slot == kAfter)
                tree.addSelf(kWidth, m, v);
        }
    };
    addSide(before, beforeType, beforeFrames, kBefore, options.normalize && totalBefore != totalAfter);
    addSide(after, afterType, afterFrames, kAfter, false);
    out.tree = tree.finish(out.frames, out.strings);

    out.costTypes = {CostType{"before", unit, decimals}, CostType{"after", unit, decimals},
                     CostType{"delta", unit, decimals}, CostType{"width", unit, decimals}};
    out.threads.push_back(ThreadInfo{"", -1, -1, before.meta.samples + after.meta.samples});
    for (NodeId n = 0; n < out.tree.size(); ++n) {
        if (!out.tree.hasSelfCost(n))
            continue;
        out.threadCosts.thread.push_back(0);
        out.threadCosts.node.push_back(n);
    }
    out.threadCosts.cost.resize(4);
    for (std::size_t c = 0; c < 4; ++c)
        for (NodeId n : out.threadCosts.node)
            out.threadCosts.cost[c].push_back(out.tree.self(c, n));
    out.meta.source = before.meta.source + " -> " + after.meta.source;
    out.meta.format = Format::Comparison;
    out.meta.samples = before.meta.samples + after.meta.samples;
    return out;
}

DiffStatus diffStatus(const CallTree& t, NodeId n) {
    const int64_t b = t.total(kBefore, n), a = t.total(kAfter, n);
    if (b == 0 && a != 0)
        return DiffStatus::Added;
    if (a == 0 && b != 0)
        return DiffStatus::Removed;
    return a > b ? DiffStatus::Grew : a < b ? DiffStatus::Shrank : DiffStatus::Same;
}

int64_t NoiseFloor::threshold(const CallTree& t) const {
    if (t.size() == 0 || t.costTypeCount() <= kAfter)
        return std::max<int64_t>(samples, 0);
    const double larger = static_cast<double>(std::max(t.grandTotal(kBefore), t.grandTotal(kAfter)));
    const double fraction = std::clamp(percent, 0.0, 100.0) / 100.0 * std::max(larger, 0.0);
    const double limit = 9.0e18; // below INT64_MAX: the conversion stays defined
    return std::max<int64_t>(std::max<int64_t>(samples, 0),
                             static_cast<int64_t>(std::min(std::ceil(fraction), limit)));
}

CallTree diffLayoutTree(const CallTree& diffTree, const DiffLayoutOptions& o) {
    CallTree out = diffTree;
    if (diffTree.costTypeCount() <= kDelta)
        return out;
    std::vector<std::vector<int64_t>> self;
    for (std::size_t c = 0; c < diffTree.costTypeCount(); ++c)
        self.push_back(diffTree.selfCosts(c));
    if (self.size() <= kWidth)
        self.resize(kWidth + 1);
    std::vector<int64_t>& width = self[kWidth];
    width.assign(diffTree.size(), 0);
    for (NodeId n = 0; n < diffTree.size(); ++n) {
        const int64_t b = diffTree.self(kBefore, n), a = diffTree.self(kAfter, n);
        if (o.hideBelow > 0) {
            const int64_t d = diffCost(diffTree, kDelta, n, o.metric);
            if ((d < 0 ? -static_cast<__int128_t>(d) : d) < o.hideBelow)
                continue;
        }
        switch (o.width) {
        case DiffWidth::After:
            width[n] = a != 0 || !o.showMissing ? a : b;
            break;
        case DiffWidth::Before:
            width[n] = b != 0 || !o.showMissing ? b : a;
            break;
        case DiffWidth::Max:
            width[n] = std::max(a, b);
            break;
        }
    }
    out.setSelfCosts(std::move(self));
    return out;
}

DiffStatus FunctionDelta::status() const {
    if (totalBefore == 0 && totalAfter != 0)
        return DiffStatus::Added;
    if (totalAfter == 0 && totalBefore != 0)
        return DiffStatus::Removed;
    return totalAfter > totalBefore   ? DiffStatus::Grew
           : totalAfter < totalBefore ? DiffStatus::Shrank
                                      : DiffStatus::Same;
}

std::vector<FunctionDelta> functionDeltas(const Profile& diff) {
    std::vector<FunctionDelta> out;
    if (diff.tree.costTypeCount() <= kAfter)
        return out;
    for (const FunctionCost& fc : functionCosts(diff)) {
        FunctionDelta f;
        f.frame = fc.frame;
        f.selfBefore = fc.self[kBefore];
        f.selfAfter = fc.self[kAfter];
        f.totalBefore = fc.total[kBefore];
        f.totalAfter = fc.total[kAfter];
        out.push_back(f);
    }
    return out;
}

std::vector<FunctionDelta> biggestChanges(std::vector<FunctionDelta> functions, DiffMetric metric,
                                          bool regressions, std::size_t limit) {
    std::erase_if(functions, [&](const FunctionDelta& f) {
        return regressions ? f.delta(metric) <= 0 : f.delta(metric) >= 0;
    });
    std::stable_sort(functions.begin(), functions.end(), [&](const FunctionDelta& a, const FunctionDelta& b) {
        return regressions ? a.delta(metric) > b.delta(metric) : a.delta(metric) < b.delta(metric);
    });
    if (functions.size() > limit)
        functions.resize(limit);
    return functions;
}

} // namespace scorch
