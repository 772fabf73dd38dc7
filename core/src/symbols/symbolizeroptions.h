// Internal: the symbolizer's options for raw addresses under an import's options (ImportOptions::symbolize,
// threads, search paths, debug directories, sysroot).
#pragma once

#include "scorch/import.h"
#include "scorch/symbolizer.h"

namespace scorch::detail {

/// `control` supplies the cancel flag and the status callback (debuginfod transfers).
SymbolizerOptions symbolizerOptions(const ImportOptions& options, const ImportControl& control);

} // namespace scorch::detail
