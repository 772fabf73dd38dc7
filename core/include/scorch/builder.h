// TreeBuilder: the one way importers turn neutral sample records into a Profile.
#pragma once

#include "scorch/profile.h"
#include "scorch/samples.h"

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace scorch {

/// A protective limit was exceeded (the importer turns it into an ImportError naming the file).
class LimitExceeded : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Accumulates samples `{thread, frames root->leaf, costs}` into a hashed call tree. Child lookup is a hash
/// on (parent, frame). Importers that parse in parallel give each worker its own builder and merge them.
///
/// Ordering: cost types and threads are reported in the order they were first seen in the input. A parallel
/// importer calls setPosition() with a monotonic input position (e.g. chunk index << 32 | line) before it
/// adds samples so that first-seen order survives merging.
class TreeBuilder {
public:
    TreeBuilder();

    StringTable& strings() { return m_strings; }
    const StringTable& strings() const { return m_strings; }
    FrameId frame(const Frame& f) { return m_frames.intern(f); }
    FrameId frame(std::string_view name, std::string_view module = {}, FrameKind kind = FrameKind::Native);
    const Frame& frameOf(FrameId id) const { return m_frames[id]; }

    void setPosition(uint64_t position) { m_position = position; }

    /// Index of the cost type with this name, created on first use.
    uint32_t costType(std::string_view name, CostUnit unit);
    /// Raise the fixed-point decimals of a cost type; existing values are rescaled.
    void ensureDecimals(uint32_t costType, int decimals);
    int decimals(uint32_t costType) const { return m_costTypes[costType].type.decimals; }

    /// Index of the thread with this identity, created on first use.
    uint32_t thread(std::string_view name, int64_t pid, int64_t tid);

    /// Adds `sampleCount` samples (an importer of pre-aggregated stacks passes how many it stands for).
    void addSample(uint32_t thread, std::span<const FrameId> rootToLeaf, std::span<const CostValue> costs,
                   uint64_t sampleCount = 1);
    /// The same, with the source line of every frame (`lines.size() == rootToLeaf.size()`; line 0 = unknown)
    /// recorded in the profile's LineCosts. Importers that see the same stack often should aggregate it first
    /// and pass `sampleCount`: this costs a hash lookup per frame.
    void addSample(uint32_t thread, std::span<const FrameId> rootToLeaf, std::span<const CostValue> costs,
                   uint64_t sampleCount, std::span<const SourceLine> lines);
    /// The same for one sample taken at `timeNs` (nanoseconds on the input's own clock) on `cpu` (-1 =
    /// unknown), kept in the profile's SampleStore too (Profile::samples, sorted by time; samples of merged
    /// builders in input position order). The profile gets a store only when every sample was timed.
    /// `sampleCount` is what it adds to the sample counts: 0 for a timed cost that is no sample of its own
    /// (the interval between two trace events).
    void addTimedSample(uint32_t thread, std::span<const FrameId> rootToLeaf,
                        std::span<const CostValue> costs, int64_t timeNs, int32_t cpu = -1,
                        std::span<const SourceLine> lines = {}, uint64_t sampleCount = 1);
    void noteTime(double seconds);

    /// Creating more nodes than this throws LimitExceeded.
    void setMaxNodes(std::size_t maxNodes) { m_maxNodes = maxNodes; }
    /// false: timed samples are not kept in a SampleStore (the profile gets none; their times still give
    /// ProfileMeta::timeStart/timeEnd), for a profile read only for its aggregated tree (ImportOptions::
    /// sampleStore). Set before adding samples, the same in builders that are merged.
    void setKeepSamples(bool keep) { m_keepSamples = keep; }

    uint64_t samples() const { return m_samples; }
    std::size_t nodeCount() const { return m_parent.size(); }

    /// Moves everything `other` holds into this builder (strings and frames are re-interned).
    void merge(TreeBuilder&& other);

    /// Freezes into an immutable profile; the builder is left empty.
    Profile finish(ProfileMeta meta);

private:
    /// The child of `parent` for `frame`, made when new; `key` is pathKey(m_pathKey[parent], frame).
    NodeId child(NodeId parent, FrameId frame, uint64_t key);
    /// The child index's key of a node: a hash of its path's frame ids, root first (a hash of its parent's
    /// key and its frame). Known before the lookups of a whole path, so that their slots (a cache miss each
    /// in a big index) are asked for together, not one after the other.
    static uint64_t pathKey(uint64_t parentKey, FrameId frame);
    /// Asks for the child index's slot where a lookup of `key` starts.
    void prefetchSlot(uint64_t key) const {
        __builtin_prefetch(m_childSlots.data() + (key & (m_childSlots.size() - 1)));
    }
    NodeId leafNode(uint32_t thread, std::span<const FrameId> rootToLeaf);
    bool samePath(NodeId node, std::span<const FrameId> rootToLeaf) const;
    /// Nothing added yet (only setMaxNodes() called).
    bool pristine() const;
    uint32_t entry(uint32_t thread, NodeId node);
    uint32_t lineEntry(FrameId frame, SourceLine line);
    void addLineCosts(std::span<const FrameId> rootToLeaf, std::span<const CostValue> costs,
                      std::span<const SourceLine> lines);
    uint32_t lineStack(NodeId node, uint32_t leafLine, std::span<const uint32_t> lines);

    struct TypeSlot {
        CostType type;
        uint64_t firstSeen;
    };
    struct ThreadSlot {
        ThreadInfo info;
        uint64_t firstSeen;
    };

    StringTable m_strings;
    FrameTable m_frames;
    std::vector<TypeSlot> m_costTypes;
    std::vector<ThreadSlot> m_threads;
    std::unordered_map<std::string, uint32_t> m_threadIndex;
    std::vector<NodeId> m_parent;
    std::vector<FrameId> m_frame;
    std::vector<uint64_t> m_pathKey;    // per node, see pathKey()
    std::vector<uint64_t> m_childSlots; // open addressing over path keys -> node
    std::vector<uint64_t> m_newKeys;    // leafNode(): the path keys of a stack's new part
    std::vector<uint32_t> m_entryThread;
    std::vector<NodeId> m_entryNode;
    std::vector<std::vector<int64_t>> m_entryCost; // [costType][entry]
    std::vector<uint64_t> m_entrySlots;            // open addressing over (thread, node) -> entry
    struct StackEntry {
        uint64_t hash; // of the frame ids
        NodeId node;
        uint32_t depth;
    };
    struct LineEntry {
        FrameId frame;
        SourceLine where;
        uint64_t lastSample; // dedups recursion: a line counts once per sample in "total"
    };
    std::vector<LineEntry> m_lines;
    std::vector<std::vector<int64_t>> m_lineSelf, m_lineTotal; // [costType][line entry]
    std::vector<uint64_t> m_lineSlots;                         // open addressing over LineEntry keys
    uint64_t m_lineStamp = 0;
    std::vector<StackEntry> m_stacks;   // whole-stack cache: hash of the frame ids -> leaf node
    std::vector<uint64_t> m_stackSlots; // open addressing over m_stacks
    struct LastPath {                   // per thread: the path of its latest stack not found in m_stacks
        std::vector<FrameId> frames;    // root first
        std::vector<NodeId> nodes;      // the node of each
    };
    std::vector<LastPath> m_lastPaths;
    uint64_t m_position = 0;
    std::size_t m_maxNodes = SIZE_MAX;
    bool m_keepSamples = true;
    uint64_t m_samples = 0;
    uint64_t m_timedSamples = 0; // the part of m_samples added by addTimedSample()
    double m_timeMin = 0, m_timeMax = 0;
    bool m_hasTime = false;
    // the stacks of the timed samples with their line entries, so that a time range has its own line costs
    // (Profile::stacks): (leaf node, leaf line entry or kNoLine, the entries the sample's total reaches)
    struct LineStack {
        NodeId node;
        uint32_t leafLine, first, count;
    };
    static constexpr uint32_t kNoLine = UINT32_MAX;
    std::vector<LineStack> m_lineStacks;
    std::vector<uint32_t> m_lineStackLines; // their entries, one stack after the other
    std::vector<uint64_t> m_lineStackSlots; // open addressing over m_lineStacks
    std::vector<uint32_t> m_sampleLines;    // addLineCosts(): the entries of the last sample
    uint32_t m_sampleLeafLine = kNoLine;    // addLineCosts(): its leaf's entry
    SampleLog m_timed;                      // addTimedSample(): refs are line stacks
    NodeId m_lastLeaf = kRootNode;          // the leaf of the last addSample()
};

} // namespace scorch
