#include "scorch/folded.h"

#include <algorithm>
#include <ostream>

namespace scorch {

std::string foldedFrameName(const Profile& profile, FrameId frame, const FoldedOptions& options) {
    const Frame& f = profile.frames[frame];
    std::string name(profile.strings.view(f.name));
    for (char& c : name) {
        if (c == ';')
            c = ':';
        else if (c == ' ' && f.kind == FrameKind::Process)
            c = '_';
    }
    auto annotate = [&](std::string_view suffix) {
        if (name.find(suffix) == std::string::npos)
            name += suffix;
    };
    if (f.kind == FrameKind::Inlined)
        annotate("_[i]");
    else if (f.kind == FrameKind::Kernel && options.annotateKernel)
        annotate("_[k]");
    else if (f.kind == FrameKind::Jit && options.annotateJit)
        annotate("_[j]");
    return name;
}

namespace {

int64_t costOf(const Profile& p, const FoldedOptions& o, const std::vector<std::vector<int64_t>>& costs,
               std::size_t i) {
    int64_t v = costs[static_cast<std::size_t>(o.costType)][i];
    if (o.alwaysIncludedCostType >= 0 && o.alwaysIncludedCostType != o.costType) {
        const int from = p.costTypes[static_cast<std::size_t>(o.alwaysIncludedCostType)].decimals;
        const int to = p.costTypes[static_cast<std::size_t>(o.costType)].decimals;
        const int64_t extra = costs[static_cast<std::size_t>(o.alwaysIncludedCostType)][i];
        v += to >= from ? extra * pow10(to - from) : extra / pow10(from - to);
    }
    return v;
}

/// Calls f(node, path) for every node in preorder; `skipRoot` leaves the first frame out of the path.
template <typename F>
void forEachPath(const Profile& p, const FoldedOptions& o, bool skipRoot, F&& f) {
    const CallTree& tree = p.tree;
    std::string path;
    std::vector<std::size_t> lengthAtDepth(tree.maxDepth() + 2, 0);
    for (NodeId n = 1; n < tree.size(); ++n) {
        const uint32_t d = tree.depth(n);
        path.resize(lengthAtDepth[d - 1]);
        if (!(skipRoot && d == 1)) {
            if (!path.empty())
                path.push_back(';');
            path += foldedFrameName(p, tree.frame(n), o);
        }
        lengthAtDepth[d] = path.size();
        f(n, path);
    }
}

} // namespace

void writeFolded(const Profile& p, const FoldedOptions& o, std::ostream& out) {
    if (o.costType < 0 || static_cast<std::size_t>(o.costType) >= p.costTypes.size())
        return;
    struct Line {
        std::string stack;
        int64_t a, b;
    };
    std::vector<Line> lines;
    const bool two = o.secondCostType >= 0 && static_cast<std::size_t>(o.secondCostType) < p.costTypes.size();
    auto second = [&](const std::vector<std::vector<int64_t>>& costs, std::size_t i) {
        return two ? costs[static_cast<std::size_t>(o.secondCostType)][i] : 0;
    };
    bool processRoots = false;
    p.tree.forEachChild(kRootNode, [&](NodeId c) {
        processRoots = processRoots || p.frames[p.tree.frame(c)].kind == FrameKind::Process;
    });
    if ((o.includePid || o.includeTid) && processRoots) {
        // the root frame becomes comm-PID[/TID] of each sample's thread
        const ThreadCosts& tc = p.threadCosts;
        std::vector<std::vector<uint32_t>> entriesOf(p.tree.size());
        for (std::size_t e = 0; e < tc.node.size(); ++e)
            entriesOf[tc.node[e]].push_back(static_cast<uint32_t>(e));
        std::vector<std::string> rootName(p.threads.size());
        for (std::size_t t = 0; t < p.threads.size(); ++t) {
            const ThreadInfo& th = p.threads[t];
            std::string pid = th.pid < 0 ? "?" : std::to_string(th.pid);
            std::string name = th.name + "-" + pid;
            if (o.includeTid)
                name += "/" + std::to_string(th.tid);
            std::replace(name.begin(), name.end(), ' ', '_');
            std::replace(name.begin(), name.end(), ';', ':');
            rootName[t] = std::move(name);
        }
        forEachPath(p, o, true, [&](NodeId n, const std::string& path) {
            for (uint32_t e : entriesOf[n]) {
                const int64_t v = costOf(p, o, tc.cost, e), v2 = second(tc.cost, e);
                if (v || v2)
                    lines.push_back(
                        {path.empty() ? rootName[tc.thread[e]] : rootName[tc.thread[e]] + ";" + path, v, v2});
            }
        });
    } else {
        std::vector<std::vector<int64_t>> self;
        for (std::size_t t = 0; t < p.tree.costTypeCount(); ++t)
            self.emplace_back(p.tree.selfCosts(t).begin(), p.tree.selfCosts(t).end());
        forEachPath(p, o, false, [&](NodeId n, const std::string& path) {
            const int64_t v = costOf(p, o, self, n), v2 = second(self, n);
            if (v || v2)
                lines.push_back({path, v, v2});
        });
    }
    std::sort(lines.begin(), lines.end(), [](const Line& x, const Line& y) { return x.stack < y.stack; });
    const int decimals = p.costTypes[static_cast<std::size_t>(o.costType)].decimals;
    const int decimals2 = two ? p.costTypes[static_cast<std::size_t>(o.secondCostType)].decimals : 0;
    std::string buffer;
    buffer.reserve(1 << 20);
    for (std::size_t i = 0; i < lines.size();) {
        int64_t sum = 0, sum2 = 0;
        std::size_t j = i;
        for (; j < lines.size() && lines[j].stack == lines[i].stack; ++j) {
            sum += lines[j].a;
            sum2 += lines[j].b;
        }
        if (sum || sum2) {
            buffer += lines[i].stack;
            buffer.push_back(' ');
            buffer += formatCostValue(sum, decimals);
            if (two) {
                buffer.push_back(' ');
                buffer += formatCostValue(sum2, decimals2);
            }
            buffer.push_back('\n');
        }
        if (buffer.size() > (1 << 20) - 65536) {
            out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
            buffer.clear();
        }
        i = j;
    }
    out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

} // namespace scorch
