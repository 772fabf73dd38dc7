#include "timeline/timelinepanel.h"

#include "common/layoutfence.h"

#include "common/qtprofile.h"
#include "scorch/import.h"
#include "timeline/stackchart.h"
#include "timeline/timelineview.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace scorch {

namespace {
/// A one-line hint that ends in "…" where the header leaves it too little room (never cut mid-word).
class ElidedLabel final : public QLabel {
public:
    using QLabel::QLabel;

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        p.setPen(palette().color(QPalette::Disabled, QPalette::WindowText));
        p.drawText(contentsRect(), Qt::AlignLeft | Qt::AlignVCenter,
                   fontMetrics().elidedText(text(), Qt::ElideRight, contentsRect().width()));
    }
};
} // namespace

TimelinePanel::TimelinePanel(QWidget* parent)
    : QWidget(parent)
    , m_view(new TimelineView(this))
    , m_header(new QWidget(this))
    , m_chip(new QToolButton(m_header))
    , m_zoomOut(new QToolButton(m_header))
    , m_stackButton(new QToolButton(m_header))
    , m_compareButton(new QToolButton(m_header))
    , m_compareMenu(new QMenu(this))
    , m_stackArea(new QScrollArea(this))
    , m_stack(new StackChartView)
    , m_hint(new ElidedLabel(m_header))
    , m_note(new QLabel(this)) {
    m_chip->setObjectName(QStringLiteral("rangeChip"));
    m_chip->setToolTip(tr("The chart and tables show only this time range\nClick to show the whole profile "
                          "(Esc in the timeline)"));
    m_chip->hide();
    m_zoomOut->setText(tr("Zoom Out"));
    m_zoomOut->setAutoRaise(true);
    m_zoomOut->setToolTip(tr("Show the whole time span (double-click or Esc in the timeline)"));
    m_zoomOut->hide();
    m_hint->setText(
        tr("Drag to select a time range · double-click zooms into it · click a thread to show only "
           "it"));
    m_hint->setToolTip(m_hint->text());
    m_hint->setMinimumWidth(0);
    m_hint->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto* headerLayout = new QHBoxLayout(m_header);
    headerLayout->setContentsMargins(4, 1, 4, 1);
    headerLayout->addWidget(m_chip);
    headerLayout->addWidget(m_zoomOut);
    headerLayout->addWidget(m_hint, 1);
    headerLayout->addWidget(m_compareButton);
    headerLayout->addWidget(m_stackButton);
    m_withRest = m_compareMenu->addAction(tr("Selection with the Rest of the Recording"), this,
                                          &TimelinePanel::compareSelectionWithRest);
    m_compareMenu->addSeparator();
    m_markBaseline = m_compareMenu->addAction(tr("Mark Selection as Baseline"), this,
                                              [this] { setBaseline(m_view->selection()); });
    m_withBaseline = m_compareMenu->addAction(tr("Baseline with Selection"), this,
                                              &TimelinePanel::compareBaselineWithSelection);
    m_clearBaseline =
        m_compareMenu->addAction(tr("Clear Baseline"), this, [this] { setBaseline(std::nullopt); });
    m_compareButton->setObjectName(QStringLiteral("compareRanges"));
    m_compareButton->setText(tr("Compare"));
    m_compareButton->setMenu(m_compareMenu);
    m_compareButton->setPopupMode(QToolButton::InstantPopup);
    m_compareButton->setAutoRaise(true);
    m_compareButton->setToolTip(tr("Compare two time ranges in a comparison tab: the selection with the "
                                   "rest of the recording, or a baseline range with the selection"));
    connect(m_compareMenu, &QMenu::aboutToShow, this, &TimelinePanel::updateCompareActions);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        if (m_view->hasTimeline() && pos.x() >= m_view->plotRect().left())
            m_compareMenu->popup(m_view->mapToGlobal(pos));
    });
    m_stackButton->setText(tr("Stack Chart"));
    m_stackButton->setCheckable(true);
    m_stackButton->setAutoRaise(true);
    m_stackButton->setToolTip(
        tr("One thread's stacks in time order below the lanes (click a thread's name to "
           "choose it)"));
    m_stackArea->setWidget(m_stack);
    m_stackArea->setWidgetResizable(true);
    m_stackArea->setFrameShape(QFrame::NoFrame);
    m_stackArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_stackArea->hide();

    m_note->setObjectName(QStringLiteral("timelineNote"));
    m_note->setTextFormat(Qt::PlainText);
    m_note->setContentsMargins(6, 3, 6, 3);
    m_note->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(
        new LayoutFence(m_header, this)); // the chip's and hint's texts change as a range is dragged
    layout->addWidget(m_view, 1);
    layout->addWidget(m_stackArea, 3);
    layout->addWidget(m_note);

    connect(m_chip, &QToolButton::clicked, this, [this] { m_view->setSelection(std::nullopt); });
    connect(m_zoomOut, &QToolButton::clicked, m_view, &TimelineView::resetZoom);
    connect(m_view, &TimelineView::selectionChanged, this, [this](std::optional<TimeRange> range) {
        updateHeader();
        Q_EMIT rangeChanged(range);
    });
    connect(m_view, &TimelineView::visibleRangeChanged, this, &TimelinePanel::updateHeader);
    connect(m_view, &TimelineView::threadClicked, this, &TimelinePanel::threadClicked);
    connect(m_view, &TimelineView::threadClicked, m_stack, &StackChartView::setThread);
    connect(m_view, &TimelineView::visibleRangeChanged, m_stack, &StackChartView::setVisibleRange);
    connect(m_stackButton, &QToolButton::toggled, this, &TimelinePanel::setStackChartVisible);
    // the bands' thread names stay in view as the chart scrolls: the scrolled pixels are not enough
    connect(m_stackArea->verticalScrollBar(), &QScrollBar::valueChanged, m_stack,
            qOverload<>(&QWidget::update));
}

