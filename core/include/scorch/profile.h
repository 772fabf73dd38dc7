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

/// What a profile was read from: an input format, or what detection found instead (then the import fails).
enum class Format {
    Unknown,
    PerfScript,
    Folded,
    FoldedDiff,
    Speedscope,
    PerfData,
    Json, ///< JSON that is none of the JSON formats below
    Binary,
    Empty,
    ChromeCpuProfile,   ///< Chrome/V8 .cpuprofile (`nodes` or the older `head` shape)
    ChromeTrace,        ///< Chrome Trace Event Format (array or {traceEvents}), CPU profile or B/E/X events
    Pprof,              ///< pprof profile.proto (gzipped or raw)
    D3Json,             ///< d3-flame-graph hierarchical JSON {name, value, children}
    ScorchRecording,    ///< Scorch's own sampler recordings (docs/recording-format.md)
    PerfDataPerfScript, ///< perf.data read through `perf script` (the native reader does not support it)
    Comparison,         ///< made by Scorch: the difference of two profiles (diff.h)
};

/// Something the importer skipped or repaired. `line` is 1-based; 0 when the warning has no line.
struct ImportWarning {
    uint64_t line = 0;
    std::string message;
};

/// What happened to one module of raw addresses (the Symbolizer's report, symbolizer.h), so that missing
/// symbols are reported instead of hidden: where its file was found or looked for, what it holds.
struct ModuleReport {
    std::string path;         ///< as recorded
    std::string buildId;      ///< hex, as recorded (may be empty)
    std::string resolvedPath; ///< the file actually read; empty when none was found
    /// How resolvedPath was found: "recorded path", "sysroot", "beside the recording", "symbol path",
    /// "perf build-id cache", "debug directory" or "debuginfod"; empty when not found.
    std::string foundBy;
    /// Every place looked at, in order (files, and "debuginfod URLS"), when the module was not found or had
    /// to be looked for beyond its recorded path.
    std::vector<std::string> searched;
    bool buildIdVerified = false; ///< a recorded build-id equals the file's
    bool hasSymbols = false;      ///< .symtab or .dynsym
    bool hasDebugInfo = false;
    std::string debugFile;      ///< the separate debug-info file read; empty when in the file itself or none
    bool hasUnwindInfo = false; ///< .eh_frame or .debug_frame (what a DWARF unwinder needs)
    std::string problem;        ///< e.g. "not found", "build-id mismatch", "no debug info"; empty when fine
    uint64_t addresses = 0;     ///< unique addresses looked up
    uint64_t unresolved = 0;    ///< of those, without a function name
    uint64_t samples = 0;       ///< in a profile's ProfileMeta::modules: samples with a frame in the module
};

struct ProfileMeta {
    std::string source;                       ///< file name as given by the user ("-" for standard input)
    Format format = Format::Unknown;          ///< what it was read from; formatName() (import.h) names it
    std::string compression;                  ///< "gzip", "zstd", "xz" or empty
    uint64_t inputBytes = 0;                  ///< bytes read (after decompression)
    uint64_t samples = 0;                     ///< sample records (folded: lines)
    std::optional<double> timeStart, timeEnd; ///< seconds, when the input has timestamps
    uint64_t warningCount = 0;
    std::vector<ImportWarning> warnings; ///< the first kMaxKeptWarnings, in input order
    /// Facts about the recording as (key, value), e.g. perf.data's hostname, os release, command line.
    std::vector<std::pair<std::string, std::string>> recording;
    /// Profiles of raw addresses (perf.data, Scorch recordings): every module with samples, the most
    /// sampled first (the Symbols report).
    std::vector<ModuleReport> modules;
    static constexpr std::size_t kMaxKeptWarnings = 20;

    /// Counts a warning and keeps it while fewer than kMaxKeptWarnings are kept: the one place where
    /// warnings are capped. Returns whether it was kept.
    bool warn(std::string message, uint64_t line = 0);
    /// A warning about the whole import, put before the others (the last kept one gives way when full).
    void warnFirst(std::string message);
    /// One line for a terminal: how many warnings and the first one; empty when nothing was kept.
    std::string warningSummary() const;
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

/// Self and total cost of one function (frame) summed over all its call sites. Total counts each sample
/// once even under recursion.
struct FunctionCost {
    FrameId frame;
    std::vector<int64_t> self, total; ///< per cost type
    uint32_t callSites = 0;           ///< nodes of the tree with this frame
};

/// Self costs of machine instructions, from importers that keep every sample's leaf address (perf.data,
/// Scorch recordings), for annotated disassembly (scorch/disasm.h). Entry i: samples that ended at file
/// offset offset[i] of module modules[module[i]] cost self[type][i]; frame[i] is the outermost function there
/// (an inlined callee's instructions belong to the function they were inlined into). Entries are sorted by
/// (frame, module, offset).
struct AddressCosts {
    struct Module {
        std::string file;      ///< the ELF file the symbolizer read (build-id verified)
        std::string debugPath; ///< libdwfl's debug-info search path it used (":.debug:/usr/lib/debug")
    };
    std::vector<Module> modules;
    std::vector<FrameId> frame;
    std::vector<uint32_t> module;
    std::vector<uint64_t> offset;
    std::vector<std::vector<int64_t>> self; ///< [costType][entry]
    std::size_t size() const { return frame.size(); }
};

/// The unique stacks of an importer that keeps them with the sample store (perf.data, Scorch recordings),
/// for the source lines and instructions of a time range or thread subset (scorch/samples.h, SliceRequest::
/// details): per stack the lineCosts entries on it, each once, its leaf's lineCosts entry and its leaf
/// instruction's addressCosts entry. SampleStore::stack(i) is sample i's stack.
struct StackDetails {
    std::vector<uint32_t> linesFirst;  ///< [stack] first of its entries in `lines`; one more than stacks
    std::vector<uint32_t> lines;       ///< lineCosts entries
    std::vector<uint32_t> leafLine;    ///< [stack] lineCosts entry; kNone when unknown
    std::vector<uint32_t> leafAddress; ///< [stack] addressCosts entry; kNone when none
    static constexpr uint32_t kNone = UINT32_MAX;
    std::size_t size() const { return leafLine.size(); }
    bool empty() const { return leafLine.empty(); }
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
    AddressCosts addressCosts;
    StackDetails stacks;
    /// The per-function costs of `tree` where they were summed with it (a time range's slice:
    /// SliceRequest::functions), for functionCosts() (analysis.h) to give; empty otherwise. Whoever replaces
    /// `tree` clears them.
    std::vector<FunctionCost> functions;
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
