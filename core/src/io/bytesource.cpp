#include "scorch/bytesource.h"

#include "scorch/import.h"

#include "util/mapguard.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <lzma.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>
#include <zlib.h>
#include <zstd.h>

namespace scorch {

namespace {

[[noreturn]] void fail(const std::string& name, const std::string& what) {
    throw ImportError(name + ": " + what);
}

/// Raw bytes from a file descriptor or memory, with a small look-ahead buffer for magic sniffing.
class RawSource : public ByteSource {
public:
    RawSource(int fd, bool owned, std::string name)
        : m_fd(fd)
        , m_owned(owned)
        , m_name(std::move(name)) {
        struct stat st {};
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
            m_total = static_cast<uint64_t>(st.st_size);
            m_regular = true;
        }
    }
    RawSource(std::string bytes, std::string name)
        : m_memory(std::move(bytes))
        , m_name(std::move(name))
        , m_total(m_memory.size())
        , m_isMemory(true) {}
    ~RawSource() override {
        m_guard.stop();
        if (m_map)
            ::munmap(m_map, m_total);
        if (m_owned && m_fd >= 0)
            ::close(m_fd);
    }
    Mapping mapping() override {
        if (m_isMemory)
            return {m_memory, false};
        if (!m_map && m_total > 0 && m_fd >= 0 && m_regular) {
            void* p = ::mmap(nullptr, m_total, PROT_READ, MAP_PRIVATE, m_fd, 0);
            if (p == MAP_FAILED)
                return {};
            ::madvise(p, m_total, MADV_SEQUENTIAL);
            m_map = p;
            m_guard.watch(p, m_total);
        }
        if (!m_map)
            return {};
        return {{static_cast<const char*>(m_map), m_total}, true};
    }
    std::size_t read(char* buffer, std::size_t n) override {
        if (m_peekPos < m_peek.size()) {
            const std::size_t k = std::min(n, m_peek.size() - m_peekPos);
            std::memcpy(buffer, m_peek.data() + m_peekPos, k);
            m_peekPos += k;
            return k;
        }
        return rawRead(buffer, n);
    }
    uint64_t consumed() const override { return m_consumed; }
    uint64_t totalSize() const override { return m_total; }
    std::optional<uint64_t> mappingLostFrom() const override { return m_guard.lostFrom(); }
    /// Fills the look-ahead buffer with up to n bytes and returns them (not consumed).
    std::string_view peek(std::size_t n) {
        while (m_peek.size() < n) {
            char buf[64];
            const std::size_t got = rawRead(buf, std::min(sizeof buf, n - m_peek.size()));
            if (!got)
                break;
            m_peek.append(buf, got);
        }
        return m_peek;
    }

private:
    std::size_t rawRead(char* buffer, std::size_t n) {
        if (m_isMemory) {
            const std::size_t k = std::min<std::size_t>(n, m_memory.size() - m_consumed);
            std::memcpy(buffer, m_memory.data() + m_consumed, k);
            m_consumed += k;
            return k;
        }
        for (;;) {
            const ssize_t got = ::read(m_fd, buffer, n);
            if (got >= 0) {
                m_consumed += static_cast<uint64_t>(got);
                return static_cast<std::size_t>(got);
            }
            if (errno != EINTR)
                fail(m_name,
                     "read error at byte offset " + std::to_string(m_consumed) + ": " + std::strerror(errno));
        }
    }

    int m_fd = -1;
    bool m_owned = false;
    std::string m_memory;
    std::string m_name;
    uint64_t m_total = 0, m_consumed = 0;
    bool m_isMemory = false;
    bool m_regular = false;
    void* m_map = nullptr;
    detail::MappingGuard m_guard;
    std::string m_peek;
    std::size_t m_peekPos = 0;
};

/// Shared shape of the three decompressors: pull compressed input from the raw source as needed.
class Decompressor : public ByteSource {
public:
    Decompressor(std::unique_ptr<RawSource> raw, std::string name)
        : m_raw(std::move(raw))
        , m_name(std::move(name))
        , m_in(256 * 1024) {}
    uint64_t consumed() const override { return m_raw->consumed(); }
    uint64_t totalSize() const override { return m_raw->totalSize(); }

protected:
    /// Refills the input buffer when empty; returns false at the end of the compressed file.
    bool refill(const uint8_t*& next, std::size_t& avail) {
        if (avail)
            return true;
        if (m_inputDone)
            return false;
        const std::size_t got = m_raw->read(reinterpret_cast<char*>(m_in.data()), m_in.size());
        if (!got) {
            m_inputDone = true;
            return false;
        }
        next = m_in.data();
        avail = got;
        return true;
    }
    [[noreturn]] void truncated(const char* format) {
        fail(m_name, std::string("truncated ") + format + " stream: compressed data ends at byte offset " +
                         std::to_string(m_raw->consumed()));
    }
    [[noreturn]] void corrupt(const char* format, const std::string& why) {
        fail(m_name, std::string("corrupt ") + format + " data near compressed byte offset " +
                         std::to_string(m_raw->consumed()) + ": " + why);
    }

