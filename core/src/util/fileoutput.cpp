// FileOutputBuffer: buffered writes to a file descriptor, with the file's blocks reserved ahead on ext4.
#include "scorch/fileoutput.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

namespace scorch {

namespace {

constexpr std::size_t kBufferSize = std::size_t(1) << 20;
constexpr std::uint64_t kReserveStep = std::uint64_t(64) << 20;
/// Outputs within their first MiB reserve nothing: two system calls and an extent for a few lines.
constexpr std::uint64_t kReserveFrom = std::uint64_t(1) << 20;

/// The offset the next write() to `fd` goes to, when `fd` is a regular ext4 file written at its end.
bool writesAtEndOfExt4File(int fd, std::uint64_t& offset) {
    struct stat st {};
    struct statfs fs {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || fstatfs(fd, &fs) != 0 || fs.f_type != EXT4_SUPER_MAGIC)
        return false;
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0)
        return false;
    if (flags & O_APPEND) { // every write goes to the end, wherever the offset is
        offset = static_cast<std::uint64_t>(st.st_size);
        return true;
    }
    const off_t at = lseek(fd, 0, SEEK_CUR);
    if (at < 0 || at != st.st_size) // writing over the file's middle: its blocks exist already
        return false;
    offset = static_cast<std::uint64_t>(at);
    return true;
}

} // namespace

FileOutputBuffer::FileOutputBuffer(int fd, Reserve reserve)
    : m_fd(fd)
    , m_buffer(kBufferSize) {
    setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
    if (reserve == Reserve::WhereMeasured && writesAtEndOfExt4File(fd, m_start)) {
        m_reserve = true;
        m_end = m_reserved = m_start;
    }
}

FileOutputBuffer::~FileOutputBuffer() {
    finish();
}

bool FileOutputBuffer::finish() {
    const bool ok = flushBuffer();
    release();
    return ok;
}

FileOutputBuffer::int_type FileOutputBuffer::overflow(int_type c) {
    if (!flushBuffer())
        return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
        *pptr() = traits_type::to_char_type(c);
        pbump(1);
    }
    return traits_type::not_eof(c);
}

std::streamsize FileOutputBuffer::xsputn(const char* data, std::streamsize size) {
    if (size <= 0)
        return 0;
    const auto n = static_cast<std::size_t>(size);
    if (n < m_buffer.size() / 2) { // small: into the buffer (made empty first when it has no room)
        if (n > static_cast<std::size_t>(epptr() - pptr()) && !flushBuffer())
            return 0;
        std::memcpy(pptr(), data, n);
        pbump(static_cast<int>(n));
        return size;
    }
    // large (a formatted block of output): written as it is, after what is buffered, without a copy
    if (!flushBuffer() || !writeAll(data, n))
        return 0;
    return size;
}

int FileOutputBuffer::sync() {
    return flushBuffer() ? 0 : -1;
}

bool FileOutputBuffer::flushBuffer() {
    const auto n = static_cast<std::size_t>(pptr() - pbase());
    setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
    return writeAll(m_buffer.data(), n);
}

bool FileOutputBuffer::writeAll(const char* data, std::size_t size) {
    if (m_error != 0)
        return false;
    reserveFor(size);
    while (size > 0) {
        const ssize_t n = ::write(m_fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            m_error = n < 0 ? errno : EIO;
            return false;
        }
        m_end += static_cast<std::uint64_t>(n);
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

void FileOutputBuffer::reserveFor(std::size_t size) {
    const std::uint64_t need = m_end + size;
    if (!m_reserve || need <= m_reserved || need - m_start <= kReserveFrom)
        return;
    const std::uint64_t to = (need + kReserveStep - 1) / kReserveStep * kReserveStep;
    if (fallocate(m_fd, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(m_reserved),
                  static_cast<off_t>(to - m_reserved)) != 0) {
        m_reserve = false; // no space for it, or not supported here: the writes allocate as they go
        return;
    }
    m_reserved = to;
}

void FileOutputBuffer::release() {
    if (m_reserved <= m_end)
        return;
    // Truncating ext4 to its own size frees the blocks past the end (ext4_setattr truncates whenever the size
    // is set, for this). Only when the size is where this buffer's writes ended: if another writer appended
    // meanwhile, its data stays and so do the reserved blocks.
    struct stat st {};
    if (fstat(m_fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) == m_end)
        (void)ftruncate(m_fd, st.st_size);
    m_reserved = m_end;
}

} // namespace scorch
