// perf.data specifics beyond importProfile(): raw per-sample addresses, for checking stacks against
// `perf script` and for tools.
#pragma once

#include "scorch/profile.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace scorch {

/// Reads a perf.data file natively and calls `sample` for each sample in perf's (time) order with its thread
/// and its stack, innermost first: the callchain without context markers, with the
/// user part unwound from the stack copy for --call-graph dwarf recordings. Addresses in mapped files are
/// file offsets (ip - map start + map offset), others absolute: what `perf script -F ip` prints. Throws
/// ImportError; returns what the file says about itself (warnings, recording facts) but builds no profile.
ProfileMeta forEachPerfDataSample(
    const std::string& path,
    const std::function<void(int64_t pid, int64_t tid, std::span<const uint64_t> ips)>& sample);

} // namespace scorch
