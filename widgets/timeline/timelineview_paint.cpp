// TimelineView's painting: the lanes and the axis into a cached pixmap (painted again only when they change),
// the baseline of a comparison and the selection over it at every paint.
#include "timeline/timelineview.h"

#include "common/qtprofile.h"

#include <QFontMetrics>
#include <QPainter>
#include <QScrollBar>

#include <algorithm>
#include <cmath>

namespace scorch {

namespace {

/// The tick step: 1, 2 or 5 times a power of ten, at least `minimum`.
int64_t niceStep(double minimum) {
    double power = 1;
    while (power * 10 <= minimum)
        power *= 10;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * power >= minimum)
            return std::max<int64_t>(1, static_cast<int64_t>(m * power));
    return static_cast<int64_t>(10 * power);
}

/// How far past the plot's right edge the axis is painted (its labels may reach into it).
constexpr int kAxisPastPlot = 4;

} // namespace

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    if (!hasTimeline()) {
        p.fillRect(rect(), palette().base());
        return;
    }
    const LanesKey key{m_lanesGeneration,    size(),           devicePixelRatioF(), m_scroll->value(),
                       palette().cacheKey(), isActiveWindow(), font().key()};
    if (m_lanesImage.isNull() || key != m_lanesKey) {
        m_lanesImage = QPixmap(size() * key.pixelRatio);
        m_lanesImage.setDevicePixelRatio(key.pixelRatio);
        QPainter lanes(&m_lanesImage);
        lanes.setFont(font()); // (as a painter on the widget starts)
        lanes.setPen(palette().color(QPalette::WindowText));
        lanes.fillRect(rect(), palette().base());
        paintLanes(lanes);
        paintAxis(lanes);
        m_lanesKey = key;
        ++m_lanesPainted;
    }
    p.drawPixmap(0, 0, m_lanesImage);

    // The baseline of a comparison: a grey band, labelled in the axis.
    if (m_baseline && m_baseline->end > m_visible.begin && m_baseline->begin < m_visible.end) {
        const QRect plot = plotRect();
        const int x0 = std::clamp(timeToX(m_baseline->begin), plot.left(), plot.right() + 1);
        const int x1 = std::clamp(timeToX(m_baseline->end), plot.left(), plot.right() + 1);
        QColor band = palette().text().color();
        band.setAlpha(28);
        p.fillRect(QRect(x0, 0, std::max(1, x1 - x0), height()), band);
        QColor edge = palette().text().color();
        edge.setAlpha(120);
        p.setPen(QPen(edge, 1, Qt::DashLine));
        p.drawLine(x0, 0, x0, height());
        p.drawLine(x1, 0, x1, height());
        const QString label = tr("Baseline");
        const int w = fontMetrics().horizontalAdvance(label) + 8;
        if (x1 - x0 >= w) {
            p.fillRect(QRect(x0 + 1, 1, w, axisHeight() - 3), palette().window());
            p.setPen(palette().text().color());
            p.drawText(QRect(x0 + 1, 0, w, axisHeight() - 2), Qt::AlignCenter, label);
        }
    }

    // The selection (or the range being dragged) over the axis and the lanes.
    std::optional<std::pair<int, int>> span;
    if (m_dragStartX && std::abs(m_dragX - *m_dragStartX) >= kMinDragPixels)
        span = std::minmax(*m_dragStartX, m_dragX);
    else if (m_selection)
        span = std::pair{timeToX(m_selection->begin), timeToX(m_selection->end)};
    if (span) {
        const QRect plot = plotRect();
        const int x0 = std::clamp(span->first, plot.left(), plot.right() + 1);
        const int x1 = std::clamp(span->second, plot.left(), plot.right() + 1);
        QColor fill = palette().highlight().color();
        fill.setAlpha(50);
        p.fillRect(QRect(x0, 0, std::max(1, x1 - x0), height()), fill);
        p.setPen(palette().highlight().color());
        if (span->first >= plot.left())
            p.drawLine(x0, 0, x0, height());
        if (span->second <= plot.right() + 1)
            p.drawLine(x1, 0, x1, height());
    }
}