    std::unique_ptr<RawSource> m_raw;
    std::string m_name;
    std::vector<uint8_t> m_in;
    bool m_inputDone = false;
};

class GzipSource final : public Decompressor {
public:
    using Decompressor::Decompressor;
    ~GzipSource() override {
        if (m_init)
            inflateEnd(&m_z);
    }
    std::string compression() const override { return "gzip"; }
    std::size_t read(char* buffer, std::size_t n) override {
        if (!m_init) {
            m_z = {};
            if (inflateInit2(&m_z, 15 + 32) != Z_OK)
                corrupt("gzip", "inflateInit failed");
            m_init = true;
        }
        m_z.next_out = reinterpret_cast<Bytef*>(buffer);
        m_z.avail_out = static_cast<uInt>(std::min<std::size_t>(n, 1u << 30));
        while (m_z.avail_out == static_cast<uInt>(std::min<std::size_t>(n, 1u << 30))) {
            const uint8_t* next = m_z.next_in;
            std::size_t avail = m_z.avail_in;
            if (!refill(next, avail)) {
                if (m_streamEnded)
                    return 0;
                truncated("gzip");
            }
            m_z.next_in = const_cast<Bytef*>(next);
            m_z.avail_in = static_cast<uInt>(avail);
            if (m_streamEnded) { // concatenated gzip members (gzip a; gzip b; cat)
                inflateReset(&m_z);
                m_streamEnded = false;
            }
            const int rc = inflate(&m_z, Z_NO_FLUSH);
            if (rc == Z_STREAM_END)
                m_streamEnded = true;
            else if (rc != Z_OK && rc != Z_BUF_ERROR)
                corrupt("gzip", m_z.msg ? m_z.msg : "inflate error");
        }
        return static_cast<std::size_t>(reinterpret_cast<char*>(m_z.next_out) - buffer);
    }

private:
    z_stream m_z{};
    bool m_init = false, m_streamEnded = false;
};

class ZstdSource final : public Decompressor {
public:
    ZstdSource(std::unique_ptr<RawSource> raw, std::string name)
        : Decompressor(std::move(raw), std::move(name))
        , m_d(ZSTD_createDStream()) {
        ZSTD_initDStream(m_d);
    }
    ~ZstdSource() override { ZSTD_freeDStream(m_d); }
    std::string compression() const override { return "zstd"; }
    std::size_t read(char* buffer, std::size_t n) override {
        ZSTD_outBuffer out{buffer, n, 0};
        while (out.pos == 0) {
            const uint8_t* next = static_cast<const uint8_t*>(m_inBuf.src) + m_inBuf.pos;
            std::size_t avail = m_inBuf.size - m_inBuf.pos;
            if (!refill(next, avail)) {
                if (m_frameDone)
                    return 0;
                truncated("zstd");
            }
            m_inBuf = {next, avail, 0};
            const std::size_t rc = ZSTD_decompressStream(m_d, &out, &m_inBuf);
            if (ZSTD_isError(rc))
                corrupt("zstd", ZSTD_getErrorName(rc));
            m_frameDone = rc == 0;
        }
        return out.pos;
    }

private:
    ZSTD_DStream* m_d;
    ZSTD_inBuffer m_inBuf{nullptr, 0, 0};
    bool m_frameDone = false;
};

class XzSource final : public Decompressor {
public:
    XzSource(std::unique_ptr<RawSource> raw, std::string name)
        : Decompressor(std::move(raw), std::move(name)) {
        if (lzma_stream_decoder(&m_s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
            corrupt("xz", "decoder init failed");
    }
    ~XzSource() override { lzma_end(&m_s); }
    std::string compression() const override { return "xz"; }
    std::size_t read(char* buffer, std::size_t n) override {
        if (m_ended)
            return 0;
        m_s.next_out = reinterpret_cast<uint8_t*>(buffer);
        m_s.avail_out = n;
        while (m_s.avail_out == n) {
            const uint8_t* next = m_s.next_in;
            std::size_t avail = m_s.avail_in;
            const bool more = refill(next, avail);
            m_s.next_in = next;
            m_s.avail_in = avail;
            const lzma_ret rc = lzma_code(&m_s, more ? LZMA_RUN : LZMA_FINISH);
            if (rc == LZMA_STREAM_END) {
                m_ended = true;
                break;
            }
            if (rc == LZMA_BUF_ERROR && !more)
                truncated("xz");
            if (rc != LZMA_OK)
                corrupt("xz", "lzma error " + std::to_string(static_cast<int>(rc)));
            if (!more && m_s.avail_out == n)
                truncated("xz");
        }
        return n - m_s.avail_out;
    }

private:
    lzma_stream m_s = LZMA_STREAM_INIT;
    bool m_ended = false;
};

std::unique_ptr<ByteSource> wrap(std::unique_ptr<RawSource> raw, const std::string& name) {
    const std::string_view magic = raw->peek(6);
    auto starts = [&](std::string_view m) {
        return magic.substr(0, m.size()) == m;
    };
    if (starts("\x1f\x8b"))
        return std::make_unique<GzipSource>(std::move(raw), name);
    if (starts("\x28\xb5\x2f\xfd"))
        return std::make_unique<ZstdSource>(std::move(raw), name);
    if (starts(std::string_view("\xfd"
                                "7zXZ\0",
                                6)))
        return std::make_unique<XzSource>(std::move(raw), name);
    return raw;
}

} // namespace

void readMapping(const ByteSource& source, const std::string& name, const std::function<void()>& read) {
    const auto checkLost = [&] {
        if (const auto lost = source.mappingLostFrom())
            fail(name, "the file shrank while it was read (its bytes from offset " + std::to_string(*lost) +
                           " on are gone; was it written again?)");
    };
    try {
        read();
    } catch (const ImportCancelled&) {
        throw;
    } catch (...) {
        checkLost();
        throw;
    }
    checkLost();
}

std::unique_ptr<ByteSource> openByteSource(const std::string& path) {
    if (path == "-")
        return wrap(std::make_unique<RawSource>(0, false, "<stdin>"), "<stdin>");
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        fail(path, std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        ::close(fd);
        fail(path, "is a directory, not a profile file");
    }
    return wrap(std::make_unique<RawSource>(fd, true, path), path);
}

std::unique_ptr<ByteSource> memoryByteSource(std::string bytes, const std::string& name) {
    return wrap(std::make_unique<RawSource>(std::move(bytes), name), name);
}

} // namespace scorch
