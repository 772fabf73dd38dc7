// TimelineView: the profile and its process groups, geometry, zoom and selection, the series computed off the
// GUI thread, and input (rows, labels and tool tips: timelineview_rows.cpp; painting:
// timelineview_paint.cpp).
#include "timeline/timelineview.h"

#include "common/qtprofile.h"

#include <QFontMetrics>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QTimer>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace scorch {

namespace {

constexpr int64_t kMinVisibleNs = 1000; // the deepest zoom: 1 µs across the plot
constexpr int kDefaultVisibleLanes = 8;
constexpr std::size_t kExpandedThreads = 16; // more threads than this: only the busiest process expanded

int decimalsFor(double resolution) {
    return std::clamp(static_cast<int>(-std::floor(std::log10(resolution))), 0, 3);
}

} // namespace

QString formatTimelineTime(int64_t ns, int64_t resolutionNs) {
    const double res = static_cast<double>(std::max<int64_t>(1, resolutionNs));
    const double v = static_cast<double>(ns);
    if (res >= 1e6)
        return QString::number(v / 1e9, 'f', decimalsFor(res / 1e9)) + QStringLiteral(" s");
    if (res >= 1e3)
        return QString::number(v / 1e6, 'f', decimalsFor(res / 1e6)) + QStringLiteral(" ms");
    if (res >= 10)
        return QString::number(v / 1e3, 'f', decimalsFor(res / 1e3)) + QStringLiteral(" µs");
    return QString::number(ns) + QStringLiteral(" ns");
}

QString threadName(const Profile& profile, uint32_t thread) {
    const std::string& name = profile.threads[thread].name;
    return name.empty() ? TimelineView::tr("(unnamed)") : toQString(name);
}

QString threadLabel(const Profile& profile, uint32_t thread) {
    const int64_t tid = profile.threads[thread].tid;
    return tid >= 0 ? QStringLiteral("%1 (%2)").arg(threadName(profile, thread)).arg(tid)
                    : threadName(profile, thread);
}

QString formatTimelineRange(TimeRange range) {
    const int64_t res = std::max<int64_t>(1, (range.end - range.begin) / 10);
    return formatTimelineTime(range.begin, res) + QStringLiteral(" – ") + formatTimelineTime(range.end, res);
}

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent)
    , m_scroll(new QScrollBar(Qt::Vertical, this)) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    m_scroll->hide();
    connect(m_scroll, &QScrollBar::valueChanged, this, [this] { update(); });
}

TimelineView::~TimelineView() = default;

void TimelineView::setProfile(std::shared_ptr<const Profile> profile) {
    lanesChanged();
    m_profile = std::move(profile);
    m_lanes.clear();
    m_threads.clear();
    m_groups.clear();
    m_rows.clear();
    m_widestLabel = -1;
    m_selection.reset();
    m_baseline.reset();
    m_highlight = FrameId{};
    m_activity = {};
    m_onStack = {};
    m_activityJob.drop();
    m_highlightJob.drop();
    m_dragStartX.reset();
    m_span = 1;
    if (hasTimeline()) {
        const SampleStore& store = *m_profile->samples;
        m_span = std::max<int64_t>(store.lastTime() + 1, 1);
        std::vector<uint64_t> counts(m_profile->threads.size(), 0);
        for (uint32_t t = 0; t < store.threadCount() && t < counts.size(); ++t)
            counts[t] = store.threadSamples(t).size();
        std::vector<uint32_t> busy;
        for (uint32_t t = 0; t < counts.size(); ++t)
            if (counts[t] > 0)
                busy.push_back(t);
        std::stable_sort(busy.begin(), busy.end(),
                         [&](uint32_t a, uint32_t b) { return counts[a] > counts[b]; });
        // one group per process (in order of first appearance among the busiest), busiest first
        for (uint32_t t : busy) {
            const int64_t pid = m_profile->threads[t].pid;
            auto g =
                std::find_if(m_groups.begin(), m_groups.end(), [&](const Group& x) { return x.pid == pid; });
            if (g == m_groups.end() || pid < 0) {
                m_groups.push_back({pid, {}, {}, 0, false});
                g = std::prev(m_groups.end());
            }
            g->threads.push_back(t);
            g->samples += counts[t];
        }
        std::stable_sort(m_groups.begin(), m_groups.end(),
                         [](const Group& a, const Group& b) { return a.samples > b.samples; });
        for (std::size_t i = 0; i < m_groups.size(); ++i) {
            Group& g = m_groups[i];
            // the process is named by its main thread (tid == pid; the busiest such entry, as a program that
            // exec'd another is two: bash, then python3), else by its busiest thread
            uint32_t named = g.threads.front();
            for (auto t = g.threads.rbegin(); t != g.threads.rend(); ++t)
                if (m_profile->threads[*t].tid == g.pid)
                    named = *t;
            g.name = threadName(named);
            g.collapsed = busy.size() > kExpandedThreads && i > 0;
            m_threads.insert(m_threads.end(), g.threads.begin(), g.threads.end());
        }
        rebuildRows();
    }
    m_inFilter.assign(m_profile ? m_profile->threads.size() : 0, true);
    m_visible = {0, m_span};
    m_scroll->setValue(0);
    updateScrollBar();
    updateGeometry();
    scheduleSeries();
    update();
}

