// libFuzzer target: format detection on arbitrary bytes.
#include "scorch/import.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const scorch::Format f =
        scorch::detectFormat(std::string_view(reinterpret_cast<const char*>(data), size));
    return scorch::formatName(f).empty() ? 1 : 0;
}
