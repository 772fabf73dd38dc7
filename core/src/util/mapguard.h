// Internal: read-only file mappings that survive their file shrinking.
//
// Reading a page of a file mapping beyond the file's end raises SIGBUS, which kills the process: a recording
// rewritten (`perf script > out.txt` run again, `perf record -o` the same file) while Scorch reads it. A
// guarded mapping's pages lost that way are replaced with zero pages by a SIGBUS handler, and the guard
// remembers where: the reader then reports the file as changed instead of the process dying. A SIGBUS at any
// other address goes to the handler installed before (or ends the process as it would have).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace scorch::detail {

class MappingGuard {
public:
    MappingGuard() = default;
    ~MappingGuard() { stop(); }
    MappingGuard(const MappingGuard&) = delete;
    MappingGuard& operator=(const MappingGuard&) = delete;

    /// Guards the mapping [data, data + size) (from mmap(): page-aligned) until stop() or the destructor,
    /// which must come before it is unmapped. False when too many mappings are guarded at once (then a
    /// SIGBUS there ends the process, as without a guard).
    bool watch(const void* data, std::size_t size);
    void stop();
    /// The offset of the first page lost since watch() (the file shrank), or nothing.
    std::optional<uint64_t> lostFrom() const;

private:
    int m_slot = -1;
};

} // namespace scorch::detail
