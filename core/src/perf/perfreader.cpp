// Native perf.data reader: header, attributes, feature sections and the record stream (ordered by time per
// flush round as perf does), turned into raw address samples for RawProfileBuilder.
#include "perf/perfreader.h"

#include "perf/perfformat.h"
#include "perf/perfstate.h"
#include "scorch/cancel.h"
#include "scorch/hugepages.h"
#include "scorch/perfdata.h"
#include "util/phasetimer.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <zstd.h>

namespace scorch::detail {

using namespace perf;

namespace {

std::string eventName(uint32_t type, uint64_t config) {
    static const char* const hardware[] = {
        "cycles",        "instructions", "cache-references",        "cache-misses",           "branches",
        "branch-misses", "bus-cycles",   "stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles"};
    static const char* const software[] = {
        "cpu-clock",    "task-clock",   "page-faults",      "context-switches", "cpu-migrations",
        "minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy"};
    if (type == 0 && config < std::size(hardware))
        return hardware[config];
    if (type == 1 && config < std::size(software))
        return software[config];
    return "event type " + std::to_string(type) + " config " + std::to_string(config);
}

/// One record waiting in the time-ordering queue.
struct Pending {
    uint64_t time;
    uint64_t seq;
    const char* bytes;
    uint32_t size;
    uint64_t offset; ///< file offset (of the compressed record for decompressed ones)
    int64_t buffer;  ///< index of the decompression buffer holding it, -1 = the file
};

} // namespace

class PerfDataReader {
public:
    PerfDataReader(std::string_view data, const std::string& name, const ImportOptions& options,
                   const ImportControl& control, uint64_t totalBytes)
        : m_data(data)
        , m_name(name)
        , m_control(control)
        , m_total(totalBytes)
        , m_state(name, options, control)
        , m_readWindow(std::max<std::size_t>(options.chunkBytes, 4096)) {}

    PerfState& state() { return m_state; }
    void releaseReadPages(bool on) { m_releasable = on; }
    /// Reads the data section's records through `readAt` into buffers of the reader's own instead of from
    /// the mapping (importPerfDataNative()).
    void readThrough(ReadAt readAt) { m_readAt = std::move(readAt); }

