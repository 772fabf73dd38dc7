// Internal: the feature sections of a perf.data file (host, perf version, architecture, command line,
// event names, build-ids) and the build-id entries that pipe-mode files send as records.
#pragma once

#include "perf/perfformat.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace scorch::detail {

/// What the feature sections say, in the order they say it (a damaged section may stop half-way).
class FeatureSink {
public:
    virtual ~FeatureSink() = default;
    /// A line for the profile's recording details ("hostname", ...).
    virtual void note(std::string key, std::string value) = 0;
    /// The recording machine's architecture (also noted).
    virtual void architecture(const std::string& arch) = 0;
    virtual void eventName(std::size_t event, std::string name) = 0;
    /// A file's build-id, raw bytes (`path` lives as long as the section's bytes).
    virtual void buildId(std::string_view path, std::string_view id) = 0;
    virtual void warn(uint64_t offset, std::string message) = 0;
    /// The tracing data (tracepoint formats), as perf wrote it.
    virtual void tracingData(std::string_view bytes) = 0;
};

/// Reads feature section `bit`; unknown sections are ignored. Throws ImportError on a damaged section.
void readFeature(unsigned bit, perf::Cursor c, FeatureSink& sink);

/// One build-id entry (feature section or pipe-mode record) after its header: gives (path, raw id bytes).
void readBuildIdEntry(uint16_t misc, perf::Cursor& e, FeatureSink& sink);

} // namespace scorch::detail