std::vector<TimelineView::AxisTick> TimelineView::axisTicks(const QRect& plot) const {
    std::vector<AxisTick> ticks;
    if (!hasTimeline())
        return ticks;
    const QFontMetrics fm = fontMetrics();
    const int h = axisHeight();
    const int64_t span = m_visible.end - m_visible.begin;
    // Labels at least as far apart as the widest one needs.
    const int labelPixels = fm.horizontalAdvance(formatTimelineTime(m_span, span / 10)) + 24;
    const int64_t step = niceStep(static_cast<double>(span) * labelPixels / std::max(1, plot.width()));
    const int64_t first = (m_visible.begin + step - 1) / step * step;
    const int axisEnd = plot.right() + kAxisPastPlot;
    for (int64_t t = first; t <= m_visible.end; t += step) {
        AxisTick tick{timeToX(t, plot), {}, {}};
        const QString label = formatTimelineTime(t, step);
        const QRect r(tick.x + 3, 0, fm.horizontalAdvance(label), h - 2);
        if (r.right() <= axisEnd) {
            tick.label = label;
            tick.labelRect = r;
        }
        ticks.push_back(std::move(tick));
    }
    return ticks;
}

void TimelineView::paintAxis(QPainter& p) {
    const QRect plot = plotRect();
    const QFontMetrics fm = fontMetrics();
    const int h = axisHeight();
    p.fillRect(QRect(0, 0, width(), h), palette().window());
    p.setPen(palette().mid().color());
    p.drawLine(0, h - 1, width(), h - 1);
    p.save();
    p.setClipRect(QRect(plot.left(), 0, plot.width() + kAxisPastPlot, height()));
    for (const AxisTick& tick : axisTicks(plot)) {
        p.setPen(palette().mid().color());
        p.drawLine(tick.x, h - 5, tick.x, h - 1);
        QColor grid = palette().mid().color();
        grid.setAlpha(60);
        p.setPen(grid);
        p.drawLine(tick.x, h, tick.x, height());
        if (tick.label.isEmpty())
            continue;
        p.setPen(palette().text().color());
        p.drawText(tick.labelRect, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextDontClip, tick.label);
    }
    p.restore();
    p.setPen(palette().placeholderText().color());
    // the header of the lane labels; with off-CPU time, what the blue band means
    const QString header = m_activity.offCpu.empty() ? tr("Threads") : tr("Threads (blue: waiting)");
    p.drawText(QRect(4, 0, plot.left() - 8, h - 2), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(header, Qt::ElideRight, plot.left() - 8));
}

