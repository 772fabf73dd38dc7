// FlameColors: the one choice of flame graph colours (frame -> RGB for every scheme), shared by the window's
// palette (widgets/flame/flamepalette.h converts to QColor) and the SVG writer, so an exported flame graph
// is coloured exactly as the window shows it. Deterministic: the same name gives the same colour in every
// run.
#pragma once

#include "scorch/diff.h"
#include "scorch/profile.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace scorch {

struct Rgb {
    uint8_t r = 0, g = 0, b = 0;
    friend bool operator==(const Rgb&, const Rgb&) = default;
};

/// `a` moved towards `b` by t in [0, 1].
Rgb mixRgb(Rgb a, Rgb b, double t);
/// "rgb(r,g,b)" as CSS and SVG write it.
std::string cssRgb(Rgb c);

enum class FlameColorScheme {
    Hot,          ///< flamegraph.pl's warm palette, hashed by function name
    Module,       ///< one hue per module (DSO), hashed by module path
    Kind,         ///< by frame kind: native, kernel, JIT, inlined, unknown, process
    System,       ///< shades of the theme's colours (the window follows light/dark themes)
    Differential, ///< a diff profile: red (grew) / blue (shrank) by delta, hatched when added or removed
    // flamegraph.pl's other palettes (svg --colors): one colour family each, java/js by language
    Mem,
    Io,
    Java,
    Js,
    Red,
    Green,
    Blue,
    Aqua,
    Yellow,
    Purple,
    Orange,
};
/// The scheme named `name` ("hot", "module", "kind", "system", "diff", "mem", ...); false when none is.
bool flameColorSchemeFromName(std::string_view name, FlameColorScheme& scheme);
/// All scheme names, separated by '|'.
std::string_view flameColorSchemeNames();

/// The theme colours the System scheme, merged blocks and the background derive from. The defaults are
/// Qt's light Fusion palette, which the SVG writer uses unless told otherwise.
struct FlameTheme {
    Rgb base{255, 255, 255};
    Rgb text{0, 0, 0};
    Rgb button{239, 239, 239};
    Rgb highlight{48, 140, 198};
    friend bool operator==(const FlameTheme&, const FlameTheme&) = default;
};

/// How the differential scheme reads a diff profile's tree (see scorch/diff.h).
struct DiffColoring {
    DiffMetric metric = DiffMetric::Total;
    int64_t greyBelow = 0; ///< |delta| below this is drawn neutral (the noise floor)
    friend bool operator==(const DiffColoring&, const DiffColoring&) = default;
};

/// Colours of one scheme over one profile. Cheap to copy except for nothing cached; thread-compatible.
class FlameColors {
public:
    FlameColors() = default;
    FlameColors(const Profile* profile, FlameColorScheme scheme, const FlameTheme& theme = {});

    /// Switches to the differential scheme over `tree` (a diff profile's tree with before/after/delta
    /// costs, the one that is drawn). The colour scale spans the largest |delta|. A tree without a delta
    /// cost leaves the scheme as it was.
    void setDiff(const CallTree* tree, const DiffColoring& coloring);
    bool isDifferential() const { return m_diffTree != nullptr; }

    FlameColorScheme scheme() const { return m_scheme; }
    const FlameTheme& theme() const { return m_theme; }

    /// Hot/cold (Brendan Gregg's hot/cold flame graphs): a profile with off-CPU time (cost types `off-cpu`
    /// and `wall`) drawn by one of them in the Hot scheme. Each frame is drawn warm for its on-CPU part and,
    /// at its right end, cool blue for its off-CPU share of `drawnType` (all of it when drawn by off-cpu).
    /// Nothing changes when the profile has no such cost types, the drawn type is another or the scheme is
    /// not Hot. `tree` is the drawn tree (cost types as in the profile).
    void setHotCold(const CallTree* tree, std::size_t drawnType);
    bool isHotCold() const { return m_coldTree != nullptr; }
    /// The off-CPU share [0, 1] of a node's drawn cost; 0 unless hot/cold.
    double coldShare(NodeId node) const;
    /// The cool colour of a frame's off-CPU part (the blue palette, by name).
    Rgb coldColor(FrameId frame) const;
    /// The off-cpu and wall cost types of a profile, if it has both.
    static bool offCpuTypes(const Profile& profile, std::size_t& offType, std::size_t& wallType);

    /// Fill colour of a frame (by name, module or kind).
    Rgb frameColor(FrameId frame) const;
    /// Fill colour of a node of the drawn tree: by its frame, or by its delta in the differential scheme.
    Rgb nodeColor(const CallTree& tree, NodeId node) const;
    /// Added and removed frames (differential scheme) are drawn with stripes of this colour over `fill`.
    std::optional<Rgb> hatchColor(NodeId node, Rgb fill) const;

    /// Merged runs of tiny frames.
    Rgb mergedColor() const { return mixRgb(m_theme.base, m_theme.text, 0.28); }
    /// Frames matching the search (flamegraph.pl's search highlight).
    static Rgb matchColor() { return {230, 0, 230}; }
    /// `color` faded towards the background (non-matching frames while searching).
    Rgb dimmed(Rgb color) const { return mixRgb(color, m_theme.base, 0.7); }

    /// The colour of a frame in a scheme, computed from scratch.
    static Rgb frameColor(const Profile& profile, FrameId frame, FlameColorScheme scheme,
                          const FlameTheme& theme = {});
    /// The differential colour of a delta: neutral grey for 0, towards red (> 0) or blue (< 0) as |delta|
    /// approaches `maxAbs`.
    static Rgb diffColor(int64_t delta, int64_t maxAbs);
    static Rgb neutralDiffColor() { return {221, 221, 216}; }
    /// Black or white, whichever reads better on `background`.
    static Rgb textColorOn(Rgb background);

private:
    const Profile* m_profile = nullptr;
    FlameColorScheme m_scheme = FlameColorScheme::Hot;
    FlameTheme m_theme;
    const CallTree* m_diffTree = nullptr;
    DiffColoring m_diff;
    int64_t m_maxAbsDelta = 0;
    const CallTree* m_coldTree = nullptr;
    std::size_t m_offType = 0, m_wallType = 0;
    bool m_allCold = false; ///< drawn by off-cpu
};

} // namespace scorch
