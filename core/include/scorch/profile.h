// A loaded profile: frames, call tree, cost types, threads and what the importer noticed on the way.
#pragma once

#include "scorch/calltree.h"
#include "scorch/costs.h"
#include "scorch/frames.h"
#include "scorch/strings.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace scorch {

/// One thread (or process, or profile in a multi-profile file) that samples came from.
struct ThreadInfo {
    std::string name; ///< perf's comm, or the profile name
    int64_t pid = -1; ///< -1 when unknown
    int64_t tid = -1; ///< -1 when unknown
    uint64_t samples = 0;
};

/// Something the importer skipped or repaired. `line` is 1-based; 0 when the warning has no line.
struct ImportWarning {
    uint64_t line = 0;
    std::string message;
};

struct ProfileMeta {
    std::string source;                       ///< file name as given by the user ("-" for standard input)
    std::string format;                       ///< detected format, e.g. "perf script"
    std::string compression;                  ///< "gzip", "zstd", "xz" or empty
    uint64_t inputBytes = 0;                  ///< bytes read (after decompression)
    uint64_t samples = 0;                     ///< sample records (folded: lines)
    std::optional<double> timeStart, timeEnd; ///< seconds, when the input has timestamps
    uint64_t warningCount = 0;
    std::vector<ImportWarning> warnings; ///< the first kMaxKeptWarnings, in input order
    /// Facts about the recording as (key, value), e.g. perf.data's hostname, os release, command line.
    std::vector<std::pair<std::string, std::string>> recording;
    static constexpr std::size_t kMaxKeptWarnings = 20;
};

/// Self costs of the tree split by thread: entry i says that thread[i] spent cost[type][i] in node[i].
/// The tree's own self costs are the sum over threads; filtering the view by threads re-sums these.
struct ThreadCosts {
    std::vector<uint32_t> thread;
    std::vector<NodeId> node;
    std::vector<std::vector<int64_t>> cost; ///< [costType][entry]
};

/// A source position inside a frame's function: for the leaf frame of a sample the line being executed,
/// for a caller frame the line of the call. line 0 = unknown.
struct SourceLine {
    StringId file;
    uint32_t line = 0;
};

/// Costs of source lines, from importers that know the line of every sampled frame (perf.data, the own
/// sampler, pprof, perf script with srclines). Entry i: in function frame[i], the line (file[i], line[i])
/// was executed by samples costing self[type][i], and was on the stack (executing or calling) in samples
/// costing total[type][i] (each sample counts once per line even under recursion). Entries are sorted by
/// (frame, file, line).
struct LineCosts {
    std::vector<FrameId> frame;
    std::vector<StringId> file;
    std::vector<uint32_t> line;
    std::vector<std::vector<int64_t>> self;  ///< [costType][entry]
    std::vector<std::vector<int64_t>> total; ///< [costType][entry]
    std::size_t size() const { return frame.size(); }
};

class SampleStore;

struct Profile {
    ProfileMeta meta;
    StringTable strings;
    FrameTable frames;
    std::vector<CostType> costTypes;
    std::vector<ThreadInfo> threads;
    CallTree tree;
    ThreadCosts threadCosts;
    LineCosts lineCosts;
    /// Every sample's time, thread, CPU, leaf node and costs (scorch/samples.h), for formats with
    /// per-sample time; null otherwise.
    std::shared_ptr<const SampleStore> samples;

    std::string_view frameName(FrameId id) const { return strings.view(frames[id].name); }
    /// Name of node n of `tree`, the profile's own tree. A derived tree (thread subset, transforms,
    /// bottom-up) numbers its nodes differently: use frameName(derived.frame(n)) or the overload below.
    std::string_view nodeName(NodeId n) const { return frameName(tree.frame(n)); }
    std::string_view nodeName(const CallTree& derived, NodeId n) const { return frameName(derived.frame(n)); }
    /// Index of the cost type with this name, or -1.
    int costTypeIndex(std::string_view name) const;
};

} // namespace scorch
