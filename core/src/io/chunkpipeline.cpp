#include "io/chunkpipeline.h"

#include "io/chunkreader.h"
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

/// What every builder of the pipeline (the workers', the merged one) takes from the options: they must
/// agree, or a merge would mix their rules.
void prepareBuilder(TreeBuilder& builder, const ImportOptions& options) {
    builder.setMaxNodes(options.maxNodes);
    builder.setKeepSamples(options.sampleStore);
}

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
            BufferPool& pool, const ImportOptions& options, Pull pull = {})
        : m_maxLine(options.maxLineBytes)
        , m_capacity(capacity)
        , m_cancel(cancel)
        , m_pool(pool)
        , m_pull(std::move(pull)) {
        m_slots.resize(count);
        for (auto& slot : m_slots) {
            slot.parser = makeParser();
            prepareBuilder(slot.builder, options);
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
    prepareBuilder(result.builder, options);
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
            workers =
                std::make_unique<Workers>(threads, threads * 2, makeParser, control.cancel, pool, options);
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
                workers = std::make_unique<Workers>(threads, 0, makeParser, control.cancel, pool, options,
                                                    [&](OwnedChunk& chunk) {
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
