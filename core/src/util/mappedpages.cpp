#include "util/mappedpages.h"

#include "util/hugepages.h"
#include "util/phasetimer.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace scorch::detail {

namespace {

constexpr std::size_t kProbeFrom = std::size_t(16) << 20;
constexpr std::size_t kSpots = 8, kSpotBytes = kProbedBytes / kSpots, kSpotPages = kSpotBytes / kPageBytes;

double nanoseconds(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) {
    return std::chrono::duration<double, std::nano>(to - from).count();
}

double median(std::array<double, kSpots> v) {
    std::sort(v.begin(), v.end());
    return (v[kSpots / 2 - 1] + v[kSpots / 2]) / 2;
}

} // namespace

MappedPageCost probeMappedPages(const char* bytes, std::size_t size) {
    MappedPageCost cost;
    if (size < kProbeFrom)
        return cost;
    // the copies' destination written once first, so that its own first touch is not timed
    const std::unique_ptr<char[]> scratch(new char[kSpotBytes]);
    std::memset(scratch.get(), 0, kSpotBytes);
    std::array<double, kSpots> touch{}, copy{};
    unsigned sum = 0;
    for (std::size_t s = 0; s < kSpots; ++s) {
        // spread over the file: the page cache of a file read back from disk holds its start in small folios
        // and the rest in ever larger ones (readahead), that of a file just written often all in small ones
        const std::size_t at = roundDown(size / kSpots * s + size / kSpots / 2, kPageBytes);
        const volatile char* spot = bytes + at;
        const auto t0 = std::chrono::steady_clock::now();
        for (std::size_t p = 0; p < kSpotPages; ++p)
            sum += static_cast<unsigned char>(spot[p * kPageBytes]);
        const auto t1 = std::chrono::steady_clock::now();
        std::memcpy(scratch.get(), bytes + at, kSpotBytes);
        const auto t2 = std::chrono::steady_clock::now();
        touch[s] = nanoseconds(t0, t1) / kSpotPages;
        copy[s] = nanoseconds(t1, t2) / kSpotPages;
        ::madvise(const_cast<char*>(bytes + at), kSpotBytes, MADV_DONTNEED);
    }
    // (the bytes read are used, so that the compiler keeps the reads of the first touch)
    scratch[0] = static_cast<char>(sum);
    // medians: a spot the scheduler interrupted does not decide
    cost.touchNs = median(touch);
    cost.copyNs = median(copy);
    cost.readInstead = cost.touchNs > 2 * cost.copyNs;
    return cost;
}

bool readRatherThanMap(ImportOptions::FileAccess access, std::string_view mapped, const char* what) {
    using Access = ImportOptions::FileAccess;
    if (access == Access::Auto)
        if (const char* forced = std::getenv("SCORCH_READ_INPUT"); forced && *forced)
            access = *forced == '0' ? Access::Map : Access::Read;
    if (access != Access::Auto)
        return access == Access::Read;
    const MappedPageCost cost = probeMappedPages(mapped.data(), mapped.size());
    if (cost.touchNs > 0)
        trace(std::string(what) + ": a mapped page costs " + std::to_string(std::lround(cost.touchNs)) +
              " ns to touch, " + std::to_string(std::lround(cost.copyNs)) +
              " ns to copy: " + (cost.readInstead ? "read() instead" : "parsed in place"));
    return cost.readInstead;
}

} // namespace scorch::detail
