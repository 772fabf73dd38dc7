// libFuzzer target: d3-flame-graph hierarchical JSON (detection bypassed).
#include "fuzzcommon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    return fuzzImport(data, size, scorch::Format::D3Json);
}
