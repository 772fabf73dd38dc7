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
#include <optional>
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

/// Parses a chunk into `builder`, then gives its buffer back or drops its mapped pages.
void parseChunk(OwnedChunk chunk, ChunkParser& parser, TreeBuilder& builder, Diagnostics& diagnostics,
                BufferPool& pool, std::size_t maxLine) {
    diagnostics.beginChunk(chunk.index);
    diagnostics.noteChunkLines(chunk.index,
                               parser.parse(Chunk{chunk.text, chunk.index, maxLine}, builder, diagnostics));
    if (chunk.buffer.capacity)
        pool.give(std::move(chunk.buffer));
    if (chunk.releasable)
        releasePages(chunk.text);
}

/// Where chunks may end, and how big they get.
struct CutRules {
    Boundary boundary;
    std::size_t chunkBytes, maxChunk, maxLineBytes;

    /// Where to cut `view` (not the end of input): 0 to read more (`target` is grown), npos to skip an
    /// over-long first line.
    std::size_t findCut(std::string_view view, std::size_t& target) const {
        if (const std::size_t cut = lastBoundary(view, boundary))
            return cut;
        const std::size_t lineCut = lastBoundary(view, Boundary::Line);
        if (boundary == Boundary::BlankLine && lineCut && view.size() >= maxChunk)
            return lineCut; // a huge record without blank lines: split between lines
        if (!lineCut && view.size() > maxLineBytes)
            return std::string_view::npos;
        target = std::min(maxChunk, std::max(target * 2, view.size() + chunkBytes));
        return 0;
    }
};

/// Cuts a stream into chunks on record boundaries, read into pooled buffers; an over-long line is skipped
/// with a warning. Not thread-safe: the workers take turns (Workers::Pull).
class ChunkReader {
public:
    ChunkReader(ByteSource& source, std::string head, const CutRules& rules, BufferPool& pool,
                Diagnostics& diagnostics, const ImportControl& control)
        : m_source(source)
        , m_rules(rules)
        , m_pool(pool)
        , m_diagnostics(diagnostics)
        , m_control(control)
        , m_target(rules.chunkBytes)
        , m_buf(pool.take(std::max(rules.chunkBytes, head.size()))) {
        std::memcpy(m_buf.data.get(), head.data(), head.size());
        m_buf.size = head.size();
        m_bytes = head.size();
    }

    /// The next chunk, numbered; false at the end of the input. Throws what the source throws, and
    /// ImportCancelled.
    bool next(OwnedChunk& chunk) {
        for (;;) {
            if (cancelRequested(m_control.cancel))
                throw ImportCancelled();
            m_buf.reserve(m_target);
            while (!m_eof && m_buf.size < m_target) {
                const std::size_t got = m_source.read(m_buf.data.get() + m_buf.size, m_target - m_buf.size);
                m_buf.size += got;
                m_bytes += got;
                m_eof = got == 0;
            }
            if (m_control.progress)
                m_control.progress(m_source.consumed(), m_source.totalSize());
            if (m_skipping) { // drop bytes up to the end of an over-long line
                const void* nl = std::memchr(m_buf.data.get(), '\n', m_buf.size);
                const std::size_t n =
                    nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - m_buf.data.get())
                       : m_buf.size;
                m_skipped += n;
                m_buf.consume(nl ? n + 1 : n);
                if (nl || m_eof) {
                    m_diagnostics.warnBeforeChunk(m_index,
                                                  overLongLineMessage(m_skipped, m_rules.maxLineBytes));
                    m_skipping = false;
                }
                if (!nl && m_eof)
                    return false;
                continue;
            }
            if (m_buf.size == 0 && m_eof)
                return false;
            const std::size_t cut = m_eof ? m_buf.size : m_rules.findCut(m_buf.view(), m_target);
            if (cut == 0)
                continue;
            if (cut == std::string_view::npos) {
                m_skipping = true;
                m_skipped = 0;
                m_target = m_rules.chunkBytes;
                continue;
            }
            Buffer rest = m_pool.take(std::max(m_rules.chunkBytes, m_buf.size - cut));
            std::memcpy(rest.data.get(), m_buf.data.get() + cut, m_buf.size - cut);
            rest.size = m_buf.size - cut;
            m_buf.size = cut;
            const std::string_view text = m_buf.view();
            chunk = OwnedChunk{std::move(m_buf), text, m_index++};
            m_buf = std::move(rest);
            m_target = m_rules.chunkBytes;
            return true;
        }
    }

    uint64_t bytes() const { return m_bytes; }
    uint64_t chunks() const { return m_index; }

private:
    ByteSource& m_source;
    CutRules m_rules;
    BufferPool& m_pool;
    Diagnostics& m_diagnostics;
    const ImportControl& m_control;
    std::size_t m_target;
    Buffer m_buf;
    uint64_t m_bytes = 0, m_index = 0, m_skipped = 0;
    bool m_eof = false, m_skipping = false;
};

/// The threads that parse chunks, each with its own parser and builder. Chunks come one of two ways:
/// - pushed (push()) by a reader on the calling thread: for input in memory, cut in place;
/// - pulled: each worker takes the next chunk from `pull` itself (one at a time, under a lock) and parses
///   it. The bytes a worker parses are then the ones it has just read (warm in its caches), and no reader
///   thread competes with the workers for the cores (which of the two gains more was not isolated). On a 2
///   vCPU PVM guest, `scorch collapse` of fp-medium (1.3 GB of perf script) to /dev/null took 0.466 s (0.76 s
///   CPU) against 0.527 s (0.81 s CPU) with a reader thread pushing to two workers (medians of 15 alternated
///   runs); fp-small, dwarf-medium, gzip and zstd input 10-20 % less too. The caller is one of the workers
///   (work()); `count - 1` threads start.
class Workers {
public:
    using Pull = std::function<bool(OwnedChunk&)>;

