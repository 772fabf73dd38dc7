// Internal: phase timestamps on stderr when the environment variable SCORCH_TRACE is set (to anything), for
// finding where the time of an import goes without a profiler:
//   SCORCH_TRACE=1 scorch info recording.data
// prints "scorch-trace   12.3 ms [thread] what (rss 45 MB, 20 MB of it mapped files; peak 60 MB; 9000 page
// faults)" lines: milliseconds since the first trace call, the process's resident and peak resident memory
// then (VmRSS, VmHWM), and the page faults so far (minor ones: pages mapped in, most of them new memory the
// kernel zeroes; where a page costs ~1 us, as on a VM, the faults of a phase are a good part of its time),
// and where the program recycles big blocks (scorch/bigblocks.h), "; R MB recycled, K MB kept": how much of
// the big blocks given out so far were made of freed ones, and how much freed is kept now.
#pragma once

#include "scorch/bigblocks.h"
#include "scorch/procstatus.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>

namespace scorch::detail {

inline bool traceEnabled() {
    static const bool on = std::getenv("SCORCH_TRACE") != nullptr;
    return on;
}

/// " (rss X MB, Y MB of it mapped files; peak Z MB; N page faults)" from /proc/self/status and getrusage(),
/// empty where the memory cannot be read.
inline std::string residentMemory() {
    const std::vector<long long> kb = procKilobytes("/proc/self/status", {"VmRSS", "VmHWM", "RssFile"});
    const long long rss = kb[0], peak = kb[1], file = std::max(kb[2], 0ll);
    if (rss < 0 || peak < 0)
        return {};
    struct rusage usage {};
    const std::string faults = ::getrusage(RUSAGE_SELF, &usage) == 0
                                   ? "; " + std::to_string(usage.ru_minflt) + " page faults"
                                   : std::string();
    const BigBlockStats big = bigBlockStats();
    const std::string recycled = big.recycledBytes || big.keptBytes
                                     ? "; " + std::to_string(big.recycledBytes >> 20) + " MB recycled, " +
                                           std::to_string(big.keptBytes >> 20) + " MB kept"
                                     : std::string();
    return " (rss " + std::to_string(rss / 1024) + " MB, " + std::to_string(file / 1024) +
           " MB of it mapped files; peak " + std::to_string(peak / 1024) + " MB" + faults + recycled + ")";
}

inline void trace(const std::string& what) {
    if (!traceEnabled())
        return;
    static const auto start = std::chrono::steady_clock::now();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "scorch-trace %8.1f ms [%04zx] %s%s\n", ms,
                 std::hash<std::thread::id>()(std::this_thread::get_id()) & 0xffff, what.c_str(),
                 residentMemory().c_str());
}

} // namespace scorch::detail