bool TimelineView::hasTimeline() const {
    return m_profile && m_profile->samples && m_profile->samples->size() > 0;
}

void TimelineView::setThreads(std::vector<uint32_t> threads) {
    std::fill(m_inFilter.begin(), m_inFilter.end(), threads.empty());
    for (uint32_t t : threads)
        if (t < m_inFilter.size())
            m_inFilter[t] = true;
    lanesChanged();
    update();
}

void TimelineView::setHighlightFrame(FrameId frame) {
    if (frame == m_highlight)
        return;
    m_highlight = frame;
    m_highlightJob.drop();
    if (frame.value == 0)
        m_onStack = {};
    lanesChanged();
    scheduleSeries();
    update();
}

void TimelineView::setBaseline(std::optional<TimeRange> range) {
    m_baseline = range;
    update();
}

void TimelineView::setSelection(std::optional<TimeRange> range) {
    if (range) {
        range->begin = clampTime(range->begin);
        range->end = clampTime(range->end);
        if (range->end <= range->begin)
            range.reset();
    }
    const bool same = range.has_value() == m_selection.has_value() &&
                      (!range || (range->begin == m_selection->begin && range->end == m_selection->end));
    if (same)
        return;
    m_selection = range;
    update();
    Q_EMIT selectionChanged(m_selection);
}

void TimelineView::zoomTo(TimeRange range) {
    range.begin = clampTime(range.begin);
    range.end = clampTime(range.end);
    if (range.end - range.begin < kMinVisibleNs) {
        const int64_t mid = range.begin + (range.end - range.begin) / 2;
        range.begin = std::max<int64_t>(0, mid - kMinVisibleNs / 2);
        range.end = std::min(m_span, range.begin + kMinVisibleNs);
        range.begin = std::max<int64_t>(0, range.end - kMinVisibleNs);
    }
    if (range.end <= range.begin || (range.begin == m_visible.begin && range.end == m_visible.end))
        return;
    m_visible = range;
    lanesChanged();
    scheduleSeries();
    update();
    Q_EMIT visibleRangeChanged(m_visible);
}

void TimelineView::resetZoom() {
    zoomTo({0, m_span});
}

bool TimelineView::zoomed() const {
    return m_visible.begin != 0 || m_visible.end != m_span;
}

int64_t TimelineView::clampTime(int64_t t) const {
    return std::clamp<int64_t>(t, 0, m_span);
}

int TimelineView::axisHeight() const {
    return fontMetrics().height() + 8;
}

int TimelineView::laneHeight() const {
    return std::max(fontMetrics().height() + 6, 20);
}

int TimelineView::labelWidth() const {
    const QFontMetrics fm = fontMetrics();
    // the widest label, measured once per set of rows and font (shaping 46 names took a third of a paint)
    if (m_widestLabel < 0) {
        int widest = 0;
        const bool indent = hasHeaders();
        QFont bold = font();
        bold.setBold(true);
        const QFontMetrics boldFm(bold); // the headers' labels are drawn bold
        for (const Row& r : m_rows)
            widest = std::max(widest, r.header ? boldFm.horizontalAdvance(groupLabel(m_groups[r.index]))
                                               : fm.horizontalAdvance(fullLabel(r.index)) +
                                                     (indent ? kGroupIndent : 0));
        m_widestLabel = widest;
    }
    const int widest = m_widestLabel;
    const int lo = fm.averageCharWidth() * 10;
    const int hi = std::max(lo, std::min(fm.averageCharWidth() * 28, width() / 4));
    return std::clamp(widest + 16, lo, hi);
}

int TimelineView::visibleLaneCount() const {
    return std::max(1, (height() - axisHeight()) / laneHeight());
}

QRect TimelineView::plotRect() const {
    const int left = labelWidth();
    const int right = width() - (m_scroll->isVisible() ? m_scroll->width() : 0) - 4;
    return QRect(left, axisHeight(), std::max(1, right - left), std::max(1, height() - axisHeight()));
}