    /// Reads everything; `build` = false stops before the profile is built (only sampleHook sees samples).
    Profile run(const std::string& compression, bool build = true) {
        trace("read " + m_name + " (huge pages: " + hugePagesName(hugePages()) + ")");
        m_start = std::chrono::steady_clock::now();
        m_lastPartial = m_start;
        Cursor header(m_data, 0, &m_name);
        const std::string_view magic = header.bytes(8);
        if (magic == "2ELIFREP")
            throw PerfDataUnsupported(m_name + ": big-endian perf.data is not read natively");
        if (magic != "PERFILE2")
            throw PerfDataUnsupported(m_name + ": perf.data version 1 (PERFFILE) is not read natively");
        const uint64_t headerSize = header.u64();
        if (headerSize == kPipeHeaderSize) {
            // build-ids follow the samples: modules are opened at the end, once they are known, and no
            // partial profile (which would open them) is made
            m_state.setPipeMode();
            records(kPipeHeaderSize, m_data.size());
        } else {
            if (headerSize < kFileHeaderSize)
                header.fail("perf.data header size " + std::to_string(headerSize) + " is too small");
            const uint64_t attrSize = header.u64();
            const uint64_t attrsOffset = header.u64(), attrsSize = header.u64();
            uint64_t dataOffset = header.u64(), dataSize = header.u64();
            header.skip(16); // event_types (unused by perf since 2010)
            uint64_t features[4];
            for (uint64_t& f : features)
                f = header.u64();
            readAttrs(attrSize, attrsOffset, attrsSize);
            // Features follow the data section: read them first (build-ids, event names) when they are there.
            if (dataSize == 0 && dataOffset < m_data.size()) {
                m_state.warnFirst(
                    0, "the data size in the header is 0 (perf record did not finish): reading to the end "
                       "of the file");
                dataSize = m_data.size() - dataOffset;
            } else {
                readFeatures(features, dataOffset + dataSize);
            }
            if (dataOffset > m_data.size())
                throw ImportError(m_name + ": the data section starts at byte offset " +
                                  std::to_string(dataOffset) + " beyond the end of the file (" +
                                  std::to_string(m_data.size()) + " bytes): truncated");
            uint64_t end = dataOffset + dataSize;
            if (end > m_data.size() || end < dataOffset) {
                m_truncated = true;
                m_state.warnFirst(m_data.size(),
                                  "the file is truncated: the data section should end at byte offset " +
                                      std::to_string(end) + ", the file has " +
                                      std::to_string(m_data.size()) + " bytes");
                end = m_data.size();
            }
            records(dataOffset, end);
        }
        flush(UINT64_MAX);
        releaseFilePages(true);
        // nor the read buffers (the queue is empty: no record needs them) while the profile is built
        m_bufferBase += static_cast<int64_t>(m_buffers.size());
        m_buffers.clear();
        m_spare.clear();
        m_window = -1;
        trace("records read");
        if (m_control.progress)
            m_control.progress(m_total, m_total);
        m_state.setInput(compression, m_data.size());
        if (!build) {
            Profile p;
            p.meta = m_state.meta();
            return p;
        }
        return m_state.finish(m_control.cancel);
    }

private:
    void readAttrs(uint64_t attrSize, uint64_t offset, uint64_t size) {
        if (attrSize < 16 + 64 || attrSize > 4096)
            throw ImportError(m_name + ": attribute size " + std::to_string(attrSize) +
                              " is not plausible (byte offset 16)");
        if (offset > m_data.size() || size > m_data.size() - offset)
            throw ImportError(m_name + ": the attribute section (byte offset " + std::to_string(offset) +
                              ") lies beyond the end of the file: truncated or corrupt");
        for (uint64_t at = offset; at + attrSize <= offset + size; at += attrSize) {
            Cursor c(m_data.substr(at, attrSize), at, &m_name);
            const std::string_view attr = c.bytes(attrSize - 16);
            const uint64_t idsOffset = c.u64(), idsSize = c.u64();
            std::vector<uint64_t> ids;
            if (idsOffset <= m_data.size() && idsSize <= m_data.size() - idsOffset &&
                idsSize / 8 < (1u << 24)) {
                Cursor ic(m_data.substr(idsOffset, idsSize), idsOffset, &m_name);
                for (uint64_t i = 0; i < idsSize / 8; ++i)
                    ids.push_back(ic.u64());
            } else {
                m_state.warn(at, "attribute ids lie beyond the end of the file");
            }
            m_state.addAttr(parseAttr(attr, at), ids);
        }
        if (!m_state.hasAttrs())
            throw ImportError(m_name + ": no event attributes (byte offset " + std::to_string(offset) + ")");
    }

    Attr parseAttr(std::string_view bytes, uint64_t offset) {
        Cursor c(bytes, offset, &m_name);
        Attr a;
        a.type = c.u32();
        const uint32_t size = c.u32();
        if (size < 64)
            c.fail("perf_event_attr size " + std::to_string(size) + " is too small");
        a.config = c.u64();
        const uint64_t periodOrFrequency = c.u64();
        a.sampleType = c.u64();
        a.readFormat = c.u64();
        a.flags = c.u64();
        if (!(a.flags & perf::kAttrFreq) && periodOrFrequency > 1) // 1 (tracepoints): the sample count
            a.fixedPeriod = periodOrFrequency;
        c.skip(8 + 16); // wakeup_events, bp_type, config1, config2
        if (size >= 80 && c.left() >= 8)
            a.branchSampleType = c.u64();
        if (size >= 96 && c.left() >= 12) {
            a.regsUser = c.u64();
            a.stackUser = c.u32();
        }
        a.name = eventName(a.type, a.config);
        return a;
    }

    void readFeatures(const uint64_t (&bits)[4], uint64_t sectionsOffset) {
        std::vector<unsigned> present;
        for (unsigned bit = 0; bit < 256; ++bit)
            if (bits[bit / 64] >> (bit % 64) & 1)
                present.push_back(bit);
        if (present.empty())
            return;
        if (sectionsOffset > m_data.size() || present.size() * 16 > m_data.size() - sectionsOffset) {
            m_state.warn(sectionsOffset,
                         "feature sections (build-ids, event names, host) are missing: the file is "
                         "truncated");
            return;
        }
        Cursor c(m_data.substr(sectionsOffset, present.size() * 16), sectionsOffset, &m_name);
        for (unsigned bit : present) {
            const uint64_t offset = c.u64(), size = c.u64();
            if (offset > m_data.size() || size > m_data.size() - offset) {
                m_state.warn(offset, "feature section " + std::to_string(bit) +
                                         " lies beyond the end of the file: truncated");
                continue;
            }
            feature(bit, m_data.substr(offset, size), offset);
        }
    }

