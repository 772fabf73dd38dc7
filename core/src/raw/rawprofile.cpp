// RawProfileBuilder: raw address samples -> aggregated unique stacks -> symbolized once per unique address
// -> call tree with inline frames and per-line costs, plus warnings for modules without symbols.
#include "scorch/rawprofile.h"
#include "scorch/import.h"
#include "scorch/samples.h"
#include "scorch/warningkind.h"

#include "raw/frameindex.h"
#include "raw/rawprofile_tree.h"
#include "raw/samplepipeline.h"
#include "util/hash.h"
#include "util/hugepages.h"
#include "util/mappedarray.h"
#include "util/phasetimer.h"
#include "util/textutil.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <future>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace scorch {

using detail::FrameIndex;
using detail::hashInt;
using detail::hashRaw;
using detail::mix64;

namespace {

/// One frame of a symbolized address, in the incremental tree's tables.
struct Resolved {
    FrameId frame;
    SourceLine line;
    bool unresolved = false;
};

} // namespace

struct RawProfileBuilder::Impl {
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
    FrameIndex addrIndex;          ///< address id of each distinct raw frame (into addrs)
    struct Stack {
        uint32_t thread, first, size;
        uint64_t count;
        uint64_t hash;
        bool dirty; ///< samples arrived since the last snapshot
    };
    std::vector<Stack> stacks;
    detail::MappedArray<uint32_t> stackAddrs;    ///< root -> leaf address ids, concatenated
    bool finished = false;                       ///< finish() freed what adding samples needs
    std::vector<std::vector<int64_t>> stackCost; ///< [type][stack]
    detail::IndexTable stackTable;
    std::vector<uint32_t> scratch;
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
    std::vector<uint32_t> addrModule;           ///< per address id: its module handle
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
    /// From this many stacks in a build on, the tree's costs and arrays are made beside those of the leaves
    /// and modules.
    static constexpr std::size_t kDeltasAside = 20000;
    /// The self costs of the resolved ELF leaf addresses so far (Profile::addressCosts).
    /// `entryOf`, if given, receives each address id's entry (UINT32_MAX: none).
    AddressCosts addressCosts(const std::vector<ModuleReport>& reports,
                              std::vector<uint32_t>* entryOf = nullptr);

    uint32_t addrId(const RawFrame& f) {
        bool inserted = false;
        const uint32_t id = addrIndex.findOrInsert(f, static_cast<uint32_t>(addrs.size()), inserted);
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
        uint64_t h = hashInt(thread + 0x51ed27ull);
        for (const RawFrame& f : leafToRoot)
            h = mix64(h ^ hashRaw(f), 0x9fb21c651e98df25ull);
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
    /// held; false when cancelled (nothing resolved then).
    bool resolveNew(const std::atomic<bool>* cancel, unsigned threads, std::size_t limit = SIZE_MAX) {
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
        auto frames = symbolizer.symbolize(requests, cancel, threads);
        if (cancel && cancel->load())
            return false;
        detail::trace("resolve");
        resolve(requests, frames);
        detail::trace("resolved");
        resolvedTotal.store(addrFirst.size());
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
        /// expandFrames(): each stack's frames (as indexes into `resolved`), with gaps between the stacks
        std::unique_ptr<uint32_t[]> refs;
        std::size_t refCount = 0;
        std::vector<detail::IncrementalTree::StackInput> path; ///< per new stack: its run of `refs`
    };
    /// The frames and path of stacks [from, to) of `newStacks` (threads may expand disjoint ranges at once).
    void expandFrames(NewStacks& newStacks, std::size_t from, std::size_t to);
    /// The new stacks' distinct modules and leaves (stackModules, stackLeaf), in order; `done` (if given)
    /// counts the stacks listed, from time to time.
    void listModules(const NewStacks& newStacks, std::atomic<std::size_t>* done = nullptr);
    Profile build(ProfileMeta meta, const std::atomic<bool>* cancel, bool final);
    void attachSamples(Profile& profile, std::size_t count, bool final);
};

Resolved RawProfileBuilder::Impl::unresolvedFrame(const RawFrame& raw) {
    Resolved r;
    r.unresolved = true;
    StringTable& strings = tree.strings();
    if (!raw.module.valid() && raw.address >= kPseudoBase) {
        std::lock_guard lock(pseudoMutex);
        const uint64_t i = raw.address - kPseudoBase;
        if (i < pseudoNames.size()) {
            r.unresolved = false; // not merged with a neighbouring [unknown]
            r.frame = tree.frame({strings.intern(pseudoNames[i]), {}, {}, 0, FrameKind::Unknown});
            return r;
        }
    }
    if (!raw.module.valid()) {
        r.frame = tree.frame({strings.intern("[unknown]"), {}, {}, 0, FrameKind::Unknown});
        return r;
    }
    const std::string_view path = symbolizer.modulePath(raw.module);
    const ModuleType type = symbolizer.moduleType(raw.module);
    std::string_view base = detail::baseName(path);
    if (base.size() >= 2 && base.front() == '[' && base.back() == ']') // [kernel.kallsyms], [vdso]
        base = base.substr(1, base.size() - 2);
    std::string name = "[" + std::string(base);
    if (options.unresolvedAddresses) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(raw.address));
        name += buf;
    }
    Frame f;
    f.name = strings.intern(name + "]");
    f.module = strings.intern(path);
    f.kind = type == ModuleType::Kernel ? FrameKind::Kernel
             : type == ModuleType::Jit  ? FrameKind::Jit
                                        : FrameKind::Unknown;
    r.frame = tree.frame(f);
    return r;
}

