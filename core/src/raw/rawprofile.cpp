// RawProfileBuilder: raw address samples -> aggregated unique stacks -> symbolized once per unique address
// -> call tree with inline frames and per-line costs, plus warnings for modules without symbols.
#include "raw/rawprofile_impl.h"

#include "util/textutil.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace scorch {

using detail::Resolved;

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
            addrUnresolved.push_back(resolved.back().unresolved ? 1 : 0);
            continue;
        }
        addrUnresolved.push_back(0);
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

void RawProfileBuilder::Impl::expandFrames(NewStacks& newStacks, std::size_t from, std::size_t to) {
    if (newStacks.narrow)
        expandFramesAs<detail::Ref24>(newStacks, from, to);
    else
        expandFramesAs<uint32_t>(newStacks, from, to);
}

template <typename R>
void RawProfileBuilder::Impl::expandFramesAs(NewStacks& newStacks, std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to; ++k) {
        const uint32_t thread = newStacks.thread[k];
        R* const first = reinterpret_cast<R*>(newStacks.refs.get()) + newStacks.ref[k];
        R* path = first;
        if (options.processRoot)
            *path++ = rootRefs[thread];
        for (std::size_t i = newStacks.addr[k]; i < newStacks.addr[k + 1]; ++i) {
            const uint32_t a = newStacks.addrs[i];
            const uint32_t r = addrFirst[a];
            // one [module] frame for a run of unresolved addresses in the same module
            if (addrUnresolved[a] && !options.unresolvedAddresses && path > first &&
                resolved[path[-1]].frame == resolved[r].frame)
                continue;
            for (uint32_t n = addrCount[a], j = 0; j < n; ++j)
                *path++ = r + j;
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
    // The merging thread is what reading a big recording waits for, and the pages of the new stacks' address
    // ids cost it most of its time in page faults where fresh memory is dear (fp-large: 180 MB): another
    // thread maps them in ahead of it (util/aheadmapper.h).
    {
        std::lock_guard lock(d->data);
        d->stackAddrs.mapAhead(Impl::kIdsMappedAhead);
    }
    d->pipeline = std::make_unique<detail::SamplePipeline>([this](const detail::SampleBatch& batch) {
        using Sample = detail::SampleBatch::Sample;
        std::lock_guard lock(d->data); // once per batch
        // What merging a sample of a known stack reads, asked for ahead, stage by stage over a run of the
        // batch's samples: the stack's slot in the (big) stack table; its record; its address ids (from the
        // leaf on, the order of the comparison); the leaf's raw frame. Merging then finds them in the cache
        // instead of waiting for each in turn (four dependent cache misses a sample on fp-large, where most
        // stacks come again). Runs of kMergeRun, not the whole batch: over 2048 samples (~1.3 MB of frames
        // on fp-large) what the first stages asked for had left the cache again when merging came to it.
        batch.forEachRun(Impl::kMergeRun, [&](const detail::SampleBatch::Run& run) {
            run.forEach([&](const Sample& x) { d->stackTable.prefetch(x.stackHash); });
            auto& known = d->batchStacks;
            known.clear();
            run.forEach([&](const Sample& x) {
                const uint32_t s = d->stackTable.candidate(x.stackHash);
                known.push_back(s);
                if (s < d->stacks.size())
                    __builtin_prefetch(&d->stacks[s]);
            });
            for (uint32_t& s : known) {
                if (s >= d->stacks.size())
                    continue;
                const Impl::Stack& st = d->stacks[s];
                if (st.size == 0 || st.first + st.size > d->stackAddrs.size()) {
                    s = detail::IndexProbe::kAbsent;
                    continue;
                }
                const uint32_t* leaf = d->stackAddrs.data() + st.first + st.size - 1;
                __builtin_prefetch(leaf);
                if (st.size > 16)
                    __builtin_prefetch(leaf - 16);
                s = st.first + st.size - 1; // (the position of the leaf's address id, from here on)
            }
            for (const uint32_t at : known)
                if (at != detail::IndexProbe::kAbsent)
                    if (const uint32_t id = d->stackAddrs[at]; id < d->addrs.size())
                        __builtin_prefetch(&d->addrs[id]);
            run.forEach([&](const Sample& x) {
                d->addSampleLocked(x.thread, x.leafToRoot, x.costs, x.timeSeconds, x.cpu, x.stackHash);
            });
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
        // the reader wrote these frames on another core a few batches ago: asked for all at once, they
        // arrive together instead of one miss per frame inside the lookups (fp-medium: the merging thread's
        // time in FrameIndex::findOrInsert 30 -> 22 ms, most of it had been the first read of the frame)
        {
            const char* p = reinterpret_cast<const char*>(leafToRoot.data());
            const char* end = p + leafToRoot.size_bytes();
            for (; p < end; p += 64)
                __builtin_prefetch(p);
        }
        // Their ids: most from the small table of recent frames, the others then from the big table, asked
        // for meanwhile (findRecent()). In the order of the frames, so that new ones are numbered root first.
        const std::size_t depth = leafToRoot.size();
        ids.resize(depth);
        auto& lookups = scratchLookups;
        lookups.clear();
        for (std::size_t k = 0; k < depth; ++k) {
            const RawFrame& f = leafToRoot[depth - 1 - k];
            const uint64_t hf = detail::hashRaw(f);
            ids[k] = addrIndex.findRecent(f, hf);
            if (ids[k] == detail::FrameIndex::kNotRecent)
                lookups.emplace_back(static_cast<uint32_t>(k), hf);
        }
        for (const auto& [k, hf] : lookups)
            ids[k] = addrId(leafToRoot[depth - 1 - k], hf);
        s = static_cast<uint32_t>(stacks.size());
        stacks.push_back({thread, static_cast<uint32_t>(stackAddrs.size()), static_cast<uint32_t>(ids.size()),
                          false, 0, h});
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

void RawProfileBuilder::expectSamples(uint64_t n) {
    n = std::min<uint64_t>(n, UINT32_MAX);
    std::lock_guard lock(d->data); // (the merging thread's arrays)
    if (d->allTimed)
        d->timed.reserve(n);
    // distinct stacks: at most one a sample (reserved, not written: only what is used is mapped in)
    d->stacks.reserve(n);
    for (auto& c : d->stackCost)
        c.reserve(n);
    d->dirty.reserve(n);
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

} // namespace scorch
