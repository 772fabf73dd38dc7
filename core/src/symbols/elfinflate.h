// Internal: ELF files with compressed sections (SHF_COMPRESSED; Debian's -dbg and -dbgsym packages
// compress all their .debug_* sections) made ready for libdw without letting libdw inflate them.
//
// libdw inflates every compressed debug section with zlib, one after another, when it opens a file; for
// libc6-dbg's libc that is 10 MB and about 50 ms, paid again by every worker that opens the file. Here the
// sections are inflated with libdeflate (about 2.5x faster than zlib) or libzstd, the big ones on their
// own threads, into an anonymous memory file (memfd) holding an uncompressed copy of the ELF file that
// libdw maps like any other file and that every session on the same file shares.
//
// Inflating costs every run again (libc6-dbg's libc: ~30 ms of CPU and 10 MB of new memory, a quarter of
// opening a 4 MB perf.data): with a directory to keep them in, the copies are also written there (atomically
// and durably) and a later run maps the kept copy of the same file instead.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace scorch::detail {

/// An uncompressed copy of the ELF file open at `fd` in a memfd (read-write, close-on-exec), or -1 when the
/// file has no compressed sections, is not a 64-bit little-endian ELF file, or a section does not inflate
/// (libdw then reads the file itself and reports what it finds). Sections of location lists and macros,
/// which symbolization never reads, are left out (SHT_NOBITS). `name` names the memfd (seen in
/// /proc/PID/maps). `threads` bounds the threads used for inflating.
int inflatedElfCopy(int fd, const std::string& name, unsigned threads);

/// inflatedElfCopy() once per file, shared by the sessions of a Symbolizer, and optionally kept between
/// runs in a directory. Thread-safe.
class InflatedElfCache {
public:
    /// The kept copies' total size above which the least recently used are removed.
    static constexpr uint64_t kDefaultKeepBytes = uint64_t(1) << 30;

    InflatedElfCache() = default;
    ~InflatedElfCache();
    InflatedElfCache(const InflatedElfCache&) = delete;
    InflatedElfCache& operator=(const InflatedElfCache&) = delete;

    /// Keep the copies in `dir` (made when needed; empty = in this process only), at most `bytes` of them.
    /// A kept copy is named after the file's name, device, inode, size and modification time, so a file
    /// that changes gets a new copy; the old one ages out. Call before the first open().
    void keepIn(std::string dir, uint64_t bytes = kDefaultKeepBytes);

    /// A new descriptor (the caller closes it) of the uncompressed copy of `path` (open at `fd`), or -1
    /// when the file needs none.
    int open(const std::string& path, int fd, unsigned threads);

private:
    /// The name a kept copy of the file `path` (of `identity`: device, inode, size and modification time)
    /// has in the keep directory; empty when no directory is set.
    std::string keptName(const std::string& path, const std::string& identity) const;
    /// The kept copy `name` (its last use set to now), or -1; one that is not a whole ELF file is removed.
    int openKept(const std::string& name) const;
    /// Writes the copy open at `copy` to `name`, then prune(); nothing when writing fails.
    void keep(const std::string& name, int copy) const;
    /// Removes the least recently used copies while all of them take more than the limit.
    void prune() const;

    std::mutex m_mutex;
    std::map<std::string, int> m_files; ///< path and identity -> descriptor of the copy, -1 = needs none
    std::string m_keepDir;
    uint64_t m_keepBytes = kDefaultKeepBytes;
};

} // namespace scorch::detail
