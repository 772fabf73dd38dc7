// Helpers the benchmarks share: a monotonic clock in seconds and the median of repeated timings.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace scorch::bench {

/// Seconds on a monotonic clock (only differences mean anything).
inline double seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// The median of `v` (of an even count, the upper middle one); 0 when `v` is empty.
inline double median(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace scorch::bench
