// Internal: the source-line and instruction costs of a time slice (SliceRequest::details), from the stacks
// its samples reach.
#pragma once

#include "util/phasetimer.h"

#include "scorch/cancel.h"
#include "scorch/costs.h"
#include "scorch/profile.h"
#include "scorch/samples.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

namespace scorch::detail {

/// The line and instruction costs of the `sampleCount` (at most) samples `forEachSample(f)` calls f with, by
/// index, returning false when cancelled (TimeSlice::lineCosts, addressCosts): their costs (or, all costs
/// uniform, their number) summed per stack, then added to each stack's line entries (total), its leaf line
/// (self) and its leaf instruction; the profile's entries these reach, in its order. False when cancelled.
template <typename ForEachSample>
bool sliceDetails(const Profile& profile, const ForEachSample& forEachSample, std::size_t sampleCount,
                  TimeSlice& out, const std::atomic<bool>* cancel) {
    const SampleStore& store = *profile.samples;
    const StackDetails& st = profile.stacks;
    const LineCosts& lc = profile.lineCosts;
    const AddressCosts& ac = profile.addressCosts;
    const std::size_t lineTypes = lc.self.size(), addrTypes = ac.self.size();
    const std::size_t types = std::min(store.costTypeCount(), std::max(lineTypes, addrTypes));
    std::vector<std::vector<int64_t>> lineSelf(lineTypes, std::vector<int64_t>(lc.size(), 0));
    std::vector<std::vector<int64_t>> lineTotal(lineTypes, std::vector<int64_t>(lc.size(), 0));
    std::vector<std::vector<int64_t>> addrSelf(addrTypes, std::vector<int64_t>(ac.size(), 0));
    bool uniform = true;
    for (std::size_t t = 0; t < types; ++t)
        uniform = uniform && store.cost(t).uniform();
    if (uniform) {
        // every cost type's samples cost the same (a sampled profile): each stack's samples counted, the
        // counts added to its entries, then multiplied by each type's cost (one addition a line reached,
        // whatever the number of cost types). For a range of fewer samples than a quarter of the stacks, the
        // stacks reached are also listed, and that short list walked instead of all the profile's stacks (a
        // branch a sample that made the count of a large range's twice as slow: the listing is kept out of
        // its loop).
        std::vector<uint32_t> samples(st.size(), 0), touched;
        const bool many = sampleCount * 4 >= st.size();
        if (!(many ? forEachSample([&](std::size_t i) {
                if (const uint32_t s = store.stack(i); s < st.size())
                    ++samples[s];
            })
                   : forEachSample([&](std::size_t i) {
                         if (const uint32_t s = store.stack(i); s < st.size() && samples[s]++ == 0)
                             touched.push_back(s);
                     })))
            return false;
        detail::trace("slice details: samples per stack");
        std::vector<int64_t> lineCount(lc.size(), 0), leafCount(lc.size(), 0), addrCount(ac.size(), 0);
        const auto addStack = [&](uint32_t s) {
            const int64_t n = samples[s];
            for (uint32_t k = st.linesFirst[s]; k < st.linesFirst[s + 1]; ++k)
                lineCount[st.lines[k]] += n;
            if (const uint32_t e = st.leafLine[s]; e < lc.size())
                leafCount[e] += n;
            if (const uint32_t e = st.leafAddress[s]; e < ac.size())
                addrCount[e] += n;
        };
        for (uint32_t j = 0; j < (many ? st.size() : touched.size()); ++j) {
            if ((j & 0xffff) == 0 && cancelRequested(cancel))
                return false;
            if (!many)
                addStack(touched[j]);
            else if (samples[j] != 0)
                addStack(j);
        }
        for (std::size_t t = 0; t < types; ++t) {
            const int64_t c = store.cost(t).constant();
            for (std::size_t e = 0; t < lineTypes && e < lc.size(); ++e) {
                lineTotal[t][e] = mulCost(c, lineCount[e]);
                lineSelf[t][e] = mulCost(c, leafCount[e]);
            }
            for (std::size_t e = 0; t < addrTypes && e < ac.size(); ++e)
                addrSelf[t][e] = mulCost(c, addrCount[e]);
        }
    } else {
        std::vector<uint32_t> touched;
        std::vector<std::vector<int64_t>> cost(types);
        std::vector<uint32_t> slot(st.size(), UINT32_MAX); // per stack: its place in touched
        if (!forEachSample([&](std::size_t i) {
                const uint32_t s = store.stack(i);
                if (s >= st.size())
                    return;
                if (slot[s] == UINT32_MAX) {
                    slot[s] = static_cast<uint32_t>(touched.size());
                    touched.push_back(s);
                    for (auto& c : cost)
                        c.push_back(0);
                }
                for (std::size_t t = 0; t < types; ++t)
                    addCost(cost[t][slot[s]], store.cost(t)[i]);
            }))
            return false;
        detail::trace("slice details: costs per stack");
        for (std::size_t j = 0; j < touched.size(); ++j) {
            if ((j & 0xfff) == 0 && cancelRequested(cancel))
                return false;
            const uint32_t s = touched[j];
            for (uint32_t k = st.linesFirst[s]; k < st.linesFirst[s + 1]; ++k)
                for (std::size_t t = 0; t < types && t < lineTypes; ++t)
                    addCost(lineTotal[t][st.lines[k]], cost[t][j]);
            if (const uint32_t e = st.leafLine[s]; e < lc.size())
                for (std::size_t t = 0; t < types && t < lineTypes; ++t)
                    addCost(lineSelf[t][e], cost[t][j]);
            if (const uint32_t e = st.leafAddress[s]; e < ac.size())
                for (std::size_t t = 0; t < types && t < addrTypes; ++t)
                    addCost(addrSelf[t][e], cost[t][j]);
        }
    }
    detail::trace("slice details: lines and instructions summed");
    // entry e has a cost of some type in `costs` ([type][entry])
    const auto reached = [](const std::vector<std::vector<int64_t>>& costs, std::size_t e) {
        return std::any_of(costs.begin(), costs.end(),
                           [e](const std::vector<int64_t>& v) { return v[e] != 0; });
    };
    LineCosts& lines = out.lineCosts;
    lines.self.assign(lineTypes, {});
    lines.total.assign(lineTypes, {});
    for (std::size_t e = 0; e < lc.size(); ++e) {
        if (!reached(lineSelf, e) && !reached(lineTotal, e))
            continue;
        lines.frame.push_back(lc.frame[e]);
        lines.file.push_back(lc.file[e]);
        lines.line.push_back(lc.line[e]);
        for (std::size_t t = 0; t < lineTypes; ++t) {
            lines.self[t].push_back(lineSelf[t][e]);
            lines.total[t].push_back(lineTotal[t][e]);
        }
    }
    AddressCosts& addresses = out.addressCosts;
    addresses.modules = ac.modules;
    addresses.self.assign(addrTypes, {});
    for (std::size_t e = 0; e < ac.size(); ++e) {
        if (!reached(addrSelf, e))
            continue;
        addresses.frame.push_back(ac.frame[e]);
        addresses.module.push_back(ac.module[e]);
        addresses.offset.push_back(ac.offset[e]);
        for (std::size_t t = 0; t < addrTypes; ++t)
            addresses.self[t].push_back(addrSelf[t][e]);
    }
    detail::trace("slice details: done");
    return true;
}

} // namespace scorch::detail
