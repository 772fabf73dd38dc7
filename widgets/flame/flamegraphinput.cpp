// FlameGraphView's input handling: mouse, wheel, keyboard, tooltip and context menu.
#include "flame/flamegraphview_p.h"

#include <map>

namespace scorch {

QString FlameGraphView::toolTipText(QPoint pos) const {
    const auto b = d->geometry(rect()).blockAt(pos);
    if (!b)
        return {};
    const Profile& profile = *d->data->profile;
    const std::size_t ct = d->data->costType;
    const int64_t all = d->data->tree.grandTotal(ct);
    auto costText = [&](int64_t value, int64_t whole) {
        return costWithPercent(profile, ct, value, whole);
    };
    const QString br = QStringLiteral("<br/>");
    if (b->merged())
        return tr("<b>%1 small frames</b> (merged; zoom in to see them)").arg(b->count) + br +
               tr("Total: %1").arg(costText(b->cost, all).toHtmlEscaped());
    const CallTree& t = d->data->tree;
    const NodeId n = b->node;
    if (d->toolTipProvider)
        return d->toolTipProvider(n);
    if (n == kRootNode)
        return tr("<b>all</b>") + br + tr("Total: %1").arg(costText(t.total(ct, n), all).toHtmlEscaped()) +
               offCpuSplit(n);
    const Frame& f = profile.frames[t.frame(n)];
    QString text = QStringLiteral("<b>") + frameDisplayName(profile, t.frame(n)).toHtmlEscaped() +
                   QStringLiteral("</b>");
    if (f.module)
        text += br + tr("Module: %1").arg(displayText(profile.strings.view(f.module)).toHtmlEscaped());
    if (f.file) {
        QString where = displayText(profile.strings.view(f.file));
        if (f.line > 0)
            where += QLatin1Char(':') + QString::number(f.line);
        text += br + tr("Source: %1").arg(where.toHtmlEscaped());
    }
    if (f.kind != FrameKind::Native)
        text += br + tr("Kind: %1").arg(toQString(frameKindName(f.kind)));
    text += br + tr("Total: %1").arg(costText(t.total(ct, n), all).toHtmlEscaped());
    const NodeId zr = d->zoomRoot;
    if (zr != kRootNode && n >= zr && n < t.subtreeEnd(zr) && t.total(ct, zr) != 0)
        text += br + tr("%1% of the zoomed frame")
                         .arg(QString::number(100.0 * t.total(ct, n) / t.total(ct, zr), 'f', 1));
    text += br + tr("Self: %1").arg(costText(t.self(ct, n), all).toHtmlEscaped());
    return text + offCpuSplit(n);
}

QString FlameGraphView::offCpuSplit(NodeId n) const {
    // Off-CPU profiles: the frame's wall time split into on-CPU and off-CPU, and the off-CPU time by why the
    // threads waited (the leaves under it)
    const Profile& profile = *d->data->profile;
    const CallTree& t = d->data->tree;
    std::size_t off = 0, wall = 0;
    if (!FlameColors::offCpuTypes(profile, off, wall) || t.costTypeCount() <= std::max(off, wall))
        return {};
    const int64_t whole = t.total(wall, n), offTotal = t.total(off, n);
    if (whole <= 0)
        return {};
    const QString br = QStringLiteral("<br/>");
    QString text =
        br + tr("On-CPU: %1").arg(costWithPercent(profile, wall, whole - offTotal, whole).toHtmlEscaped()) +
        br + tr("Off-CPU: %1").arg(costWithPercent(profile, wall, offTotal, whole).toHtmlEscaped());
    if (offTotal <= 0)
        return text;
    std::map<std::string_view, int64_t> kinds;
    const NodeId end = t.subtreeEnd(n);
    for (NodeId m = n; m < end; ++m)
        if (const int64_t v = t.self(off, m)) {
            const std::string_view name = profile.frameName(t.frame(m));
            if (name.starts_with("[blocked") || name == "[preempted]")
                kinds[name] += v;
        }
    for (const auto& [name, v] : kinds)
        text += br + QStringLiteral("&nbsp;&nbsp;") + toQString(name).toHtmlEscaped() + QStringLiteral(": ") +
                costWithPercent(profile, wall, v, whole).toHtmlEscaped();
    return text;
}

QMenu* FlameGraphView::createContextMenu(NodeId node, QWidget* parent) {
    auto* menu = new QMenu(parent);
    if (!d->valid(node))
        return menu;
    const CallTree& t = d->data->tree;
    const auto profile = d->data->profile;
    const FrameId frame = t.frame(node);
    auto add = [&](const QString& text, const char* name, auto&& slot) {
        QAction* a = menu->addAction(text);
        a->setVisible(!d->hiddenActions.contains(QLatin1String(name)));
        a->setObjectName(QLatin1String(name));
        connect(a, &QAction::triggered, this, slot);
        return a;
    };
    add(tr("Zoom to This Frame"), "zoom", [this, node] { zoomTo(node); });
    if (node == kRootNode)
        return menu;
    menu->addSeparator();
    add(tr("Copy Function Name"), "copyName",
        [profile, frame] { QApplication::clipboard()->setText(frameDisplayName(*profile, frame)); });
    add(tr("Copy Stack"), "copyStack", [profile, path = t.path(node), tree = &t] {
        QStringList lines;
        for (NodeId n : path)
            lines << frameDisplayName(*profile, tree->frame(n));
        QApplication::clipboard()->setText(lines.join(QLatin1Char('\n')));
    });
    add(tr("Show Source"), "showSource", [this, node, frame] {
        selectNode(node);
        Q_EMIT sourceRequested(frame);
    });
    const QString name = frameDisplayName(*profile, frame);
    const QString shortName = QFontMetrics(font()).elidedText(name, Qt::ElideMiddle, 300);
    QAction* sandwich = add(tr("Show %1 in Sandwich").arg(shortName), "sandwich", [this, node, frame] {
        selectNode(node);
        Q_EMIT sandwichRequested(frame);
    });
    sandwich->setShortcut(QKeySequence(Qt::Key_S));
    menu->addSeparator();
    add(tr("Focus on %1 (All Call Sites)").arg(shortName), "focus", [this, frame] {
        Q_EMIT transformRequested({TreeTransform::Kind::Focus, frame});
    });
    add(tr("Hide %1 (Merge into Callers)").arg(shortName), "hide", [this, frame] {
        Q_EMIT transformRequested({TreeTransform::Kind::Hide, frame});
    });
    add(tr("Collapse Recursion of %1").arg(shortName), "collapseRecursion", [this, frame] {
        Q_EMIT transformRequested({TreeTransform::Kind::CollapseRecursion, frame});
    });
    std::vector<FrameId> stack;
    for (NodeId n : t.path(node))
        stack.push_back(t.frame(n));
    add(tr("Focus on This Subtree Only"), "focusSubtree",
        [this, stack = std::move(stack)] { Q_EMIT transformRequested(TreeTransform::focusSubtree(stack)); });
    add(tr("Drop Samples with %1").arg(shortName), "drop", [this, frame] {
        Q_EMIT transformRequested({TreeTransform::Kind::Drop, frame});
    });
    if (const StringId module = profile->frames[frame].module; module) {
        const QString moduleName = toQString(moduleFrameName(profile->strings.view(module)));
        add(tr("Collapse Module %1").arg(moduleName), "collapseModule", [this, module] {
            Q_EMIT transformRequested(TreeTransform::forModule(TreeTransform::Kind::CollapseModule, module));
        });
        add(tr("Merge Module %1 into Callers").arg(moduleName), "mergeModule", [this, module] {
            Q_EMIT transformRequested(TreeTransform::forModule(TreeTransform::Kind::MergeModule, module));
        });
    }
    return menu;
}

bool FlameGraphView::event(QEvent* event) {
    if (event->type() == QEvent::Leave && d->hovered) {
        d->hovered.reset();
        update();
        Q_EMIT hoveredChanged(-1);
    }
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipText(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void FlameGraphView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange)
        d->paletteDirty = true;
    if (event->type() == QEvent::FontChange) {
        d->resetText();
        updateGeometry();
    }
    QWidget::changeEvent(event);
}

void FlameGraphView::mousePressEvent(QMouseEvent* event) {
    switch (event->button()) {
    case Qt::BackButton:
        back();
        return;
    case Qt::ForwardButton:
        forward();
        return;
    case Qt::LeftButton:
        d->pressPos = event->position().toPoint();
        d->pressViewStart = d->viewStart;
        d->dragging = false;
        return;
    default:
        QWidget::mousePressEvent(event);
    }
}

void FlameGraphView::mouseMoveEvent(QMouseEvent* event) {
    if (!(event->buttons() & Qt::LeftButton)) {
        const auto b = d->geometry(rect()).blockAt(event->position().toPoint());
        const std::optional<NodeId> hovered =
            b && !b->merged() ? std::optional<NodeId>(b->node) : std::nullopt;
        if (hovered != d->hovered) {
            d->hovered = hovered;
            setCursor(hovered ? Qt::PointingHandCursor : Qt::ArrowCursor);
            update();
            Q_EMIT hoveredChanged(hovered ? static_cast<qint64>(*hovered) : -1);
        }
        return;
    }
    const QPoint delta = event->position().toPoint() - d->pressPos;
    if (!d->dragging && delta.manhattanLength() < QApplication::startDragDistance())
        return;
    d->dragging = true;
    setCursor(Qt::ClosedHandCursor);
    const double scale = width() / std::max(1e-12, d->viewEnd - d->viewStart);
    const double w = d->viewEnd - d->viewStart;
    d->animation.stop();
    d->setRange(d->pressViewStart - delta.x() / scale, d->pressViewStart - delta.x() / scale + w);
}

void FlameGraphView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton)
        return QWidget::mouseReleaseEvent(event);
    if (d->dragging) {
        d->dragging = false;
        unsetCursor();
        return;
    }
    const auto b = d->geometry(rect()).blockAt(event->position().toPoint());
    if (!b)
        return;
    if (b->merged()) { // show the merged run across the width
        d->animateTo(static_cast<double>(b->start), static_cast<double>(b->start + b->cost));
        return;
    }
    d->select(b->node);
    zoomTo(b->node);
}

