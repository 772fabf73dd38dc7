// libFuzzer target: pprof profile.proto (detection bypassed; gzip is still undone by magic).
#include "fuzzcommon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    return fuzzImport(data, size, scorch::Format::Pprof);
}
