#include "sandwich/sandwichview.h"

#include "common/qtprofile.h"
#include "scorch/sandwich.h"

#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QShortcut>
#include <QSplitter>
#include <QStyle>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace scorch {

struct SandwichView::Result {
    std::shared_ptr<const ChartData> from; // the data it was computed from
    FrameId function;
    std::shared_ptr<const ChartData> callers, callees;
    std::vector<int64_t> self, total;
};

namespace {

QScrollArea* chartScroll(FlameGraphView* view, QWidget* parent) {
    auto* scroll = new QScrollArea(parent);
    scroll->setWidget(view);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setFrameShape(QFrame::NoFrame);
    return scroll;
}

} // namespace

SandwichView::SandwichView(QWidget* parent)
    : QWidget(parent)
    , m_back(new QToolButton(this))
    , m_forward(new QToolButton(this))
    , m_title(new QLabel(this))
    , m_note(new QLabel(this))
    , m_callers(new FlameGraphView)
    , m_callees(new FlameGraphView) {
    m_back->setObjectName(QStringLiteral("sandwichBack"));
    m_back->setIcon(style()->standardIcon(QStyle::SP_ArrowBack));
    m_back->setToolTip(tr("The function shown before (Alt+Left)"));
    m_back->setAutoRaise(true);
    m_forward->setObjectName(QStringLiteral("sandwichForward"));
    m_forward->setIcon(style()->standardIcon(QStyle::SP_ArrowForward));
    m_forward->setToolTip(tr("The function shown next (Alt+Right)"));
    m_forward->setAutoRaise(true);
    m_title->setObjectName(QStringLiteral("sandwichTitle"));
    m_title->setTextFormat(Qt::RichText);
    m_title->setMinimumWidth(50); // a long name is elided by the layout, never widens the window
    m_title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_note->setObjectName(QStringLiteral("sandwichNote"));
    m_note->setContentsMargins(6, 2, 6, 2);
    m_note->setWordWrap(true);
    m_note->hide();
    m_callers->setObjectName(QStringLiteral("callersChart"));
    m_callees->setObjectName(QStringLiteral("calleesChart"));
    m_callers->setOrientation(FlameGraphView::Orientation::Flame);  // the function at the bottom
    m_callees->setOrientation(FlameGraphView::Orientation::Icicle); // the function at the top
    m_callersScroll = chartScroll(m_callers, this);
    m_calleesScroll = chartScroll(m_callees, this);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(2, 2, 6, 2);
    bar->setSpacing(2);
    bar->addWidget(m_back);
    bar->addWidget(m_forward);
    bar->addSpacing(6);
    bar->addWidget(m_title, 1);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_callersScroll);
    split->addWidget(m_calleesScroll);
    split->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(m_note);
    layout->addWidget(split, 1);

    connect(m_back, &QToolButton::clicked, this, &SandwichView::back);
    connect(m_forward, &QToolButton::clicked, this, &SandwichView::forward);
    for (auto [keys, slot] : {std::pair{QKeySequence(Qt::ALT | Qt::Key_Left), &SandwichView::back},
                              std::pair{QKeySequence(Qt::ALT | Qt::Key_Right), &SandwichView::forward}}) {
        auto* shortcut = new QShortcut(keys, this);
        shortcut->setContext(Qt::WidgetWithChildrenShortcut);
        connect(shortcut, &QShortcut::activated, this, slot);
    }
    for (FlameGraphView* view : {m_callers, m_callees}) {
        // The transforms are left out of the charts' menus: their trees are not the chart's (a path of the
        // callers tree means nothing there); zoom, copy, source and sandwich stay.
        view->setHiddenMenuActions({QStringLiteral("focus"), QStringLiteral("hide"),
                                    QStringLiteral("collapseRecursion"), QStringLiteral("focusSubtree"),
                                    QStringLiteral("drop"), QStringLiteral("collapseModule"),
                                    QStringLiteral("mergeModule")});
        connect(view, &FlameGraphView::nodeDoubleClicked, this,
                [this, view](NodeId node) { onDoubleClicked(view, node); });
        connect(view, &FlameGraphView::sandwichRequested, this, &SandwichView::showFunction);
        connect(view, &FlameGraphView::sourceRequested, this, &SandwichView::sourceRequested);
    }
    updateButtons();
}

SandwichView::~SandwichView() = default; // the job drops a sandwich still being computed

void SandwichView::setData(std::shared_ptr<const ChartData> data) {
    m_data = std::move(data);
    recompute();
}

FrameId SandwichView::function() const {
    return m_history.empty() ? FrameId{} : m_history[m_index];
}

void SandwichView::showFunction(FrameId frame) {
    if (frame.value == 0 || (!m_history.empty() && frame == function()))
        return;
    if (!m_history.empty())
        m_history.resize(m_index + 1);
    m_history.push_back(frame);
    m_index = m_history.size() - 1;
    updateButtons();
    recompute();
}

