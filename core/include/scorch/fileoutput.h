// Large outputs to a file descriptor (folded stacks, exports): the stream buffer that the command line's
// standard output (when it is a file) and AtomicFile's temporary files are written through.
#pragma once

#include <cstdint>
#include <streambuf>
#include <vector>

namespace scorch {

/// A std::streambuf over a file descriptor it does not own: a 1 MiB buffer, pieces of half of that or more
/// written directly, errno of the first failed write kept (nothing is written after it).
///
/// Blocks reserved ahead: when the descriptor is a regular file on ext4 written at its end (a new file, a `>`
/// or `>>` redirection, AtomicFile's temporary file), then once the output passes its first MiB, the file's
/// blocks are reserved ahead of the writes with fallocate(FALLOC_FL_KEEP_SIZE), 64 MiB at a time, the file's
/// size unchanged. ext4 then maps each written block to one already allocated instead of reserving it for
/// delayed allocation block by block: 843 MiB written in 1 MiB pieces, 0.144 s without, 0.086 s with (medians
/// of 9 alternated, 2-vCPU KVM guest, kernel 6.18: tests/bench/bench_fileoutput.cpp). On tmpfs it made writes
/// slower (0.26 -> 0.31 s), and other file systems are unmeasured: their files are written as before.
/// finish() (or the destructor) gives back what was reserved and not written; a process killed before leaves
/// at most 64 MiB allocated past the file's end, freed when the file is next truncated or removed. When
/// reserving fails (no space, not supported) writing goes on without.
class FileOutputBuffer : public std::streambuf {
public:
    enum class Reserve { WhereMeasured, Never };
    /// `reserve`: Never writes without reserving anywhere (for benchmarks comparing both).
    explicit FileOutputBuffer(int fd, Reserve reserve = Reserve::WhereMeasured);
    ~FileOutputBuffer() override; ///< finish(), errors ignored
    FileOutputBuffer(const FileOutputBuffer&) = delete;
    FileOutputBuffer& operator=(const FileOutputBuffer&) = delete;

    /// Writes what is buffered and gives back the reserved blocks not written; false if a write failed.
    bool finish();
    /// errno of the first failed write, or 0.
    int error() const { return m_error; }
    /// Whether blocks are reserved ahead of the writes (decided by the constructor; off after a failed
    /// reservation).
    bool reservesAhead() const { return m_reserve; }
    /// Bytes reserved past the end of what was written so far (0 after finish()).
    std::uint64_t reservedAhead() const { return m_reserved > m_end ? m_reserved - m_end : 0; }

protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* data, std::streamsize size) override;
    int sync() override;

private:
    bool flushBuffer();
    /// write() until all of it is written (going on after partial writes); false, with m_error set, when a
    /// write failed or one had failed before.
    bool writeAll(const char* data, std::size_t size);
    void reserveFor(std::size_t size);
    void release();

    int m_fd;
    std::vector<char> m_buffer;
    int m_error = 0;
    bool m_reserve = false;
    std::uint64_t m_start = 0;    ///< file offset of the first byte written (when reserving)
    std::uint64_t m_end = 0;      ///< file offset after the last byte written (when reserving)
    std::uint64_t m_reserved = 0; ///< file offset up to which blocks are reserved
};

} // namespace scorch
