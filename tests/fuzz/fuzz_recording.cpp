// libFuzzer target: the Scorch recording parser. Bad input may throw ImportError; nothing may crash, leak or
// hang, and whatever parses serializes back to bytes that parse to the same recording.
#include "scorch/import.h"
#include "scorch/recording.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    using namespace scorch;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    try {
        const Recording r = parseRecording(bytes, "fuzz");
        const Recording again = parseRecording(serializeRecording(r), "fuzz");
        if (again.samples.size() != r.samples.size() || again.ips != r.ips ||
            again.modules.size() != r.modules.size() || again.threads.size() != r.threads.size())
            std::abort();
        for (const RecordedSample& s : r.samples)
            if (std::size_t(s.first) + s.count > r.ips.size())
                std::abort();
    } catch (const ImportError&) {
    }
    return 0;
}
