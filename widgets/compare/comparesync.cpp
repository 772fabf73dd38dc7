// CompareView's synchronisation of the charts (zoom, selection, hover), the notices, breadcrumbs, tooltip
// and input filtering; construction, options and applying the diff build are in compareview.cpp.
#include "compare/compareview.h"

#include "common/qtprofile.h"
#include "compare/comparesummary.h"
#include "compare/difffunctionmodel.h"
#include "flame/breadcrumbbar.h"
#include "flame/searchbar.h"
#include "sandwich/sandwichview.h"

#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QScopedValueRollback>
#include <QScrollArea>
#include <QScrollBar>
#include <QTimer>

#include <algorithm>

namespace scorch {

void CompareView::focusSearch() {
    m_search->show();
    m_search->lineEdit()->setFocus(Qt::ShortcutFocusReason);
    m_search->lineEdit()->selectAll();
}

void CompareView::findNext(bool backwards) {
    if (m_search->isHidden() || m_search->lineEdit()->text().isEmpty())
        focusSearch();
    else
        primaryView()->nextMatch(backwards);
}

void CompareView::zoomAll(NodeId node) {
    syncZoom(nullptr, node);
}

void CompareView::syncZoom(FlameGraphView* source, NodeId node) {
    if (m_syncing || !m_diff || node >= m_diff->tree.size())
        return;
    const QScopedValueRollback guard(m_syncing, true);
    m_zoomNode = node;
    const CallTree& t = m_diff->tree;
    for (FlameGraphView* v : m_views) {
        if (v == source || !v->data())
            continue;
        NodeId target = node; // where the path does not exist, its deepest ancestor that does
        while (target != kRootNode && v->layout().width(target) <= 0)
            target = t.parent(target);
        if (v->zoomRoot() != target)
            v->zoomTo(target);
    }
    updateBreadcrumbs();
    updateNotices();
}

void CompareView::syncSelection(FlameGraphView* source, NodeId node) {
    if (m_syncing || !m_diff)
        return;
    const QScopedValueRollback guard(m_syncing, true);
    for (FlameGraphView* v : m_views)
        if (v != source)
            v->selectNode(node);
    // the function's row in the table follows (without selecting anything back: only clicks and keys do)
    m_summary->showFunction(node != kRootNode && node < m_diff->tree.size()
                                ? std::optional<FrameId>(m_diff->tree.frame(node))
                                : std::nullopt);
    updateNotices();
}

void CompareView::syncHover(FlameGraphView* source, qint64 node) {
    for (FlameGraphView* v : m_views)
        if (v != source)
            v->setHoveredNode(node < 0 ? std::nullopt : std::optional<NodeId>(static_cast<NodeId>(node)));
}

void CompareView::updateNotices() {
    const QString sideName[3] = {tr("before"), tr("after"), tr("this chart")};
    for (std::size_t i = 0; i < 3; ++i) {
        QLabel* label = m_notices[i];
        const FlameGraphView* v = m_views[i];
        QString text;
        if (m_diff && v->data()) {
            const NodeId selected = v->selectedNode();
            for (const auto& [node, what] :
                 {std::pair{m_zoomNode, tr("Zoomed")}, std::pair{selected, tr("Selected")}}) {
                if (node == kRootNode || node >= m_diff->tree.size() || v->layout().width(node) > 0)
                    continue;
                const QString name = frameDisplayName(*m_diff, m_diff->tree.frame(node));
                const DiffStatus s = diffStatus(m_diff->tree, node);
                const QString why = s == DiffStatus::Added     ? tr(" (added in after)")
                                    : s == DiffStatus::Removed ? tr(" (removed in after)")
                                                               : tr(" (hidden by the noise floor)");
                text = tr("%1 frame “%2” does not exist in %3%4")
                           .arg(what, fontMetrics().elidedText(name, Qt::ElideMiddle, 500), sideName[i], why);
                break;
            }
        }
        label->setText(text);
        label->setVisible(!text.isEmpty());
    }
}

void CompareView::updateBreadcrumbs() {
    std::vector<BreadcrumbBar::Crumb> crumbs;
    if (m_diff && m_diff->tree.size() > 0) {
        crumbs.push_back({kRootNode, tr("all")});
        if (m_zoomNode != kRootNode && m_zoomNode < m_diff->tree.size())
            for (NodeId n : m_diff->tree.path(m_zoomNode))
                crumbs.push_back({n, frameDisplayName(*m_diff, m_diff->tree.frame(n))});
    }
    m_crumbs->setPath(std::move(crumbs));
}

void CompareView::selectFunction(FrameId frame) {
    if (!m_diff)
        return;
    if (m_mode == Mode::Sandwich)
        m_sandwich->showFunction(frame);
    FlameGraphView* primary = primaryView();
    for (FlameGraphView* v : {primary, m_views[Diff], m_views[After], m_views[Before]}) {
        v->selectFunction(frame);
        const NodeId s = v->selectedNode();
        if (s != kRootNode && m_diff->tree.frame(s) == frame)
            break;
    }
}

QString CompareView::nodeToolTip(const CallTree& t, NodeId n) const {
    if (!m_diff || n >= t.size())
        return {};
    const Profile& p = *m_diff;
    const QString br = QStringLiteral("<br/>");
    const CostType& type = p.costTypes[kAfter];
    auto cost = [&](int64_t v) {
        return toQString(formatCost(v, type)).toHtmlEscaped();
    };
    auto delta = [&](int64_t b, int64_t a) {
        const int64_t d = subCost(a, b);
        QString s = (d > 0 ? QStringLiteral("+") : QString()) + cost(d);
        if (b != 0)
            s += QStringLiteral(" (") +
                 signedPercentText(100.0 * static_cast<double>(d) / static_cast<double>(b)) +
                 QLatin1Char(')');
        return s;
    };
    QString text = n == kRootNode ? tr("<b>all</b>")
                                  : QStringLiteral("<b>") + frameDisplayName(p, t.frame(n)).toHtmlEscaped() +
                                        QStringLiteral("</b>");
    if (n != kRootNode) {
        const Frame& f = p.frames[t.frame(n)];
        if (f.module)
            text += br + tr("Module: %1").arg(displayText(p.strings.view(f.module)).toHtmlEscaped());
        const DiffStatus s = diffStatus(t, n);
        if (s == DiffStatus::Added)
            text += br + tr("<i>Added: only in after</i>");
        else if (s == DiffStatus::Removed)
            text += br + tr("<i>Removed: only in before</i>");
    }
    const int64_t tb = t.total(kBefore, n), ta = t.total(kAfter, n);
    const int64_t sb = t.self(kBefore, n), sa = t.self(kAfter, n);
    text +=
        QStringLiteral("<table cellspacing=\"0\" cellpadding=\"1\">") +
        tr("<tr><td></td><td align=\"right\"><b>Total</b>&nbsp;&nbsp;</td><td "
           "align=\"right\"><b>Self</b></td></tr>") +
        tr("<tr><td>Before&nbsp;</td><td align=\"right\">%1&nbsp;&nbsp;</td><td align=\"right\">%2</td></tr>")
            .arg(cost(tb), cost(sb)) +
        tr("<tr><td>After</td><td align=\"right\">%1&nbsp;&nbsp;</td><td align=\"right\">%2</td></tr>")
            .arg(cost(ta), cost(sa)) +
        tr("<tr><td>Delta</td><td align=\"right\">%1&nbsp;&nbsp;</td><td align=\"right\">%2</td></tr>")
            .arg(delta(tb, ta), delta(sb, sa)) +
        QStringLiteral("</table>");
    return text;
}

void CompareView::scrollToRoot() {
    QTimer::singleShot(0, this, [this] {
        for (QScrollArea* s : m_scrolls) {
            QScrollBar* bar = s->verticalScrollBar();
            bar->setValue(
                m_views[Before]->orientation() == FlameGraphView::Orientation::Flame ? bar->maximum() : 0);
        }
    });
}

bool CompareView::eventFilter(QObject* watched, QEvent* event) {
    auto* v = qobject_cast<FlameGraphView*>(watched);
    if (!v)
        return QWidget::eventFilter(watched, event);
    if (event->type() == QEvent::ContextMenu) { // the charts' menu without the transforms (not offered here)
        auto* e = static_cast<QContextMenuEvent*>(event);
        const NodeId n = v->nodeAt(e->pos());
        std::unique_ptr<QMenu> menu(v->createContextMenu(n, v));
        for (const char* name :
             {"focus", "hide", "collapseRecursion", "focusSubtree", "drop", "collapseModule", "mergeModule"})
            if (QAction* a = menu->findChild<QAction*>(QLatin1String(name)))
                menu->removeAction(a);
        menu->exec(e->globalPos());
        return true;
    }
    if ((event->type() == QEvent::ShortcutOverride || event->type() == QEvent::KeyPress) &&
        static_cast<QKeyEvent*>(event)->matches(QKeySequence::Find)) {
        event->accept();
        if (event->type() == QEvent::KeyPress)
            focusSearch();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace scorch