void SandwichView::back() {
    if (!canGoBack())
        return;
    --m_index;
    updateButtons();
    recompute();
}

void SandwichView::forward() {
    if (!canGoForward())
        return;
    ++m_index;
    updateButtons();
    recompute();
}

void SandwichView::updateButtons() {
    m_back->setEnabled(canGoBack());
    m_forward->setEnabled(canGoForward());
    Q_EMIT historyChanged();
}

void SandwichView::setDiffColoring(const DiffColoring& coloring) {
    for (FlameGraphView* view : {m_callers, m_callees}) {
        view->setColorScheme(FlameGraphView::ColorScheme::Differential);
        view->setDiffColoring(coloring);
    }
}

void SandwichView::setToolTipProvider(std::function<QString(const CallTree&, NodeId)> provider) {
    for (FlameGraphView* view : {m_callers, m_callees})
        view->setToolTipProvider([view, provider](NodeId n) -> QString {
            const auto data = view->data();
            return data && n < data->tree.size() ? provider(data->tree, n) : QString();
        });
}

void SandwichView::recompute() {
    const FrameId frame = function();
    if (!m_data || frame.value == 0 || frame.value >= m_data->profile->frames.size()) {
        m_job.drop();
        m_busy = false;
        m_callers->setData(nullptr);
        m_callees->setData(nullptr);
        m_title->setText(m_data ? tr("Select a function (in a table, or a frame's context menu: Show in "
                                     "Sandwich, key S) to see its callers and callees.")
                                : QString());
        m_note->hide();
        Q_EMIT sandwichShown();
        return;
    }
    // One pass over the tree and a path per sample leaf: quick for most profiles, seconds for the biggest.
    m_busy = true;
    m_job.start(
        [data = m_data, frame](const JobContext&) {
            Sandwich s = sandwich(*data->profile, data->tree, frame);
            auto result = std::make_shared<Result>();
            result->from = data;
            result->function = frame;
            auto callers = std::make_shared<ChartData>(data->profile, std::move(s.callers));
            callers->costType = data->costType;
            auto callees = std::make_shared<ChartData>(data->profile, std::move(s.callees));
            callees->costType = data->costType;
            callers->layout(), callees->layout();
            result->callers = std::move(callers);
            result->callees = std::move(callees);
            result->self = std::move(s.self);
            result->total = std::move(s.total);
            return std::shared_ptr<const Result>(std::move(result));
        },
        [this](std::shared_ptr<const Result> result) { apply(std::move(result)); });
}

void SandwichView::apply(std::shared_ptr<const Result> r) {
    m_busy = false;
    const Profile& profile = *r->from->profile;
    const std::size_t ct = r->from->costType;
    const QString name = frameDisplayName(profile, r->function);
    const QString shortName =
        QFontMetrics(font()).elidedText(frameShortName(profile, r->function), Qt::ElideMiddle, 400);
    const int64_t all = r->from->tree.grandTotal(ct);
    const int64_t total = ct < r->total.size() ? r->total[ct] : 0;
    const int64_t self = ct < r->self.size() ? r->self[ct] : 0;
    m_title->setText(tr("<b>%1</b> &nbsp; total %2 &nbsp; self %3")
                         .arg(shortName.toHtmlEscaped(),
                              costWithPercent(profile, ct, total, all).toHtmlEscaped(),
                              costWithPercent(profile, ct, self, all).toHtmlEscaped()));
    m_title->setToolTip(name);
    const bool empty = r->callers->tree.grandTotal(ct) == 0 && r->callees->tree.grandTotal(ct) == 0;
    m_note->setText(
        tr("%1 has no cost in what the chart shows (threads, time range, transforms).").arg(name));
    m_note->setVisible(empty);
    m_callers->setRootLabel(tr("callers of %1").arg(shortName));
    m_callees->setRootLabel(tr("callees of %1").arg(shortName));
    m_callers->setData(r->callers);
    m_callees->setData(r->callees);
    m_callers->setMinimumHeight(m_callers->chartHeight());
    m_callees->setMinimumHeight(m_callees->chartHeight());
    scrollToFunction();
    Q_EMIT sandwichShown();
}

void SandwichView::scrollToFunction() {
    // The function's rows face each other across the splitter: the callers chart scrolled to its bottom
    // (its root), the callees chart to its top.
    QTimer::singleShot(0, this, [this] {
        QScrollBar* up = m_callersScroll->verticalScrollBar();
        up->setValue(up->maximum());
        m_calleesScroll->verticalScrollBar()->setValue(0);
    });
}

void SandwichView::onDoubleClicked(FlameGraphView* view, NodeId node) {
    const auto data = view->data();
    if (!data || node == kRootNode || node >= data->tree.size())
        return;
    showFunction(data->tree.frame(node));
}

} // namespace scorch