    Workers(unsigned count, std::size_t capacity,
            const std::function<std::unique_ptr<ChunkParser>()>& makeParser, const std::atomic<bool>* cancel,
            BufferPool& pool, std::size_t maxLine, std::size_t maxNodes, Pull pull = {})
        : m_maxLine(maxLine)
        , m_capacity(capacity)
        , m_cancel(cancel)
        , m_pool(pool)
        , m_pull(std::move(pull)) {
        m_slots.resize(count);
        for (auto& slot : m_slots) {
            slot.parser = makeParser();
            slot.builder.setMaxNodes(maxNodes);
        }
        for (unsigned i = 0; i + (m_pull ? 1 : 0) < count; ++i)
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
    /// With `pull`: the calling thread works as the last worker until the input ends or the pipeline stops.
    void work() { run(m_slots.back()); }
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
    /// The next chunk to parse; false when there is none or the pipeline stops.
    bool take(OwnedChunk& chunk) {
        if (m_pull) {
            std::lock_guard turn(m_pullMutex);
            if (m_pulledAll || stopping())
                return false;
            m_pulledAll = !m_pull(chunk);
            return !m_pulledAll;
        }
        std::unique_lock lock(m_mutex);
        m_notEmpty.wait(lock, [&] { return !m_queue.empty() || m_done || m_stop; });
        if (m_stop || m_queue.empty())
            return false;
        chunk = std::move(m_queue.front());
        m_queue.pop_front();
        m_notFull.notify_one();
        return true;
    }

    void run(Slot& slot) {
        for (;;) {
            OwnedChunk chunk;
            try {
                if (!take(chunk)) {
                    trace("pipeline: worker ends");
                    return;
                }
                if (cancelRequested(m_cancel)) {
                    stop();
                    return;
                }
                parseChunk(std::move(chunk), *slot.parser, slot.builder, slot.diagnostics, m_pool, m_maxLine);
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
    Pull m_pull;
    std::mutex m_pullMutex;   ///< one worker pulls at a time
    bool m_pulledAll = false; ///< `pull` said the input has ended (guarded by m_pullMutex)
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
    const CutRules rules{boundary, chunkBytes,
                         std::max<std::size_t>(chunkBytes * 16, options.maxLineBytes * 2),
                         options.maxLineBytes};
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
    std::optional<ChunkReader> reader; // (read input; outlives the workers that pull from it)
    std::optional<OwnedChunk> first;
    std::unique_ptr<Workers> workers;
    std::unique_ptr<ChunkParser> inlineParser;
    uint64_t index = 0, bytes = 0;

    /// Whether a first chunk this big starts the workers: small inputs (one chunk, already at the end) are
    /// parsed on this thread.
    const auto needsWorkers = [&](const OwnedChunk& first) {
        return threads > 1 && first.text.size() >= chunkBytes / 2;
    };
    auto parseHere = [&](OwnedChunk chunk) {
        if (!inlineParser)
            inlineParser = makeParser();
        parseChunk(std::move(chunk), *inlineParser, result.builder, result.diagnostics, pool,
                   options.maxLineBytes);
    };
    auto dispatch = [&](OwnedChunk chunk) {
        if (!workers && !inlineParser && needsWorkers(chunk))
            workers = std::make_unique<Workers>(threads, threads * 2, makeParser, control.cancel, pool,
                                                options.maxLineBytes, options.maxNodes);
        if (!workers)
            return parseHere(std::move(chunk));
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

    trace("pipeline: start");
    try {
        if (mapped) {
            // Zero-copy: chunks are views into the bytes in memory, cut here and pushed to the workers.
            const std::string_view all = mapping.bytes;
            std::size_t pos = 0, target = chunkBytes;
            while (pos < all.size()) {
                checkStop();
                if (control.progress)
                    control.progress(pos, all.size());
                const std::string_view view = all.substr(pos, target);
                std::size_t cut = pos + view.size() == all.size() ? view.size() : rules.findCut(view, target);
                if (cut == 0)
                    continue;
                if (cut == std::string_view::npos) {
                    const void* nl = std::memchr(all.data() + pos, '\n', all.size() - pos);
                    const std::size_t end =
                        nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - all.data()) : all.size();
                    readerDiagnostics.warnBeforeChunk(index,
                                                      overLongLineMessage(end - pos, options.maxLineBytes));
                    pos = nl ? end + 1 : all.size();
                    target = chunkBytes;
                    continue;
                }
                dispatch(OwnedChunk{Buffer{}, view.substr(0, cut), index++, mapping.releasable});
                pos += cut;
                target = chunkBytes;
            }
            bytes = all.size();
            if (control.progress)
                control.progress(all.size(), all.size());
        } else {
            // Read: the workers take turns reading the next chunk, each parsing what it read.
            reader.emplace(source, std::move(head), rules, pool, readerDiagnostics, control);
            first.emplace();
            if (!reader->next(*first)) {
                first.reset();
            } else if (needsWorkers(*first)) {
                workers =
                    std::make_unique<Workers>(threads, 0, makeParser, control.cancel, pool,
                                              options.maxLineBytes, options.maxNodes, [&](OwnedChunk& chunk) {
                                                  if (!first)
                                                      return reader->next(chunk);
                                                  chunk = std::move(*first);
                                                  first.reset();
                                                  return true;
                                              });
                workers->work();
                workers->finish(); // (before the reader's counts are read)
            } else {
                parseHere(std::move(*first));
                for (OwnedChunk chunk; reader->next(chunk);)
                    parseHere(std::move(chunk));
            }
            bytes = reader->bytes();
            index = reader->chunks();
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
