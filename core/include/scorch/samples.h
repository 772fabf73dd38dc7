// The time dimension: every sample's time, thread, CPU, leaf node and costs in a columnar store kept beside
// the call tree, and the queries over it (re-aggregation of a time range and thread subset, activity per
// time bucket, when a function was on the stack).
#pragma once

#include "scorch/calltree.h"
#include "scorch/costs.h"
#include "scorch/profile.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <vector>

namespace scorch {

/// One cost per sample, stored compactly: while all values are equal only that constant is kept; then 32-bit
/// values while they fit, else 64-bit ones.
class SampleCostColumn {
public:
    void push(int64_t value);
    /// Appends `count` copies of `value`.
    void pushRepeated(int64_t value, std::size_t count);
    int64_t operator[](std::size_t i) const {
        return !m_wide.empty() ? m_wide[i] : !m_narrow.empty() ? m_narrow[i] : m_constant;
    }
    std::size_t size() const { return m_size; }
    /// True while every value equals constant().
    bool uniform() const { return m_wide.empty() && m_narrow.empty(); }
    int64_t constant() const { return m_constant; }
    std::size_t bytes() const { return m_wide.size() * 8 + m_narrow.size() * 4; }
    /// Keeps the values at these positions, in this order.
    void gather(std::span<const uint32_t> order);
    void scale(int64_t factor);
    /// Room for `n` values in all, in whichever form the column has or takes later.
    void reserve(std::size_t n);

private:
    void widen();
    std::size_t m_size = 0, m_expected = 0;
    int64_t m_constant = 0;
    std::vector<int32_t> m_narrow;
    std::vector<int64_t> m_wide;
};

class SampleStore;

/// Timed samples as an importer's builder collects them, in arrival order: `ref` is the builder's own handle
/// of the sample's stack (a builder node or a raw stack id), turned into a node of the final tree by build().
/// Samples are grouped in runs by an input-position key (a parallel importer's chunk index), so that
/// builders merged in any order still give the samples in input order.
class SampleLog {
public:
    void add(int64_t timeNs, uint32_t thread, uint32_t ref, int32_t cpu, std::span<const CostValue> costs,
             uint64_t runKey = 0);
    /// Room for `n` samples in all (for a builder that can tell how many will come: its columns then grow
    /// without a copy into fresh memory at every doubling).
    void reserve(std::size_t n);
    std::size_t size() const { return m_time.size(); }
    bool empty() const { return m_time.empty(); }
    /// Moves `other`'s samples behind these, mapping its threads, refs and cost types (values multiplied by
    /// typeScale[type]).
    void append(SampleLog&& other, std::span<const uint32_t> threadMap, std::span<const NodeId> refMap,
                std::span<const uint32_t> typeMap, std::span<const int64_t> typeScale);
    /// Rescales the values of one cost type (TreeBuilder::ensureDecimals).
    void scale(uint32_t costType, int64_t factor);

