// Internal: the streaming, chunk-parallel import pipeline of the text importers, and the sequential read loop
// (readRest) of the importers that walk one stream.
//
// The input is cut into chunks of about ImportOptions::chunkBytes on record boundaries, parsed by worker
// threads. Input in memory (or a file mapping) is cut in place by the calling thread and pushed to them;
// input that is read, the workers read for themselves, taking turns, each parsing the chunk it has just
// read (the calling thread is one of them). Each worker owns one ChunkParser and one TreeBuilder for its
// whole life; at the end the builders are merged. Memory stays bounded by (workers or queue length x chunk
// size) plus the builders, whatever the input size. The reading half (buffers, where to cut, ChunkReader) is
// in chunkreader.h.
#pragma once

#include "scorch/builder.h"
#include "scorch/bytesource.h"
#include "scorch/import.h"
#include "util/linescan.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace scorch::detail {

/// A piece of the input that ends on a record boundary. Lines are numbered from 1 within the chunk; the
/// pipeline turns them into file line numbers once every chunk's line count is known, so nobody has to scan
/// the bytes twice.
struct Chunk {
    std::string_view text; ///< whole lines (the last line may lack its '\n' at the end of input)
    uint64_t index = 0;    ///< 0, 1, 2, ... in input order
    std::size_t maxLineBytes = SIZE_MAX; ///< longer lines are skipped with a warning
};

/// Warnings of one worker (or of the reader): all are counted, the first few kept with their position (more
/// than a profile keeps: which come first in the file is known only once every chunk is counted).
class Diagnostics {
public:
    /// Subsequent warn() calls refer to lines of this chunk.
    void beginChunk(uint64_t index) { m_chunk = index; }
    void warn(uint64_t lineInChunk, std::string message);
    /// The reader skipped a line just before chunk `index` (an over-long line).
    void warnBeforeChunk(uint64_t index, std::string message);
    void noteChunkLines(uint64_t index, uint64_t lines) { m_chunkLines.emplace_back(index, lines); }
    void merge(Diagnostics&& other);
    uint64_t count() const { return m_count; }
    /// The kept warnings with file line numbers, sorted; ProfileMeta::warn keeps the first of them.
    std::vector<ImportWarning> resolve() const;

private:
    struct Entry {
        uint64_t chunk, line; // line: within the chunk, or for `before` the ordinal of the skipped line
        bool before;
        std::string message;
    };
    uint64_t m_count = 0, m_chunk = 0;
    std::vector<Entry> m_kept;
    std::vector<std::pair<uint64_t, uint64_t>> m_chunkLines, m_skippedBefore; // (chunk, count)
};

class ChunkParser {
public:
    virtual ~ChunkParser() = default;
    /// Parses one chunk; returns the number of lines it holds.
    virtual uint64_t parse(const Chunk& chunk, TreeBuilder& builder, Diagnostics& diagnostics) = 0;
};

enum class Boundary {
    Line,      ///< any line end (folded stacks)
    BlankLine, ///< an empty line (perf script samples)
};

struct PipelineResult {
    TreeBuilder builder;
    Diagnostics diagnostics;
    uint64_t bytes = 0;
};

PipelineResult runPipeline(ByteSource& source, std::string head, Boundary boundary,
                           const std::function<std::unique_ptr<ChunkParser>()>& makeParser,
                           const ImportOptions& options, const ImportControl& control,
                           const std::string& name);

std::string overLongLineMessage(uint64_t length, std::size_t limit);

/// For importers that read their input sequentially (not through the pipeline): calls f(block) for each
/// block of the rest of `source` until its end, reporting progress and honouring cancellation before each
/// read (throws ImportCancelled).
template <typename F>
void readRest(ByteSource& source, const ImportControl& control, F&& f) {
    std::string buffer(1u << 20, '\0');
    for (;;) {
        if (control.cancel && control.cancel->load(std::memory_order_relaxed))
            throw ImportCancelled();
        if (control.progress)
            control.progress(source.consumed(), source.totalSize());
        const std::size_t got = source.read(buffer.data(), buffer.size());
        if (!got)
            return;
        f(std::string_view(buffer.data(), got));
    }
}

/// Calls f(line, lineNumber) for each line of the chunk, without the '\n' and a trailing '\r'; returns the
/// number of lines. Lines over the chunk's limit are skipped with a warning.
template <typename F>
uint64_t forEachLine(const Chunk& chunk, Diagnostics& diagnostics, F&& f) {
    const char* p = chunk.text.data();
    const char* end = p + chunk.text.size();
    uint64_t line = 1;
    ByteScanner lineEnds(p, end, '\n'); // a block of line ends at a time, not a memchr per line
    while (p < end) {
        const char* nl = lineEnds.next();
        const char* stop = nl ? nl : end;
        std::size_t len = static_cast<std::size_t>(stop - p);
        if (len && p[len - 1] == '\r')
            --len;
        if (len > chunk.maxLineBytes)
            diagnostics.warn(line, overLongLineMessage(len, chunk.maxLineBytes));
        else
            f(std::string_view(p, len), line);
        ++line;
        p = nl ? nl + 1 : end;
    }
    return line - 1;
}

/// True when s is valid UTF-8.
bool isValidUtf8(std::string_view s);

} // namespace scorch::detail
