// Internal: Scorch recordings as an entry of the importer table (import/import.cpp): the sniffer and the
// importer (recording_profile.cpp).
#pragma once

#include "scorch/import.h"

#include <string>
#include <string_view>

namespace scorch::detail {

/// A recording starts with kRecordingMagic.
bool sniffRecording(std::string_view head);
/// Reads the whole recording, then symbolizes it like profileFromRecording.
Profile importRecording(ByteSource& source, std::string head, const std::string& name,
                        const ImportOptions& options, const ImportControl& control);

} // namespace scorch::detail