void RawProfileBuilder::Impl::resolve(std::span<const Symbolizer::Request> requests,
                                      const std::vector<std::vector<SymbolFrame>>& frames) {
    StringTable& strings = tree.strings();
    for (std::size_t k = 0; k < frames.size(); ++k) {
        const RawFrame raw{requests[k].module, requests[k].address, requests[k].returnAddress};
        addrModule.push_back(raw.module.value);
        addrFirst.push_back(static_cast<uint32_t>(resolved.size()));
        const std::vector<SymbolFrame>& f = frames[k];
        if (f.empty() || f.front().function.empty()) {
            resolved.push_back(unresolvedFrame(raw));
            addrCount.push_back(1);
            continue;
        }
        const ModuleType type = symbolizer.moduleType(raw.module);
        const StringId module = strings.intern(symbolizer.modulePath(raw.module));
        for (const SymbolFrame& s : f) {
            Frame frame;
            frame.name = strings.intern(s.function.empty() ? std::string_view("[unknown]") : s.function);
            frame.module = module;
            frame.file = strings.intern(s.declFile); // the function's file; Frame.line stays 0: one node
            frame.kind = s.inlined                    ? FrameKind::Inlined
                         : type == ModuleType::Kernel ? FrameKind::Kernel
                         : type == ModuleType::Jit    ? FrameKind::Jit
                                                      : FrameKind::Native;
            resolved.push_back({tree.frame(frame), SourceLine{strings.intern(s.file), s.line}, false});
        }
        addrCount.push_back(static_cast<uint32_t>(f.size()));
    }
}

