// FlamePalette: the flame graph's frame colours as QRgb, cached per frame id. The colour choice itself is
// core's (scorch/flamecolors.h), shared with the SVG writer so an export looks like the window.
#pragma once

#include "scorch/flamecolors.h"

#include <QColor>
#include <QPalette>

#include <vector>

namespace scorch {

/// Colours of one scheme over one profile, cached per frame id. Not thread-safe (GUI thread only).
class FlamePalette {
public:
    void reset(const Profile* profile, FlameColorScheme scheme, const QPalette& palette);

    /// Switches to the differential scheme over `tree` (a diff profile's tree with before/after/delta
    /// costs, the one that is drawn); call after reset(). The colour scale spans the largest |delta|.
    void setDiff(const CallTree* tree, const DiffColoring& coloring) { m_colors.setDiff(tree, coloring); }
    bool isDifferential() const { return m_colors.isDifferential(); }
    /// Hot/cold over the drawn tree (FlameColors::setHotCold); call after reset().
    void setHotCold(const CallTree* tree, std::size_t drawnType) { m_colors.setHotCold(tree, drawnType); }
    /// The off-CPU share [0, 1] of a node (drawn cool at the right end of its box); 0 unless hot/cold.
    double coldShare(NodeId node) const { return m_colors.coldShare(node); }
    QRgb coldColor(FrameId frame) const { return toQRgb(m_colors.coldColor(frame)); }
    /// The core colours this palette caches (scheme, theme, diff scale).
    const FlameColors& colors() const { return m_colors; }

    /// Fill colour of a frame.
    QRgb frameColor(FrameId frame) const;
    /// Fill colour of a node of the drawn tree: by its frame, or by its delta in the differential scheme.
    QRgb nodeColor(const CallTree& tree, NodeId node) const {
        return m_colors.isDifferential() ? toQRgb(m_colors.nodeColor(tree, node))
                                         : frameColor(tree.frame(node));
    }
    /// Added and removed frames (differential scheme) are drawn with diagonal stripes of this colour over
    /// their fill; 0 = no stripes.
    QRgb hatchColor(NodeId node, QRgb fill) const;

    /// The differential colour of a delta: neutral grey for 0, towards red (> 0) or blue (< 0) as |delta|
    /// approaches `maxAbs`.
    static QRgb diffColor(int64_t delta, int64_t maxAbs) {
        return toQRgb(FlameColors::diffColor(delta, maxAbs));
    }
    static QRgb neutralDiffColor() { return toQRgb(FlameColors::neutralDiffColor()); }
    /// Merged runs of tiny frames.
    QRgb mergedColor() const { return toQRgb(m_colors.mergedColor()); }
    /// Frames matching the search.
    QRgb matchColor() const { return toQRgb(FlameColors::matchColor()); }
    /// Background of the chart.
    QRgb background() const { return toQRgb(m_colors.theme().base); }
    /// `color` faded towards the background (non-matching frames while searching).
    QRgb dimmed(QRgb color) const { return toQRgb(m_colors.dimmed(fromQRgb(color))); }
    /// Black or white, whichever reads better on `background`.
    static QRgb textColorOn(QRgb background) {
        return toQRgb(FlameColors::textColorOn(fromQRgb(background)));
    }

    /// The colour of a frame without caching (used by tests and the legend).
    static QRgb computeColor(const Profile& profile, FrameId frame, FlameColorScheme scheme,
                             const QPalette& palette) {
        return toQRgb(FlameColors::frameColor(profile, frame, scheme, themeOf(palette)));
    }
    /// The core theme of a widget palette (base, text, button, highlight of the active group).
    static FlameTheme themeOf(const QPalette& palette);

    static QRgb toQRgb(Rgb c) { return qRgb(c.r, c.g, c.b); }
    static Rgb fromQRgb(QRgb c) {
        return {static_cast<uint8_t>(qRed(c)), static_cast<uint8_t>(qGreen(c)),
                static_cast<uint8_t>(qBlue(c))};
    }

private:
    FlameColors m_colors;
    mutable std::vector<QRgb> m_cache; // 0 = not computed yet (computed colours are opaque)
};

} // namespace scorch
