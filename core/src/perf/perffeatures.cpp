// Feature sections: see perffeatures.h.
#include "perf/perffeatures.h"

namespace scorch::detail {

using namespace perf;

void readBuildIdEntry(uint16_t misc, Cursor& e, FeatureSink& sink) {
    e.skip(4); // pid
    const std::string_view id = e.bytes(24);
    std::string_view path = e.bytes(e.left());
    path = path.substr(0, path.find('\0'));
    // With PERF_RECORD_MISC_BUILD_ID_SIZE byte 20 holds the length; otherwise 20 bytes (SHA-1).
    std::size_t len = 20;
    if ((misc & kMiscBuildIdSize) && static_cast<unsigned char>(id[20]) <= 20)
        len = static_cast<unsigned char>(id[20]);
    sink.buildId(path, id.substr(0, len));
}

void readFeature(unsigned bit, Cursor c, FeatureSink& sink) {
    switch (bit) {
    case FeatTracingData:
        sink.tracingData(c.bytes(c.left()));
        break;
    case FeatHostname:
        sink.note("hostname", c.string());
        break;
    case FeatOsRelease:
        sink.note("os release", c.string());
        break;
    case FeatVersion:
        sink.note("perf version", c.string());
        break;
    case FeatArch:
        sink.architecture(c.string());
        break;
    case FeatNrCpus: {
        const uint32_t online = c.u32(), available = c.u32();
        sink.note("cpus", std::to_string(available) + " online " + std::to_string(online));
        break;
    }
    case FeatCpuDesc:
        sink.note("cpu", c.string());
        break;
    case FeatCmdline: {
        const uint32_t n = c.u32();
        std::string line;
        for (uint32_t i = 0; i < n && i < 4096; ++i)
            line += (i ? " " : "") + c.string();
        sink.note("command line", line);
        break;
    }
    case FeatEventDesc: {
        const uint32_t n = c.u32(), attrSize = c.u32();
        for (uint32_t i = 0; i < n; ++i) {
            c.skip(attrSize);
            const uint32_t ids = c.u32();
            std::string name = c.string();
            c.skip(uint64_t(ids) * 8);
            sink.eventName(i, std::move(name));
        }
        break;
    }
    case FeatBuildId:
        while (c.left() >= 8) {
            const uint64_t at = c.offset();
            c.skip(4);
            const uint16_t misc = c.get<uint16_t>();
            const uint16_t size = c.get<uint16_t>();
            if (size < 8 + 4 + 24 || size - 8u > c.left()) {
                sink.warn(at, "corrupt build-id entry");
                break;
            }
            Cursor e(c.bytes(size - 8u), at + 8, c.name());
            readBuildIdEntry(misc, e, sink);
        }
        break;
    default:
        break;
    }
}

} // namespace scorch::detail
