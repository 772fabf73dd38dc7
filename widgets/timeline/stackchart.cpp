#include "timeline/stackchart.h"

#include "common/contrast.h"
#include "common/qtprofile.h"
#include "scorch/cancel.h"
#include "scorch/flamecolors.h"
#include "timeline/timelineview.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <climits>
#include <cmath>
#include <tuple>

namespace scorch {

std::optional<std::vector<StackBox>> stackBoxes(const Profile& profile, uint32_t thread, TimeRange range,
                                                const std::atomic<bool>* cancel) {
    std::vector<StackBox> boxes;
    if (!profile.samples || thread >= profile.samples->threadCount())
        return boxes;
    const SampleStore& store = *profile.samples;
    const std::span<const uint32_t> all = store.threadSamples(thread);
    const auto before = [&](int64_t t) {
        return [&store, t](uint32_t i) {
            return store.time(i) < t;
        };
    };
    const auto lo = std::partition_point(all.begin(), all.end(), before(range.begin));
    const auto hi = std::partition_point(lo, all.end(), before(range.end));
    // The thread's usual interval: the median gap over (up to) the first 4096 gaps around the range.
    std::vector<int64_t> gaps;
    for (auto it = lo == all.begin() ? lo : lo - 1; it + 1 < all.end() && gaps.size() < 4096; ++it)
        gaps.push_back(store.time(*(it + 1)) - store.time(*it));
    int64_t typical = 1000000;
    if (!gaps.empty()) {
        std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2),
                         gaps.end());
        typical = std::max<int64_t>(1, gaps[gaps.size() / 2]);
    }
    struct Open {
        NodeId node;
        int64_t begin;
    };
    std::vector<Open> stack;
    std::vector<NodeId> path;
    int64_t prevEnd = INT64_MIN;
    const auto close = [&](std::size_t keep, int64_t end) {
        for (std::size_t d = stack.size(); d-- > keep;)
            boxes.push_back({std::max(stack[d].begin, range.begin), std::min(end, range.end), stack[d].node,
                             static_cast<uint32_t>(d)});
        stack.resize(keep);
    };
    std::size_t n = 0;
    for (auto it = lo; it != hi; ++it, ++n) {
        if ((n & 4095) == 0 && cancelRequested(cancel))
            return std::nullopt;
        const int64_t t = store.time(*it);
        const int64_t next = it + 1 != all.end() ? store.time(*(it + 1)) : t + typical;
        path.clear();
        for (NodeId v = store.node(*it); v != kRootNode; v = profile.tree.parent(v))
            path.push_back(v);
        std::reverse(path.begin(), path.end());
        std::size_t keep = 0;
        if (prevEnd == t)
            while (keep < stack.size() && keep < path.size() && stack[keep].node == path[keep])
                ++keep;
        close(keep, prevEnd);
        for (std::size_t d = keep; d < path.size(); ++d)
            stack.push_back({path[d], t});
        prevEnd = t + std::min(next - t, 2 * typical);
    }
    close(0, prevEnd);
    std::sort(boxes.begin(), boxes.end(), [](const StackBox& a, const StackBox& b) {
        return std::tie(a.row, a.begin) < std::tie(b.row, b.begin);
    });
    return boxes;
}

std::optional<StackedBoxes> stackedBoxes(const Profile& profile, const std::vector<uint32_t>& threads,
                                         TimeRange range, const std::atomic<bool>* cancel) {
    StackedBoxes out;
    uint32_t firstRow = 0;
    for (uint32_t thread : threads) {
        std::optional<std::vector<StackBox>> boxes = stackBoxes(profile, thread, range, cancel);
        if (!boxes)
            return std::nullopt;
        uint32_t rows = 1;
        for (StackBox& b : *boxes) {
            rows = std::max(rows, b.row + 1);
            b.row += firstRow;
        }
        out.boxes.insert(out.boxes.end(), boxes->begin(), boxes->end());
        out.bands.push_back({thread, firstRow, rows});
        firstRow += rows;
    }
    return out;
}