    void feature(unsigned bit, std::string_view bytes, uint64_t offset) {
        try {
            m_state.feature(bit, Cursor(bytes, offset, &m_name));
        } catch (const PerfDataUnsupported&) {
            throw;
        } catch (const ImportError& e) {
            m_state.warn(offset, std::string("feature section skipped: ") + e.what());
        }
    }

    /// The record stream from `begin` to `end`; records with a timestamp are queued and flushed in time
    /// order.
    void records(uint64_t begin, uint64_t end) {
        uint64_t pos = begin;
        uint64_t counter = 0;
        while (pos < end) {
            if (++counter % 256 == 0)
                tick(pos);
            int64_t buffer = -1;
            const std::string_view head = end - pos < 8 ? std::string_view() : bytesAt(pos, 8, end, buffer);
            if (head.size() < 8) {
                truncatedAt(pos, "a record header");
                break;
            }
            const char* p = head.data();
            uint32_t type;
            uint16_t size;
            std::memcpy(&type, p, 4);
            std::memcpy(&size, p + 6, 2);
            if (size < 8)
                throw ImportError(m_name + ": corrupt record (size " + std::to_string(size) + ", type " +
                                  std::to_string(type) + ") at byte offset " + std::to_string(pos));
            const std::string_view whole =
                size > end - pos ? std::string_view() : bytesAt(pos, size, end, buffer);
            if (whole.size() < size) {
                truncatedAt(pos, "a record");
                break;
            }
            p = whole.data();
            uint64_t extra = 0; // some user records carry payload after the record
            if (type == RecordHeaderTracingData && size >= 12) {
                uint32_t n;
                std::memcpy(&n, p + 8, 4);
                extra = (n + 7u) & ~uint64_t(7);
                // pipe mode: the tracepoint formats follow the record
                const std::string_view all =
                    bytesAt(pos, size + std::min<uint64_t>(n, end - pos - size), end, buffer);
                p = all.data();
                m_state.tracingData(all.substr(size));
            } else if (type == RecordAuxtrace && size >= 16) {
                std::memcpy(&extra, p + 8, 8);
            }
            m_pos = pos;
            if (type == RecordCompressed || type == RecordCompressed2) {
                decompress(std::string_view(p, size), pos, type == RecordCompressed2);
            } else {
                record(p, size, pos, buffer);
            }
            // a large recording: once 1/64 of it is read, how many samples it holds in all (by the share
            // read, and some more), so that the builder's arrays are made that large once
            if (!m_estimated && end - begin >= kEstimateFrom && pos - begin >= (end - begin) / 64) {
                m_estimated = true;
                const double share = static_cast<double>(pos - begin) / static_cast<double>(end - begin);
                m_state.expectSamples(
                    static_cast<uint64_t>(static_cast<double>(m_state.samplesRead()) / share * 1.1));
            }
            if (extra > end - pos - size) {
                truncatedAt(pos, "record payload");
                break;
            }
            pos += size + extra;
        }
        tick(pos);
    }

