// FlamePalette: deterministic frame colours for the flame graph (same name -> same colour in every run).
#pragma once

#include "scorch/profile.h"

#include <QColor>
#include <QPalette>

#include <vector>

namespace scorch {

enum class FlameColorScheme {
    Hot,    ///< flamegraph.pl's warm palette, hashed by function name
    Module, ///< one hue per module (DSO), hashed by module path
    Kind,   ///< by frame kind: native, kernel, JIT, inlined, unknown, process
    System, ///< shades of the widget palette (follows light/dark themes)
};

/// Colours of one scheme over one profile, cached per frame id. Not thread-safe (GUI thread only).
class FlamePalette {
public:
    void reset(const Profile* profile, FlameColorScheme scheme, const QPalette& palette);

    /// Fill colour of a frame.
    QRgb frameColor(FrameId frame) const;
    /// Merged runs of tiny frames.
    QRgb mergedColor() const { return m_merged; }
    /// Frames matching the search.
    QRgb matchColor() const { return m_match; }
    /// Background of the chart.
    QRgb background() const { return m_background; }
    /// `color` faded towards the background (non-matching frames while searching).
    QRgb dimmed(QRgb color) const;
    /// Black or white, whichever reads better on `background`.
    static QRgb textColorOn(QRgb background);

    /// The colour of a frame without caching (used by tests and the legend).
    static QRgb computeColor(const Profile& profile, FrameId frame, FlameColorScheme scheme,
                             const QPalette& palette);

private:
    const Profile* m_profile = nullptr;
    FlameColorScheme m_scheme = FlameColorScheme::Hot;
    QPalette m_palette;
    mutable std::vector<QRgb> m_cache; // 0 = not computed yet (computed colours are opaque)
    QRgb m_merged = 0, m_match = 0, m_background = 0;
};

} // namespace scorch