int TimelineView::timeToX(int64_t t) const {
    return timeToX(t, plotRect());
}

int TimelineView::timeToX(int64_t t, const QRect& plot) const {
    const double span = static_cast<double>(m_visible.end - m_visible.begin);
    return plot.left() +
           static_cast<int>(std::floor(static_cast<double>(t - m_visible.begin) * plot.width() / span));
}

int64_t TimelineView::xToTime(int x) const {
    const QRect plot = plotRect();
    const double span = static_cast<double>(m_visible.end - m_visible.begin);
    const int dx = std::clamp(x - plot.left(), 0, plot.width());
    return clampTime(m_visible.begin + static_cast<int64_t>(std::llround(dx * span / plot.width())));
}

QRect TimelineView::rowRect(int index) const {
    const int row = index - m_scroll->value();
    if (index < 0 || row < 0 || row >= visibleLaneCount())
        return {};
    const QRect plot = plotRect();
    return QRect(0, axisHeight() + row * laneHeight(), plot.right() + 1, laneHeight());
}

QRect TimelineView::laneRect(uint32_t thread) const {
    return rowRect(rowOfThread(thread));
}

QRect TimelineView::labelRect(uint32_t thread) const {
    QRect r = laneRect(thread);
    if (!r.isEmpty())
        r.setRight(labelWidth() - 1);
    return r;
}

int TimelineView::rowAt(QPoint pos) const {
    if (pos.y() < axisHeight())
        return -1;
    const int row = (pos.y() - axisHeight()) / laneHeight() + m_scroll->value();
    return row >= 0 && row < static_cast<int>(m_rows.size()) ? row : -1;
}

void TimelineView::scheduleSeries() {
    if (m_seriesScheduled)
        return;
    m_seriesScheduled = true;
    QTimer::singleShot(0, this, [this] {
        m_seriesScheduled = false;
        computeSeries();
    });
}

void TimelineView::computeSeries() {
    if (!hasTimeline())
        return;
    const auto buckets = static_cast<std::size_t>(plotRect().width());
    if (!seriesMatches(m_activity, FrameId{})) {
        m_activityJob.start(
            [profile = m_profile, range = m_visible, buckets, lanes = m_threads](const JobContext&) {
                Series s{range, buckets, FrameId{}, lanes, {}, {}};
                s.counts = activitySeries(*profile->samples, range, buckets, lanes);
                s.offCpu = offCpuSeries(*profile, range, buckets, lanes);
                return s;
            },
            [this](Series s) {
                m_activity = std::move(s);
                lanesChanged();
                update();
                Q_EMIT activityUpdated();
            });
    }
    if (m_highlight.value != 0 && !seriesMatches(m_onStack, m_highlight)) {
        m_highlightJob.start(
            [profile = m_profile, range = m_visible, buckets, lanes = m_threads,
             frame = m_highlight](const JobContext&) {
                Series s{range, buckets, frame, lanes, {}, {}};
                s.counts = onStackSeries(*profile, frame, range, buckets, lanes);
                return s;
            },
            [this](Series s) {
                m_onStack = std::move(s);
                lanesChanged();
                update();
                Q_EMIT highlightUpdated();
            });
    }
}

void TimelineView::updateScrollBar() {
    const int overflow = static_cast<int>(m_rows.size()) - visibleLaneCount();
    m_scroll->setVisible(overflow > 0);
    m_scroll->setRange(0, std::max(0, overflow));
    m_scroll->setPageStep(visibleLaneCount());
    const int w = m_scroll->sizeHint().width();
    m_scroll->setGeometry(width() - w, axisHeight(), w, height() - axisHeight());
}

QSize TimelineView::sizeHint() const {
    const int lanes = std::clamp(static_cast<int>(m_rows.size()), 1, kDefaultVisibleLanes);
    return {800, axisHeight() + lanes * laneHeight() + 1};
}

QSize TimelineView::minimumSizeHint() const {
    return {300, axisHeight() + laneHeight() + 1};
}

