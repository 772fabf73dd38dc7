// The memory figures of this process and machine that Linux publishes in /proc, for traces, benchmarks,
// tests and the window's heap trimming: the "Key:   N kB" lines of /proc/self/status, /proc/self/smaps_rollup
// and /proc/meminfo.
#pragma once

#include <initializer_list>
#include <string_view>
#include <vector>

namespace scorch {

/// The value of the "key: N kB" line of a /proc file, in kB; -1 when the file cannot be read or has no such
/// line. E.g. procKilobytes("/proc/self/status", "VmHWM") is the process's peak resident memory.
long long procKilobytes(const char* path, std::string_view key);

/// The same for several keys of one file, read once: one value per key, in their order.
std::vector<long long> procKilobytes(const char* path, std::initializer_list<std::string_view> keys);

} // namespace scorch