    /// `need` bytes of the file from `pos` in one piece (fewer where the file ends before `end`): from the
    /// mapping, or read through m_readAt into the current read buffer, or into a new one that starts with the
    /// current one's rest (`buffer`: its index in m_buffers, -1 for the mapping). The current buffer counts
    /// one pending record of its own, so that it stays while records are read from it.
    std::string_view bytesAt(uint64_t pos, uint64_t need, uint64_t end, int64_t& buffer) {
        if (!m_readAt) {
            buffer = -1;
            return m_data.substr(std::min<uint64_t>(pos, m_data.size()), need);
        }
        const uint64_t windowEnd = m_windowStart + m_windowBytes;
        if (m_window >= 0 && pos >= m_windowStart && pos + need <= windowEnd) {
            buffer = m_window;
            return {windowBytes() + (pos - m_windowStart), need};
        }
        const std::size_t capacity = std::max<std::size_t>(m_readWindow, need);
        std::shared_ptr<std::string> next;
        while (!m_spare.empty() && !next) {
            next = std::move(m_spare.back());
            m_spare.pop_back();
            if (next->size() < capacity)
                next.reset();
        }
        if (!next)
            next = std::make_shared<std::string>(capacity, '\0');
        std::size_t have = 0;
        if (m_window >= 0 && pos >= m_windowStart && pos < windowEnd) {
            have = windowEnd - pos;
            std::memcpy(next->data(), windowBytes() + (pos - m_windowStart), have);
        }
        const uint64_t want = std::min<uint64_t>(next->size(), std::max(end, pos + need) - pos);
        while (have < want) {
            const std::size_t got = m_readAt(pos + have, next->data() + have, want - have);
            if (got == 0)
                break;
            have += got;
        }
        if (m_window >= 0)
            --m_buffers[static_cast<std::size_t>(m_window - m_bufferBase)].pending;
        m_buffers.push_back({std::move(next), 1});
        m_window = m_bufferBase + static_cast<int64_t>(m_buffers.size()) - 1;
        m_windowStart = pos;
        m_windowBytes = have;
        releaseBuffers();
        buffer = m_window;
        return {windowBytes(), std::min<uint64_t>(need, have)};
    }
    const char* windowBytes() const {
        return m_buffers[static_cast<std::size_t>(m_window - m_bufferBase)].bytes->data();
    }

    void truncatedAt(uint64_t pos, const char* what) {
        m_truncated = true;
        m_state.warnFirst(pos, std::string("the file is truncated: ") + what + " at byte offset " +
                                   std::to_string(pos) +
                                   " is cut off; the profile holds the samples before it");
    }

    void decompress(std::string_view rec, uint64_t offset, bool sized) {
        const std::size_t header = sized ? 16 : 8; // (PERF_RECORD_COMPRESSED2 adds the data's size)
        if (rec.size() < header)
            throw ImportError(m_name + ": corrupt compressed record at byte offset " +
                              std::to_string(offset) + ": " + std::to_string(rec.size()) +
                              " bytes, shorter than its " + std::to_string(header) + "-byte header");
        std::string_view in = rec.substr(header);
        if (sized) {
            uint64_t n;
            std::memcpy(&n, rec.data() + 8, 8);
            in = in.substr(0, std::min<uint64_t>(n, in.size()));
        }
        if (!m_zstd)
            m_zstd.reset(ZSTD_createDStream());
        std::string& buffer = m_carry;
        ZSTD_inBuffer zin{in.data(), in.size(), 0};
        for (bool full = true; zin.pos < zin.size || full;) {
            const std::size_t have = buffer.size();
            buffer.resize(have + std::max<std::size_t>(ZSTD_DStreamOutSize(), in.size() * 4));
            ZSTD_outBuffer zout{buffer.data() + have, buffer.size() - have, 0};
            const std::size_t r = ZSTD_decompressStream(m_zstd.get(), &zout, &zin);
            full = zout.pos == zout.size; // zstd may hold more output: call again
            buffer.resize(have + zout.pos);
            if (ZSTD_isError(r))
                throw ImportError(m_name + ": corrupt compressed record at byte offset " +
                                  std::to_string(offset) + ": " + ZSTD_getErrorName(r));
            if (buffer.size() > (1u << 30))
                throw ImportError(m_name + ": compressed record at byte offset " + std::to_string(offset) +
                                  " expands beyond 1 GiB");
        }
        // Whole records go to their own buffer (kept until the queue is done with them); a record cut at the
        // end stays in m_carry for the next compressed record.
        std::size_t pos = 0;
        while (buffer.size() - pos >= 8) {
            uint16_t size;
            std::memcpy(&size, buffer.data() + pos + 6, 2);
            if (size < 8)
                throw ImportError(m_name + ": corrupt record inside the compressed record at byte offset " +
                                  std::to_string(offset));
            if (size > buffer.size() - pos)
                break;
            pos += size;
        }
        auto owned = std::make_shared<std::string>(buffer.substr(0, pos));
        buffer.erase(0, pos);
        m_buffers.push_back({owned, 0});
        const int64_t index = m_bufferBase + static_cast<int64_t>(m_buffers.size()) - 1;
        for (std::size_t at = 0; at < owned->size();) {
            uint16_t size;
            std::memcpy(&size, owned->data() + at + 6, 2);
            record(owned->data() + at, size, offset, index);
            at += size;
        }
        releaseBuffers();
    }