void RawProfileBuilder::Impl::warnAboutModules(ProfileMeta& meta, const std::vector<ModuleReport>& reports,
                                               uint64_t total) const {
    std::vector<std::pair<uint64_t, std::size_t>> bad;
    for (std::size_t m = 0; m < moduleSamples.size() && m < reports.size(); ++m)
        if (!reports[m].problem.empty() && moduleSamples[m] > 0)
            bad.emplace_back(moduleSamples[m], m);
    std::stable_sort(bad.begin(), bad.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    std::vector<std::string>
        serious; // over kSeriousShare of the samples: ahead of the rest, never capped away
    meta.modules.clear();
    for (std::size_t m = 0; m < moduleSamples.size() && m < reports.size(); ++m)
        if (moduleSamples[m] > 0) {
            meta.modules.push_back(reports[m]);
            meta.modules.back().samples = moduleSamples[m];
        }
    std::stable_sort(meta.modules.begin(), meta.modules.end(),
                     [](const ModuleReport& x, const ModuleReport& y) { return x.samples > y.samples; });
    for (const auto& [count, m] : bad) {
        const ModuleReport& r = reports[m];
        const auto percent = [&](uint64_t n) {
            char text[32];
            std::snprintf(text, sizeof text, "%.1f%%",
                          total ? 100.0 * static_cast<double>(n) / static_cast<double>(total) : 0.0);
            return std::string(text);
        };
        std::string message = r.path + ": " + r.problem + " (" + percent(count) + " of samples): ";
        if (r.unresolved == 0 && r.hasSymbols)
            message += "file:line unknown";
        else if (r.unresolved >= r.addresses)
            message += "functions unknown";
        else
            message += "file:line unknown, " + std::to_string(r.unresolved) + " of " +
                       std::to_string(r.addresses) + " addresses without a function name, " +
                       percent(moduleUnnamed[m]) + " of the samples spent in them";
        if (warningKind(message) != WarningKind::Note) // the same rule as the window's banner
            serious.push_back(std::move(message));
        else
            meta.warn(std::move(message));
    }
    for (std::string& message : serious) // the biggest share first, after the truncation or lost samples
        warnSerious(meta, std::move(message));
}

AddressCosts RawProfileBuilder::Impl::addressCosts(const std::vector<ModuleReport>& reports,
                                                   std::vector<uint32_t>* entryOf) {
    AddressCosts out;
    const std::size_t nt = leafCost.size();
    std::vector<uint32_t> moduleIndex(reports.size(), UINT32_MAX);
    std::vector<uint32_t> order;
    std::vector<uint64_t> offsets;
    {
        std::lock_guard lock(data); // addrs grows under it
        for (uint32_t a = 0; a < addrFirst.size(); ++a) {
            bool any = false;
            for (std::size_t t = 0; t < nt && !any; ++t)
                any = a < leafCost[t].size() && leafCost[t][a] != 0;
            const uint32_t m = addrModule[a];
            if (!any || m >= reports.size() || reports[m].resolvedPath.empty() ||
                resolved[addrFirst[a]].unresolved ||
                symbolizer.moduleType(ModuleHandle{m}) != ModuleType::Elf)
                continue;
            if (moduleIndex[m] == UINT32_MAX) {
                moduleIndex[m] = static_cast<uint32_t>(out.modules.size());
                out.modules.push_back({reports[m].resolvedPath, symbolizer.debugSearchPath()});
            }
            order.push_back(a);
            offsets.push_back(addrs[a].address);
        }
    }
    std::vector<uint32_t> rank(order.size());
    for (uint32_t i = 0; i < rank.size(); ++i)
        rank[i] = i;
    const auto frameOf = [&](uint32_t i) {
        return resolved[addrFirst[order[i]]].frame.value;
    };
    std::sort(rank.begin(), rank.end(), [&](uint32_t x, uint32_t y) {
        return std::tuple(frameOf(x), moduleIndex[addrModule[order[x]]], offsets[x]) <
               std::tuple(frameOf(y), moduleIndex[addrModule[order[y]]], offsets[y]);
    });
    out.self.assign(nt, {});
    if (entryOf)
        entryOf->assign(addrFirst.size(), UINT32_MAX);
    for (const uint32_t i : rank) {
        const uint32_t a = order[i];
        if (entryOf)
            (*entryOf)[a] = static_cast<uint32_t>(out.frame.size());
        out.frame.push_back(resolved[addrFirst[a]].frame);
        out.module.push_back(moduleIndex[addrModule[a]]);
        out.offset.push_back(offsets[i]);
        for (std::size_t t = 0; t < nt; ++t)
            out.self[t].push_back(a < leafCost[t].size() ? leafCost[t][a] : 0);
    }
    return out;
}

void RawProfileBuilder::Impl::expandFrames(NewStacks& newStacks, std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to; ++k) {
        const uint32_t thread = newStacks.thread[k];
        uint32_t* const first = newStacks.refs.get() + newStacks.ref[k];
        uint32_t* path = first;
        if (options.processRoot)
            *path++ = rootRefs[thread];
        for (std::size_t i = newStacks.addr[k]; i < newStacks.addr[k + 1]; ++i) {
            const uint32_t a = newStacks.addrs[i];
            for (uint32_t r = addrFirst[a]; r < addrFirst[a] + addrCount[a]; ++r) {
                const Resolved& x = resolved[r];
                // one [module] frame for a run of unresolved addresses in the same module
                if (x.unresolved && !options.unresolvedAddresses && path > first &&
                    resolved[path[-1]].frame == x.frame)
                    continue;
                *path++ = r;
            }
        }
        newStacks.path[k] = {thread, static_cast<uint32_t>(newStacks.ref[k]),
                             static_cast<uint32_t>(path - first)};
    }
}

