// Fetching binaries, debug info and sources by build-id from debuginfod servers (elfutils' libdebuginfod),
// into libdebuginfod's cache ($DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client).
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>

namespace scorch::detail {

enum class DebuginfodKind { Executable, DebugInfo, Source };

struct DebuginfodResult {
    std::string path;  ///< the file in the cache; empty when not fetched
    std::string error; ///< why not, e.g. "not found on http://127.0.0.1:8002"
};

/// `urls` (as DEBUGINFOD_URLS: space-separated) names at least one server.
inline bool anyDebuginfodServer(std::string_view urls) {
    return urls.find_first_not_of(' ') != std::string_view::npos;
}

/// Asks the servers `urls` (space-separated, as DEBUGINFOD_URLS) for the executable, the debug info or the
/// source file `sourcePath` (as recorded in DWARF) of build-id `buildId` (hex). Empty `urls` asks nobody.
///
/// libdebuginfod reads its servers from the environment only: DEBUGINFOD_URLS is set to `urls` for the
/// query and put back after it, under one lock that serialises every query of the process. `cancel` stops a
/// transfer in progress; `status` hears "debuginfod: fetching ... (done of total)" about every 100 KiB.
/// `what` names the file for those messages (e.g. the module's recorded path).
DebuginfodResult debuginfodFetch(std::string_view urls, DebuginfodKind kind, std::string_view buildId,
                                 std::string_view what, std::string_view sourcePath = {},
                                 const std::atomic<bool>* cancel = nullptr,
                                 const std::function<void(const std::string&)>& status = {});

} // namespace scorch::detail
