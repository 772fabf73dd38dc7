// Internal: a builder's line entries (unsorted, costs per cost type) -> Profile::lineCosts, and the hash
// both builders index their (frame, file, line) entries by.
#pragma once

#include "scorch/profile.h"

#include "util/hash.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

namespace scorch::detail {

/// The hash of a line entry's key: (frame, file, line).
inline uint64_t lineKey(FrameId frame, SourceLine where) {
    return hashInt((static_cast<uint64_t>(frame.value) << 32 | where.file.value) ^
                   hashInt(0x9e3779b97f4a7c15ull + where.line));
}

/// `lines[i]` has `.frame` (FrameId) and `.where` (SourceLine); `self[t][i]`/`total[t][i]` are its costs.
/// The result is sorted by (frame, file, line); its cost type k is the builder's `typeOrder[k]`. `rank`, if
/// given, receives each builder entry's position in the result.
template <typename Entry>
LineCosts sortedLineCosts(const std::vector<Entry>& lines, const std::vector<std::vector<int64_t>>& self,
                          const std::vector<std::vector<int64_t>>& total, std::span<const uint32_t> typeOrder,
                          std::vector<uint32_t>* rank = nullptr) {
    std::vector<uint32_t> order(lines.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        const Entry& x = lines[a];
        const Entry& y = lines[b];
        if (x.frame.value != y.frame.value)
            return x.frame.value < y.frame.value;
        if (x.where.file.value != y.where.file.value)
            return x.where.file.value < y.where.file.value;
        return x.where.line < y.where.line;
    });
    if (rank) {
        rank->assign(order.size(), 0);
        for (std::size_t k = 0; k < order.size(); ++k)
            (*rank)[order[k]] = static_cast<uint32_t>(k);
    }
    LineCosts out;
    for (uint32_t e : order) {
        out.frame.push_back(lines[e].frame);
        out.file.push_back(lines[e].where.file);
        out.line.push_back(lines[e].where.line);
    }
    for (uint32_t t : typeOrder) {
        std::vector<int64_t> s(order.size()), tot(order.size());
        for (std::size_t k = 0; k < order.size(); ++k) {
            s[k] = self[t][order[k]];
            tot[k] = total[t][order[k]];
        }
        out.self.push_back(std::move(s));
        out.total.push_back(std::move(tot));
    }
    return out;
}

} // namespace scorch::detail
