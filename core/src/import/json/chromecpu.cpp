// V8 CPU profiles: the node/sample/time-delta model shared by .cpuprofile files and Chrome traces.
#include "import/json/chromecpu.h"

#include "scorch/import.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace scorch::detail {

bool jsonNumber(simdjson::ondemand::value v, double& out) {
    simdjson::ondemand::json_type type;
    if (v.type().get(type))
        return false;
    if (type == simdjson::ondemand::json_type::number)
        return !v.get_double().get(out) && std::isfinite(out);
    if (type == simdjson::ondemand::json_type::string) {
        std::string_view s;
        if (v.get_string().get(s))
            return false;
        const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
        return r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(out);
    }
    return false;
}

namespace {

int64_t nodeId(simdjson::ondemand::value v, const std::string& where) {
    double d = 0;
    if (!jsonNumber(v, d) || d != std::floor(d) || std::abs(d) > 9e15)
        throw ImportError(where + ": a node id is not an integer");
    return static_cast<int64_t>(d);
}

int64_t lineOf(simdjson::ondemand::value v) {
    double d = 0;
    if (!jsonNumber(v, d) || d < -1 || d > 4e9)
        return -1;
    return static_cast<int64_t>(d);
}

} // namespace

void CpuProfileData::addNode(simdjson::ondemand::value value, const std::string& where) {
    Node n;
    bool haveId = false;
    for (auto field : value.get_object()) {
        const std::string_view key = field.unescaped_key();
        if (key == "id") {
            n.id = nodeId(field.value(), where);
            haveId = true;
        } else if (key == "parent") {
            n.parent = nodeId(field.value(), where);
        } else if (key == "children") {
            for (auto c : field.value().get_array())
                n.children.push_back(nodeId(c.value(), where));
        } else if (key == "callFrame") {
            for (auto cf : field.value().get_object()) {
                const std::string_view k = cf.unescaped_key();
                if (k == "functionName")
                    n.frame.functionName = std::string(std::string_view(cf.value().get_string()));
                else if (k == "url")
                    n.frame.url = std::string(std::string_view(cf.value().get_string()));
                else if (k == "lineNumber")
                    n.frame.lineNumber = lineOf(cf.value());
                else if (k == "columnNumber")
                    n.frame.columnNumber = lineOf(cf.value());
            }
        }
    }
    if (!haveId)
        throw ImportError(where + ": a node has no \"id\"");
    m_nodes.push_back(std::move(n));
}

void CpuProfileData::addNode(int64_t id, int64_t parent, CallFrame frame) {
    Node n;
    n.id = id;
    n.parent = parent;
    n.frame = std::move(frame);
    m_nodes.push_back(std::move(n));
}

