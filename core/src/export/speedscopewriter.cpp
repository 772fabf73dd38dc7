// speedscope JSON writer (https://www.speedscope.app/file-format-schema.json): shared frames, one sampled
// profile per thread.
#include "export/exportutil.h"
#include "scorch/export.h"
#include "util/textutil.h"

#include <cstdlib>
#include <ostream>

namespace scorch {

namespace {

std::string_view unitName(CostUnit unit) {
    switch (unit) {
    case CostUnit::Nanoseconds:
        return "nanoseconds";
    case CostUnit::Bytes:
        return "bytes";
    default:
        return "none";
    }
}

std::string threadLabel(const ThreadInfo& t, std::size_t index) {
    std::string name = t.name.empty() ? "thread " + std::to_string(index) : t.name;
    if (t.pid >= 0)
        name += " [" + std::to_string(t.pid) + "/" + std::to_string(t.tid) + "]";
    return name;
}

} // namespace

void writeSpeedscope(const Profile& p, const SpeedscopeOptions& o, std::ostream& out) {
    if (o.costType < 0 || static_cast<std::size_t>(o.costType) >= p.costTypes.size())
        throw ExportError("speedscope: no cost type " + std::to_string(o.costType));
    const auto type = static_cast<std::size_t>(o.costType);
    const CostType& costType = p.costTypes[type];
    const bool split = o.sampleCountType >= 0 &&
                       static_cast<std::size_t>(o.sampleCountType) < p.costTypes.size() &&
                       p.costTypes[static_cast<std::size_t>(o.sampleCountType)].decimals == 0;
    const detail::CostRows rows = detail::costRows(p);

    // Shared frames: every frame of the tree once, numbered in first-use order over the rows.
    std::vector<uint32_t> index(p.frames.size(), UINT32_MAX);
    std::vector<FrameId> used;
    std::vector<FrameId> path;
    for (NodeId n = 1; n < p.tree.size(); ++n) {
        const FrameId f = p.tree.frame(n);
        if (index[f.value] == UINT32_MAX) {
            index[f.value] = static_cast<uint32_t>(used.size());
            used.push_back(f);
        }
    }

    detail::BufferedOut w(out);
    std::string& b = w.buffer();
    b += "{\"$schema\":\"https://www.speedscope.app/"
         "file-format-schema.json\",\"exporter\":\"scorch\",\"name\":";
    detail::appendJsonString(b, o.name.empty() ? detail::baseName(p.meta.source) : std::string_view(o.name));
    b += ",\"activeProfileIndex\":0,\"shared\":{\"frames\":[";
    for (std::size_t i = 0; i < used.size(); ++i) {
        const Frame& f = p.frames[used[i]];
        b += i ? ",{\"name\":" : "{\"name\":";
        detail::appendJsonString(b, p.strings.view(f.name));
        if (f.file) {
            b += ",\"file\":";
            detail::appendJsonString(b, p.strings.view(f.file));
        }
        if (f.line > 0) {
            b += ",\"line\":";
            w << f.line;
        }
        b += '}';
        w.maybeFlush();
    }
    b += "]},\"profiles\":[";

    const int decimals = costType.decimals;
    auto value = [&](int64_t v) {
        b += formatCostValue(v, decimals);
        w.maybeFlush();
    };
    bool firstProfile = true;
    for (std::size_t first = 0; first < rows.node.size();) {
        const uint32_t thread = rows.thread[first];
        std::size_t end = first;
        int64_t total = 0;
        for (; end < rows.node.size() && rows.thread[end] == thread; ++end)
            addCost(total, rows.cost[type][end]);
        auto copies = [&](std::size_t r) -> int64_t {
            const int64_t one = rows.cost[type][r] != 0 ? 1 : 0;
            if (!split)
                return one;
            return std::max(rows.cost[static_cast<std::size_t>(o.sampleCountType)][r], one);
        };
        b += firstProfile ? "{\"type\":\"sampled\",\"name\":" : ",{\"type\":\"sampled\",\"name\":";
        firstProfile = false;
        detail::appendJsonString(b, thread < p.threads.size() ? threadLabel(p.threads[thread], thread)
                                                              : "thread " + std::to_string(thread));
        b += ",\"unit\":\"";
        b += unitName(costType.unit);
        b += "\",\"startValue\":0,\"endValue\":";
        value(total);
        b += ",\"samples\":[";
        bool firstSample = true;
        for (std::size_t r = first; r < end; ++r) {
            const int64_t n = copies(r);
            if (n <= 0)
                continue;
            detail::framePath(p.tree, rows.node[r], path);
            std::string stack = "[";
            for (std::size_t k = 0; k < path.size(); ++k) {
                if (k)
                    stack.push_back(',');
                char num[16];
                const auto res = std::to_chars(num, num + sizeof num, index[path[k].value]);
                stack.append(num, res.ptr);
            }
            stack.push_back(']');
            for (int64_t c = 0; c < n; ++c) {
                if (!firstSample)
                    b.push_back(',');
                firstSample = false;
                b += stack;
                w.maybeFlush();
            }
        }
        b += "],\"weights\":[";
        bool firstWeight = true;
        for (std::size_t r = first; r < end; ++r) {
            const int64_t n = copies(r);
            if (n <= 0)
                continue;
            const int64_t v = rows.cost[type][r];
            // n samples share v: each gets v / n, the first |remainder| one unit more (towards v's sign)
            const int64_t base = v / n, rest = v - base * n;
            for (int64_t c = 0; c < n; ++c) {
                if (!firstWeight)
                    b.push_back(',');
                firstWeight = false;
                value(base + (c < std::abs(rest) ? (rest > 0 ? 1 : -1) : 0));
            }
        }
        b += "]}";
        first = end;
    }
    if (firstProfile) { // nothing to show: still one (empty) profile, as the schema asks for
        b += "{\"type\":\"sampled\",\"name\":";
        detail::appendJsonString(b,
                                 p.threads.empty() ? std::string("thread 0") : threadLabel(p.threads[0], 0));
        b += ",\"unit\":\"";
        b += unitName(costType.unit);
        b += "\",\"startValue\":0,\"endValue\":0,\"samples\":[],\"weights\":[]}";
    }
    b += "]}\n";
    w.flush();
    if (!out)
        throw ExportError("speedscope: write error");
}

} // namespace scorch