    void record(const char* p, uint16_t size, uint64_t offset, int64_t buffer) {
        uint32_t type;
        std::memcpy(&type, p, 4);
        if (type == RecordFinishedRound) {
            // perf's ordering rule: events up to the previous round's latest timestamp are now complete.
            flush(m_roundLimit);
            m_roundLimit = m_maxTime;
            return;
        }
        if (type >= 64 || !m_state.hasTime()) {
            if (type < 64)
                flushBefore();
            process(p, size, offset);
            return;
        }
        const uint64_t t = m_state.recordTime(type, std::string_view(p, size));
        m_maxTime = std::max(m_maxTime, t);
        m_queue.push_back({t, m_seq++, p, size, offset, buffer});
        if (buffer >= 0)
            ++m_buffers[static_cast<std::size_t>(buffer - m_bufferBase)].pending;
        if (m_queue.size() > (4u << 20)) // no FINISHED_ROUND for a long time: keep memory bounded
            flush(m_queue[m_queue.size() / 2].time);
    }

    void flushBefore() { flush(UINT64_MAX); }

    void flush(uint64_t limit) {
        if (m_queue.empty())
            return;
        std::stable_sort(m_queue.begin(), m_queue.end(), [](const Pending& a, const Pending& b) {
            return a.time != b.time ? a.time < b.time : a.seq < b.seq;
        });
        std::size_t n = 0;
        while (n < m_queue.size() && m_queue[n].time <= limit) {
            const Pending& e = m_queue[n];
            process(e.bytes, e.size, e.offset);
            if (e.buffer >= 0)
                --m_buffers[static_cast<std::size_t>(e.buffer - m_bufferBase)].pending;
            ++n;
        }
        m_queue.erase(m_queue.begin(), m_queue.begin() + static_cast<std::ptrdiff_t>(n));
        releaseBuffers();
        releaseFilePages();
    }

    /// Drops the pages of a file mapping that no queued record needs any more (in steps of 8 MiB; `all`:
    /// every page, once the records are read): read once, a multi-GB recording need not stay resident, nor
    /// the last stretch of any while the profile is built (fp-large: 49 MB of the peak). The kernel reads
    /// them again from the page cache should they be touched.
    void releaseFilePages(bool all = false) {
        if (!m_releasable)
            return;
        uint64_t keep = all ? m_data.size() : m_pos;
        for (const Pending& e : m_queue)
            if (e.buffer < 0)
                keep = std::min<uint64_t>(keep, static_cast<uint64_t>(e.bytes - m_data.data()));
        constexpr uint64_t step = uint64_t(8) << 20;
        const uint64_t upTo = all ? keep : keep & ~(step - 1);
        if (upTo <= m_released)
            return;
        ::madvise(const_cast<char*>(m_data.data()) + m_released, upTo - m_released, MADV_DONTNEED);
        m_released = upTo;
    }

    void releaseBuffers() {
        while (m_buffers.size() > 1 && m_buffers.front().pending == 0) {
            // read buffers (and decompressed records' buffers as large) are used again: their pages are
            // mapped already
            if (std::shared_ptr<std::string>& bytes = m_buffers.front().bytes;
                m_readAt && bytes.use_count() == 1 && bytes->size() >= m_readWindow && m_spare.size() < 4)
                m_spare.push_back(std::move(bytes));
            m_buffers.pop_front();
            ++m_bufferBase;
        }
    }

    void process(const char* p, uint16_t size, uint64_t offset) {
        uint32_t type;
        std::memcpy(&type, p, 4);
        Cursor c(std::string_view(p, size), offset, &m_name);
        if (type == RecordHeaderAttr) {
            c.skip(8);
            const std::string_view rest = c.bytes(c.left());
            uint32_t attrSize;
            if (rest.size() < 8)
                c.fail("attribute record too short");
            std::memcpy(&attrSize, rest.data() + 4, 4);
            if (attrSize < 64 || attrSize > rest.size())
                c.fail("attribute record with a bad size");
            std::vector<uint64_t> ids((rest.size() - attrSize) / 8);
            std::memcpy(ids.data(), rest.data() + attrSize, ids.size() * 8);
            m_state.addAttr(parseAttr(rest.substr(0, attrSize), offset + 8), ids);
        } else if (type == RecordHeaderFeature) {
            c.skip(8);
            const uint64_t bit = c.u64();
            feature(static_cast<unsigned>(std::min<uint64_t>(bit, 1000)), c.bytes(c.left()), offset + 16);
        } else {
            m_state.record(type, c);
        }
    }