void FlameGraphView::mouseDoubleClickEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton)
        return QWidget::mouseDoubleClickEvent(event);
    mousePressEvent(event); // the second click selects and zooms as a single one does
    const auto b = d->geometry(rect()).blockAt(event->position().toPoint());
    if (b && !b->merged())
        Q_EMIT nodeDoubleClicked(b->node);
}

// speedscope's convention: the wheel scrolls deep stacks vertically (the surrounding scroll area does it),
// Ctrl+wheel zooms around the pointer, a horizontal wheel (or a sideways swipe) pans.
void FlameGraphView::wheelEvent(QWheelEvent* event) {
    const QPoint delta = event->angleDelta();
    const bool sideways = std::abs(delta.x()) > std::abs(delta.y());
    if (!d->data || (!sideways && !(event->modifiers() & Qt::ControlModifier))) {
        event->ignore(); // lets a surrounding scroll area scroll vertically
        return;
    }
    const double w = d->viewEnd - d->viewStart;
    if (sideways) {
        d->setRange(d->viewStart - delta.x() / 1200.0 * w, d->viewEnd - delta.x() / 1200.0 * w);
    } else {
        const double factor = std::pow(2.0, -delta.y() / 480.0);
        const double fx = std::clamp(event->position().x() / std::max(1, width()), 0.0, 1.0);
        const double at = d->viewStart + fx * w;
        d->animation.stop();
        d->setRange(at - fx * w * factor, at + (1 - fx) * w * factor);
    }
    event->accept();
}

