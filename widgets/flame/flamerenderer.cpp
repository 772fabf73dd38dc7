#include "flame/flamerenderer.h"

#include "common/qtprofile.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QSvgGenerator>
#include <QTextLayout>

#include <algorithm>
#include <cmath>

namespace scorch {

namespace {
constexpr int kTextPadding = 3;
} // namespace

std::optional<uint32_t> FlameGeometry::depthAt(int y) const {
    const int rel = flame ? area.bottom() - y : y - area.top();
    if (rel < 0 || layout->tree() == nullptr)
        return std::nullopt;
    const auto depth = static_cast<uint32_t>(rel / rowHeight);
    if (depth > layout->tree()->maxDepth())
        return std::nullopt;
    return depth;
}

FlameViewport FlameGeometry::viewport() const {
    FlameViewport vp;
    vp.start = viewStart;
    vp.end = viewEnd;
    vp.pixelWidth = area.width();
    vp.minFrameWidth = kMinFrameWidth;
    return vp;
}

QRectF FlameGeometry::nodeRect(NodeId node) const {
    if (!valid(node) || layout->width(node) <= 0)
        return {};
    const CallTree& tree = *layout->tree();
    const NodeId parent = tree.parent(node);
    const double scale = area.width() / std::max(1e-12, viewEnd - viewStart);
    if (node != kRootNode && static_cast<double>(layout->width(parent)) * scale < kMinFrameWidth)
        return {}; // inside a merged run
    const double x0 = (static_cast<double>(layout->offset(node)) - viewStart) * scale;
    const double x1 = x0 + static_cast<double>(layout->width(node)) * scale;
    const double l = std::max(x0, 0.0), r = std::min(x1, static_cast<double>(area.width()));
    if (r <= l)
        return {};
    return QRectF(area.left() + l, rowTop(tree.depth(node)), r - l, rowHeight - 1);
}

std::optional<FlameBlock> FlameGeometry::blockAt(QPoint pos) const {
    const auto depth = depthAt(pos.y());
    if (!depth || layout->isEmpty())
        return std::nullopt;
    FlameViewport vp = viewport();
    vp.firstDepth = vp.lastDepth = *depth;
    std::optional<FlameBlock> found;
    const double x = pos.x() - area.left();
    layout->visit(vp, [&](const FlameBlock& b) {
        if (!found && x >= std::floor(b.x) && x < std::max(b.x + b.width, std::floor(b.x) + 1))
            found = b;
    });
    return found;
}

void FlameRenderer::resetFont(const QFont& font) {
    m_texts.clear();
    m_rawFont = QRawFont::fromFont(font);
    QTextLayout layout(QStringLiteral("…"), font);
    layout.beginLayout();
    layout.createLine();
    layout.endLayout();
    const QList<QGlyphRun> runs = layout.glyphRuns();
    m_ellipsisRun = runs.size() == 1 ? runs[0] : QGlyphRun();
    m_ellipsisWidth = QFontMetricsF(font).horizontalAdvance(QStringLiteral("…"));
}

const QImage& FlameRenderer::paintExposed(FlameScene scene, const QRect& exposed, qreal dpr) {
    const QSize pixels = (QSizeF(exposed.size()) * dpr).toSize();
    if (m_buffer.size() != pixels || m_buffer.devicePixelRatio() != dpr) {
        m_buffer = QImage(pixels, QImage::Format_ARGB32_Premultiplied);
        m_buffer.setDevicePixelRatio(dpr);
    }
    {
        QPainter bp(&m_buffer);
        scene.geometry.area.translate(-exposed.topLeft());
        paint(bp, scene, QRect(QPoint(0, 0), exposed.size()), &m_buffer);
    }
    return m_buffer;
}

QImage FlameRenderer::renderImage(const FlameScene& scene) {
    const QRect area = scene.geometry.area;
    QImage image(area.size(), QImage::Format_ARGB32_Premultiplied);
    if (image.isNull())
        return image;
    QPainter p(&image);
    paint(p, scene, area, &image);
    return image;
}

bool FlameRenderer::renderSvg(const FlameScene& scene, QIODevice* device, const QString& title) {
    const QRect area = scene.geometry.area;
    QSvgGenerator svg;
    svg.setOutputDevice(device);
    svg.setSize(area.size());
    svg.setViewBox(area);
    svg.setTitle(title);
    QPainter p;
    if (!p.begin(&svg))
        return false;
    paint(p, scene, area, nullptr);
    return p.end();
}

const FlameRenderer::Text& FlameRenderer::textOf(const FlameScene& scene, FrameId frame, NodeId node,
                                                 const QFontMetricsF& fm) {
    const uint32_t key = node == kRootNode ? ~0u : frame.value;
    auto it = m_texts.find(key);
    if (it == m_texts.end()) {
        Text t;
        t.text = node == kRootNode ? scene.rootLabel : frameShortName(*scene.profile, frame);
        shape(t, scene.font, fm);
        if (m_texts.size() > 200000)
            m_texts.clear();
        it = m_texts.insert(key, t);
    }
    return *it;
}

/// Glyphs straight from the font's cmap: ~10x cheaper than QTextLayout, enough for Latin-only names
/// whose glyphs the font has. Returns false to take the general path.
bool FlameRenderer::shapeSimple(Text& t) const {
    if (!m_rawFont.isValid())
        return false;
    for (QChar c : t.text)
        if (c.unicode() >= 0x300)
            return false; // combining marks, other scripts, surrogates
    const QList<quint32> glyphs = m_rawFont.glyphIndexesForString(t.text);
    if (glyphs.size() != t.text.size() || glyphs.contains(0u))
        return false;
    const QList<QPointF> advances = m_rawFont.advancesForGlyphIndexes(glyphs, QRawFont::KernedAdvances);
    QList<QPointF> positions(glyphs.size());
    t.ends.resize(static_cast<std::size_t>(glyphs.size()));
    qreal x = 0;
    for (qsizetype i = 0; i < glyphs.size(); ++i) {
        positions[i] = QPointF(x, 0);
        x += advances[i].x();
        t.ends[static_cast<std::size_t>(i)] = x;
    }
    t.run.setRawFont(m_rawFont);
    t.run.setGlyphIndexes(glyphs);
    t.run.setPositions(positions);
    t.width = x;
    t.baseline = 0;
    return true;
}

void FlameRenderer::shape(Text& t, const QFont& font, const QFontMetricsF& fm) const {
    if (shapeSimple(t))
        return;
    t.width = fm.horizontalAdvance(t.text);
    QTextLayout layout(t.text, font);
    layout.beginLayout();
    layout.createLine();
    layout.endLayout();
    const QList<QGlyphRun> runs = layout.glyphRuns();
    if (runs.size() != 1)
        return;
    const QList<QPointF> pos = runs[0].positions();
    if (pos.isEmpty())
        return;
    t.ends.resize(static_cast<std::size_t>(pos.size()));
    for (qsizetype i = 0; i < pos.size(); ++i) {
        const qreal end = i + 1 < pos.size() ? pos[i + 1].x() : t.width;
        if (end < pos[i].x())
            return; // right-to-left: leave it to QPainter::drawText
        t.ends[static_cast<std::size_t>(i)] = end - pos[0].x();
    }
    t.run = runs[0];
    t.baseline = pos[0].y();
}

void FlameRenderer::drawLabel(QPainter& p, const QFont& font, const Text& t, qreal x, qreal baselineY,
                              qreal avail) const {
    if (t.run.isEmpty() || m_ellipsisRun.isEmpty()) {
        const QFontMetricsF fm(font);
        p.drawText(QPointF(x, baselineY),
                   t.width <= avail ? t.text : fm.elidedText(t.text, Qt::ElideLeft, avail));
        return;
    }
    const QPointF origin(x - t.run.positions().front().x(), baselineY - t.baseline);
    if (t.width <= avail) {
        p.drawGlyphRun(origin, t.run);
        return;
    }
    const auto k = std::upper_bound(t.ends.begin(), t.ends.end(), avail - m_ellipsisWidth) - t.ends.begin();
    if (k <= 0)
        return;
    QGlyphRun cut = t.run;
    cut.setGlyphIndexes(t.run.glyphIndexes().first(k));
    cut.setPositions(t.run.positions().first(k));
    p.drawGlyphRun(origin, cut);
    const QPointF e(x + t.ends[static_cast<std::size_t>(k - 1)] - m_ellipsisRun.positions().front().x(),
                    baselineY - m_ellipsisRun.positions().front().y());
    p.drawGlyphRun(e, m_ellipsisRun);
}

void FlameRenderer::paint(QPainter& p, const FlameScene& scene, const QRect& exposed, QImage* target) {
    const FlameGeometry& g = scene.geometry;
    const FlamePalette& palette = *scene.palette;
    const bool fastText = target != nullptr;
    uchar* bits = target ? target->bits() : nullptr;
    const qsizetype stride = target ? target->bytesPerLine() : 0;
    const qreal dpr = target ? target->devicePixelRatio() : 1.0;
    const QRect bounds = target ? target->rect() : QRect();
    auto fill = [&](const QRect& r, QRgb color) {
        if (!bits) {
            p.fillRect(r, QColor::fromRgb(color));
            return;
        }
        QRect dr = r;
        if (dpr != 1.0)
            dr = QRect(QPoint(static_cast<int>(std::lround(r.left() * dpr)),
                              static_cast<int>(std::lround(r.top() * dpr))),
                       QPoint(static_cast<int>(std::lround((r.right() + 1) * dpr)) - 1,
                              static_cast<int>(std::lround((r.bottom() + 1) * dpr)) - 1));
        dr &= bounds;
        for (int y = dr.top(); y <= dr.bottom(); ++y)
            std::fill_n(reinterpret_cast<QRgb*>(bits + y * stride) + dr.left(), dr.width(), color);
    };
    // Diagonal stripes (added / removed frames of a diff), 2 px of every 6, straight into the pixels.
    auto stripe = [&](const QRect& r, QRgb color) {
        if (!bits) {
            p.fillRect(r, QBrush(QColor::fromRgb(color), Qt::BDiagPattern));
            return;
        }
        const QRect dr = QRect(QPoint(static_cast<int>(std::lround(r.left() * dpr)),
                                      static_cast<int>(std::lround(r.top() * dpr))),
                               QPoint(static_cast<int>(std::lround((r.right() + 1) * dpr)) - 1,
                                      static_cast<int>(std::lround((r.bottom() + 1) * dpr)) - 1)) &
                         bounds;
        for (int y = dr.top(); y <= dr.bottom(); ++y) {
            auto* line = reinterpret_cast<QRgb*>(bits + y * stride);
            for (int x = dr.left(); x <= dr.right(); ++x)
                if ((x + y) % 6 < 2)
                    line[x] = color;
        }
    };
    fill(exposed, palette.background());
    if (g.layout->isEmpty())
        return;
    const CallTree& tree = *g.layout->tree();
    const QFontMetricsF fm(scene.font);
    p.setFont(scene.font);
    const int h = g.rowHeight;
    const double minText = fm.averageCharWidth() * 3 + 2 * kTextPadding;
    const qreal baseline = (h - 1 + fm.ascent() - fm.descent()) / 2.0;

    FlameViewport vp = g.viewport();
    const auto top = g.depthAt(exposed.top()), bottom = g.depthAt(exposed.bottom());
    const uint32_t maxDepth = tree.maxDepth();
    if (g.flame) {
        vp.firstDepth = bottom.value_or(0);
        vp.lastDepth = top.value_or(maxDepth);
    } else {
        vp.firstDepth = top.value_or(0);
        vp.lastDepth = bottom.value_or(maxDepth);
    }
    if (vp.firstDepth > maxDepth)
        return;

    const std::vector<char>& matches = *scene.matches;
    const bool searching = !matches.empty();
    auto isMatch = [&](NodeId n) {
        const FrameId f = tree.frame(n);
        return f.value < matches.size() && matches[f.value];
    };
    const double left = g.area.left(), clipL = g.area.left() - 2.0, clipR = g.area.right() + 2.0;
    // Runs of tiny frames are grey; adjacent ones in a row (also across parents) are filled at once.
    struct Pending {
        int l = 0, r = 0;
        QRgb color = 0;
    };
    std::vector<Pending> pending(std::size_t{maxDepth} + 1);
    auto flush = [&](uint32_t depth) {
        Pending& pd = pending[depth];
        if (pd.r > pd.l) // same 1px gap as frames once the run is wide enough
            fill(QRect(pd.l, g.rowTop(depth), pd.r - pd.l >= 3 ? pd.r - pd.l - 1 : pd.r - pd.l, h - 1),
                 pd.color);
        pd.r = pd.l;
    };
    QRgb lastText = 0;
    g.layout->visit(vp, [&](const FlameBlock& b) {
        const double x0 = std::max(left + b.x, clipL), x1 = std::min(left + b.x + b.width, clipR);
        const int l = static_cast<int>(std::lround(x0));
        const int r = std::max(l + 1, static_cast<int>(std::lround(x1)));
        if (b.tiny) {
            const QRgb color =
                searching && !b.merged() && isMatch(b.node) ? palette.matchColor() : palette.mergedColor();
            Pending& pd = pending[b.depth];
            if (pd.r > pd.l && pd.color == color && l <= pd.r) {
                pd.r = std::max(pd.r, r);
                return;
            }
            flush(b.depth);
            pd = {l, r, color};
            return;
        }
        const int y = g.rowTop(b.depth);
        const FrameId frame = tree.frame(b.node);
        QRgb color;
        if (searching)
            color = isMatch(b.node) ? palette.matchColor() : palette.dimmed(palette.nodeColor(tree, b.node));
        else
            color = palette.nodeColor(tree, b.node);
        const int w = r - l >= 3 ? r - l - 1 : r - l; // 1px gap between frames wide enough to show it
        fill(QRect(l, y, w, h - 1), color);
        // hot/cold: the off-CPU share of the frame, cool, at the right end of its box (of its whole box: the
        // share of a frame clipped by the view is that of the frame)
        if (const double share = palette.coldShare(b.node); share > 0 && !(searching && isMatch(b.node))) {
            const double full = b.width >= 3 ? b.width - 1 : b.width;
            const int coldLeft = std::max(l, static_cast<int>(std::lround(left + b.x + full * (1 - share))));
            const QRgb cold = searching ? palette.dimmed(palette.coldColor(frame)) : palette.coldColor(frame);
            if (coldLeft < l + w)
                fill(QRect(coldLeft, y, l + w - coldLeft, h - 1), cold);
            if (share >= 0.5) // the label reads on the larger part
                color = cold;
        }
        if (const QRgb hatch = palette.hatchColor(b.node, color))
            stripe(QRect(l, y, w, h - 1), hatch);
        if (w < minText)
            return;
        const Text& t = textOf(scene, frame, b.node, fm);
        const qreal avail = w - 2 * kTextPadding;
        const QRgb textColor = FlamePalette::textColorOn(color);
        if (textColor != lastText) {
            p.setPen(QColor::fromRgb(textColor));
            lastText = textColor;
        }
        const qreal tx = std::max<qreal>(l, left) + kTextPadding; // labels of clipped frames stay on screen
        const qreal visibleAvail = std::min<qreal>(avail, r - 1 - kTextPadding - tx);
        if (fastText)
            drawLabel(p, scene.font, t, tx, y + baseline, visibleAvail);
        else if (t.width <= visibleAvail)
            p.drawText(QPointF(tx, y + baseline), t.text);
        else if (visibleAvail > m_ellipsisWidth + fm.averageCharWidth())
            p.drawText(QPointF(tx, y + baseline), fm.elidedText(t.text, Qt::ElideLeft, visibleAvail));
    });
    for (uint32_t depth = 0; depth <= maxDepth; ++depth)
        flush(depth);

    if (scene.hovered && *scene.hovered != scene.selected) {
        const QRectF hov = g.nodeRect(*scene.hovered);
        if (!hov.isEmpty() && hov.width() >= 3) {
            QColor c = scene.widgetPalette.color(QPalette::Active, QPalette::Text);
            c.setAlpha(170);
            p.setPen(QPen(c, 1));
            p.setBrush(Qt::NoBrush);
            p.drawRect(hov.adjusted(0.5, 0.5, -1.5, -0.5));
        }
    }
    const QRectF sel = g.nodeRect(scene.selected);
    if (scene.selected != kRootNode && !sel.isEmpty()) {
        p.setPen(QPen(scene.widgetPalette.color(QPalette::Active, QPalette::Highlight), 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(sel.adjusted(1, 1, -2, -1));
    }
}

} // namespace scorch
