// Internal: what the off-CPU importers (perf.data, perf script text) share: the cost type names and the leaf
// frame that says why a thread left the CPU.
#pragma once

#include <string_view>

namespace scorch::detail {

inline constexpr std::string_view kOffCpuCost = "off-cpu", kWallCost = "wall";

/// The kernel's task states in the bit order of sched_switch's prev_state (bit k = letter k), as perf
/// prints them; none set (R) = runnable.
inline constexpr std::string_view kTaskStateLetters = "SDTtXZPI";

/// The leaf of off-CPU time that left in state `letter` of kTaskStateLetters: `[blocked: S]`, ...;
/// `[preempted]` for R (or no state); `[blocked]` for a letter it does not know.
inline std::string_view offCpuLeaf(char letter) {
    static constexpr std::string_view kNames[] = {"[blocked: S]", "[blocked: D]", "[blocked: T]",
                                                  "[blocked: t]", "[blocked: X]", "[blocked: Z]",
                                                  "[blocked: P]", "[blocked: I]"};
    if (letter == 'R' || letter == 0)
        return "[preempted]";
    const std::size_t k = kTaskStateLetters.find(letter);
    return k == std::string_view::npos ? "[blocked]" : kNames[k];
}

/// X or Z: the thread exits and does not come back.
inline bool deadTaskState(char letter) {
    return letter == 'X' || letter == 'Z';
}

} // namespace scorch::detail