    void tick(uint64_t pos) {
        if (cancelRequested(m_control.cancel))
            throw ImportCancelled();
        if (m_control.progress)
            m_control.progress(std::min<uint64_t>(pos, m_total ? m_total : pos), m_total);
        if (m_control.partial && !m_state.pipeMode() && m_state.samples() > 0) {
            const auto now = std::chrono::steady_clock::now();
            if (std::chrono::duration<double>(now - m_lastPartial).count() >= m_partialWait) {
                m_control.partial(m_state.snapshot(m_control.cancel));
                m_lastPartial = std::chrono::steady_clock::now();
                // (a snapshot of a large profile takes the reader's thread for most of a second)
                m_partialWait =
                    partialWait(m_control, std::chrono::duration<double>(m_lastPartial - now).count());
            }
        }
    }

    struct ZstdFree {
        void operator()(ZSTD_DStream* s) const { ZSTD_freeDStream(s); }
    };
    struct Buffer {
        std::shared_ptr<std::string> bytes;
        std::size_t pending;
    };

    std::string_view m_data;
    const std::string& m_name;
    const ImportControl& m_control;
    uint64_t m_total;
    PerfState m_state;
    std::vector<Pending> m_queue;
    uint64_t m_seq = 0, m_maxTime = 0, m_roundLimit = 0;
    std::unique_ptr<ZSTD_DStream, ZstdFree> m_zstd;
    std::string m_carry;
    std::deque<Buffer> m_buffers;
    int64_t m_bufferBase = 0;
    bool m_truncated = false;
    bool m_releasable = false;
    bool m_estimated = false; ///< the builder was told how many samples to expect
    static constexpr uint64_t kEstimateFrom = 16u << 20;
    uint64_t m_pos = 0;                            ///< the record being read
    ReadAt m_readAt;                               ///< where set, the records are read through it (bytesAt())
    std::size_t m_readWindow;                      ///< the read buffers' size (ImportOptions::chunkBytes)
    int64_t m_window = -1;                         ///< index in m_buffers of the current read buffer
    uint64_t m_windowStart = 0, m_windowBytes = 0; ///< its file offset and the bytes read into it
    std::vector<std::shared_ptr<std::string>> m_spare; ///< read buffers to use again
    uint64_t m_released = 0;                           ///< file pages before this offset were dropped
    std::chrono::steady_clock::time_point m_start, m_lastPartial;
    double m_partialWait = m_control.partialInterval; // seconds from one snapshot to the next
};

double partialWait(const ImportControl& control, double snapshotSeconds) {
    const double share = std::clamp(control.partialShare, 0.01, 1.0);
    return std::max(control.partialInterval, snapshotSeconds * (1 - share) / share);
}

Profile importPerfDataNative(std::string_view data, const std::string& compression, const std::string& name,
                             const ImportOptions& options, const ImportControl& control, bool releasable,
                             ReadAt readAt) {
    PerfDataReader reader(data, name, options, control, data.size());
    reader.releaseReadPages(releasable && !readAt);
    reader.readThrough(std::move(readAt));
    return reader.run(compression);
}

} // namespace scorch::detail

namespace scorch {

ProfileMeta
forEachPerfDataSample(const std::string& path,
                      const std::function<void(int64_t, int64_t, std::span<const uint64_t>)>& sample) {
    std::unique_ptr<ByteSource> source = openByteSource(path);
    ByteSource::Mapping mapping = source->mapping();
    std::string owned;
    if (mapping.bytes.empty()) {
        char buffer[1 << 16];
        while (const std::size_t got = source->read(buffer, sizeof buffer))
            owned.append(buffer, got);
        mapping.bytes = owned;
    }
    const ImportOptions options;
    const ImportControl control;
    detail::PerfDataReader reader(mapping.bytes, path, options, control, mapping.bytes.size());
    reader.state().setSampleHook(sample);
    ProfileMeta meta;
    readMapping(*source, path, [&] { meta = reader.run(source->compression(), false).meta; });
    return meta;
}

} // namespace scorch