void RawProfileBuilder::Impl::listModules(const NewStacks& newStacks, std::atomic<std::size_t>* done) {
    for (std::size_t k = 0; k + 1 < newStacks.addr.size(); ++k) {
        if (done && k % 4096 == 0)
            done->store(k, std::memory_order_release);
        const auto stack = static_cast<uint32_t>(stackModulesFirst.size());
        stackModulesFirst.push_back(static_cast<uint32_t>(stackModules.size()));
        const std::size_t begin = newStacks.addr[k], end = newStacks.addr[k + 1];
        stackLeaf.push_back(begin == end ? UINT32_MAX : newStacks.addrs[end - 1]);
        for (std::size_t i = begin; i < end; ++i) {
            const uint32_t module = addrModule[newStacks.addrs[i]];
            if (module < moduleStamp.size() && moduleStamp[module] != stack) {
                moduleStamp[module] = stack;
                stackModules.push_back(module);
            }
        }
    }
    if (done)
        done->store(newStacks.addr.size() - 1, std::memory_order_release);
}

RawProfileBuilder::RawProfileBuilder(Symbolizer& symbolizer, RawProfileOptions options)
    : d(std::make_unique<Impl>(symbolizer, options)) {}

RawProfileBuilder::~RawProfileBuilder() = default;

uint32_t RawProfileBuilder::costType(std::string_view name, CostUnit unit) {
    std::lock_guard lock(d->data);
    for (uint32_t i = 0; i < d->types.size(); ++i)
        if (d->types[i].name == name)
            return i;
    d->types.push_back({std::string(name), unit});
    d->stackCost.emplace_back(d->stacks.size(), 0);
    return static_cast<uint32_t>(d->types.size() - 1);
}

RawFrame RawProfileBuilder::pseudoFrame(std::string_view name) {
    std::lock_guard lock(d->pseudoMutex);
    std::size_t i = 0;
    while (i < d->pseudoNames.size() && d->pseudoNames[i] != name)
        ++i;
    if (i == d->pseudoNames.size())
        d->pseudoNames.emplace_back(name);
    RawFrame f;
    f.address = Impl::kPseudoBase + i;
    return f;
}

void RawProfileBuilder::deferSymbolization() {
    std::lock_guard lock(d->data);
    d->deferred = true;
}

uint32_t RawProfileBuilder::thread(std::string_view name, int64_t pid, int64_t tid) {
    std::lock_guard lock(d->data);
    std::string key = std::to_string(pid) + '/' + std::to_string(tid) + '/';
    key.append(name);
    auto [it, fresh] = d->threadIndex.try_emplace(std::move(key), static_cast<uint32_t>(d->threads.size()));
    if (fresh)
        d->threads.push_back({std::string(name), pid, tid, 0});
    return it->second;
}

void RawProfileBuilder::pipelineSamples() {
    d->pipeline = std::make_unique<detail::SamplePipeline>([this](const auto& forEachSample) {
        std::lock_guard lock(d->data); // once per batch
        // the slots of the batch's stacks in the (big) stack table asked for first: merging the samples
        // then finds them in the cache instead of waiting for each in turn
        forEachSample([&](uint32_t, std::span<const RawFrame>, std::span<const CostValue>, double, int32_t,
                          uint64_t h) { d->stackTable.prefetch(h); });
        forEachSample([&](uint32_t thread, std::span<const RawFrame> leafToRoot,
                          std::span<const CostValue> costs, double timeSeconds, int32_t cpu, uint64_t h) {
            d->addSampleLocked(thread, leafToRoot, costs, timeSeconds, cpu, h);
        });
    });
}

