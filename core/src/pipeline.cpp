#include "pipeline.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace scorch::detail {

void Diagnostics::warn(uint64_t line, std::string message) {
    ++m_count;
    if (m_kept.size() < ProfileMeta::kMaxKeptWarnings * 4)
        m_kept.push_back({line, std::move(message)});
}

void Diagnostics::merge(Diagnostics&& other) {
    m_count += other.m_count;
    for (auto& w : other.m_kept)
        m_kept.push_back(std::move(w));
    other = Diagnostics();
}

std::vector<ImportWarning> Diagnostics::kept() const {
    std::vector<ImportWarning> out = m_kept;
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.line < b.line; });
    if (out.size() > ProfileMeta::kMaxKeptWarnings)
        out.resize(ProfileMeta::kMaxKeptWarnings);
    return out;
}

bool isValidUtf8(std::string_view s) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const auto* end = p + s.size();
    while (p < end) {
        const unsigned c = *p;
        if (c < 0x80) {
            ++p;
            continue;
        }
        int n;
        unsigned min;
        if ((c & 0xe0) == 0xc0) {
            n = 1;
            min = 0x80;
        } else if ((c & 0xf0) == 0xe0) {
            n = 2;
            min = 0x800;
        } else if ((c & 0xf8) == 0xf0) {
            n = 3;
            min = 0x10000;
        } else {
            return false;
        }
        if (end - p <= n)
            return false;
        unsigned cp = c & (0x3f >> n);
        for (int i = 1; i <= n; ++i) {
            if ((p[i] & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (p[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        p += n + 1;
    }
    return true;
}

namespace {

/// Position just after the last record boundary in buf, or 0 when there is none.
std::size_t lastBoundary(std::string_view buf, Boundary boundary) {
    if (boundary == Boundary::Line) {
        const void* nl = memrchr(buf.data(), '\n', buf.size());
        return nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - buf.data()) + 1 : 0;
    }
    // the line that ends at the last '\n' must be empty (or a lone '\r')
    std::size_t end = buf.size();
    while (end > 0) {
        const void* nl = memrchr(buf.data(), '\n', end);
        if (!nl)
            return 0;
        const auto i = static_cast<std::size_t>(static_cast<const char*>(nl) - buf.data());
        if (i == 0)
            return 0;
        if (buf[i - 1] == '\n' || (buf[i - 1] == '\r' && i >= 2 && buf[i - 2] == '\n'))
            return i + 1;
        end = i;
    }
    return 0;
}

std::size_t countLines(std::string_view s) {
    std::size_t n = 0;
    const char* p = s.data();
    const char* end = p + s.size();
    while ((p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p))))) {
        ++n;
        ++p;
    }
    return n;
}

/// A reusable byte buffer: growing it never zero-fills, and chunks hand their buffers back to a pool, so
/// the reader does not fault in fresh pages for every chunk.
struct Buffer {
    std::unique_ptr<char[]> data;
    std::size_t capacity = 0, size = 0;

    void reserve(std::size_t n) {
        if (n <= capacity)
            return;
        auto bigger = std::make_unique_for_overwrite<char[]>(n);
        if (size)
            std::memcpy(bigger.get(), data.get(), size);
        data = std::move(bigger);
        capacity = n;
    }
    std::string_view view() const { return {data.get(), size}; }
    void consume(std::size_t n) {
        std::memmove(data.get(), data.get() + n, size - n);
        size -= n;
    }
};

class BufferPool {
public:
    Buffer take(std::size_t capacity) {
        Buffer b;
        {
            std::lock_guard lock(m_mutex);
            if (!m_free.empty()) {
                b = std::move(m_free.back());
                m_free.pop_back();
            }
        }
        b.size = 0;
        b.reserve(capacity);
        return b;
    }
    void give(Buffer&& b) {
        std::lock_guard lock(m_mutex);
        if (m_free.size() < 16)
            m_free.push_back(std::move(b));
    }

private:
    std::mutex m_mutex;
    std::vector<Buffer> m_free;
};

struct OwnedChunk {
    Buffer buffer;
    uint64_t index;
    uint64_t firstLine;
};

class Workers {
public:
    Workers(unsigned count, std::size_t capacity,
            const std::function<std::unique_ptr<ChunkParser>()>& makeParser, const std::atomic<bool>* cancel,
            BufferPool& pool)
        : m_capacity(capacity)
        , m_cancel(cancel)
        , m_pool(pool) {
        m_slots.resize(count);
        for (auto& slot : m_slots)
            slot.parser = makeParser();
        for (unsigned i = 0; i < count; ++i)
            m_threads.emplace_back([this, i] { run(m_slots[i]); });
    }
    ~Workers() { finish(); }

    /// Blocks while the queue is full. Returns false when the pipeline is stopping.
    bool push(OwnedChunk chunk) {
        std::unique_lock lock(m_mutex);
        m_notFull.wait(lock, [&] { return m_queue.size() < m_capacity || m_stop; });
        if (m_stop)
            return false;
        m_queue.push_back(std::move(chunk));
        m_notEmpty.notify_one();
        return true;
    }
    void stop() {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        m_notEmpty.notify_all();
        m_notFull.notify_all();
    }
    void finish() {
        {
            std::lock_guard lock(m_mutex);
            m_done = true;
            m_notEmpty.notify_all();
        }
        for (auto& t : m_threads)
            if (t.joinable())
                t.join();
    }
    std::exception_ptr error() const { return m_error; }
    bool stopping() {
        std::lock_guard lock(m_mutex);
        return m_stop;
    }

    struct Slot {
        std::unique_ptr<ChunkParser> parser;
        TreeBuilder builder;
        Diagnostics diagnostics;
    };
    std::vector<Slot>& slots() { return m_slots; }

private:
    void run(Slot& slot) {
        for (;;) {
            OwnedChunk chunk;
            {
                std::unique_lock lock(m_mutex);
                m_notEmpty.wait(lock, [&] { return !m_queue.empty() || m_done || m_stop; });
                if (m_stop || m_queue.empty())
                    return;
                chunk = std::move(m_queue.front());
                m_queue.pop_front();
                m_notFull.notify_one();
            }
            if (m_cancel && m_cancel->load(std::memory_order_relaxed)) {
                stop();
                return;
            }
            try {
                slot.parser->parse(Chunk{chunk.buffer.view(), chunk.index, chunk.firstLine}, slot.builder,
                                   slot.diagnostics);
                m_pool.give(std::move(chunk.buffer));
            } catch (...) {
                std::lock_guard lock(m_mutex);
                if (!m_error)
                    m_error = std::current_exception();
                m_stop = true;
                m_notEmpty.notify_all();
                m_notFull.notify_all();
                return;
            }
        }
    }

    std::size_t m_capacity;
    const std::atomic<bool>* m_cancel;
    BufferPool& m_pool;
    std::mutex m_mutex;
    std::condition_variable m_notEmpty, m_notFull;
    std::deque<OwnedChunk> m_queue;
    bool m_stop = false, m_done = false;
    std::exception_ptr m_error;
    std::vector<Slot> m_slots;
    std::vector<std::thread> m_threads;
};

std::string mib(std::size_t bytes) {
    return std::to_string(bytes >> 20) + " MiB";
}

} // namespace

