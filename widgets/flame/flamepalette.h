// FlamePalette: deterministic frame colours for the flame graph (same name -> same colour in every run).
#pragma once

#include "scorch/diff.h"
#include "scorch/profile.h"

#include <QColor>
#include <QPalette>

#include <vector>

namespace scorch {

enum class FlameColorScheme {
    Hot,          ///< flamegraph.pl's warm palette, hashed by function name
    Module,       ///< one hue per module (DSO), hashed by module path
    Kind,         ///< by frame kind: native, kernel, JIT, inlined, unknown, process
    System,       ///< shades of the widget palette (follows light/dark themes)
    Differential, ///< a diff profile: red (grew) / blue (shrank) by delta, hatched when added or removed
};

/// How the differential scheme reads a diff profile's tree (see scorch/diff.h).
struct DiffColoring {
    DiffMetric metric = DiffMetric::Total;
    int64_t greyBelow = 0; ///< |delta| below this is drawn neutral (the noise floor)
    friend bool operator==(const DiffColoring&, const DiffColoring&) = default;
};

/// Colours of one scheme over one profile, cached per frame id. Not thread-safe (GUI thread only).
class FlamePalette {
public:
    void reset(const Profile* profile, FlameColorScheme scheme, const QPalette& palette);

    /// Switches to the differential scheme over `tree` (a diff profile's tree with before/after/delta
    /// costs, the one that is drawn); call after reset(). The colour scale spans the largest |delta|.
    void setDiff(const CallTree* tree, const DiffColoring& coloring);
    bool isDifferential() const { return m_diffTree != nullptr; }

    /// Fill colour of a frame.
    QRgb frameColor(FrameId frame) const;
    /// Fill colour of a node of the drawn tree: by its frame, or by its delta in the differential scheme.
    QRgb nodeColor(const CallTree& tree, NodeId node) const {
        return m_diffTree ? diffNodeColor(node) : frameColor(tree.frame(node));
    }
    /// Added and removed frames (differential scheme) are drawn with diagonal stripes of this colour over
    /// their fill; 0 = no stripes.
    QRgb hatchColor(NodeId node, QRgb fill) const;

    /// The differential colour of a delta: neutral grey for 0, towards red (> 0) or blue (< 0) as |delta|
    /// approaches `maxAbs`.
    static QRgb diffColor(int64_t delta, int64_t maxAbs);
    static QRgb neutralDiffColor() { return qRgb(221, 221, 216); }
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
    QRgb diffNodeColor(NodeId node) const;
    const CallTree* m_diffTree = nullptr;
    DiffColoring m_diff;
    int64_t m_maxAbsDelta = 0;
};

} // namespace scorch
