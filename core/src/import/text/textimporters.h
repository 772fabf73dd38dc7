// Internal: the chunk parsers of the line-oriented text formats (perf script output, folded stacks).
#pragma once

#include "io/chunkpipeline.h"

#include <memory>

namespace scorch::detail {

std::unique_ptr<ChunkParser> makePerfScriptParser(const ImportOptions& options);
/// Folded stacks; `differential` reads two counts per line (before, after), as difffolded.pl writes them.
std::unique_ptr<ChunkParser> makeFoldedParser(bool differential, const ImportOptions& options);

} // namespace scorch::detail
