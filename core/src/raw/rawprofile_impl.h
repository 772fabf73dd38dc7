// Internal: the state of a RawProfileBuilder, shared by rawprofile.cpp (adding samples, symbolizing them) and
// rawprofile_build.cpp (a snapshot's or the final profile's tree, costs and warnings).
#pragma once

#include "scorch/rawprofile.h"
#include "scorch/symbolizer.h"

#include "raw/frameindex.h"
#include "raw/rawprofile_tree.h"
#include "raw/samplepipeline.h"
#include "util/hash.h"
#include "util/mappedarray.h"
#include "util/phasetimer.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace scorch {

namespace detail {

/// One frame of a symbolized address, in the incremental tree's tables.
struct Resolved {
    FrameId frame;
    SourceLine line;
    bool unresolved = false;
};

} // namespace detail

struct RawProfileBuilder::Impl {
    using Resolved = detail::Resolved;
    Impl(Symbolizer& s, RawProfileOptions o)
        : symbolizer(s)
        , options(o) {}

    Symbolizer& symbolizer;
    RawProfileOptions options;

    /// pseudoFrame(): no module and an address at or above this (callchain context markers and beyond,
    /// never a real frame's address); the name is pseudoNames[address - kPseudoBase].
    static constexpr uint64_t kPseudoBase = ~uint64_t(0) - 0xffff;
    std::mutex pseudoMutex;
    std::vector<std::string> pseudoNames;

    // --- raw samples (guarded by data) ---
    std::mutex data;
    struct Type {
        std::string name;
        CostUnit unit;
    };
    std::vector<Type> types;
    std::vector<ThreadInfo> threads;
    std::unordered_map<std::string, uint32_t> threadIndex;
    std::vector<RawFrame> addrs;   ///< unique raw frames
    std::vector<bool> modulesSeen; ///< per module handle: preloaded
    bool deferred = false;         ///< deferSymbolization()
    detail::FrameIndex addrIndex;  ///< address id of each distinct raw frame (into addrs)
    struct Stack {                 // (32 bytes: the flag beside the 32-bit fields; fp-large has 640 000)
        uint32_t thread, first, size;
        bool dirty; ///< samples arrived since the last snapshot
        uint64_t count;
        uint64_t hash;
    };
    static_assert(sizeof(Stack) == 32);
    std::vector<Stack> stacks;
    detail::MappedArray<uint32_t> stackAddrs; ///< root -> leaf address ids, concatenated
    /// pipelineSamples(): at most so many bytes of stackAddrs' pages are mapped in ahead of the merging
    /// thread
    static constexpr std::size_t kIdsMappedAhead = std::size_t(16) << 20;
    bool finished = false;                       ///< finish() freed what adding samples needs
    std::vector<std::vector<int64_t>> stackCost; ///< [type][stack]
    detail::IndexTable stackTable;
    std::vector<uint32_t> scratch;
    std::vector<std::pair<uint32_t, uint64_t>> scratchLookups; ///< a new stack's frames not found recent
    std::vector<uint32_t> batchStacks; ///< pipelineSamples(): per sample of a run, its likely stack
    /// pipelineSamples(): samples asked for ahead and merged a run at a time (fp-large, the merging thread's
    /// addSampleLocked(): 1110 -> 830 samples at 2 kHz with 256 against whole batches; 64 and 128 alike)
    static constexpr std::size_t kMergeRun = 256;
    std::vector<uint32_t> dirty; ///< stacks with samples since the last snapshot
    uint64_t samples = 0;
    double timeMin = 0, timeMax = 0;
    bool hasTime = false;
    SampleLog timed;      ///< per sample: time, thread, stack, costs (refs are stack ids)
    bool allTimed = true; ///< every sample so far had a time: the profile gets a SampleStore

    // --- the symbolized, expanded side (guarded by snapshotting) ---
    std::mutex snapshotting;
    detail::IncrementalTree tree;
    std::vector<uint32_t> addrFirst, addrCount; ///< per address id: its frames in `resolved`
    /// per address id: 1 when its one frame is an unresolved address (so that expanding the stacks need not
    /// read `resolved` to know: fp-large's 25 M address ids, each a cache miss there)
    std::vector<uint8_t> addrUnresolved;
    std::vector<uint32_t> addrModule; ///< per address id: its module handle
    std::vector<Resolved> resolved;
    std::vector<uint32_t> rootRefs;                  ///< per thread: its Process frame in `resolved`
    std::size_t expanded = 0;                        ///< stacks [0, expanded) are in `tree`
    std::vector<uint64_t> accountedCount;            ///< per stack: samples already in `tree`
    std::vector<std::vector<int64_t>> accountedCost; ///< [type][stack]: cost already in `tree`
    std::vector<uint32_t> stackModules;              ///< per stack: its distinct modules, concatenated
    std::vector<uint32_t> stackModulesFirst;         ///< per stack: where they start in stackModules
    std::vector<uint64_t> moduleSamples;             ///< per module handle: samples with a frame in it
    std::vector<uint32_t> stackLeaf; ///< per expanded stack: its leaf address id (UINT32_MAX: none)
    std::vector<std::vector<int64_t>> leafCost; ///< [type][address id]: self cost of samples ending there
    std::vector<uint64_t> moduleUnnamed;        ///< per module handle: samples spent in a nameless address
    std::vector<uint32_t> moduleStamp;          ///< per module handle: the stack that listed it last

