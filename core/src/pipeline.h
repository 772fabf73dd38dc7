// Internal: the streaming, parallel import pipeline shared by the text importers.
//
// A reader (the calling thread) pulls bytes from a ByteSource, cuts them into chunks of about
// ImportOptions::chunkBytes on record boundaries, and hands them to worker threads. Each worker owns one
// ChunkParser and one TreeBuilder for its whole life; at the end the builders are merged. Memory stays
// bounded by (queue length x chunk size) plus the builders, whatever the input size.
#pragma once

#include "scorch/builder.h"
#include "scorch/bytesource.h"
#include "scorch/import.h"

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace scorch::detail {

struct Chunk {
    std::string_view text;  ///< whole lines (the last line may lack its '\n' at the end of input)
    uint64_t index = 0;     ///< 0, 1, 2, ... in input order
    uint64_t firstLine = 1; ///< 1-based line number of the chunk's first line
};

/// Warnings of one worker: all are counted, the first few kept.
class Diagnostics {
public:
    void warn(uint64_t line, std::string message);
    void merge(Diagnostics&& other);
    uint64_t count() const { return m_count; }
    /// Sorted by line, at most ProfileMeta::kMaxKeptWarnings.
    std::vector<ImportWarning> kept() const;

private:
    uint64_t m_count = 0;
    std::vector<ImportWarning> m_kept;
};

class ChunkParser {
public:
    virtual ~ChunkParser() = default;
    virtual void parse(const Chunk& chunk, TreeBuilder& builder, Diagnostics& diagnostics) = 0;
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

/// Calls f(line, lineNumber) for each line of the chunk, without the '\n' and a trailing '\r'.
template <typename F>
void forEachLine(const Chunk& chunk, F&& f) {
    const char* p = chunk.text.data();
    const char* end = p + chunk.text.size();
    uint64_t line = chunk.firstLine;
    while (p < end) {
        const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
        const char* stop = nl ? nl : end;
        std::size_t len = static_cast<std::size_t>(stop - p);
        if (len && p[len - 1] == '\r')
            --len;
        f(std::string_view(p, len), line);
        ++line;
        p = nl ? nl + 1 : end;
    }
}

/// True when s is valid UTF-8.
bool isValidUtf8(std::string_view s);

std::unique_ptr<ChunkParser> makePerfScriptParser(const ImportOptions& options);
std::unique_ptr<ChunkParser> makeFoldedParser(bool differential);

} // namespace scorch::detail
