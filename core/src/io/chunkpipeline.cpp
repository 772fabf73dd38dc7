#include "io/chunkpipeline.h"

#include "scorch/cancel.h"

#include "util/hugepages.h"
#include "util/mappedpages.h"
#include "util/phasetimer.h"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <sys/mman.h>
#include <thread>

namespace scorch::detail {

void Diagnostics::warn(uint64_t lineInChunk, std::string message) {
    ++m_count;
    if (m_kept.size() < ProfileMeta::kMaxKeptWarnings * 4)
        m_kept.push_back({m_chunk, lineInChunk, false, std::move(message)});
}

void Diagnostics::warnBeforeChunk(uint64_t index, std::string message) {
    ++m_count;
    uint64_t ordinal = 1;
    if (!m_skippedBefore.empty() && m_skippedBefore.back().first == index)
        ordinal = ++m_skippedBefore.back().second;
    else
        m_skippedBefore.emplace_back(index, 1);
    if (m_kept.size() < ProfileMeta::kMaxKeptWarnings * 4)
        m_kept.push_back({index, ordinal, true, std::move(message)});
}

void Diagnostics::merge(Diagnostics&& other) {
    m_count += other.m_count;
    for (auto& w : other.m_kept)
        m_kept.push_back(std::move(w));
    m_chunkLines.insert(m_chunkLines.end(), other.m_chunkLines.begin(), other.m_chunkLines.end());
    m_skippedBefore.insert(m_skippedBefore.end(), other.m_skippedBefore.begin(), other.m_skippedBefore.end());
    other = Diagnostics();
}

std::vector<ImportWarning> Diagnostics::resolve() const {
    uint64_t chunks = 0;
    for (const auto& [k, n] : m_chunkLines)
        chunks = std::max(chunks, k + 1);
    for (const auto& [k, n] : m_skippedBefore)
        chunks = std::max(chunks, k + 1);
    std::vector<uint64_t> lines(chunks, 0), skipped(chunks, 0), first(chunks, 1);
    for (const auto& [k, n] : m_chunkLines)
        lines[k] = n;
    for (const auto& [k, n] : m_skippedBefore)
        skipped[k] += n;
    uint64_t next = 1;
    for (uint64_t k = 0; k < chunks; ++k) {
        next += skipped[k];
        first[k] = next;
        next += lines[k];
    }
    std::vector<ImportWarning> out;
    for (const Entry& e : m_kept) {
        const uint64_t base = e.chunk < chunks ? first[e.chunk] : next;
        const uint64_t before = e.chunk < chunks ? skipped[e.chunk] : 0;
        out.push_back({e.before ? base - before + e.line - 1 : base + e.line - 1, e.message});
    }
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.line < b.line; });
    return out;
}