    /// The modules with samples into `meta.modules`, and a warning for each without symbols or debug info,
    /// by share of the `total` samples (from moduleSamples and moduleUnnamed).
    void warnAboutModules(ProfileMeta& meta, const std::vector<ModuleReport>& reports, uint64_t total) const;
    /// From this many stacks in a build on, the tree's final arrays are made beside the module warnings and
    /// the per-instruction costs.
    static constexpr std::size_t kDeltasAside = 20000;
    /// From this many frames of stacks (address ids) on, a final build gives the free pages amid malloc's
    /// heaps back to the kernel twice: once the symbolizer's sessions are closed, and before the tree's final
    /// arrays are made. Both run beside the build, but the pages given back are faulted in again when the
    /// heap is reused, and there page faults are dear (a VM): fp-medium (6 M frames) 30-50 ms slower of
    /// 0.4 s for 9 MB less peak, not worth it; fp-large (45 M) unchanged in time, peak 375 -> 350 MiB
    /// (free pages of the reading's threads' heaps, of the closed sessions and of the building).
    static constexpr std::size_t kTrimFromFrames = std::size_t(16) << 20;
    /// The self costs of the resolved ELF leaf addresses so far (Profile::addressCosts).
    /// `entryOf`, if given, receives each address id's entry (UINT32_MAX: none).
    AddressCosts addressCosts(const std::vector<ModuleReport>& reports,
                              std::vector<uint32_t>* entryOf = nullptr);

    uint32_t addrId(const RawFrame& f, uint64_t h) {
        bool inserted = false;
        const uint32_t id = addrIndex.findOrInsert(f, h, static_cast<uint32_t>(addrs.size()), inserted);
        if (!inserted)
            return id;
        addrs.push_back(f);
        if (f.module.valid() && !deferred) { // a module's first address: open it meanwhile
            if (f.module.value >= modulesSeen.size())
                modulesSeen.resize(f.module.value + 1, false);
            if (!modulesSeen[f.module.value]) {
                modulesSeen[f.module.value] = true;
                symbolizer.preload(f.module);
            }
        }
        addrTotal.store(addrs.size(), std::memory_order_relaxed);
        if (options.symbolizeAhead && !deferred && addrs.size() % 64 == 0 && aheadDue())
            wakeAhead();
        return id;
    }

    // --- symbolizing ahead: a thread symbolizes and resolves new addresses while samples arrive, a batch
    // when kAheadBatch are waiting or 10 ms after the first of them arrived ---
    static constexpr std::size_t kAheadBatch = 4096;
    std::atomic<std::size_t> addrTotal{0};     ///< addrs.size()
    std::atomic<std::size_t> resolvedTotal{0}; ///< addrFirst.size()
    std::mutex aheadMutex;                     ///< guards aheadStop and the thread's start
    std::condition_variable aheadWake;
    bool aheadStop = false;
    std::atomic<int> snapshots{0};        ///< snapshots waiting or running: the ahead thread gives way
    std::atomic<bool> aheadCancel{false}; ///< stops the ahead thread's batch (what it looked up stays cached)
    std::thread ahead;

    /// RawProfileOptions::symbolizeAheadAfter
    std::chrono::steady_clock::time_point firstAddress;
    bool aheadDue() {
        if (ahead.joinable())
            return true;
        const auto now = std::chrono::steady_clock::now();
        if (firstAddress == std::chrono::steady_clock::time_point())
            firstAddress = now;
        return std::chrono::duration<double>(now - firstAddress).count() >= options.symbolizeAheadAfter;
    }