void TimelineView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    updateScrollBar();
    scheduleSeries();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !hasTimeline())
        return QWidget::mousePressEvent(event);
    const QPoint pos = event->position().toPoint();
    const int row = rowAt(pos);
    if (pos.x() < plotRect().left()) {
        if (row < 0)
            return;
        const Row& r = m_rows[static_cast<std::size_t>(row)];
        if (r.header)
            setProcessCollapsed(m_groups[r.index].pid, !m_groups[r.index].collapsed);
        else
            Q_EMIT threadClicked(r.index);
        return;
    }
    m_dragStartX = std::clamp(pos.x(), plotRect().left(), plotRect().right() + 1);
    m_dragX = *m_dragStartX;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
    const QPoint pos = event->position().toPoint();
    if (m_dragStartX) {
        m_dragX = std::clamp(pos.x(), plotRect().left(), plotRect().right() + 1);
        update();
    }
    setCursor(pos.x() < plotRect().left() && rowAt(pos) >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
    if (!m_dragStartX || event->button() != Qt::LeftButton)
        return QWidget::mouseReleaseEvent(event);
    m_dragX = std::clamp(event->position().toPoint().x(), plotRect().left(), plotRect().right() + 1);
    const auto [x0, x1] = std::minmax(*m_dragStartX, m_dragX);
    m_dragStartX.reset();
    if (x1 - x0 >= kMinDragPixels)
        setSelection(TimeRange{xToTime(x0), xToTime(x1)});
    update();
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || event->position().x() < plotRect().left())
        return QWidget::mouseDoubleClickEvent(event);
    m_dragStartX.reset();
    if (m_selection && (m_selection->begin != m_visible.begin || m_selection->end != m_visible.end))
        zoomTo(*m_selection);
    else
        resetZoom();
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Escape && (m_selection || zoomed())) {
        if (m_selection)
            setSelection(std::nullopt);
        else
            resetZoom();
        return;
    }
    if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) && m_selection) {
        zoomTo(*m_selection);
        return;
    }
    const int64_t span = m_visible.end - m_visible.begin;
    const int64_t mid = m_visible.begin + span / 2;
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomTo({mid - span / 4, mid + span / 4});
        return;
    case Qt::Key_Minus:
        zoomTo({mid - span, mid + span});
        return;
    default:
        QWidget::keyPressEvent(event);
    }
}

void TimelineView::wheelEvent(QWheelEvent* event) {
    if (!(event->modifiers() & Qt::ControlModifier) || !hasTimeline()) {
        if (m_scroll->isVisible())
            m_scroll->setValue(m_scroll->value() - event->angleDelta().y() / 120);
        else
            event->ignore();
        return;
    }
    const int steps = event->angleDelta().y() / 120;
    if (steps == 0)
        return;
    const int64_t anchor = xToTime(event->position().toPoint().x());
    const double factor = std::pow(0.8, steps);
    const auto scale = [&](int64_t t) {
        return anchor + static_cast<int64_t>(std::llround(static_cast<double>(t - anchor) * factor));
    };
    zoomTo({scale(m_visible.begin), scale(m_visible.end)});
}

bool TimelineView::event(QEvent* event) {
    if (event->type() == QEvent::FontChange)
        m_widestLabel = -1;
    if (event->type() == QEvent::ToolTip && hasTimeline()) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int row = rowAt(help->pos());
        if (row < 0) {
            QToolTip::hideText();
            return true;
        }
        const Row& r = m_rows[static_cast<std::size_t>(row)];
        const uint32_t thread = r.index;
        QString text;
        if (r.header) {
            const Group& g = m_groups[r.index];
            text = groupToolTip(g);
            if (help->pos().x() >= plotRect().left()) {
                const int64_t px =
                    std::max<int64_t>(1, (m_visible.end - m_visible.begin) / plotRect().width());
                const auto bucket = static_cast<std::size_t>(help->pos().x() - plotRect().left());
                const std::vector<uint32_t> a = groupSum(m_activity, m_activity.counts, g);
                text = QStringLiteral("<qt><b>%1</b><br>%2")
                           .arg(g.name.toHtmlEscaped(), formatTimelineTime(xToTime(help->pos().x()), px));
                if (seriesMatches(m_activity, FrameId{}) && bucket < a.size())
                    text += QStringLiteral(": ") + sampleCount(a[bucket]);
                text += QStringLiteral("</qt>");
            }
        } else if (help->pos().x() < plotRect().left()) {
            text = laneToolTip(thread);
        } else {
            const int64_t t = xToTime(help->pos().x());
            const int64_t px = std::max<int64_t>(1, (m_visible.end - m_visible.begin) / plotRect().width());
            const auto bucket = static_cast<std::size_t>(std::max(0, help->pos().x() - plotRect().left()));
            const std::vector<uint32_t> a = activityOf(thread);
            text = QStringLiteral("<qt><b>%1</b><br>%2")
                       .arg(threadName(thread).toHtmlEscaped(), formatTimelineTime(t, px));
            if (seriesMatches(m_activity, FrameId{}) && bucket < a.size())
                text += QStringLiteral(": ") + sampleCount(a[bucket]);
            text += QStringLiteral("<br>") + tr("Drag to select a time range; double-click to zoom") +
                    QStringLiteral("</qt>");
        }
        QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace scorch
