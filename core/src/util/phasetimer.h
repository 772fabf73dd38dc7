// Internal: phase timestamps on stderr when the environment variable SCORCH_TRACE is set (to anything), for
// finding where the time of an import goes without a profiler:
//   SCORCH_TRACE=1 scorch info recording.data
// prints "scorch-trace   12.3 ms [thread] what" lines, milliseconds since the first trace call.
#pragma once

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

inline void trace(const std::string& what) {
    if (!traceEnabled())
        return;
    static const auto start = std::chrono::steady_clock::now();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "scorch-trace %8.1f ms [%04zx] %s\n", ms,
                 std::hash<std::thread::id>()(std::this_thread::get_id()) & 0xffff, what.c_str());
}

} // namespace scorch::detail