std::string overLongLineMessage(uint64_t length, std::size_t limit) {
    return "line is " + std::to_string(length) + " bytes long, over the limit of " +
           std::to_string(limit >> 20) + " MiB; skipped";
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

/// A reusable byte buffer: growing it never zero-fills, and chunks hand their buffers back to a pool, so
/// the reader does not fault in fresh pages for every chunk. Chunk-sized buffers are whole 2 MiB pages
/// (aligned, advised): read() then fills a new one with one page fault per 2 MiB, not one per 4 KiB.
struct Buffer {
    struct Free {
        void operator()(char* p) const { ::operator delete[](p, std::align_val_t(kHugePageBytes)); }
    };
    std::unique_ptr<char[], Free> data;
    std::size_t capacity = 0, size = 0;

    void reserve(std::size_t n) {
        if (n <= capacity)
            return;
        if (n >= kHugePageBytes)
            n = roundUp(n, kHugePageBytes);
        std::unique_ptr<char[], Free> bigger(
            static_cast<char*>(::operator new[](n, std::align_val_t(kHugePageBytes))));
        adviseHugePages(bigger.get(), n);
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

/// A chunk on its way to a worker: bytes in its own pooled buffer, or a view into a file mapping.
struct OwnedChunk {
    Buffer buffer;
    std::string_view text;
    uint64_t index = 0;
    bool releasable = false; ///< `text` is in a file mapping whose pages may be dropped once parsed
};

/// Drops the mapped pages wholly inside `text` (those it shares with the next or previous chunk stay until
/// the mapping ends): the parsed part of a multi-GB input need not stay resident. The kernel maps them again
/// from the page cache should they be touched.
void releasePages(std::string_view text) {
    const auto [begin, end] = innerPages(reinterpret_cast<uintptr_t>(text.data()), text.size());
    if (end > begin)
        ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

class Workers {
public:
    Workers(unsigned count, std::size_t capacity,
            const std::function<std::unique_ptr<ChunkParser>()>& makeParser, const std::atomic<bool>* cancel,
            BufferPool& pool, std::size_t maxLine, std::size_t maxNodes)
        : m_maxLine(maxLine)
        , m_capacity(capacity)
        , m_cancel(cancel)
        , m_pool(pool) {
        m_slots.resize(count);
        for (auto& slot : m_slots) {
            slot.parser = makeParser();
            slot.builder.setMaxNodes(maxNodes);
        }
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
                if (m_stop || m_queue.empty()) {
                    trace("pipeline: worker ends");
                    return;
                }
                chunk = std::move(m_queue.front());
                m_queue.pop_front();
                m_notFull.notify_one();
            }
            if (cancelRequested(m_cancel)) {
                stop();
                return;
            }
            try {
                slot.diagnostics.beginChunk(chunk.index);
                const uint64_t lines = slot.parser->parse(Chunk{chunk.text, chunk.index, m_maxLine},
                                                          slot.builder, slot.diagnostics);
                slot.diagnostics.noteChunkLines(chunk.index, lines);
                if (chunk.buffer.capacity)
                    m_pool.give(std::move(chunk.buffer));
                if (chunk.releasable)
                    releasePages(chunk.text);
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

    std::size_t m_maxLine;
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

PipelineResult runPipelineOnce(ByteSource& source, std::string head, Boundary boundary,
                               const std::function<std::unique_ptr<ChunkParser>()>& makeParser,
                               const ImportOptions& options, const ImportControl& control) {
    const auto cancelled = [&] {
        return cancelRequested(control.cancel);
    };
    const std::size_t chunkBytes = std::max<std::size_t>(options.chunkBytes, 4096);
    const std::size_t maxChunk = std::max<std::size_t>(chunkBytes * 16, options.maxLineBytes * 2);
    const unsigned threads =
        options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    // Input in memory, or an uncompressed file mapped into memory, is cut in place: the workers parse the
    // mapped pages, and drop them once parsed. read()s into reused buffers copy every byte once more: on a
    // 2 vCPU KVM guest (kernel 6.18), 1.25 GB of perf script text costs 0.12-0.14 s of kernel copy against
    // a few ms of mapping (about 1000 faults: ext4 keeps the file in large folios, each mapped whole);
    // `scorch collapse` to /dev/null 0.42 s mapped against 0.50 s read, and still 0.53 against 0.64 s from
    // tmpfs, whose 4 KiB pages fault in every 64 KiB. Where touching a mapped page costs much more than
    // copying it (util/mappedpages.h: a guest under shadow paging), the file is read instead.
    ByteSource::Mapping mapping = source.mapping();
    if (mapping.releasable && readRatherThanMap(options.fileAccess, mapping.bytes, "pipeline"))
        mapping = {};
    const bool mapped = !mapping.bytes.empty();

    PipelineResult result;
    result.builder.setMaxNodes(options.maxNodes);
    Diagnostics readerDiagnostics;
    BufferPool pool;
    std::unique_ptr<Workers> workers;
    std::unique_ptr<ChunkParser> inlineParser;
    uint64_t index = 0, bytes = 0;

    auto dispatch = [&](OwnedChunk chunk) {
        chunk.index = index++;
        if (!workers && !inlineParser) {
            // Small inputs (one chunk, already at the end) are parsed on this thread.
            if (threads <= 1 || chunk.text.size() < chunkBytes / 2)
                inlineParser = makeParser();
            else
                workers = std::make_unique<Workers>(threads, threads * 2, makeParser, control.cancel, pool,
                                                    options.maxLineBytes, options.maxNodes);
        }
        if (inlineParser) {
            result.diagnostics.beginChunk(chunk.index);
            const uint64_t lines = inlineParser->parse(Chunk{chunk.text, chunk.index, options.maxLineBytes},
                                                       result.builder, result.diagnostics);
            result.diagnostics.noteChunkLines(chunk.index, lines);
            if (chunk.buffer.capacity)
                pool.give(std::move(chunk.buffer));
            if (chunk.releasable)
                releasePages(chunk.text);
            return;
        }
        if (!workers->push(std::move(chunk)) && workers->error())
            std::rethrow_exception(workers->error());
    };
    auto checkStop = [&] {
        if (cancelled())
            throw ImportCancelled();
        if (workers && workers->stopping()) {
            if (workers->error())
                std::rethrow_exception(workers->error());
            throw ImportCancelled();
        }
    };
    auto warnLongLine = [&](uint64_t length) {
        readerDiagnostics.warnBeforeChunk(index, overLongLineMessage(length, options.maxLineBytes));
    };
    /// Where to cut `view` (not the end of input): 0 to read more, npos to skip an over-long first line.
    auto findCut = [&](std::string_view view, std::size_t& target) -> std::size_t {
        if (const std::size_t cut = lastBoundary(view, boundary))
            return cut;
        const std::size_t lineCut = lastBoundary(view, Boundary::Line);
        if (boundary == Boundary::BlankLine && lineCut && view.size() >= maxChunk)
            return lineCut; // a huge record without blank lines: split between lines
        if (!lineCut && view.size() > options.maxLineBytes)
            return std::string_view::npos;
        target = std::min(maxChunk, std::max(target * 2, view.size() + chunkBytes));
        return 0;
    };

    std::size_t target = chunkBytes;
    trace("pipeline: start");
    try {
        if (mapped) {
            // Zero-copy: chunks are views into the bytes in memory.
            const std::string_view all = mapping.bytes;
            std::size_t pos = 0;
            while (pos < all.size()) {
                checkStop();
                if (control.progress)
                    control.progress(pos, all.size());
                const std::string_view view = all.substr(pos, target);
                std::size_t cut = pos + view.size() == all.size() ? view.size() : findCut(view, target);
                if (cut == 0)
                    continue;
                if (cut == std::string_view::npos) {
                    const void* nl = std::memchr(all.data() + pos, '\n', all.size() - pos);
                    const std::size_t end =
                        nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - all.data()) : all.size();
                    warnLongLine(end - pos);
                    pos = nl ? end + 1 : all.size();
                    target = chunkBytes;
                    continue;
                }
                dispatch(OwnedChunk{Buffer{}, view.substr(0, cut), 0, mapping.releasable});
                pos += cut;
                target = chunkBytes;
            }
            bytes = all.size();
            if (control.progress)
                control.progress(all.size(), all.size());
        } else {
            Buffer buf = pool.take(std::max(chunkBytes, head.size()));
            std::memcpy(buf.data.get(), head.data(), head.size());
            buf.size = head.size();
            bytes = head.size();
            head = std::string();
            bool eof = false, skipping = false;
            uint64_t skipped = 0;
            for (;;) {
                checkStop();
                buf.reserve(target);
                while (!eof && buf.size < target) {
                    const std::size_t got = source.read(buf.data.get() + buf.size, target - buf.size);
                    buf.size += got;
                    bytes += got;
                    eof = got == 0;
                }
                if (control.progress)
                    control.progress(source.consumed(), source.totalSize());
                if (skipping) { // drop bytes up to the end of an over-long line
                    const void* nl = std::memchr(buf.data.get(), '\n', buf.size);
                    const std::size_t n =
                        nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - buf.data.get())
                           : buf.size;
                    skipped += n;
                    buf.consume(nl ? n + 1 : n);
                    if (nl || eof) {
                        warnLongLine(skipped);
                        skipping = false;
                    }
                    if (!nl && eof)
                        break;
                    continue;
                }
                if (buf.size == 0 && eof)
                    break;
                const std::size_t cut = eof ? buf.size : findCut(buf.view(), target);
                if (cut == 0)
                    continue;
                if (cut == std::string_view::npos) {
                    skipping = true;
                    skipped = 0;
                    target = chunkBytes;
                    continue;
                }
                Buffer next = pool.take(std::max(chunkBytes, buf.size - cut));
                std::memcpy(next.data.get(), buf.data.get() + cut, buf.size - cut);
                next.size = buf.size - cut;
                buf.size = cut;
                const std::string_view text = buf.view();
                dispatch(OwnedChunk{std::move(buf), text, 0});
                buf = std::move(next);
                target = chunkBytes;
            }
        }
        trace("pipeline: input read (" + std::to_string(bytes) + " bytes, " + std::to_string(index) +
              " chunks)");
        if (workers) {
            workers->finish();
            trace("pipeline: workers done");
            if (workers->error())
                std::rethrow_exception(workers->error());
            if (cancelled())
                throw ImportCancelled();
            for (auto& slot : workers->slots()) {
                result.builder.merge(std::move(slot.builder));
                result.diagnostics.merge(std::move(slot.diagnostics));
            }
            trace("pipeline: builders merged");
        }
    } catch (...) {
        if (workers) {
            workers->stop();
            workers->finish();
        }
        throw;
    }
    result.diagnostics.merge(std::move(readerDiagnostics));
    result.bytes = bytes;
    return result;
}

} // namespace

PipelineResult runPipeline(ByteSource& source, std::string head, Boundary boundary,
                           const std::function<std::unique_ptr<ChunkParser>()>& makeParser,
                           const ImportOptions& options, const ImportControl& control,
                           const std::string& name) {
    PipelineResult result;
    readMapping(source, name, [&] {
        result = runPipelineOnce(source, std::move(head), boundary, makeParser, options, control);
    });
    return result;
}

} // namespace scorch::detail
