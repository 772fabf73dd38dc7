// TimelineView: its rows (a header row per process group, a lane per thread), their labels and tool tips, and
// the series of a lane or a group as computed (computeSeries() in timelineview.cpp).
#include "timeline/timelineview.h"

#include "common/qtprofile.h"

#include <QFontMetrics>

#include <algorithm>

namespace scorch {

void TimelineView::rebuildRows() {
    lanesChanged();
    m_widestLabel = -1;
    m_rows.clear();
    m_lanes.clear();
    const bool grouped = m_groups.size() > 1;
    for (uint32_t g = 0; g < m_groups.size(); ++g) {
        const Group& group = m_groups[g];
        const bool header = grouped && group.threads.size() > 1;
        if (header)
            m_rows.push_back({true, g});
        if (header && group.collapsed)
            continue;
        for (uint32_t t : group.threads) {
            m_rows.push_back({false, t});
            m_lanes.push_back(t);
        }
    }
}

std::vector<int64_t> TimelineView::groupedProcesses() const {
    std::vector<int64_t> out;
    for (const Row& r : m_rows)
        if (r.header)
            out.push_back(m_groups[r.index].pid);
    return out;
}

bool TimelineView::processCollapsed(int64_t pid) const {
    for (const Group& g : m_groups)
        if (g.pid == pid)
            return g.collapsed;
    return false;
}

void TimelineView::setProcessCollapsed(int64_t pid, bool collapsed) {
    for (Group& g : m_groups)
        if (g.pid == pid && g.collapsed != collapsed) {
            g.collapsed = collapsed;
            rebuildRows();
            updateScrollBar();
            updateGeometry();
            update();
        }
}

int TimelineView::rowOfThread(uint32_t thread) const {
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (!m_rows[i].header && m_rows[i].index == thread)
            return static_cast<int>(i);
    return -1;
}

int TimelineView::rowOfGroup(int64_t pid) const {
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].header && m_groups[m_rows[i].index].pid == pid)
            return static_cast<int>(i);
    return -1;
}

QRect TimelineView::processRect(int64_t pid) const {
    return rowRect(rowOfGroup(pid));
}

QString TimelineView::groupLabel(const Group& g) const {
    return QStringLiteral("%1 %2 (%3)")
        .arg(g.collapsed ? QStringLiteral("▸") : QStringLiteral("▾"), g.name)
        .arg(g.pid);
}

QString TimelineView::elidedHeader(const QString& label, int labelWidth) const {
    QFont bold = font();
    bold.setBold(true);
    return QFontMetrics(bold).elidedText(label, Qt::ElideMiddle, labelWidth - 12);
}

QString TimelineView::processLabel(int64_t pid) const {
    for (const Group& g : m_groups)
        if (g.pid == pid)
            return elidedHeader(groupLabel(g), labelWidth());
    return {};
}

QString TimelineView::groupToolTip(const Group& g) const {
    QStringList lines;
    lines << QStringLiteral("<b>%1</b>").arg(g.name.toHtmlEscaped());
    lines << tr("PID %1, %2 threads").arg(g.pid).arg(g.threads.size());
    lines << sampleCount(g.samples);
    lines << (g.collapsed ? tr("Click to show its threads") : tr("Click to fold its threads into this row"));
    return QStringLiteral("<qt>") + lines.join(QStringLiteral("<br>")) + QStringLiteral("</qt>");
}

std::vector<uint32_t> TimelineView::groupSum(const Series& s,
                                             const std::vector<std::vector<uint32_t>>& series,
                                             const Group& g) const {
    std::vector<uint32_t> sum;
    for (uint32_t t : g.threads) {
        const std::vector<uint32_t>* c = seriesOf(s, series, t);
        if (!c)
            continue;
        sum.resize(std::max(sum.size(), c->size()), 0);
        for (std::size_t b = 0; b < c->size(); ++b)
            sum[b] += (*c)[b];
    }
    return sum;
}

std::vector<uint32_t> TimelineView::processActivity(int64_t pid) const {
    for (const Group& g : m_groups)
        if (g.pid == pid)
            return groupSum(m_activity, m_activity.counts, g);
    return {};
}

QString TimelineView::threadName(uint32_t thread) const {
    return scorch::threadName(*m_profile, thread);
}

QString TimelineView::fullLabel(uint32_t thread) const {
    return threadLabel(*m_profile, thread);
}

QString TimelineView::laneLabel(uint32_t thread) const {
    if (!m_profile || thread >= m_profile->threads.size())
        return {};
    return elidedLane(thread, labelWidth());
}

QString TimelineView::elidedLane(uint32_t thread, int labelWidth) const {
    const int indent = hasHeaders() ? kGroupIndent : 0;
    return fontMetrics().elidedText(fullLabel(thread), Qt::ElideMiddle, labelWidth - 12 - indent);
}

bool TimelineView::hasHeaders() const {
    return std::any_of(m_rows.begin(), m_rows.end(), [](const Row& r) { return r.header; });
}

QString TimelineView::laneToolTip(uint32_t thread) const {
    if (!m_profile || thread >= m_profile->threads.size())
        return {};
    const ThreadInfo& info = m_profile->threads[thread];
    QStringList lines;
    lines << QStringLiteral("<b>%1</b>").arg(threadName(thread).toHtmlEscaped());
    QStringList ids;
    if (info.pid >= 0)
        ids << tr("PID %1").arg(info.pid);
    if (info.tid >= 0)
        ids << tr("TID %1").arg(info.tid);
    if (!ids.isEmpty())
        lines << ids.join(QStringLiteral(", "));
    lines << sampleCount(info.samples);
    lines << tr("Click to show only this thread (click again for all)");
    return QStringLiteral("<qt>") + lines.join(QStringLiteral("<br>")) + QStringLiteral("</qt>");
}

bool TimelineView::seriesMatches(const Series& s, FrameId frame) const {
    return s.buckets == static_cast<std::size_t>(plotRect().width()) && s.range.begin == m_visible.begin &&
           s.range.end == m_visible.end && s.frame == frame && s.lanes == m_threads;
}

bool TimelineView::activityCurrent() const {
    return !hasTimeline() || (seriesMatches(m_activity, FrameId{}) && !m_activityJob.isRunning());
}

bool TimelineView::highlightCurrent() const {
    return !hasTimeline() || m_highlight.value == 0 ||
           (seriesMatches(m_onStack, m_highlight) && !m_highlightJob.isRunning());
}

const std::vector<uint32_t>*
TimelineView::seriesOf(const Series& s, const std::vector<std::vector<uint32_t>>& series, uint32_t thread) {
    const auto it = std::find(s.lanes.begin(), s.lanes.end(), thread);
    const auto i = static_cast<std::size_t>(it - s.lanes.begin());
    return it != s.lanes.end() && i < series.size() ? &series[i] : nullptr;
}

namespace {
std::vector<uint32_t> copyOf(const std::vector<uint32_t>* series) {
    return series ? *series : std::vector<uint32_t>{};
}
} // namespace

std::vector<uint32_t> TimelineView::activityOf(uint32_t thread) const {
    return copyOf(seriesOf(m_activity, m_activity.counts, thread));
}

std::vector<uint32_t> TimelineView::offCpuOf(uint32_t thread) const {
    return copyOf(seriesOf(m_activity, m_activity.offCpu, thread));
}

std::vector<uint32_t> TimelineView::highlightOf(uint32_t thread) const {
    return copyOf(seriesOf(m_onStack, m_onStack.counts, thread));
}

} // namespace scorch
