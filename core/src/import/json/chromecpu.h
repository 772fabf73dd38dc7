// Internal: one V8 CPU profile (nodes with call frames, samples, time deltas) as it arrives, whole (a
// .cpuprofile file, a trace's `CpuProfile` event) or in pieces (`Profile` + `ProfileChunk` trace events),
// and how it becomes samples of a TreeBuilder thread with speedscope's time weighting.
#pragma once

#include "scorch/builder.h"

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace scorch::detail {

/// A number from JSON that may also be written as a string ("12"); false when it is neither.
bool jsonNumber(simdjson::ondemand::value v, double& out);

class CpuProfileData {
public:
    struct CallFrame {
        std::string functionName, url;
        int64_t lineNumber = -1, columnNumber = -1; // 0-based, -1 = unknown
    };

    /// Parses one element of a `nodes` array. Throws simdjson_error or ImportError on bad input.
    void addNode(simdjson::ondemand::value node, const std::string& where);
    /// The old V8 shape: a node of the nested `head` tree (its parent is already known, -1 for the head).
    void addNode(int64_t id, int64_t parent, CallFrame frame);
    void addSample(int64_t nodeId) { m_samples.push_back(nodeId); }
    void addTimeDelta(double microseconds) { m_deltas.push_back(microseconds); }
    /// The old V8 shape gives absolute `timestamps` instead of deltas.
    void addTimestamp(double microseconds) {
        m_deltas.push_back(m_timestamps ? microseconds - m_lastTimestamp : 0);
        m_lastTimestamp = microseconds;
        m_timestamps = true;
    }
    bool empty() const { return m_samples.empty() && m_nodes.empty(); }
    /// The profile arrives in pieces (a trace's `Profile`/`ProfileChunk` events): a node whose parent is in
    /// none of them (a chunk missing from the trace) starts its stacks, as speedscope takes it, with a
    /// warning; in a whole profile it is an error.
    void setChunked() { m_chunked = true; }
    /// When the profile started (`startTime`), in microseconds on the trace's clock.
    void setStartTime(double microseconds) { m_startTime = microseconds; }

    /// Adds the samples to `thread` (warnings to `meta`): each run of equal samples weighs the time until the
    /// next run starts (the last sample weighs nothing), as speedscope does; `(root)`, `(idle)` and `native
    /// dummy.js` frames are left out. `what` names the profile in errors (cycles, unknown node ids); stacks
    /// deeper than `maxDepth` keep their innermost frames.
    void build(TreeBuilder& builder, uint32_t thread, uint32_t costType, ProfileMeta& meta,
               const std::string& what, std::size_t maxDepth) const;

private:
    struct Node {
        int64_t id = 0, parent = -1;
        std::vector<int64_t> children;
        CallFrame frame;
    };
    std::vector<Node> m_nodes;
    std::vector<int64_t> m_samples;
    std::vector<double> m_deltas;
    double m_lastTimestamp = 0, m_startTime = 0;
    bool m_timestamps = false, m_chunked = false;
};

} // namespace scorch::detail
