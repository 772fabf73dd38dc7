// Internal: the native perf.data (PERFILE2) reader and its helpers.
#pragma once

#include "scorch/bytesource.h"
#include "scorch/import.h"
#include "symbols/addressspace.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace scorch::detail {

/// The file uses something the native reader does not handle (another architecture's registers, a
/// big-endian file, perf.data v1, ...): the importer falls back to `perf script`.
class PerfDataUnsupported : public ImportError {
public:
    using ImportError::ImportError;
};

/// Reads up to n bytes of the file from `offset` into `out`; 0 at its end. Throws ImportError.
using ReadAt = std::function<std::size_t(uint64_t offset, char* out, std::size_t n)>;

/// Reads perf.data from memory (a file mapping). Throws ImportError (with a byte offset),
/// PerfDataUnsupported or ImportCancelled. `releasable`: `data` is a read-only file mapping whose pages
/// may be dropped once read (so that a multi-GB file does not stay resident). `readAt`, where set, reads the
/// data section's records into reused buffers instead of from `data` (which still serves the headers and
/// feature sections): for a mapping whose pages cost more to touch than to copy (util/mappedpages.h).
Profile importPerfDataNative(std::string_view data, const std::string& compression, const std::string& name,
                             const ImportOptions& options, const ImportControl& control,
                             bool releasable = false, ReadAt readAt = {});

/// How long after a snapshot that took `snapshotSeconds` the next may be made (ImportControl::partialInterval
/// and partialShare), in seconds.
double partialWait(const ImportControl& control, double snapshotSeconds);

/// perf.data (PERFILE2, or the old PERFFILE), by its magic: the sniffer of the importer table
/// (import/import.cpp).
bool sniffPerfData(std::string_view head);

/// Native reader (`head` holds the bytes already read from `source`), falling back to `perf script -i`
/// through the perf script importer when the file is not supported natively and perf is installed (the
/// profile then says so in its warnings).
Profile importPerfData(ByteSource& source, std::string head, const std::string& name,
                       const ImportOptions& options, const ImportControl& control);

/// A tar file named like `perf archive`'s output (NAME.tar.bz2, .tar.gz, .tar.zst, .tar.xz) opened directly:
/// the recording NAME beside it (which then uses the archive), else the perf.data inside the tar with the
/// tar's binaries and build-id tree. nullopt when `path` is not such a file; ImportError when it holds no
/// recording.
std::optional<Profile> importPerfArchive(const std::string& path, const ImportOptions& options,
                                         const ImportControl& control);

/// Runs `perf script -i path` and imports its output. Throws ImportError when perf is missing or fails.
Profile importPerfDataWithPerfScript(const std::string& path, const std::string& name,
                                     const ImportOptions& options, const ImportControl& control);

/// One mapping of a process, as the unwinder needs it.
/// Unwinds `--call-graph dwarf` samples (x86-64): the copied user stack and registers of a sample are
/// unwound with libdw's CFI unwinder (one Dwfl per process, modules reported as the unwinder reaches them).
class DwarfUnwinder {
public:
    using FindMap = std::function<const Mapping*(int64_t pid, uint64_t address)>;
    /// The local file of a mapping, where its CFI and code are read (the symbolizer's lookup: sysroot,
    /// search paths, build-ids); empty when there is none. Must stay valid as long as the unwinder.
    using FileOf = std::function<std::string_view(const Mapping& mapping)>;
    DwarfUnwinder(FindMap findMap, FileOf fileOf);
    ~DwarfUnwinder();
    DwarfUnwinder(const DwarfUnwinder&) = delete;
    DwarfUnwinder& operator=(const DwarfUnwinder&) = delete;

    /// The address space of `pid` changed (exec, new mapping): drop what was cached for it.
    void invalidate(int64_t pid);

    struct Frame {
        uint64_t pc;
        bool activation; ///< the interrupted instruction itself (first frame, signal frames)
    };
    /// `regs`: the sample's user registers in perf order for `regMask`. Appends innermost first to `out`;
    /// returns false when not even the first frame could be produced.
    bool unwind(int64_t pid, int64_t tid, uint64_t regMask, std::span<const uint64_t> regs,
                uint64_t stackStart, std::string_view stack, std::size_t maxFrames, std::vector<Frame>& out);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace scorch::detail
