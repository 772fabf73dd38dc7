// Internal: the JSON importers (speedscope, Chrome .cpuprofile and trace events, d3) and the sniffer that
// tells them apart.
#pragma once

#include "scorch/bytesource.h"
#include "scorch/import.h"

#include <string>
#include <string_view>

namespace scorch::detail {

/// speedscope JSON (not chunk-parallel: the document is walked as one stream).
Profile importSpeedscope(ByteSource& source, std::string head, const std::string& name,
                         const ImportOptions& options, const ImportControl& control);
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

} // namespace scorch::detail
