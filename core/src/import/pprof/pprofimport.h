// Internal: the pprof (profile.proto) importer and its sniffer: an entry of the importer table in
// import/import.cpp.
#pragma once

#include "scorch/bytesource.h"
#include "scorch/import.h"

#include <string>
#include <string_view>

namespace scorch::detail {

/// pprof profile.proto (raw; gzip is undone by the ByteSource).
Profile importPprof(ByteSource& source, std::string head, const std::string& name,
                    const ImportOptions& options, const ImportControl& control);
/// True when `head` (the first bytes of the input) has the wire structure of a profile.proto message.
bool sniffPprof(std::string_view head);

} // namespace scorch::detail
