// FlameRenderer: paints a FlameLayout (frames, merged runs, labels, hover and selection outlines) into an
// image, an SVG or a widget. FlameGeometry: where rows and frames are drawn, shared with the view's hit
// testing. Neither holds view state: FlameGraphView describes what to draw in a FlameScene on every call.
#pragma once

#include "flame/flamepalette.h"
#include "scorch/flamelayout.h"
#include "scorch/profile.h"

#include <QFont>
#include <QGlyphRun>
#include <QHash>
#include <QImage>
#include <QPalette>
#include <QRawFont>
#include <QRect>
#include <QString>

#include <optional>
#include <vector>

class QIODevice;
class QFontMetricsF;
class QPainter;

namespace scorch {

/// Maps the layout's cost range and tree depths onto a rectangle (painter or widget coordinates).
struct FlameGeometry {
    static constexpr double kMinFrameWidth = 2.0; ///< pixels; narrower frames merge into grey runs

    const FlameLayout* layout = nullptr;
    bool flame = true; ///< root at the bottom (flame) or at the top (icicle)
    int rowHeight = 1;
    double viewStart = 0, viewEnd = 1; ///< cost range shown across the width
    QRect area;                        ///< where the chart is laid out

    bool valid(NodeId n) const { return !layout->isEmpty() && n < layout->tree()->size(); }
    int rowTop(uint32_t depth) const {
        return flame ? area.bottom() + 1 - (static_cast<int>(depth) + 1) * rowHeight
                     : area.top() + static_cast<int>(depth) * rowHeight;
    }
    /// The row at widget y, if it is one of the tree's rows.
    std::optional<uint32_t> depthAt(int y) const;
    FlameViewport viewport() const;
    /// Where a node is drawn (empty when it is off screen or inside a merged run).
    QRectF nodeRect(NodeId node) const;
    /// The frame or merged run drawn at a position.
    std::optional<FlameBlock> blockAt(QPoint pos) const;
};

/// Everything one paint needs besides the renderer's font caches.
struct FlameScene {
    FlameGeometry geometry;
    const Profile* profile = nullptr;
    const FlamePalette* palette = nullptr;
    const std::vector<char>* matches = nullptr; ///< per frame id; empty = no search
    NodeId selected = kRootNode;
    std::optional<NodeId> hovered; ///< outlined (on screen only)
    QFont font;
    QPalette widgetPalette; ///< outline colours
    QString rootLabel;      ///< label of the root frame
};

class FlameRenderer {
public:
    /// Drops the label cache and reshapes with `font` (new data or font change).
    void resetFont(const QFont& font);

    /// The exposed rectangle of a widget (scene geometry in widget coordinates) painted with direct pixel
    /// fills into an offscreen image of that rectangle (reused across calls), for the widget to blit.
    const QImage& paintExposed(FlameScene scene, const QRect& exposed, qreal dpr);
    /// The scene rendered into an image of the geometry's area size (area at the origin).
    QImage renderImage(const FlameScene& scene);
    /// The scene written as SVG; returns false on a write error.
    bool renderSvg(const FlameScene& scene, QIODevice* device, const QString& title);

private:
    struct Text {
        QString text;
        qreal width = 0;
        QGlyphRun run;           // shaped once; empty when the text needs fallback fonts or is not LTR
        std::vector<qreal> ends; // right edge of each glyph of `run`, for eliding without reshaping
        qreal baseline = 0;      // y of the glyphs in `run`
    };

    /// Paints the chart laid out in the scene's area (painter coordinates), only rows touching `exposed`.
    /// With `target` (the image `p` paints on, untransformed) frames are filled straight into its pixels,
    /// which is many times faster than QPainter::fillRect for tens of thousands of small rectangles; text
    /// still goes through QPainter. Without it (SVG) everything goes through QPainter.
    void paint(QPainter& p, const FlameScene& scene, const QRect& exposed, QImage* target);
    const Text& textOf(const FlameScene& scene, FrameId frame, NodeId node, const QFontMetricsF& fm);
    bool shapeSimple(Text& t) const;
    void shape(Text& t, const QFont& font, const QFontMetricsF& fm) const;
    void drawLabel(QPainter& p, const QFont& font, const Text& t, qreal x, qreal baselineY,
                   qreal avail) const;

    QRawFont m_rawFont; // the label font, for shaping simple (Latin) labels without a text layout
    QGlyphRun m_ellipsisRun;
    qreal m_ellipsisWidth = 0;
    QHash<uint32_t, Text> m_texts; // by frame id
    QImage m_buffer;               // paintExposed's offscreen image of the exposed rectangle
};

} // namespace scorch