void FlameGraphView::keyPressEvent(QKeyEvent* event) {
    if (!d->data)
        return QWidget::keyPressEvent(event);
    const CallTree& t = d->data->tree;
    const NodeId sel = d->valid(d->selected) ? d->selected : kRootNode;
    auto sibling = [&](bool next) -> std::optional<NodeId> {
        if (sel == kRootNode)
            return std::nullopt;
        std::optional<NodeId> prev, found;
        bool passed = false;
        t.forEachChild(t.parent(sel), [&](NodeId c) {
            if (d->layout().width(c) <= 0 || found)
                return;
            if (c == sel)
                passed = true;
            else if (!passed)
                prev = c;
            else if (next)
                found = c;
        });
        return next ? found : prev;
    };
    auto heaviestChild = [&]() -> std::optional<NodeId> {
        std::optional<NodeId> best;
        t.forEachChild(sel, [&](NodeId c) {
            if (d->layout().width(c) > (best ? d->layout().width(*best) : 0))
                best = c;
        });
        return best;
    };
    const bool alt = event->modifiers() & Qt::AltModifier;
    const bool flame = d->orientation == Orientation::Flame;
    std::optional<NodeId> target;
    switch (event->key()) {
    case Qt::Key_Left:
    case Qt::Key_Right:
        if (alt) {
            event->key() == Qt::Key_Left ? back() : forward();
            return;
        }
        target = sibling(event->key() == Qt::Key_Right);
        break;
    case Qt::Key_Up:
    case Qt::Key_Down:
        if ((event->key() == Qt::Key_Up) == flame)
            target = heaviestChild();
        else if (sel != kRootNode)
            target = t.parent(sel);
        break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        zoomTo(sel);
        return;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomIn();
        return;
    case Qt::Key_Minus:
        zoomOut();
        return;
    case Qt::Key_0:
    case Qt::Key_Escape:
        resetZoom();
        return;
    case Qt::Key_S:
        if (sel != kRootNode && event->modifiers() == Qt::NoModifier)
            Q_EMIT sandwichRequested(t.frame(sel));
        return;
    case Qt::Key_Back:
        back();
        return;
    case Qt::Key_Forward:
        forward();
        return;
    default:
        return QWidget::keyPressEvent(event);
    }
    if (target) {
        d->select(*target);
        d->ensureVisible(*target);
    }
}

void FlameGraphView::contextMenuEvent(QContextMenuEvent* event) {
    const auto block = d->geometry(rect()).blockAt(event->pos());
    if (!block || block->merged())
        return;
    std::unique_ptr<QMenu> menu(createContextMenu(block->node, this));
    menu->exec(event->globalPos());
}

} // namespace scorch
