// Internal: the importers of whole documents (not chunk-parallel) beside speedscope's, and their content
// sniffers for detectFormat().
#pragma once

#include "scorch/bytesource.h"
#include "scorch/import.h"
#include "scorch/symbolizer.h"
#include "textutil.h"

#include <string>
#include <string_view>

namespace scorch::detail {

/// pprof profile.proto (raw; gzip is undone by the ByteSource).
Profile importPprof(ByteSource& source, std::string head, const std::string& name,
                    const ImportOptions& options, const ImportControl& control);
/// True when `head` (the first bytes of the input) has the wire structure of a profile.proto message.
bool looksLikePprof(std::string_view head);

/// Chrome/V8 .cpuprofile (`nodes` or the older `head` shape).
Profile importChromeCpuProfile(ByteSource& source, std::string head, const std::string& name,
                               const ImportOptions& options, const ImportControl& control);
/// Chrome Trace Event Format: an array or {traceEvents: [...]}, with CPU profile events or B/E/X events.
Profile importChromeTrace(ByteSource& source, std::string head, const std::string& name,
                          const ImportOptions& options, const ImportControl& control);
/// d3-flame-graph hierarchical JSON {name, value, children}.
Profile importD3Json(ByteSource& source, std::string head, const std::string& name,
                     const ImportOptions& options, const ImportControl& control);

/// Which kind of JSON document `head` starts (a Format::Json* value, or Format::Json when unknown).
Format sniffJson(std::string_view head);

/// The symbolizer's options for raw addresses under these import options (ImportOptions::symbolize,
/// threads, search paths, debug directories, sysroot).
SymbolizerOptions symbolizerOptions(const ImportOptions& options);

} // namespace scorch::detail
