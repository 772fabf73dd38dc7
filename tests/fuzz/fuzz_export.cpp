// libFuzzer target for the exporters: any input (format detected) that imports is written as speedscope,
// pprof (gzip and plain) and interactive SVG with options taken from the input; the speedscope and pprof
// outputs are read back and must keep the total; the folded output keeps every stack on its line and names
// escaped for a terminal are printable. Nothing may crash, leak or hang.
#include "scorch/bytesource.h"
#include "scorch/export.h"
#include "scorch/foldedwriter.h"
#include "scorch/import.h"
#include "scorch/safetext.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>

namespace {

using namespace scorch;

Profile reimport(const std::string& bytes) {
    ImportOptions options;
    options.threads = 1;
    options.symbolize = false;
    return importProfile(memoryByteSource(bytes, "fuzz-out"), "fuzz-out", options);
}

/// A total in `decimals` decimals, or nothing when the value is too large to compare after a trip through
/// doubles (speedscope weights are JSON numbers).
bool scaled(int64_t v, int from, int to, int64_t& out) {
    if (to < from || to - from > 6 || std::llabs(v) > (int64_t{1} << 40))
        return false;
    out = v * pow10(to - from);
    return true;
}

/// Every self cost of cost type t is small enough that no sum saturates or loses precision as a double.
bool small(const Profile& p, std::size_t t) {
    for (int64_t v : p.tree.selfCosts(t)) // (a copy)
        if (std::llabs(v) > (int64_t{1} << 40))
            return false;
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    ImportOptions options;
    options.chunkBytes = 4096;
    options.maxLineBytes = 1 << 16;
    options.threads = 1;
    options.symbolize = false; // deterministic and fast: nothing read from the installed binaries
    Profile p;
    try {
        p = importProfile(memoryByteSource(std::string(reinterpret_cast<const char*>(data), size), "fuzz"),
                          "fuzz", options);
    } catch (const ImportError&) {
        return 0;
    }
    if (p.costTypes.empty())
        return 0;
    const int type = static_cast<int>(size % p.costTypes.size());

    SvgOptions svg;
    svg.costType = type;
    svg.inverted = size % 2 == 0;
    svg.width = 100 + static_cast<int>(size % 2000);
    svg.minWidth = static_cast<double>(size % 7) / 3.0;
    svg.palette = static_cast<SvgPalette>(size % 16);
    svg.title = std::string(reinterpret_cast<const char*>(data), std::min<std::size_t>(size, 40));
    std::ostringstream svgOut;
    writeFlameGraphSvg(p, svg, svgOut);

    SpeedscopeOptions speedscope;
    speedscope.costType = type;
    const bool counts = p.costTypes[static_cast<std::size_t>(type)].unit == CostUnit::Samples &&
                        p.tree.grandTotal(static_cast<std::size_t>(type)) < 100000;
    if (counts)
        speedscope.sampleCountType = type;
    std::ostringstream json;
    writeSpeedscope(p, speedscope, json);
    const bool comparable = small(p, static_cast<std::size_t>(type));
    try {
        const Profile q = reimport(json.str());
        const int from = p.costTypes[static_cast<std::size_t>(type)].decimals;
        const int to = std::max(from, q.costTypes.empty() ? 0 : q.costTypes[0].decimals);
        int64_t a = 0, b = 0;
        if (comparable && !q.costTypes.empty() &&
            scaled(p.tree.grandTotal(static_cast<std::size_t>(type)), from, to, a) &&
            scaled(q.tree.grandTotal(0), q.costTypes[0].decimals, to, b) && a != b)
            std::abort(); // the speedscope output lost or invented cost
    } catch (const ImportError&) {
        if (p.tree.grandTotal(static_cast<std::size_t>(type)) != 0 && comparable)
            std::abort(); // our own speedscope output must import (it has no profiles only when all is zero)
    }

    for (bool gzip : {true, false}) {
        PprofOptions pprof;
        pprof.gzip = gzip;
        std::ostringstream pb;
        writePprof(p, pprof, pb);
        try {
            const Profile q = reimport(pb.str());
            for (std::size_t t = 0; t < p.costTypes.size() && t < q.costTypes.size(); ++t)
                if (small(p, t) && q.tree.grandTotal(t) != p.tree.grandTotal(t))
                    std::abort(); // the pprof output lost or invented cost
        } catch (const ImportError&) {
            // the pprof importer may not recognise an unusual file (very deep stacks) by its first bytes
        }
    }

    // Folded output stays folded: no control character but the line ends, whatever the names hold.
    FoldedOptions folded;
    folded.costType = type;
    std::ostringstream stacks;
    writeFolded(p, folded, stacks);
    for (const char c : stacks.str())
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7F)
            std::abort(); // a name broke out of its line
    // Names shown on a terminal are one line of printable text.
    for (std::size_t f = 0; f < p.frames.size(); ++f) {
        const std::string shown = escapeText(p.frameName(FrameId{static_cast<uint32_t>(f)}));
        for (const char c : shown)
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F)
                std::abort();
        if (needsEscape(shown))
            std::abort();
    }
    return 0;
}
