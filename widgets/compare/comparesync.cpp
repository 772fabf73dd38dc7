// CompareView's synchronisation of the charts (zoom, selection, hover), the notices, breadcrumbs, totals,
// tooltip and input filtering; construction, options and the diff build are in compareview.cpp.
#include "compare/compareview.h"

#include "common/qtprofile.h"
#include "compare/difffunctionmodel.h"
#include "flame/breadcrumbbar.h"
#include "flame/searchbar.h"

#include <QComboBox>
#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QScopedValueRollback>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>

#include <algorithm>

namespace scorch {

namespace {

QString percentText(double p) {
    return (p > 0 ? QStringLiteral("+") : QString()) + QString::number(p, 'f', 1) + QLatin1Char('%');
}

} // namespace

void CompareView::focusSearch() {
    m_search->show();
    m_search->lineEdit()->setFocus(Qt::ShortcutFocusReason);
    m_search->lineEdit()->selectAll();
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
    const int row =
        node != kRootNode && node < m_diff->tree.size() ? m_model->rowOfFrame(m_diff->tree.frame(node)) : -1;
    const QModelIndex index = row >= 0 ? m_proxy->mapFromSource(m_model->index(row, 0)) : QModelIndex();
    if (index.isValid()) {
        m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                              QItemSelectionModel::Rows);
        m_table->scrollTo(index);
    } else {
        m_table->selectionModel()->clearSelection();
    }
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

void CompareView::updateTotals() {
    if (!m_beforeProfile || !m_afterProfile || m_beforeProfile->costTypes.empty() ||
        m_afterProfile->costTypes.empty() || m_beforeProfile->tree.size() == 0 ||
        m_afterProfile->tree.size() == 0) {
        m_totals->setText(tr("No profiles to compare"));
        return;
    }
    const int64_t before = m_beforeProfile->tree.grandTotal(0), after = m_afterProfile->tree.grandTotal(0);
    QString text = tr("<b>Before</b> %1 &nbsp;·&nbsp; <b>After</b> %2")
                       .arg(toQString(formatCost(before, m_beforeProfile->costTypes[0])).toHtmlEscaped(),
                            toQString(formatCost(after, m_afterProfile->costTypes[0])).toHtmlEscaped());
    if (before != 0) {
        const double ratio = static_cast<double>(after) / static_cast<double>(before);
        text += tr(" &nbsp;·&nbsp; <b>After / Before</b> %1× (%2)")
                    .arg(QString::number(ratio, 'f', 3), percentText(100.0 * (ratio - 1.0)));
    }
    if (m_beforeProfile->costTypes[0].name != m_afterProfile->costTypes[0].name)
        text += tr(" &nbsp;·&nbsp; <b>comparing %1 with %2</b>")
                    .arg(toQString(m_beforeProfile->costTypes[0].name).toHtmlEscaped(),
                         toQString(m_afterProfile->costTypes[0].name).toHtmlEscaped());
    if (m_options.normalize && m_diff)
        text += tr(" &nbsp;·&nbsp; before scaled to %1")
                    .arg(toQString(formatCost(m_diff->tree.grandTotal(kBefore), m_diff->costTypes[kBefore])));
    if (m_diff && diffMatchesModules(*m_beforeProfile, *m_afterProfile, m_options))
        text += tr(" &nbsp;·&nbsp; frames matched by function and module");
    else if (m_diff)
        text += tr(" &nbsp;·&nbsp; frames matched by function name");
    m_totals->setText(text);
}

void CompareView::updateFilter() {
    const auto show = static_cast<DiffFunctionProxy::Show>(std::clamp(m_showBox->currentIndex(), 0, 2));
    m_proxy->setFilter(show, m_metric, m_hideNoise ? noiseThreshold() : 0);
}

void CompareView::selectFunction(FrameId frame) {
    if (!m_diff)
        return;
    FlameGraphView* primary = primaryView();
    for (FlameGraphView* v : {primary, m_views[2], m_views[1], m_views[0]}) {
        v->selectFunction(frame);
        const NodeId s = v->selectedNode();
        if (s != kRootNode && m_diff->tree.frame(s) == frame)
            break;
    }
}

QString CompareView::nodeToolTip(NodeId n) const {
    if (!m_diff || n >= m_diff->tree.size())
        return {};
    const Profile& p = *m_diff;
    const CallTree& t = p.tree;
    const QString br = QStringLiteral("<br/>");
    const CostType& type = p.costTypes[kAfter];
    auto cost = [&](int64_t v) {
        return toQString(formatCost(v, type)).toHtmlEscaped();
    };
    auto delta = [&](int64_t b, int64_t a) {
        const int64_t d = subCost(a, b);
        QString s = (d > 0 ? QStringLiteral("+") : QString()) + cost(d);
        if (b != 0)
            s += QStringLiteral(" (") + percentText(100.0 * static_cast<double>(d) / static_cast<double>(b)) +
                 QLatin1Char(')');
        return s;
    };
    QString text = n == kRootNode ? tr("<b>all</b>")
                                  : QStringLiteral("<b>") + frameDisplayName(p, t.frame(n)).toHtmlEscaped() +
                                        QStringLiteral("</b>");
    if (n != kRootNode) {
        const Frame& f = p.frames[t.frame(n)];
        if (f.module)
            text += br + tr("Module: %1").arg(toQString(p.strings.view(f.module)).toHtmlEscaped());
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
            bar->setValue(m_views[0]->orientation() == FlameGraphView::Orientation::Flame ? bar->maximum()
                                                                                          : 0);
        }
    });
}

bool CompareView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_table && event->type() == QEvent::KeyPress) { // the table handles it right after this
        m_tableKeyNavigation = true;
        QTimer::singleShot(0, this, [this] { m_tableKeyNavigation = false; });
    }
    auto* v = qobject_cast<FlameGraphView*>(watched);
    if (!v)
        return QWidget::eventFilter(watched, event);
    if (event->type() == QEvent::ContextMenu) { // the charts' menu without the transforms (not offered here)
        auto* e = static_cast<QContextMenuEvent*>(event);
        const NodeId n = v->nodeAt(e->pos());
        std::unique_ptr<QMenu> menu(v->createContextMenu(n, v));
        for (const char* name : {"focus", "hide", "collapseRecursion"})
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
