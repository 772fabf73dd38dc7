// Exporters: a Profile written in formats other tools open — speedscope JSON, pprof (profile.proto) and a
// self-contained interactive flame graph SVG. Every writer streams to an std::ostream; writeFileAtomically()
// puts the result in place with a temporary file and a rename, never over the profile's input file.
#pragma once

#include "scorch/flamecolors.h"
#include "scorch/profile.h"

#include <functional>
#include <iosfwd>
#include <stdexcept>
#include <string>

namespace scorch {

/// Writing failed (unwritable target, target is the input, stream error). what() names the file.
class ExportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct SpeedscopeOptions {
    int costType = 0; ///< the cost type written as weights (speedscope has one unit per profile)
    /// When set, each stack is written once per sample it stands for (its value in this cost type, which
    /// should count samples), its weight split over them; else once with its whole weight.
    int sampleCountType = -1;
    std::string name; ///< the file's name field; empty = the input's file name
};

/// speedscope's file format: one shared frame list (name, file, line), one sampled profile per thread
/// (stacks root first, weights of the same length, unit from the cost type's unit).
void writeSpeedscope(const Profile& profile, const SpeedscopeOptions& options, std::ostream& out);

struct PprofOptions {
    bool gzip = true; ///< `go tool pprof` reads gzip-compressed and plain protobuf alike
};

/// pprof's profile.proto: one sample_type per cost type, one sample per (thread, stack) with a `thread`
/// label (and `pid`/`tid` when known), locations whose inlined frames are extra lines, a mapping per module.
/// Costs with decimals are written in their fixed-point scale (a comment says so).
void writePprof(const Profile& profile, const PprofOptions& options, std::ostream& out);

/// The SVG's colours are the window's (scorch/flamecolors.h): every scheme there, by the same names.
using SvgPalette = FlameColorScheme;
/// The palette named `name` ("hot", "module", "mem", ...); false when there is none of that name.
inline bool svgPaletteFromName(std::string_view name, SvgPalette& palette) {
    return flameColorSchemeFromName(name, palette);
}
/// All palette names, separated by '|'.
inline std::string_view svgPaletteNames() {
    return flameColorSchemeNames();
}

struct SvgOptions {
    int costType = 0;
    std::string title = "Flame Graph";
    std::string subtitle;
    bool inverted = false; ///< icicle: roots at the top
    SvgPalette palette = SvgPalette::Hot;
    FlameTheme theme;     ///< colours of the System scheme and of merged blocks (the window passes its own)
    DiffColoring diff;    ///< how the differential scheme reads a diff profile
    int width = 1200;     ///< image width in pixels
    int frameHeight = 16; ///< height of one frame row
    double minWidth =
        1.0; ///< frames narrower than this (pixels) merge with narrow neighbours (as in the chart)
    std::string countName; ///< what values count ("samples"); empty = from the cost type
};

/// A self-contained SVG flame graph with its own script: click to zoom, reset zoom, search (regular
/// expression) with "Matched: x%", tooltips. Frames are FlameLayout's blocks at the image width (the
/// window's level of detail): adjacent siblings narrower than minWidth are drawn as one grey block of their
/// combined width (their descendants are left out), so the file stays small for any profile.
void writeFlameGraphSvg(const Profile& profile, const SvgOptions& options, std::ostream& out);

/// Writes `target` through `write` into a temporary file beside it, then renames it over `target`. Refuses
/// when `target` is the same file as `input` (compared by path and by device/inode). Throws ExportError
/// naming the file and the reason ("out.json: cannot write (No space left on device)"). The temporary file
/// has no name where the file system allows (O_TMPFILE: `kill -9` leaves nothing), is removed on SIGINT,
/// SIGTERM and SIGHUP otherwise, and the data and directory are fsynced (util/atomicfile.h).
void writeFileAtomically(const std::string& target, const std::string& input,
                         const std::function<void(std::ostream&)>& write);

} // namespace scorch