void RawProfileBuilder::addSample(uint32_t thread, std::span<const RawFrame> leafToRoot,
                                  std::span<const CostValue> costs, double timeSeconds, int32_t cpu) {
    if (d->pipeline) {
        d->pipeline->add(thread, leafToRoot, costs, timeSeconds, cpu, Impl::stackHash(thread, leafToRoot));
        return;
    }
    std::lock_guard lock(d->data);
    d->addSampleLocked(thread, leafToRoot, costs, timeSeconds, cpu, Impl::stackHash(thread, leafToRoot));
}

void RawProfileBuilder::Impl::addSampleLocked(uint32_t thread, std::span<const RawFrame> leafToRoot,
                                              std::span<const CostValue> costs, double timeSeconds,
                                              int32_t cpu, uint64_t h) {
    if (finished)
        throw std::logic_error("RawProfileBuilder: a sample added after finish()");
    if (thread >= threads.size())
        return;
    // a stack seen before is found by `h`, the hash of its raw frames (stackHash())
    const detail::IndexProbe slot = stackTable.find(h, [&](uint32_t s) {
        const Stack& st = stacks[s];
        if (st.hash != h || st.thread != thread || st.size != leafToRoot.size())
            return false;
        const uint32_t* rootFirst = stackAddrs.data() + st.first;
        for (std::size_t k = 0; k < leafToRoot.size(); ++k) {
            const RawFrame& a = addrs[rootFirst[leafToRoot.size() - 1 - k]];
            const RawFrame& b = leafToRoot[k];
            if (a.address != b.address || a.module != b.module || a.returnAddress != b.returnAddress)
                return false;
        }
        return true;
    });
    uint32_t s;
    if (slot.found()) {
        s = slot.index;
    } else {
        auto& ids = scratch;
        ids.clear();
        for (auto it = leafToRoot.rbegin(); it != leafToRoot.rend(); ++it)
            ids.push_back(addrId(*it));
        s = static_cast<uint32_t>(stacks.size());
        stacks.push_back({thread, static_cast<uint32_t>(stackAddrs.size()), static_cast<uint32_t>(ids.size()),
                          0, h, false});
        stackAddrs.append(ids);
        for (auto& c : stackCost)
            c.push_back(0);
        stackTable.insert(slot, h, s, [&](uint32_t i) { return stacks[i].hash; });
    }
    ++stacks[s].count;
    if (!stacks[s].dirty) {
        stacks[s].dirty = true;
        dirty.push_back(s);
    }
    for (const CostValue& c : costs)
        if (c.costType < stackCost.size())
            addCost(stackCost[c.costType][s], c.value);
    ++threads[thread].samples;
    ++samples;
    if (timeSeconds >= 0 && allTimed)
        timed.add(std::llround(timeSeconds * 1e9), thread, s, cpu, costs);
    else
        allTimed = false;
    if (timeSeconds >= 0) {
        timeMin = hasTime ? std::min(timeMin, timeSeconds) : timeSeconds;
        timeMax = hasTime ? std::max(timeMax, timeSeconds) : timeSeconds;
        hasTime = true;
    }
}

uint64_t RawProfileBuilder::samples() const {
    if (d->pipeline)
        d->pipeline->drain();
    std::lock_guard lock(d->data);
    return d->samples;
}

Profile RawProfileBuilder::snapshot(ProfileMeta meta, const std::atomic<bool>* cancel) {
    if (d->pipeline)
        d->pipeline->drain();
    return d->build(std::move(meta), cancel, false);
}

Profile RawProfileBuilder::finish(ProfileMeta meta, const std::atomic<bool>* cancel) {
    if (d->pipeline)
        d->pipeline->drain();
    return d->build(std::move(meta), cancel, true);
}

void RawProfileBuilder::Impl::attachSamples(Profile& profile, std::size_t count, bool final) {
    // a stack's leaf node is that of its (thread, node) entry; the log is read under `data` (samples may
    // still arrive during a snapshot), and the final build moves its columns out instead of copying
    std::vector<NodeId> stackNode(expanded, kRootNode);
    for (uint32_t s = 0; s < expanded; ++s)
        stackNode[s] = profile.threadCosts.node[tree.stackEntry(s)];
    std::vector<uint32_t> typeOrder(profile.costTypes.size());
    std::iota(typeOrder.begin(), typeOrder.end(), 0u);
    std::lock_guard lock(data);
    if (!allTimed || count == 0 || timed.size() < count)
        return;
    profile.samples =
        timed.build(count, stackNode, {}, typeOrder, profile.threads.size(), final, !profile.stacks.empty());
}

