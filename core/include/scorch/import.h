// Importers: bytes from a file or pipe -> Profile. Formats are detected from the content.
#pragma once

#include "scorch/profile.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace scorch {

class ByteSource;

/// The display name of a format ("perf script", "folded stacks", ...).
std::string_view formatName(Format format);

/// Guesses the format from the first bytes of the (decompressed) input: the first format of the importer
/// table (core/src/import/import.cpp) whose sniffer accepts them, Format::Unknown when none does.
Format detectFormat(std::string_view head);

/// The importers read this many bytes (more when the first line is longer) for detectFormat.
inline constexpr std::size_t kDetectBytes = 64 * 1024;

struct ImportOptions {
    /// perf script: name unresolved frames `[module <addr>]` instead of `[module]` (stackcollapse --addrs).
    bool perfAddresses = false;
    /// Worker threads for large inputs; 0 = one per core.
    unsigned threads = 0;
    /// Input is handed to workers in pieces of about this size, split on record boundaries (and a perf.data
    /// file that is read() goes through buffers of this size).
    std::size_t chunkBytes = 2u << 20;
    /// How an uncompressed file (text, perf.data) is read: parsed where it is mapped, or read() into reused
    /// buffers. Auto maps it unless a probe of its pages finds them dearer to touch than to copy (a guest
    /// under shadow paging, a file in small page-cache folios). The environment's SCORCH_READ_INPUT=1 (or 0)
    /// overrides Auto with Read (or Map), to compare.
    enum class FileAccess { Auto, Map, Read };
    FileAccess fileAccess = FileAccess::Auto;
    /// Lines longer than this are skipped with a warning (a single line never takes more memory).
    std::size_t maxLineBytes = 16u << 20;
    /// Samples deeper than this keep their innermost frames (the outermost callers are dropped) with a
    /// warning.
    std::size_t maxStackDepth = 65536;
    /// A profile with more call tree nodes than this is refused with an error (memory protection).
    std::size_t maxNodes = 100'000'000;
    /// Keep every sample's time, thread and stack (Profile::samples: the timeline, time ranges). false, for
    /// a profile read only for its call tree (the command line's commands without --time or --thread), saves
    /// the store's memory and time; the text importers (perf script, folded) honour it, the others keep
    /// theirs.
    bool sampleStore = true;
    /// Skip detection and read the input as this format (Format::Unknown = detect).
    Format format = Format::Unknown;
    /// Raw addresses (perf.data, Scorch recordings) are named from the binaries, debug info and kernel
    /// symbols of this machine. false reads nothing from the machine: every module becomes one `[module]`
    /// frame (for fuzzing and tests whose result must not depend on what is installed).
    bool symbolize = true;
    /// Where the modules and debug info of raw addresses are looked for, besides the recorded paths,
    /// /usr/lib/debug and perf's build-id cache (see SymbolizerOptions): directories searched for a module
    /// by its file name, more debug-info directories, and a root put before every recorded path (a
    /// recording made on another system, its files copied below this directory).
    std::vector<std::string> symbolSearchPaths;
    std::vector<std::string> debugDirs;
    std::string sysroot;
    /// debuginfod servers (space-separated URLs, the syntax of DEBUGINFOD_URLS) that binaries and debug
    /// info not found on this machine are fetched from, by build-id. Empty = none. The command line and
    /// the window default to $DEBUGINFOD_URLS.
    std::string debuginfodUrls;
    /// Where uncompressed copies of debug info are kept between runs (SymbolizerOptions::inflatedCopies).
    /// Empty = none. The command line and the window use defaultInflatedCopies() (symbolizer.h).
    std::string inflatedCopies;
};

/// Progress and cancellation. The callback runs on an importer thread, not the caller's.
struct ImportControl {
    std::function<void(uint64_t done, uint64_t total)> progress; ///< total = 0 when unknown (a pipe)
    const std::atomic<bool>* cancel = nullptr;
    /// Progressive display: importers that can (perf.data) call this about every `partialInterval` seconds
    /// from an importer thread with a profile of what was read so far; the final profile is returned as
    /// usual. Making a snapshot holds up the reading, so the next comes no sooner than when the reading has
    /// had (1 - partialShare) of the time since the last began (a snapshot of fp-large's 6 M nodes takes
    /// 0.4-0.9 s: with 0.5 s and no share, the window took 9-11 s to open it, `scorch info` 4.3 s).
    std::function<void(Profile&&)> partial;
    double partialInterval = 0.5;
    double partialShare = 0.25;
    /// What a slow step besides reading is doing, e.g. "debuginfod: fetching debug info of /usr/bin/x
    /// (1.2 MB of 8.0 MB)"; from an importer thread.
    std::function<void(const std::string&)> status;
};

/// A failed import. what() names the file and, where it applies, the line or byte offset.
class ImportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The import was stopped through ImportControl::cancel.
class ImportCancelled : public std::runtime_error {
public:
    ImportCancelled()
        : std::runtime_error("import cancelled") {}
};

/// Imports a file; `path` "-" reads standard input. Throws ImportError or ImportCancelled.
Profile importProfile(const std::string& path, const ImportOptions& options = {},
                      const ImportControl& control = {});

/// Imports from an already opened source; `displayName` is used in messages.
Profile importProfile(std::unique_ptr<ByteSource> source, const std::string& displayName,
                      const ImportOptions& options = {}, const ImportControl& control = {});

} // namespace scorch
