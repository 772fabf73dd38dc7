// Internal: the line-oriented text formats (perf script output, folded stacks): their sniffers and importers
// (entries of the importer table in import/import.cpp), and what they share.
#pragma once

#include "io/chunkpipeline.h"

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace scorch::detail {

/// perf script output (perfscript.cpp).
bool sniffPerfScript(std::string_view head);
Profile importPerfScript(ByteSource& source, std::string head, const std::string& name,
                         const ImportOptions& options, const ImportControl& control);
/// Folded stacks, `frames COUNT` per line (foldedimport.cpp).
bool sniffFolded(std::string_view head);
Profile importFolded(ByteSource& source, std::string head, const std::string& name,
                     const ImportOptions& options, const ImportControl& control);
/// Differential folded stacks, `frames BEFORE AFTER` per line, as difffolded.pl writes them
/// (foldedimport.cpp).
bool sniffFoldedDiff(std::string_view head);
Profile importFoldedDiff(ByteSource& source, std::string head, const std::string& name,
                         const ImportOptions& options, const ImportControl& control);

// What the sniffers share: each format's own line test, used by the other's sniffer too (a line that looks
// like perf script is not counted against folded stacks, and the reverse).

/// An event header or a frame line of perf script output (perfscript.cpp).
bool looksLikePerfScriptLine(std::string_view line);
/// How many counts (0, 1 or 2) end a line read as folded stacks, after at least one frame (foldedimport.cpp).
int foldedCounts(std::string_view line);

/// Calls f(line) for the first 400 lines of the head that are neither empty nor `#` comments, without their
/// trailing white space; a head of kDetectBytes or more is cut after its last complete line.
void forEachHeadLine(std::string_view head, const std::function<void(std::string_view)>& f);

/// Runs the chunk pipeline over the input and freezes the result into a profile of `format` (textimport.cpp);
/// `finishBuilder` adds what needs the whole input (off-CPU intervals across chunks) to the merged builder.
Profile importLines(ByteSource& source, std::string head, const std::string& name,
                    const ImportOptions& options, const ImportControl& control, Format format,
                    Boundary boundary, const std::function<std::unique_ptr<ChunkParser>()>& makeParser,
                    const std::function<void(TreeBuilder&, ProfileMeta&)>& finishBuilder = {});

} // namespace scorch::detail
