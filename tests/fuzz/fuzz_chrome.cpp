// libFuzzer target: Chrome .cpuprofile and Chrome trace events. Detection is bypassed: an input that looks
// like a .cpuprofile goes to that importer, anything else to the trace importer.
#include "fuzzcommon.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const scorch::Format format = scorch::detectFormat(text) == scorch::Format::ChromeCpuProfile
                                      ? scorch::Format::ChromeCpuProfile
                                      : scorch::Format::ChromeTrace;
    return fuzzImport(data, size, format);
}
