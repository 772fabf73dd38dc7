// Finding a profile's source files on this machine: the recorded path, then the user's path mappings
// (old prefix -> new prefix), then search directories (by trailing path components, then by file name).
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace scorch {

/// Replace a recorded path's leading `from` (whole path components) by `to`.
struct PathMapping {
    std::string from;
    std::string to;
    friend bool operator==(const PathMapping&, const PathMapping&) = default;
};

struct SourceLocatorConfig {
    std::vector<PathMapping> mappings; ///< tried in order
    std::vector<std::string> searchDirs;
    /// Directory that relative recorded paths are resolved against first (e.g. the profile's directory).
    std::string baseDir;
    /// Files visited per search directory when looking for a file name anywhere below it.
    std::size_t maxScannedEntries = 200000;
};

/// Which rule found a file.
enum class SourceRule : uint8_t {
    NotFound,
    Recorded,        ///< the recorded path itself (relative ones against baseDir)
    Mapping,         ///< a path mapping
    SearchDirSuffix, ///< search dir + trailing components of the recorded path
    SearchDirName,   ///< a file with the same name anywhere below a search dir (the deepest common tail wins)
    Debuginfod,      ///< fetched from a debuginfod server by the build-id of the module (fetchSource)
};

std::string_view sourceRuleName(SourceRule rule);

struct SourceLocation {
    SourceRule rule = SourceRule::NotFound;
    std::string path;   ///< the file found; empty when not found
    std::string detail; ///< the mapping ("from -> to") or search directory that found it
    bool found() const { return rule != SourceRule::NotFound; }
};

/// Looks for the source file recorded as `recorded`. Only regular, readable files count. Never throws.
SourceLocation locateSource(std::string_view recorded, const SourceLocatorConfig& config);

/// Asks the debuginfod servers `urls` (space-separated) for the source file recorded as `recorded` in the
/// debug info of the module with build-id `buildId` (hex); the file lands in libdebuginfod's cache. Blocks
/// for the transfer: call it off the GUI thread. `cancel` stops it. Never throws; when not fetched, the
/// location's detail says why.
SourceLocation fetchSource(std::string_view recorded, std::string_view buildId, std::string_view urls,
                           const std::atomic<bool>* cancel = nullptr);

/// The recorded path with `mapping` applied, or empty when its prefix does not match on component bounds.
std::string applyMapping(std::string_view recorded, const PathMapping& mapping);

/// For a directory the user chose for `recorded`: the mapping that makes `recorded` (and its siblings) found
/// below `dir` (the longest trailing part of `recorded` that exists in `dir` decides the prefix), or an empty
/// mapping when no trailing part exists there.
PathMapping mappingForDirectory(std::string_view recorded, std::string_view dir);

} // namespace scorch
