// RawProfileBuilder's build: the new stacks expanded into the incremental tree, the costs since the last
// snapshot added, and the profile made from it (a snapshot's copy, or the final profile taking its arrays),
// with the leaf addresses' costs, the module warnings and the samples' store.
#include "raw/rawprofile_impl.h"

#include "scorch/bigblocks.h"
#include "scorch/import.h"
#include "scorch/samples.h"
#include "scorch/warningkind.h"

#include "util/hugepages.h"
#include "util/phasetimer.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <future>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <utility>
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace scorch {

using detail::FrameIndex;

namespace {

/// Gives the free pages amid malloc's heaps back to the kernel (glibc gives back only a heap's top).
void trimHeaps() {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

} // namespace

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

    // symbolize the addresses neither an earlier snapshot nor the ahead thread has resolved (the final
    // build's frames are freed on another thread, below); cancelled, the next snapshot takes these samples
    // again
    Looked looked;
    if (!resolveNew(cancel, 0, SIZE_MAX, final ? &looked : nullptr)) {
        std::lock_guard lock(data);
        for (const Delta& x : deltas) {
            if (!stacks[x.stack].dirty) {
                stacks[x.stack].dirty = true;
                dirty.push_back(x.stack);
            }
        }
        throw ImportCancelled();
    }

    // The final build asks the symbolizer for no more addresses (their frames are in `resolved`): what its
    // cache holds goes, freed on another thread while the tree is built. (resolveNew() does not fill the
    // cache: only an ahead batch that a build cancelled leaves its lookups there. Before, the cache held
    // every address: fp-large's 100 000 freed at this point took RSS 640 -> 617 MiB.) Nor does it open the
    // modules' files again: their libdw sessions close (fp-large: 16 MB of mapped files and debug info,
    // before the tree's arrays are made). Both on the symbolizer's thread, with the frames it gave this build
    // (fp-medium: the sessions ~2.5 ms, the frames of 70 000 addresses 1-4 ms off this thread, where nothing
    // else runs meanwhile). For a big tree the free pages amid malloc's heaps then go back to the kernel
    // (glibc gives back only a heap's top), see kTrimFromFrames.
    const bool trim = final && stackAddrs.size() >= kTrimFromFrames;
    if (final) {
        symbolizer.forgetAddressesInBackground(
            [looked = std::move(looked), trim](std::size_t) mutable {
                Looked().swap(looked);
                if (trim)
                    trimHeaps();
            },
            Symbolizer::IdleSessions::Close);
    }
    // where the first new stack's address ids start in stackAddrs (the final build reads them there)
    const bool anyNew = expanded < stacks.size();
    const std::size_t firstNewId = anyNew ? stacks[expanded].first : 0;
    if (final) { // (finding a stack or an address again is for adding samples: no more come, none is taken)
        finished = true;
        stackTable = detail::IndexTable(16);
        addrIndex = FrameIndex();
        // nor are the stacks' counts and costs needed any more: `deltas` holds them (fp-large: 640 000
        // stacks, ~30 MB given back before the tree's arrays are made)
        std::vector<Stack>().swap(stacks);
        for (auto& c : stackCost)
            std::vector<int64_t>().swap(c);
        std::vector<uint32_t>().swap(dirty);
    }
    // from here on, freed big arrays (the expanded frames, the sort's) feed the next ones
    // (scorch/bigblocks.h)
    const RecycleScope recycle;
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
    // per delta: its stack, its new samples, and (deltaCost) its costs since the last snapshot; worked out
    // once the new stacks are expanded (their leaves and modules listed), before the tree's nodes are made
    std::vector<uint32_t> deltaStack;
    std::vector<uint64_t> deltaSamples;
    const auto costsOf = [&](std::size_t i) {
        return std::span<const int64_t>(deltaCost.data() + i * nt, nt);
    };
    {
        // where each new stack's frames go: at most so many (runs of unresolved addresses become one frame)
        NewStacks fresh;
        fresh.addrs = !final ? newAddrs.data() : anyNew ? stackAddrs.data() + firstNewId : nullptr;
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
        fresh.narrow = resolved.size() < std::min(options.threeByteFramesBelow, detail::Ref24::kLimit);
        const std::size_t refBytes = fresh.narrow ? sizeof(detail::Ref24) : sizeof(uint32_t);
        fresh.refs.reset(new std::byte[detail::hugeCapacity(nextRef * refBytes, 1)]);
        detail::adviseHugePages(fresh.refs.get(), nextRef * refBytes);
        // many frames: the stacks' frames in stretches on two threads, the first listing the modules first
        constexpr std::size_t kAsideFrames = 200000, kStretch = 2048;
        std::atomic<std::size_t> nextStretch{0}, modulesListed{0};
        // The final build gives back the address ids of the stacks both expanded and listed as it goes (the
        // frames written meanwhile take their memory: on fp-large 100 MB of ids for 135 MB of 3-byte frame
        // references).
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
            const std::size_t ids = firstNewId + fresh.addr[through];
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
        if (!final) // (the final build has no later one to tell what it accounted for)
            accountedCount.resize(expanded, 0);
        if (final) // the address ids the expansion has not given back yet (fp-large: 25 M ids, 100 MB in all)
            stackAddrs.release();
        // only the stacks' paths and frames are left to the tree (fp-large: 13 MB of offsets)
        std::vector<uint32_t>().swap(fresh.thread);
        std::vector<std::size_t>().swap(fresh.addr);
        std::vector<std::size_t>().swap(fresh.ref);
        // each delta's new samples and costs (deltaCost becomes the costs since the last snapshot)
        // (the final build only reads what earlier ones accounted for: stacks new since have none)
        deltaSamples.assign(deltas.size(), 0);
        if (!final)
            for (std::size_t t = 0; t < nt; ++t)
                accountedCost[t].resize(expanded, 0);
        for (std::size_t i = 0; i < deltas.size(); ++i) {
            const Delta& x = deltas[i];
            const bool accounted = x.stack < accountedCount.size();
            deltaSamples[i] = x.count - (accounted ? accountedCount[x.stack] : 0);
            if (!final)
                accountedCount[x.stack] = x.count;
            for (std::size_t t = 0; t < nt; ++t) {
                const int64_t all = deltaCost[i * nt + t];
                deltaCost[i * nt + t] = subCost(
                    all, accounted && x.stack < accountedCost[t].size() ? accountedCost[t][x.stack] : 0);
                if (!final)
                    accountedCost[t][x.stack] = all;
            }
        }
        // the samples and costs per leaf address and module (the final build's module lists are read no more
        // after: fp-large, 13 MB given back before the nodes are made)
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
        if (final) {
            std::vector<uint32_t>().swap(stackModules);
            std::vector<uint32_t>().swap(stackModulesFirst);
        }
        // of the deltas, only their stacks are needed from here on (fp-large: 630 000, 15 MB given back)
        deltaStack.reserve(deltas.size());
        for (const Delta& x : deltas)
            deltaStack.push_back(x.stack);
        std::vector<Delta>().swap(deltas);
        detail::trace("expanded");
        std::vector<FrameId> refFrame(resolved.size());
        std::vector<SourceLine> refLine(resolved.size());
        for (std::size_t r = 0; r < resolved.size(); ++r) {
            refFrame[r] = resolved[r].frame;
            refLine[r] = resolved[r].line;
        }
        const auto refsRead = [&] {
            fresh.refs.reset();
        };
        if (fresh.narrow)
            tree.addStacks(
                fresh.path,
                std::span(reinterpret_cast<const detail::Ref24*>(fresh.refs.get()), fresh.refCount), refFrame,
                refLine, final, refsRead);
        else
            tree.addStacks(fresh.path,
                           std::span(reinterpret_cast<const uint32_t*>(fresh.refs.get()), fresh.refCount),
                           refFrame, refLine, final, refsRead);
        detail::trace("stacks added");
    } // (the expanded frames freed)
    std::vector<uint32_t>().swap(newAddrs);
    // Two parts, on two threads for many stacks (the second core idled here: on fp-large ~0.3 s of one
    // core's work each): the tree's costs and its final arrays; and the module warnings and the
    // per-instruction costs.
    meta.samples = samples2;
    if (time2) {
        meta.timeStart = tMin;
        meta.timeEnd = tMax;
    }
    const std::vector<ModuleReport> reports = symbolizer.report();
    // the final profile of a timed recording keeps its stacks: a time range's lines and instructions
    const bool keepStacks = final && timed2 == samples2 && samples2 > 0;
    std::vector<uint32_t> addressEntry;
    const bool beside = deltaStack.size() >= kDeltasAside;
    const auto warningsAndAddresses = [&]() -> AddressCosts {
        // beside the tree's final arrays: the heaps' free pages (the building's) go back before those arrays
        // take the peak
        if (trim && beside)
            trimHeaps();
        warnAboutModules(meta, reports, samples2);
        return addressCosts(reports, keepStacks ? &addressEntry : nullptr);
    };
    for (std::size_t i = 0; i < deltaStack.size(); ++i)
        tree.addCost(deltaStack[i], deltaSamples[i], costsOf(i));
    std::future<AddressCosts> aside;
    if (beside)
        aside = std::async(std::launch::async, warningsAndAddresses);
    // the deltas are read no more: given back before the tree's final arrays are made
    std::vector<uint32_t>().swap(deltaStack);
    std::vector<int64_t>().swap(deltaCost);
    std::vector<uint64_t>().swap(deltaSamples);
    AddressCosts addressCostsMade = aside.valid() ? AddressCosts() : warningsAndAddresses();
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
