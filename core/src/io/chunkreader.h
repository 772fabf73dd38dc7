// Internal: the reading half of the text pipeline (chunkpipeline.h). Where chunks may be cut (CutRules, also
// used for input cut in place), the pooled buffers chunks are read into, and the ChunkReader that cuts a
// stream into chunks on record boundaries for the workers that read for themselves.
#pragma once

#include "io/chunkpipeline.h"
#include "util/hugepages.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <vector>

namespace scorch::detail {

/// A reusable byte buffer: growing it never zero-fills, and chunks hand their buffers back to a pool, so
/// the reader does not fault in fresh pages for every chunk. Chunk-sized buffers are whole 2 MiB pages
/// (aligned, advised): read() then fills a new one with one page fault per 2 MiB, not one per 4 KiB.
struct Buffer {
    struct Free {
        void operator()(char* p) const { ::operator delete[](p, std::align_val_t(kHugePageBytes)); }
    };
    std::unique_ptr<char[], Free> data;
    std::size_t capacity = 0, size = 0;

    void reserve(std::size_t n);
    std::string_view view() const { return {data.get(), size}; }
    /// Drops the first n bytes.
    void consume(std::size_t n);
};

/// Buffers given back by parsed chunks, for the reader's next ones (at most 16 kept). Thread-safe.
class BufferPool {
public:
    /// A buffer of at least `capacity` bytes, empty.
    Buffer take(std::size_t capacity);
    void give(Buffer&& b);

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

/// Where chunks may end, and how big they get.
struct CutRules {
    Boundary boundary;
    std::size_t chunkBytes, maxChunk, maxLineBytes;

    /// Where to cut `view` (not the end of input): 0 to read more (`target` is grown), npos to skip an
    /// over-long first line.
    std::size_t findCut(std::string_view view, std::size_t& target) const;
};

/// Cuts a stream into chunks on record boundaries, read into pooled buffers; an over-long line is skipped
/// with a warning. Not thread-safe: the workers take turns (chunkpipeline.cpp's Workers::Pull).
class ChunkReader {
public:
    /// `head`: bytes already read from `source` (by the format sniffer), the start of the first chunk.
    ChunkReader(ByteSource& source, std::string head, const CutRules& rules, BufferPool& pool,
                Diagnostics& diagnostics, const ImportControl& control);

    /// The next chunk, numbered; false at the end of the input. Throws what the source throws, and
    /// ImportCancelled.
    bool next(OwnedChunk& chunk);

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

} // namespace scorch::detail