    void wakeAhead() {
        {
            std::lock_guard lock(aheadMutex);
            if (aheadStop)
                return;
            if (!ahead.joinable())
                ahead = std::thread([this] { aheadLoop(); });
        }
        aheadWake.notify_one();
    }
    void aheadLoop() {
        for (;;) {
            {
                auto pending = [&] {
                    return addrTotal.load() - resolvedTotal.load();
                };
                std::unique_lock lock(aheadMutex);
                aheadWake.wait(lock, [&] { return aheadStop || (snapshots.load() == 0 && pending() > 0); });
                aheadWake.wait_for(lock, std::chrono::milliseconds(10), [&] {
                    return aheadStop || snapshots.load() > 0 || pending() >= kAheadBatch;
                });
                if (aheadStop)
                    return;
                if (snapshots.load() > 0)
                    continue;
            }
            // one thread, a bounded batch: a snapshot waits for at most one batch, then uses every thread
            std::lock_guard snap(snapshotting);
            resolveNew(&aheadCancel, 1, kAheadBatch);
        }
    }
    std::unique_ptr<detail::SamplePipeline> pipeline; ///< pipelineSamples()
    /// The hash by which a stack seen before is found, without looking up each address.
    static uint64_t stackHash(uint32_t thread, std::span<const RawFrame> leafToRoot) {
        uint64_t h = detail::hashInt(thread + 0x51ed27ull);
        for (const RawFrame& f : leafToRoot)
            h = detail::mix64(h ^ detail::hashRaw(f), 0x9fb21c651e98df25ull);
        return h;
    }
    void addSampleLocked(uint32_t thread, std::span<const RawFrame> leafToRoot,
                         std::span<const CostValue> costs, double timeSeconds, int32_t cpu, uint64_t h);

    void stopAhead() {
        {
            std::lock_guard lock(aheadMutex);
            aheadStop = true;
        }
        aheadCancel = true;
        aheadWake.notify_all();
        if (ahead.joinable())
            ahead.join();
    }
    ~Impl() {
        pipeline.reset();
        stopAhead();
    }

    /// Symbolizes and resolves the next (at most `limit`) addresses not resolved yet, with `snapshotting`
    /// held; false when cancelled (nothing resolved then). The symbolizer's frames, once resolved, go to
    /// `looked` if given (for the caller to free elsewhere), else they are freed here.
    using Looked = std::vector<std::vector<SymbolFrame>>;
    bool resolveNew(const std::atomic<bool>* cancel, unsigned threads, std::size_t limit = SIZE_MAX,
                    Looked* looked = nullptr) {
        std::vector<Symbolizer::Request> requests;
        {
            std::lock_guard lock(data);
            const std::size_t end =
                addrs.size() - addrFirst.size() > limit ? addrFirst.size() + limit : addrs.size();
            for (std::size_t i = addrFirst.size(); i < end; ++i)
                requests.push_back({addrs[i].module, addrs[i].address, addrs[i].returnAddress});
        }
        if (requests.empty())
            return true;
        // (each address asked once: not cached; cancelled, it gives no frames)
        auto frames = symbolizer.symbolize(requests, cancel, threads, Symbolizer::Cache::Skip);
        if (frames.size() != requests.size())
            return false;
        detail::trace("resolve");
        resolve(requests, frames);
        detail::trace("resolved");
        resolvedTotal.store(addrFirst.size());
        if (looked)
            *looked = std::move(frames);
        return true;
    }

    void resolve(std::span<const Symbolizer::Request> requests,
                 const std::vector<std::vector<SymbolFrame>>& frames);
    Resolved unresolvedFrame(const RawFrame& raw);
    /// The new stacks of a build: their threads and root -> leaf address ids, and where their frames go.
    struct NewStacks {
        std::vector<uint32_t> thread;  ///< per new stack
        std::vector<std::size_t> addr; ///< per new stack and one more: where its addresses start in `addrs`
        std::vector<std::size_t> ref;  ///< per new stack: where its frames start in `refs` (at most so many)
        const uint32_t* addrs = nullptr;
        /// expandFrames(): each stack's frames (as indexes into `resolved`), with gaps between the stacks, as
        /// detail::Ref24 when `resolved` has fewer than Ref24::kLimit entries, else as uint32_t
        std::unique_ptr<std::byte[]> refs;
        std::size_t refCount = 0;
        bool narrow = false;
        std::vector<detail::IncrementalTree::StackInput> path; ///< per new stack: its run of `refs`
    };
    /// The frames and path of stacks [from, to) of `newStacks` (threads may expand disjoint ranges at once).
    void expandFrames(NewStacks& newStacks, std::size_t from, std::size_t to);
    template <typename R>
    void expandFramesAs(NewStacks& newStacks, std::size_t from, std::size_t to);
    /// The new stacks' distinct modules and leaves (stackModules, stackLeaf), in order; `done` (if given)
    /// counts the stacks listed, from time to time.
    void listModules(const NewStacks& newStacks, std::atomic<std::size_t>* done = nullptr);
    Profile build(ProfileMeta meta, const std::atomic<bool>* cancel, bool final);
    void attachSamples(Profile& profile, std::size_t count, bool final);
};

} // namespace scorch