void CpuProfileData::build(TreeBuilder& builder, uint32_t thread, uint32_t costType, ProfileMeta& meta,
                           const std::string& what, std::size_t maxDepth) const {
    // ids -> indices; parents from `parent` fields and from `children` lists, once every node is known: a
    // trace's ProfileChunk events may list a node before the chunk that holds its parent
    std::unordered_map<int64_t, uint32_t> index;
    for (uint32_t i = 0; i < m_nodes.size(); ++i)
        if (!index.try_emplace(m_nodes[i].id, i).second)
            throw ImportError(what + ": node id " + std::to_string(m_nodes[i].id) + " is used twice");
    std::vector<int64_t> parent(m_nodes.size(), -1); // index of the parent, -1 = a root
    uint64_t danglingChildren = 0, orphans = 0;
    std::string firstOrphan;
    for (uint32_t i = 0; i < m_nodes.size(); ++i) {
        const Node& n = m_nodes[i];
        if (n.parent >= 0 || n.parent < -1) {
            const auto it = index.find(n.parent);
            const std::string orphan =
                it == index.end() ? "node " + std::to_string(n.id) + " has parent " + std::to_string(n.parent)
                                  : std::string();
            if (it != index.end())
                parent[i] = it->second;
            else if (!m_chunked)
                throw ImportError(what + ": " + orphan + ", which is not a node");
            else if (!orphans++) // its chunk is missing from the trace: a root, as speedscope takes it
                firstOrphan = orphan;
        }
        for (int64_t c : n.children) {
            const auto it = index.find(c);
            if (it == index.end()) { // Chrome writes these; speedscope ignores them too
                ++danglingChildren;
                continue;
            }
            parent[it->second] = i;
        }
    }
    if (orphans)
        meta.warn(what + ": " + std::to_string(orphans) +
                  " nodes name a parent that is not a node of the profile (" + firstOrphan +
                  "); their stacks start there");
    if (danglingChildren)
        meta.warn(what + ": " + std::to_string(danglingChildren) +
                  " children listed by nodes are not nodes of the profile; ignored");
    // frames; nodes that speedscope leaves out get no frame
    std::vector<FrameId> frame(m_nodes.size());
    std::vector<bool> skip(m_nodes.size(), false);
    for (uint32_t i = 0; i < m_nodes.size(); ++i) {
        const CallFrame& cf = m_nodes[i].frame;
        if (cf.functionName == "(root)" || cf.functionName == "(idle)" || cf.url == "native dummy.js") {
            skip[i] = true;
            continue;
        }
        const int64_t line = cf.lineNumber >= 0 ? cf.lineNumber + 1 : 0;
        std::string name = cf.functionName;
        if (name.empty()) {
            name = "(anonymous)";
            if (!cf.url.empty()) {
                const std::size_t slash = cf.url.find_last_of('/');
                name = "(anonymous " + (slash == std::string::npos ? cf.url : cf.url.substr(slash + 1)) +
                       ":" + std::to_string(line) + ")";
            }
        }
        Frame f;
        f.name = builder.strings().intern(name);
        f.file = builder.strings().intern(cf.url);
        f.line = static_cast<uint32_t>(line);
        f.kind = FrameKind::Jit;
        if (name.starts_with('(') && cf.url.empty())
            f.kind = FrameKind::Unknown; // (program), (garbage collector)
        frame[i] = builder.frame(f);
    }
    // parent links must end at a root: state 1 = on the current walk, 2 = known to end at a root
    std::vector<uint8_t> state(m_nodes.size(), 0);
    std::vector<uint32_t> walk;
    for (uint32_t i = 0; i < m_nodes.size(); ++i) {
        walk.clear();
        for (int64_t n = i; n >= 0 && state[n] != 2; n = parent[n]) {
            if (state[n] == 1)
                throw ImportError(what + ": the parent links of node " + std::to_string(m_nodes[n].id) +
                                  " form a cycle");
            state[n] = 1;
            walk.push_back(static_cast<uint32_t>(n));
        }
        for (uint32_t m : walk)
            state[m] = 2;
    }

    // time weights, as speedscope computes them (runs of equal samples; negative deltas clamped)
    if (m_deltas.size() != m_samples.size())
        meta.warn(what + ": " + std::to_string(m_samples.size()) + " samples but " +
                  std::to_string(m_deltas.size()) + " time deltas; missing deltas count as 0");
    auto delta = [&](std::size_t i) {
        return i < m_deltas.size() ? m_deltas[i] : 0.0;
    };
    // every sample, in order, at its time (the profile's start + the deltas so far, clamped to never go
    // back): it weighs the time until the next sample, so that a run of equal samples weighs what speedscope
    // gives it (the last sample weighs nothing)
    std::vector<int64_t> at(m_samples.size()); // ns since the start, clamped
    {
        double elapsed = 0, lastValid = 0;
        for (std::size_t i = 0; i < m_samples.size(); ++i) {
            elapsed += delta(i);
            if (i == 0 || elapsed >= lastValid)
                lastValid = elapsed;
            const double ns = std::round(lastValid * 1000);
            at[i] = std::isfinite(ns) && std::abs(ns) < 9e18 ? static_cast<int64_t>(ns) : 0;
        }
    }
    const double startNs = std::round(m_startTime * 1000);
    const int64_t start =
        std::isfinite(startNs) && std::abs(startNs) < 4e18 ? static_cast<int64_t>(startNs) : 0;
    uint64_t unknown = 0;
    std::vector<std::vector<FrameId>> paths(m_nodes.size());
    std::vector<bool> pathMade(m_nodes.size(), false);
    for (std::size_t i = 0; i < m_samples.size(); ++i) {
        const auto it = index.find(m_samples[i]);
        if (it == index.end()) {
            ++unknown;
            continue;
        }
        const uint32_t node = it->second;
        std::vector<FrameId>& path = paths[node];
        if (!pathMade[node]) {
            pathMade[node] = true;
            for (int64_t n = node; n >= 0; n = parent[n])
                if (!skip[n])
                    path.push_back(frame[n]);
            std::reverse(path.begin(), path.end());
            if (path.size() > maxDepth) {
                meta.warn(what + ": a stack deeper than " + std::to_string(maxDepth) +
                          " frames lost its outermost callers");
                path.erase(path.begin(), path.end() - static_cast<std::ptrdiff_t>(maxDepth));
            }
        }
        const int64_t t = start + at[i];
        if (path.empty()) { // only (root) or (idle): a sample, but no time in the program
            builder.addTimedSample(thread, {}, {}, t);
            continue;
        }
        const CostValue cost{costType, i + 1 < m_samples.size() ? at[i + 1] - at[i] : 0};
        builder.addTimedSample(thread, path, {&cost, 1}, t);
    }
    if (unknown)
        meta.warn(what + ": " + std::to_string(unknown) +
                  " samples name node ids that do not exist; skipped");
}

} // namespace scorch::detail