void TimelineView::paintLanes(QPainter& p) {
    const QRect plot = plotRect();
    const int lh = laneHeight();
    const QFontMetrics fm = fontMetrics();
    const bool activityDrawn = m_activity.lanes == m_threads;
    const bool highlightDrawn =
        m_highlight.value != 0 && m_onStack.frame == m_highlight && m_onStack.lanes == m_threads;
    // one scale for all thread lanes (the busiest bucket is full height), one for the process headers
    uint32_t peak = 1, groupPeak = 1;
    for (const auto& c : m_activity.counts)
        for (uint32_t v : c)
            peak = std::max(peak, v);
    std::vector<std::vector<uint32_t>> groupActivity(m_groups.size()), groupOnStack(m_groups.size());
    for (const Row& r : m_rows) {
        if (!r.header)
            continue;
        if (activityDrawn)
            groupActivity[r.index] = groupSum(m_activity, m_activity.counts, m_groups[r.index]);
        if (highlightDrawn)
            groupOnStack[r.index] = groupSum(m_onStack, m_onStack.counts, m_groups[r.index]);
        for (uint32_t v : groupActivity[r.index])
            groupPeak = std::max(groupPeak, v);
    }
    const QColor activityColor = palette().highlight().color();
    const QColor onStackColor(230, 120, 20);
    // each non-zero bucket of a series with its pixel columns [x0, x1)
    const auto forBuckets = [&](const Series& s, const std::vector<uint32_t>* c, auto&& draw) {
        if (!c || s.buckets == 0)
            return;
        const double width =
            static_cast<double>(s.range.end - s.range.begin) / static_cast<double>(s.buckets);
        for (std::size_t b = 0; b < c->size(); ++b) {
            if ((*c)[b] == 0)
                continue;
            const auto t0 = s.range.begin + static_cast<int64_t>(std::floor(width * static_cast<double>(b)));
            const auto t1 =
                s.range.begin + static_cast<int64_t>(std::floor(width * static_cast<double>(b + 1)));
            const int x0 = timeToX(t0, plot);
            draw(x0, std::max(x0 + 1, timeToX(t1, plot)), (*c)[b]);
        }
    };
    // off-CPU stretches (waiting): a blue band, as dense as the share of the bucket spent waiting
    const auto drawOffCpu = [&](const std::vector<uint32_t>* c, QRect row, bool in) {
        forBuckets(m_activity, c, [&](int x0, int x1, uint32_t v) {
            const int alpha = static_cast<int>(40 + 140 * std::min(1000u, v) / 1000);
            p.fillRect(QRect(x0, row.top() + 2, x1 - x0, row.height() - 4),
                       QColor(70, 120, 230, in ? alpha : alpha / 3));
        });
    };
    const auto drawSeries = [&](const Series& s, const std::vector<uint32_t>* c, uint32_t scale, QRect row,
                                QColor color) {
        forBuckets(s, c, [&](int x0, int x1, uint32_t v) {
            // A square-root scale with a visible minimum: a single sample must show beside a busy thread.
            const double share = std::sqrt(std::min(1.0, double(v) / scale));
            const int barH =
                std::clamp(static_cast<int>(std::lround((row.height() - 4) * share)), 3, row.height() - 4);
            p.fillRect(QRect(x0, row.bottom() - 1 - barH, x1 - x0, barH), color);
        });
    };
    const int indent = hasHeaders() ? kGroupIndent : 0;
    const int labels = plot.left(); // labelWidth(), measured once for the whole paint
    const int first = m_scroll->value();
    const int count = std::min<int>(visibleLaneCount() + 1, static_cast<int>(m_rows.size()) - first);
    for (int i = 0; i < count; ++i) {
        const Row& r = m_rows[static_cast<std::size_t>(first + i)];
        const QRect row(0, plot.top() + i * lh, plot.right() + 1, lh);
        if (r.header) {
            const Group& g = m_groups[r.index];
            bool in = false;
            for (uint32_t t : g.threads)
                in = in || (t < m_inFilter.size() && m_inFilter[t]);
            p.fillRect(row, palette().window());
            p.setPen(in ? palette().text().color() : palette().placeholderText().color());
            QFont f = font();
            f.setBold(true);
            p.setFont(f);
            p.drawText(QRect(6, row.top(), plot.left() - 12, lh), Qt::AlignLeft | Qt::AlignVCenter,
                       elidedHeader(groupLabel(g), labels));
            p.setFont(font());
            p.save();
            p.setClipRect(QRect(plot.left(), row.top(), plot.width(), lh));
            QColor a = activityColor.darker(130);
            if (!in)
                a.setAlpha(70);
            drawSeries(m_activity, activityDrawn ? &groupActivity[r.index] : nullptr, groupPeak, row, a);
            drawSeries(m_onStack, highlightDrawn ? &groupOnStack[r.index] : nullptr, groupPeak, row,
                       in ? onStackColor : onStackColor.lighter(160));
            p.restore();
        } else {
            const uint32_t thread = r.index;
            if ((first + i) % 2)
                p.fillRect(row, palette().alternateBase());
            const bool in = thread < m_inFilter.size() && m_inFilter[thread];
            p.setPen(in ? palette().text().color() : palette().placeholderText().color());
            QFont f = font();
            f.setStrikeOut(!in);
            p.setFont(f);
            p.drawText(QRect(6 + indent, row.top(), plot.left() - 12 - indent, lh),
                       Qt::AlignLeft | Qt::AlignVCenter, elidedLane(thread, labels));
            p.setFont(font());
            p.save();
            p.setClipRect(QRect(plot.left(), row.top(), plot.width(), lh));
            QColor a = activityColor;
            if (!in)
                a.setAlpha(70);
            if (activityDrawn) {
                drawOffCpu(seriesOf(m_activity, m_activity.offCpu, thread), row, in);
                drawSeries(m_activity, seriesOf(m_activity, m_activity.counts, thread), peak, row, a);
            }
            if (highlightDrawn)
                drawSeries(m_onStack, seriesOf(m_onStack, m_onStack.counts, thread), peak, row,
                           in ? onStackColor : onStackColor.lighter(160));
            p.restore();
        }
        p.setPen(palette().midlight().color());
        p.drawLine(0, row.bottom(), plot.right(), row.bottom());
    }
    p.setPen(palette().mid().color());
    p.drawLine(plot.left() - 1, 0, plot.left() - 1, height());
    if (m_rows.empty()) {
        p.setPen(palette().placeholderText().color());
        p.drawText(plot, Qt::AlignCenter, fm.elidedText(tr("No samples"), Qt::ElideRight, plot.width()));
    }
}

} // namespace scorch