StackChartView::StackChartView(QWidget* parent)
    : QWidget(parent) {
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void StackChartView::setProfile(std::shared_ptr<const Profile> profile) {
    m_profile = std::move(profile);
    m_boxes.clear();
    m_bands.clear();
    m_boxesThreads.clear();
    m_job.drop();
    recompute();
}

void StackChartView::setThread(uint32_t thread) {
    setThreads({thread});
}

void StackChartView::setThreads(std::vector<uint32_t> threads) {
    if (threads.empty() || threads == m_threads)
        return;
    m_threads = std::move(threads);
    recompute();
    update();
}

uint32_t StackChartView::rowCount() const {
    return m_bands.empty() ? 0 : m_bands.back().firstRow + m_bands.back().rows;
}

const StackBand* StackChartView::bandOfRow(uint32_t row) const {
    const auto it = std::upper_bound(m_bands.begin(), m_bands.end(), row,
                                     [](uint32_t r, const StackBand& b) { return r < b.firstRow; });
    if (it == m_bands.begin() || row >= (it - 1)->firstRow + (it - 1)->rows)
        return nullptr;
    return &*(it - 1);
}

void StackChartView::setVisibleRange(TimeRange range) {
    m_range = range;
    recompute();
    update();
}

void StackChartView::setPlotSpan(int left, int width) {
    if (left == m_plotLeft && width == m_plotWidth)
        return;
    m_plotLeft = left;
    m_plotWidth = std::max(1, width);
    update();
}

bool StackChartView::current() const {
    return m_boxesThreads == m_threads && m_boxesRange.begin == m_range.begin &&
           m_boxesRange.end == m_range.end && !m_job.isRunning();
}

int StackChartView::rowHeight() const {
    return fontMetrics().height() + 4;
}

int StackChartView::timeToX(int64_t t) const {
    const double span = static_cast<double>(std::max<int64_t>(1, m_range.end - m_range.begin));
    return m_plotLeft +
           static_cast<int>(std::floor(static_cast<double>(t - m_range.begin) * m_plotWidth / span));
}

void StackChartView::recompute() {
    if (!isVisible() || !m_profile || !m_profile->samples || current())
        return;
    m_job.start(
        [profile = m_profile, threads = m_threads, range = m_range](const JobContext& job) {
            auto stacked = stackedBoxes(*profile, threads, range, job.cancelFlag());
            return std::tuple{std::move(stacked), threads, range};
        },
        [this](auto result) {
            auto& [stacked, threads, range] = result;
            if (!stacked)
                return;
            m_boxes = std::move(stacked->boxes);
            m_bands = std::move(stacked->bands);
            m_boxesThreads = std::move(threads);
            m_boxesRange = range;
            updateGeometry();
            setMinimumHeight(static_cast<int>(std::max<uint32_t>(rowCount(), 1)) * rowHeight());
            update();
            Q_EMIT boxesUpdated();
        });
}

QSize StackChartView::sizeHint() const {
    return {800, static_cast<int>(std::max<uint32_t>(rowCount(), 4)) * rowHeight()};
}

const StackBox* StackChartView::boxAt(QPoint pos) const {
    const auto row = static_cast<uint32_t>(std::max(0, pos.y()) / rowHeight());
    for (const StackBox& b : m_boxes)
        if (b.row == row && timeToX(b.begin) <= pos.x() &&
            pos.x() < std::max(timeToX(b.end), timeToX(b.begin) + 1))
            return &b;
    return nullptr;
}

void StackChartView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!m_profile || m_boxesThreads != m_threads)
        return;
    const FlameColors colors(m_profile.get(), FlameColorScheme::Hot);
    const int rh = rowHeight();
    const QFontMetrics fm = fontMetrics();
    // Whose stacks these are: each band's thread named in its first row still in view (the chart scrolls
    // in its area), a line between two threads' bands.
    const int visibleTop = visibleRegion().boundingRect().top();
    for (const StackBand& band : m_bands) {
        const int top = static_cast<int>(band.firstRow) * rh, bottom = top + static_cast<int>(band.rows) * rh;
        if (band.firstRow > 0) {
            p.setPen(palette().mid().color());
            p.drawLine(0, top - 1, width(), top - 1);
        }
        if (band.thread < m_profile->threads.size() && m_plotLeft > 16) {
            p.setPen(palette().text().color());
            p.drawText(QRect(6, std::clamp(visibleTop, top, bottom - rh), m_plotLeft - 12, rh),
                       Qt::AlignLeft | Qt::AlignVCenter,
                       fm.elidedText(threadLabel(*m_profile, band.thread), Qt::ElideMiddle, m_plotLeft - 12));
        }
    }
    p.setClipRect(QRect(m_plotLeft, 0, m_plotWidth, height()));
    // Boxes narrower than a pixel in a row merge into the pixel already drawn (sorted by row and time).
    int lastRow = -1, lastX = INT_MIN;
    for (const StackBox& b : m_boxes) {
        const int x0 = timeToX(b.begin), x1 = std::max(timeToX(b.end), x0 + 1);
        if (x1 < m_plotLeft || x0 > m_plotLeft + m_plotWidth)
            continue;
        if (static_cast<int>(b.row) == lastRow && x1 <= lastX)
            continue;
        lastRow = static_cast<int>(b.row);
        lastX = x1;
        const QRect r(x0, static_cast<int>(b.row) * rh, x1 - x0, rh - 1);
        const Rgb c = colors.frameColor(m_profile->tree.frame(b.node));
        p.fillRect(r, QColor(c.r, c.g, c.b));
        if (r.width() > fm.averageCharWidth() * 4) {
            p.setPen(readableTextOn(QColor(c.r, c.g, c.b))); // the System scheme is dark on a dark palette
            p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter,
                       fm.elidedText(frameShortName(*m_profile, m_profile->tree.frame(b.node)),
                                     Qt::ElideRight, r.width() - 5));
        }
    }
}

bool StackChartView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip && m_profile) {
        auto* help = static_cast<QHelpEvent*>(event);
        if (const StackBox* b = boxAt(help->pos())) {
            QString where = formatTimelineRange({b->begin, b->end});
            const StackBand* band = bandOfRow(b->row);
            if (m_bands.size() > 1 && band && band->thread < m_profile->threads.size())
                where += QStringLiteral(" · ") + threadLabel(*m_profile, band->thread).toHtmlEscaped();
            QToolTip::showText(
                help->globalPos(),
                QStringLiteral("<qt><b>%1</b><br>%2</qt>")
                    .arg(frameDisplayName(*m_profile, m_profile->tree.frame(b->node)).toHtmlEscaped(), where),
                this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    if (event->type() == QEvent::Show)
        recompute();
    return QWidget::event(event);
}

} // namespace scorch