Profile RawProfileBuilder::Impl::build(ProfileMeta meta, const std::atomic<bool>* cancel, bool final) {
    // the ahead thread stops its batch (the Symbolizer keeps what it looked up) and waits until we are done
    struct GiveWay {
        Impl& d;
        explicit GiveWay(Impl& impl)
            : d(impl) {
            ++d.snapshots;
            d.aheadCancel = true;
        }
        ~GiveWay() {
            {
                std::lock_guard lock(d.aheadMutex);
                --d.snapshots;
            }
            d.aheadWake.notify_all();
        }
    } giveWay(*this);
    std::lock_guard snap(snapshotting);
    {
        std::lock_guard lock(aheadMutex);
        aheadCancel = aheadStop;
    }
    if (cancel && cancel->load())
        throw ImportCancelled();

    // what arrived since the last snapshot, copied so that recording goes on while we symbolize and build
    struct Delta {
        uint32_t stack, thread, size;
        uint64_t count; ///< all samples of the stack so far
    };
    std::vector<Delta> deltas;
    std::vector<int64_t> deltaCost; // [delta * types + type]: all costs of the stack so far
    std::vector<uint32_t> newAddrs; // address ids of the new stacks, root -> leaf, concatenated
    std::vector<CostType> types2;
    std::vector<ThreadInfo> threads2;
    uint64_t samples2;
    std::size_t timed2;
    double tMin, tMax;
    bool time2;
    {
        std::lock_guard lock(data);
        std::sort(dirty.begin(), dirty.end());
        // the final build reads the new stacks' addresses where they are (no sample arrives meanwhile, and
        // they end stackAddrs in stack order); a snapshot copies them, as recording goes on
        std::size_t newSize = 0;
        for (uint32_t s : dirty)
            if (s >= expanded && !final)
                newSize += stacks[s].size;
        detail::reserveHuge(newAddrs, newSize);
        deltas.reserve(dirty.size());
        deltaCost.reserve(dirty.size() * stackCost.size());
        for (uint32_t s : dirty) {
            Stack& st = stacks[s];
            st.dirty = false;
            deltas.push_back({s, st.thread, st.size, st.count});
            for (const auto& c : stackCost)
                deltaCost.push_back(c[s]);
            if (s >= expanded && !final)
                newAddrs.insert(newAddrs.end(), stackAddrs.begin() + st.first,
                                stackAddrs.begin() + st.first + st.size);
        }
        dirty.clear();
        for (const Type& t : types)
            types2.push_back({t.name, t.unit, 0});
        threads2 = threads;
        samples2 = samples;
        timed2 = allTimed ? timed.size() : 0;
        tMin = timeMin, tMax = timeMax, time2 = hasTime;
    }

    // symbolize the addresses neither an earlier snapshot nor the ahead thread has resolved
    if (!resolveNew(cancel, 0)) { // cancelled: the next snapshot takes these samples again
        std::lock_guard lock(data);
        for (const Delta& x : deltas) {
            if (!stacks[x.stack].dirty) {
                stacks[x.stack].dirty = true;
                dirty.push_back(x.stack);
            }
        }
        throw ImportCancelled();
    }

    // The final build asks the symbolizer for no more addresses (their frames are in `resolved`): its cache
    // goes, and for a big one the heap's free pages go back to the kernel before the tree's arrays are made
    // (fp-large: 100 000 cached addresses, peak RSS 640 -> 617 MiB; below, the trim's cost weighs more: on
    // fp-medium, 30 000 addresses, ~7 ms of 250 for 11 MiB; on fp-small ~3 ms for 7 MiB).
    if (final && symbolizer.forgetAddresses() >= 50000) {
#ifdef __GLIBC__
        malloc_trim(0);
#endif
    }
    if (final) { // (finding a stack or an address again is for adding samples: no more come, none is taken)
        finished = true;
        stackTable = detail::IndexTable(16);
        addrIndex = FrameIndex();
    }
    detail::trace("build the tree");
    // expand the new stacks (sorted, without gaps: the tree numbers them alike), add all new costs
    tree.setCostTypes(types2);
    tree.setThreads(threads2);
    for (std::size_t t = rootRefs.size(); t < threads2.size(); ++t) {
        rootRefs.push_back(static_cast<uint32_t>(resolved.size()));
        resolved.push_back(
            {tree.frame({tree.strings().intern(threads2[t].name), {}, {}, 0, FrameKind::Process}),
             {},
             false});
    }
    const std::size_t moduleCount = symbolizer.report().size();
    moduleSamples.resize(moduleCount, 0);
    moduleUnnamed.resize(moduleCount, 0);
    moduleStamp.resize(moduleCount, UINT32_MAX);
    const std::size_t nt = types2.size();
    accountedCost.resize(nt);
    leafCost.resize(nt);
    {
        // where each new stack's frames go: at most so many (runs of unresolved addresses become one frame)
        NewStacks fresh;
        fresh.addrs = !final                     ? newAddrs.data()
                      : expanded < stacks.size() ? stackAddrs.data() + stacks[expanded].first
                                                 : nullptr;
        std::size_t nextAddr = 0, nextRef = 0;
        for (const Delta& x : deltas) {
            if (x.stack < expanded)
                continue;
            fresh.thread.push_back(x.thread);
            fresh.addr.push_back(nextAddr);
            fresh.ref.push_back(nextRef);
            nextRef += options.processRoot ? 1 : 0;
            for (uint32_t k = 0; k < x.size; ++k)
                nextRef += addrCount[fresh.addrs[nextAddr + k]];
            nextAddr += x.size;
        }
        fresh.addr.push_back(nextAddr);
        const std::size_t newStacks = fresh.thread.size();
        fresh.path.assign(newStacks, {});
        // (not zeroed: each thread's writes map in its own pages)
        fresh.refCount = nextRef;
        fresh.refs.reset(new uint32_t[detail::hugeCapacity(nextRef, sizeof(uint32_t))]);
        detail::adviseHugePages(fresh.refs.get(), nextRef * sizeof(uint32_t));
        // many frames: the stacks' frames in stretches on two threads, the first listing the modules first
        constexpr std::size_t kAsideFrames = 200000, kStretch = 2048;
        std::atomic<std::size_t> nextStretch{0}, modulesListed{0};
        // The final build gives back the address ids of the stacks both expanded and listed as it goes (the
        // frames written meanwhile take their memory: on fp-large 100 MB of ids for 176 MB of frames).
        std::mutex doneMutex;
        std::vector<char> stretchDone(final ? (newStacks + kStretch - 1) / kStretch : 0, 0);
        std::size_t firstUndone = 0, discarded = 0;
        const auto stretchExpanded = [&](std::size_t stretch) {
            std::lock_guard lock(doneMutex);
            stretchDone[stretch] = 1;
            while (firstUndone < stretchDone.size() && stretchDone[firstUndone])
                ++firstUndone;
            const std::size_t through =
                std::min({firstUndone * kStretch, modulesListed.load(std::memory_order_acquire), newStacks});
            const std::size_t ids = stacks[expanded].first + fresh.addr[through];
            if (ids >= discarded + detail::kHugePageBytes / sizeof(uint32_t)) {
                stackAddrs.discardFront(ids);
                discarded = ids;
            }
        };
        const auto expandStretches = [&] {
            for (std::size_t from; (from = nextStretch.fetch_add(kStretch)) < newStacks;) {
                expandFrames(fresh, from, std::min(newStacks, from + kStretch));
                if (final)
                    stretchExpanded(from / kStretch);
            }
        };
        std::future<void> other;
        if (nextRef >= kAsideFrames)
            other = std::async(std::launch::async, expandStretches);
        listModules(fresh, &modulesListed);
        expandStretches();
        if (other.valid())
            other.get();
        expanded += newStacks;
        accountedCount.resize(expanded, 0);
        if (final) // the address ids the expansion has not given back yet (fp-large: 25 M ids, 100 MB in all)
            stackAddrs.release();
        detail::trace("expanded");
        std::vector<FrameId> refFrame(resolved.size());
        std::vector<SourceLine> refLine(resolved.size());
        for (std::size_t r = 0; r < resolved.size(); ++r) {
            refFrame[r] = resolved[r].frame;
            refLine[r] = resolved[r].line;
        }
        tree.addStacks(fresh.path, std::span<const uint32_t>(fresh.refs.get(), fresh.refCount), refFrame,
                       refLine, final);
        detail::trace("stacks added");
    } // (the expanded frames freed)
    std::vector<uint32_t>().swap(newAddrs);
    // each delta's new samples and costs (deltaCost becomes the costs since the last snapshot)
    std::vector<uint64_t> deltaSamples(deltas.size());
    for (std::size_t t = 0; t < nt; ++t)
        accountedCost[t].resize(expanded, 0);
    for (std::size_t i = 0; i < deltas.size(); ++i) {
        const Delta& x = deltas[i];
        deltaSamples[i] = x.count - accountedCount[x.stack];
        accountedCount[x.stack] = x.count;
        for (std::size_t t = 0; t < nt; ++t) {
            const int64_t all = deltaCost[i * nt + t];
            deltaCost[i * nt + t] = subCost(all, accountedCost[t][x.stack]);
            accountedCost[t][x.stack] = all;
        }
    }
    const auto costsOf = [&](std::size_t i) {
        return std::span<const int64_t>(deltaCost.data() + i * nt, nt);
    };
    // Two parts, on two threads for many stacks (the second core idled here: on fp-large ~0.3 s of one
    // core's work each): the tree's costs and its final arrays; and the costs per leaf address and module,
    // the module warnings and the per-instruction costs.
    meta.samples = samples2;
    if (time2) {
        meta.timeStart = tMin;
        meta.timeEnd = tMax;
    }
    const std::vector<ModuleReport> reports = symbolizer.report();
    // the final profile of a timed recording keeps its stacks: a time range's lines and instructions
    const bool keepStacks = final && timed2 == samples2 && samples2 > 0;
    std::vector<uint32_t> addressEntry;
    const auto leavesAndModules = [&]() -> AddressCosts {
        for (std::size_t i = 0; i < deltas.size(); ++i) {
            const Delta& x = deltas[i];
            const uint64_t dn = deltaSamples[i];
            if (const uint32_t leaf = stackLeaf[x.stack]; leaf != UINT32_MAX) {
                for (std::size_t t = 0; t < nt; ++t) {
                    if (leafCost[t].size() <= leaf)
                        leafCost[t].resize(addrFirst.size(), 0);
                    addCost(leafCost[t][leaf], costsOf(i)[t]);
                }
                // the samples were spent where no function name tells
                if (addrModule[leaf] < moduleUnnamed.size() && resolved[addrFirst[leaf]].unresolved)
                    moduleUnnamed[addrModule[leaf]] += dn;
            }
            const uint32_t end = x.stack + 1 < stackModulesFirst.size()
                                     ? stackModulesFirst[x.stack + 1]
                                     : static_cast<uint32_t>(stackModules.size());
            for (uint32_t k = stackModulesFirst[x.stack]; k < end; ++k)
                moduleSamples[stackModules[k]] += dn;
        }
        warnAboutModules(meta, reports, samples2);
        return addressCosts(reports, keepStacks ? &addressEntry : nullptr);
    };
    std::future<AddressCosts> aside;
    if (deltas.size() >= kDeltasAside)
        aside = std::async(std::launch::async, leavesAndModules);
    AddressCosts addressCostsMade = aside.valid() ? AddressCosts() : leavesAndModules();
    for (std::size_t i = 0; i < deltas.size(); ++i)
        tree.addCost(deltas[i].stack, deltaSamples[i], costsOf(i));
    Profile profile = tree.profile(ProfileMeta(), keepStacks, final);
    if (aside.valid())
        addressCostsMade = aside.get();
    profile.meta = std::move(meta);
    profile.addressCosts = std::move(addressCostsMade);
    if (keepStacks)
        for (uint32_t s = 0; s < profile.stacks.size() && s < stackLeaf.size(); ++s)
            if (const uint32_t a = stackLeaf[s]; a < addressEntry.size())
                profile.stacks.leafAddress[s] = addressEntry[a];
    detail::trace("tree built");
    if (timed2 == samples2)
        attachSamples(profile, timed2, final);
    detail::trace("samples stored");
    return profile;
}

} // namespace scorch
