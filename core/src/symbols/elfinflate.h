// Internal: ELF files with compressed sections (SHF_COMPRESSED; Debian's -dbg and -dbgsym packages
// compress all their .debug_* sections) made ready for libdw without letting libdw inflate them.
//
// libdw inflates every compressed debug section with zlib, one after another, when it opens a file; for
// libc6-dbg's libc that is 10 MB and about 50 ms, paid again by every worker that opens the file. Here the
// sections are inflated with libdeflate (about 2.5x faster than zlib) or libzstd, the big ones on their
// own threads, into an anonymous memory file (memfd) holding an uncompressed copy of the ELF file that
// libdw maps like any other file and that every session on the same file shares.
#pragma once

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

/// inflatedElfCopy() once per file, shared by the sessions of a Symbolizer. Thread-safe.
class InflatedElfCache {
public:
    InflatedElfCache() = default;
    ~InflatedElfCache();
    InflatedElfCache(const InflatedElfCache&) = delete;
    InflatedElfCache& operator=(const InflatedElfCache&) = delete;

    /// A new descriptor (the caller closes it) of the uncompressed copy of `path` (open at `fd`), or -1
    /// when the file needs none.
    int open(const std::string& path, int fd, unsigned threads);

private:
    std::mutex m_mutex;
    std::map<std::string, int> m_files; ///< path -> memfd, -1 = needs none
};

} // namespace scorch::detail