PipelineResult runPipeline(ByteSource& source, std::string head, Boundary boundary,
                           const std::function<std::unique_ptr<ChunkParser>()>& makeParser,
                           const ImportOptions& options, const ImportControl& control,
                           const std::string& name) {
    const auto cancelled = [&] {
        return control.cancel && control.cancel->load(std::memory_order_relaxed);
    };
    const std::size_t chunkBytes = std::max<std::size_t>(options.chunkBytes, 4096);
    const std::size_t maxChunk = std::max<std::size_t>(chunkBytes * 16, options.maxLineBytes * 2);
    unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());

    PipelineResult result;
    Diagnostics readerDiagnostics;
    std::unique_ptr<Workers> workers;
    std::unique_ptr<ChunkParser> inlineParser;
    uint64_t index = 0, nextLine = 1, bytes = head.size();

    BufferPool pool;
    auto dispatch = [&](Buffer buffer) {
        const uint64_t lines = countLines(buffer.view());
        OwnedChunk chunk{std::move(buffer), index++, nextLine};
        nextLine += lines;
        if (!workers && !inlineParser) {
            // Small inputs (one chunk, already at the end) are parsed on this thread.
            if (threads <= 1 || chunk.buffer.size < chunkBytes / 2)
                inlineParser = makeParser();
            else
                workers = std::make_unique<Workers>(threads, threads * 2, makeParser, control.cancel, pool);
        }
        if (inlineParser) {
            inlineParser->parse(Chunk{chunk.buffer.view(), chunk.index, chunk.firstLine}, result.builder,
                                result.diagnostics);
            pool.give(std::move(chunk.buffer));
            return;
        }
        if (!workers->push(std::move(chunk)) && workers->error())
            std::rethrow_exception(workers->error());
    };

    Buffer buf = pool.take(std::max(chunkBytes, head.size()));
    std::memcpy(buf.data.get(), head.data(), head.size());
    buf.size = head.size();
    head = std::string();
    std::size_t target = chunkBytes;
    bool eof = false;
    bool skippingLongLine = false;
    uint64_t longLineBytes = 0;
    try {
        for (;;) {
            if (cancelled())
                throw ImportCancelled();
            if (workers && workers->stopping()) {
                if (workers->error())
                    std::rethrow_exception(workers->error());
                throw ImportCancelled();
            }
            buf.reserve(target);
            while (!eof && buf.size < target) {
                const std::size_t got = source.read(buf.data.get() + buf.size, target - buf.size);
                buf.size += got;
                bytes += got;
                if (!got)
                    eof = true;
            }
            if (control.progress)
                control.progress(source.consumed(), source.totalSize());
            if (skippingLongLine) { // drop bytes up to the end of an over-long line
                const void* nl = std::memchr(buf.data.get(), '\n', buf.size);
                if (!nl) {
                    longLineBytes += buf.size;
                    buf.size = 0;
                    if (eof)
                        break;
                    continue;
                }
                const auto cut = static_cast<std::size_t>(static_cast<const char*>(nl) - buf.data.get()) + 1;
                longLineBytes += cut - 1;
                readerDiagnostics.warn(nextLine, "line is " + std::to_string(longLineBytes) +
                                                     " bytes long, over the limit of " +
                                                     mib(options.maxLineBytes) + "; skipped");
                buf.consume(cut);
                ++nextLine;
                skippingLongLine = false;
                continue;
            }
            if (buf.size == 0 && eof)
                break;
            std::size_t cut = eof ? buf.size : lastBoundary(buf.view(), boundary);
            if (!cut) {
                const std::size_t lineCut = lastBoundary(buf.view(), Boundary::Line);
                if (boundary == Boundary::BlankLine && lineCut && buf.size >= maxChunk) {
                    cut = lineCut; // a huge record without blank lines: split between lines
                } else if (!lineCut && buf.size > options.maxLineBytes) {
                    skippingLongLine = true;
                    longLineBytes = 0;
                    continue;
                } else {
                    target = std::min(maxChunk, std::max(target * 2, buf.size + chunkBytes));
                    continue;
                }
            }
            Buffer next = pool.take(std::max(chunkBytes, buf.size - cut));
            std::memcpy(next.data.get(), buf.data.get() + cut, buf.size - cut);
            next.size = buf.size - cut;
            buf.size = cut;
            dispatch(std::move(buf));
            buf = std::move(next);
            target = chunkBytes;
        }
        if (workers) {
            workers->finish();
            if (workers->error())
                std::rethrow_exception(workers->error());
            if (cancelled())
                throw ImportCancelled();
            for (auto& slot : workers->slots()) {
                result.builder.merge(std::move(slot.builder));
                result.diagnostics.merge(std::move(slot.diagnostics));
            }
        }
    } catch (...) {
        if (workers) {
            workers->stop();
            workers->finish();
        }
        throw;
    }
    (void)name;
    result.diagnostics.merge(std::move(readerDiagnostics));
    result.bytes = bytes;
    return result;
}

} // namespace scorch::detail
