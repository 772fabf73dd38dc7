// Internal: the JSON importers (speedscope, Chrome .cpuprofile and trace events, d3) and their sniffers
// (jsonsniff.cpp): entries of the importer table in import/import.cpp.
#pragma once

#include "scorch/builder.h"
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

/// Freezes what a JSON importer built: `meta` holds its warnings, this adds where the profile came from.
inline Profile finishJson(TreeBuilder& builder, ProfileMeta meta, Format format, const std::string& name,
                          const ByteSource& source, uint64_t bytes) {
    meta.source = name;
    meta.format = format;
    meta.compression = source.compression();
    meta.inputBytes = bytes;
    return builder.finish(std::move(meta));
}

/// Whether the head starts a document of that format (given that it is not binary data).
bool sniffSpeedscope(std::string_view head);
bool sniffChromeCpuProfile(std::string_view head);
bool sniffChromeTrace(std::string_view head);
bool sniffD3Json(std::string_view head);
/// JSON that is none of the above: refuseOtherJson says which JSON Scorch reads.
bool sniffOtherJson(std::string_view head);
[[noreturn]] Profile refuseOtherJson(ByteSource& source, std::string head, const std::string& name,
                                     const ImportOptions& options, const ImportControl& control);

} // namespace scorch::detail