    /// The store of the first `count` samples: refs become refNode[ref], threads threadMap[thread], cost
    /// type k is the log's typeOrder[k]; sorted by time (ties in input order), times relative to the first
    /// sample. `consume` moves the columns out (the log is left empty); otherwise they are copied.
    /// `keepRefs`: the refs also stay as the store's stack column (raw stack ids: Profile::stacks).
    std::shared_ptr<const SampleStore> build(std::size_t count, std::span<const NodeId> refNode,
                                             std::span<const uint32_t> threadMap,
                                             std::span<const uint32_t> typeOrder, std::size_t threadCount,
                                             bool consume, bool keepRefs = false);

private:
    std::vector<int64_t> m_time;
    std::vector<uint32_t> m_thread, m_ref;
    std::vector<int32_t> m_cpu; ///< empty while no sample named its CPU
    std::vector<SampleCostColumn> m_cost;
    std::vector<std::pair<uint64_t, std::size_t>> m_runs; ///< (key, first sample)
    std::size_t m_expected = 0;                           ///< reserve()
};

/// A half-open time range [begin, end) in nanoseconds since the profile's first sample.
struct TimeRange {
    int64_t begin = 0;
    int64_t end = INT64_MAX;
};

/// The samples of a profile in time order, one column per attribute (Profile::samples). Formats without
/// per-sample time (folded, pprof, d3) have none.
class SampleStore {
public:
    std::size_t size() const { return m_time.size(); }
    /// Nanoseconds since the first sample (sample 0 has time 0).
    int64_t time(std::size_t i) const { return m_time[i]; }
    std::span<const int64_t> times() const { return m_time; }
    uint32_t thread(std::size_t i) const { return m_thread[i]; }
    /// The leaf node of the sample's stack in the profile's tree (kRootNode for an empty stack).
    NodeId node(std::size_t i) const { return m_node[i]; }
    bool hasCpu() const { return !m_cpu.empty(); }
    /// The sample's stack in Profile::stacks, where the importer keeps them (perf.data, Scorch recordings).
    bool hasStacks() const { return !m_stack.empty(); }
    uint32_t stack(std::size_t i) const { return m_stack[i]; }
    int32_t cpu(std::size_t i) const { return m_cpu.empty() ? -1 : m_cpu[i]; }
    std::size_t costTypeCount() const { return m_cost.size(); }
    const SampleCostColumn& cost(std::size_t costType) const { return m_cost[costType]; }
    /// The first sample's time on the input's own clock (perf: nanoseconds since boot).
    int64_t originNs() const { return m_origin; }
    /// The last sample's time.
    int64_t lastTime() const { return m_time.empty() ? 0 : m_time.back(); }
    std::size_t threadCount() const { return m_threadCount; }
    /// The first sample at or after t.
    std::size_t lowerBound(int64_t t) const;
    /// The samples of one thread, as indexes in time order (an index built on first use, 4 bytes a sample).
    std::span<const uint32_t> threadSamples(uint32_t thread) const;
    /// Builds that index now, unless built: the loader does, off the GUI thread (10-40 ms for a million
    /// samples), before a window shows the profile.
    void prepareThreadIndex() const;
    /// The thread that built the index (a default id before it is built).
    std::thread::id threadIndexMadeOn() const { return m_indexThread.load(); }
    /// Bytes of the columns (time, thread, node, CPU, costs), without the per-thread index.
    std::size_t bytes() const;

private:
    friend class SampleLog;
    void buildThreadIndex() const;
    std::vector<int64_t> m_time;
    std::vector<uint32_t> m_thread;
    std::vector<NodeId> m_node;
    std::vector<int32_t> m_cpu;
    std::vector<uint32_t> m_stack;
    std::vector<SampleCostColumn> m_cost;
    int64_t m_origin = 0;
    std::size_t m_threadCount = 0;
    mutable std::once_flag m_indexOnce;
    mutable std::atomic<std::thread::id> m_indexThread{};
    mutable std::vector<uint32_t> m_threadFirst, m_threadIndex;
};

/// The samples of a time range and thread subset, re-aggregated: a tree over the profile's frames holding
/// only the nodes these samples end in and their ancestors (renumbered, in the same preorder).
struct TimeSlice {
    CallTree tree;
    std::vector<NodeId> sourceNode;      ///< slice node -> the profile tree's node
    ThreadCosts threadCosts;             ///< over slice nodes, threads as in the profile
    std::vector<uint64_t> threadSamples; ///< per profile thread
    uint64_t samples = 0;
    /// With SliceRequest::details, on a profile that keeps its stacks: the source-line and instruction
    /// costs of these samples (the profile's entries that they reach, in the same order).
    bool hasDetails = false;
    LineCosts lineCosts;
    AddressCosts addressCosts;
    /// With SliceRequest::functions: the per-function costs of `tree`, as functionCosts() (analysis.h) gives
    /// them.
    std::vector<FunctionCost> functions;
};

namespace detail {
struct SliceBuffers;
}
struct SliceRequest;

/// Memory that a series of slices reuses: a selection being dragged is re-sliced several times a second,
/// and each slice needs about 50 bytes per node of its tree (a half slice of fp-large: 215 MB). Fresh from
/// the kernel, where a page fault is dear (a VM exits to its host), mapping that in costs ten times more
/// than writing it again (on the 2-core test VM 170 ms against 12). A slice made with SliceRequest::memory
/// takes the arrays recycled here for its tree and keeps its working arrays here for the next. Thread-safe.
class SliceMemory {
public:
    SliceMemory();
    ~SliceMemory();
    SliceMemory(const SliceMemory&) = delete;
    SliceMemory& operator=(const SliceMemory&) = delete;
    /// Keeps the arrays of a slice no longer needed for the next slice (where they are larger than those
    /// kept, which are freed).
    void recycle(TimeSlice&& slice);
    /// The same for the profile of a slice (sliceProfile()): its tree and thread costs.
    void recycle(Profile&& slice);
    /// Frees what is kept.
    void clear();
    /// Keeps the arrays but gives their pages to the kernel lazily (MADV_FREE): it takes them back only when
    /// it runs short of memory, and until then the next slice writes them without a page fault. (Freed, they
    /// come back as new memory: on a VM whose host takes a guest's free memory back, as the 2-core test VM's
    /// does within seconds, the window's path for a half range of fp-large took 200-250 ms 5 s after the
    /// slice before with its memory freed, 110-125 ms with it released.) Their contents are undefined
    /// afterwards, as a recycled array's are anyway.
    void release();
    /// The bytes of the arrays kept (their capacity).
    std::size_t bytes() const;
    /// Makes, on the calling thread, a slice of all the samples, the largest any slice of `profile` needs,
    /// keeps its arrays and gives their pages back lazily (release()): the first range sliced afterwards
    /// writes memory already mapped. (Fresh from the kernel on a VM whose host backs a guest's memory as it
    /// is first written, the window's first half range of fp-large took 310 ms, against 85 ms reusing
    /// memory.) The pages count in the process's RSS until the kernel, short of memory, takes them. False
    /// when cancelled or when the profile has no samples.
    bool prepare(const Profile& profile, const std::atomic<bool>* cancel = nullptr);
    /// About the bytes prepare() keeps for `profile` (per node its shape and source, 20 bytes, and self and
    /// total, 16 a cost type; per sample a key and its sorting copy, 16): for deciding whether to.
    static std::size_t preparedBytes(const Profile& profile);

private:
    friend std::optional<TimeSlice> sliceSamples(const Profile& profile, const SliceRequest& request);
    std::unique_ptr<detail::SliceBuffers> take();
    void keep(std::unique_ptr<detail::SliceBuffers> buffers);
    mutable std::mutex m_mutex;
    std::unique_ptr<detail::SliceBuffers> m_buffers;
};

struct SliceRequest {
    TimeRange range;
    /// The samples outside `range` instead: the rest of the recording (comparing a range with the rest).
    bool outside = false;
    std::vector<uint32_t> threads;             ///< indexes into Profile::threads; empty = all
    const std::atomic<bool>* cancel = nullptr; ///< set by a newer request: the slice is abandoned
    /// Also the per-line and per-instruction costs (TimeSlice::lineCosts, addressCosts), where the profile
    /// keeps each sample's stack (hasSliceDetails); they cost a walk over the stacks the samples reach.
    bool details = false;
    /// Also the per-function costs (TimeSlice::functions), summed in the passes that make the tree (a
    /// fraction of what a walk over the slice's tree costs afterwards).
    bool functions = false;
    /// How many threads work on the slice: 0, as many as the machine has cores for a large slice (it sums
    /// its line and instruction costs and its cost types' totals on other cores), one for a small one; N,
    /// up to N whatever the size (1: all on the calling thread).
    unsigned cores = 0;
    /// (tests) Keys the samples in 16-byte items even where a key and a sample index fit in 64 bits, as
    /// they do not for a very large recording (the way such a slice is made, on any profile).
    bool wideItems = false;
    /// Arrays to reuse (see SliceMemory); null: new ones.
    SliceMemory* memory = nullptr;
};

/// The profile keeps each sample's stack, so that a slice can have its own line and instruction costs.
bool hasSliceDetails(const Profile& profile);

/// Re-aggregates the samples of `request`; std::nullopt when cancelled. Costs only the samples in the range
/// and the nodes they reach (a small range never walks the whole tree). Throws std::invalid_argument when
/// the profile has no sample store.
std::optional<TimeSlice> sliceSamples(const Profile& profile, const SliceRequest& request);

/// The part of a profile that `threads` (indexes into Profile::threads; empty = all) contributed, from its
/// per-thread costs: for profiles with or without a sample store (a thread subset needs no per-sample time).
TimeSlice sliceThreads(const Profile& profile, std::span<const uint32_t> threads);

/// A whole profile of a slice (strings, frames and metadata copied; the slice's line and instruction costs
/// when it has them, else none; its per-function costs, Profile::functions, when it has them; no sample
/// store), for writers and analyses that take a Profile.
Profile sliceProfile(const Profile& profile, TimeSlice slice);

/// sliceProfile() for one of a series of slices: when its last owner lets go of the profile, its arrays go to
/// `memory` for the next slice (SliceRequest::memory), as do those of `slice` that it does not keep.
std::shared_ptr<const Profile> sliceProfile(const Profile& profile, TimeSlice slice,
                                            std::shared_ptr<SliceMemory> memory);

/// Samples per time bucket: `buckets` equal buckets over `range` (bucket b holds the times t with
/// floor((t - begin) * buckets / (end - begin)) == b), one series per thread of `threads` (empty = every
/// thread of the store, in thread order). Counts by binary search per bucket boundary where that is cheaper
/// than walking the thread's samples.
std::vector<std::vector<uint32_t>> activitySeries(const SampleStore& store, TimeRange range,
                                                  std::size_t buckets,
                                                  std::span<const uint32_t> threads = {});

/// The same, counting only the samples where `frame` is on the stack (the leaf node or an ancestor of it
/// has that frame): when a function ran, for highlighting a selection on a timeline.
std::vector<std::vector<uint32_t>> onStackSeries(const Profile& profile, FrameId frame, TimeRange range,
                                                 std::size_t buckets, std::span<const uint32_t> threads = {});

/// Off-CPU profiles (a cost type `off-cpu` whose samples are stretches of waiting from the sample's time on):
/// per thread of `threads` (empty = all) and bucket as activitySeries divides `range`, the share of the
/// bucket's time the thread spent off the CPU, in thousandths (0-1000). Empty when the profile has no
/// off-CPU samples.
std::vector<std::vector<uint32_t>> offCpuSeries(const Profile& profile, TimeRange range, std::size_t buckets,
                                                std::span<const uint32_t> threads = {});

} // namespace scorch