void TimelinePanel::setProfile(std::shared_ptr<const Profile> profile) {
    const bool hadSelection = m_view->selection().has_value();
    m_baseline.reset();
    m_view->setBaseline(std::nullopt);
    const Profile* p = profile.get();
    m_view->setProfile(std::move(profile));
    const bool timeline = m_view->hasTimeline();
    m_header->setVisible(timeline);
    m_view->setVisible(timeline);
    m_note->setVisible(!timeline && p);
    if (!timeline && p) {
        m_note->setText(
            p->samples
                ? tr("No timeline: the profile has no samples")
                : tr("No timeline: %1 has no per-sample times").arg(toQString(formatName(p->meta.format))));
        m_note->setToolTip(m_note->text());
    }
    setMaximumHeight(timeline ? QWIDGETSIZE_MAX : m_note->sizeHint().height());
    m_stack->setProfile(timeline ? m_view->profile() : nullptr);
    if (timeline)
        m_stack->setThread(m_view->lanes().front());
    m_stack->setVisibleRange(m_view->visibleRange());
    if (!timeline)
        setStackChartVisible(false);
    syncStackSpan();
    updateHeader();
    if (hadSelection)
        Q_EMIT rangeChanged(std::nullopt);
}

void TimelinePanel::setThreads(const std::vector<uint32_t>& threads) {
    m_view->setThreads(threads);
    if (threads.size() == 1) {
        m_stack->setThread(threads.front());
    } else if (threads.size() > 1) {
        std::vector<uint32_t> stacked; // in the lanes' order, then those in a folded process
        for (uint32_t lane : m_view->lanes())
            if (std::find(threads.begin(), threads.end(), lane) != threads.end())
                stacked.push_back(lane);
        for (uint32_t t : threads)
            if (std::find(stacked.begin(), stacked.end(), t) == stacked.end())
                stacked.push_back(t);
        m_stack->setThreads(std::move(stacked));
    } else if (m_stack->threads().size() > 1) { // all threads again: the first of those stacked
        m_stack->setThread(m_stack->thread());
    }
}

void TimelinePanel::setStackChartVisible(bool visible) {
    visible = visible && m_view->hasTimeline();
    m_stackButton->setChecked(visible);
    m_stackArea->setVisible(visible);
    // With the stack chart the lanes keep their preferred height, and the chart gets a few rows at least:
    // the panel's minimum grows, so the splitter gives it the room.
    m_view->setMinimumHeight(visible ? m_view->sizeHint().height() : 0);
    m_stackArea->setMinimumHeight(visible ? 6 * m_stack->rowHeight() : 0);
    syncStackSpan();
}

void TimelinePanel::syncStackSpan() {
    const QRect plot = m_view->plotRect();
    m_stack->setPlotSpan(plot.left(), plot.width());
}

void TimelinePanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    syncStackSpan();
}

void TimelinePanel::setBaseline(std::optional<TimeRange> range) {
    m_baseline = range;
    m_view->setBaseline(range);
    updateCompareActions();
}

bool TimelinePanel::compareSelectionWithRest() {
    const std::optional<TimeRange> selection = m_view->selection();
    if (!selection)
        return false;
    Q_EMIT compareRequested(*selection, std::nullopt);
    return true;
}

bool TimelinePanel::compareBaselineWithSelection() {
    const std::optional<TimeRange> selection = m_view->selection();
    if (!selection || !m_baseline ||
        (selection->begin == m_baseline->begin && selection->end == m_baseline->end))
        return false;
    Q_EMIT compareRequested(*m_baseline, *selection);
    return true;
}

void TimelinePanel::updateCompareActions() {
    const std::optional<TimeRange> selection = m_view->selection();
    const bool sameAsBaseline =
        selection && m_baseline && selection->begin == m_baseline->begin && selection->end == m_baseline->end;
    m_withRest->setEnabled(selection.has_value());
    m_markBaseline->setEnabled(selection.has_value() && !sameAsBaseline);
    m_withBaseline->setEnabled(selection && m_baseline && !sameAsBaseline);
    m_withBaseline->setText(m_baseline
                                ? tr("Baseline (%1) with Selection").arg(formatTimelineRange(*m_baseline))
                                : tr("Baseline with Selection"));
    m_clearBaseline->setEnabled(m_baseline.has_value());
}

void TimelinePanel::updateHeader() {
    const std::optional<TimeRange> range = m_view->selection();
    if (range) // (named before it is shown: shown empty, it is taller, and the header's height changes)
        m_chip->setText(formatTimelineRange(*range) + QStringLiteral("  ✕"));
    m_chip->setVisible(range.has_value());
    m_zoomOut->setVisible(m_view->zoomed());
}

} // namespace scorch
