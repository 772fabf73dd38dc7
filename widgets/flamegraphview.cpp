#include "flamegraphview.h"

#include "flamerenderer.h"
#include "qtprofile.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QMenu>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>
#include <QVariantAnimation>

#include <algorithm>
#include <cmath>
#include <optional>
#include <regex>

namespace scorch {

struct FlameGraphView::Private {
    explicit Private(FlameGraphView* view)
        : q(view) {}

    FlameGraphView* q;
    std::shared_ptr<const ChartData> data;
    FlameLayout layout;
    FlamePalette palette;
    bool paletteDirty = true;
    Orientation orientation = Orientation::Flame;
    ColorScheme scheme = ColorScheme::Hot;
    FlameRenderer renderer;

    SearchQuery query;
    std::vector<char> matches; // per frame id; empty = no search
    std::vector<NodeId> matchList;

    NodeId selected = kRootNode;
    NodeId zoomRoot = kRootNode;
    std::vector<NodeId> history{kRootNode};
    std::size_t historyIndex = 0;
    std::vector<NodeId> heaviest; // per frame id: its widest node (kRootNode = none); built on first use
    bool heaviestReady = false;

    double viewStart = 0, viewEnd = 1;
    QVariantAnimation animation;
    int animationMs = 150;

    std::optional<NodeId> hovered; // frame under the mouse (outlined on screen only)
    QPoint pressPos;
    double pressViewStart = 0;
    bool dragging = false;
    mutable int cachedRowHeight = 0;

    bool valid(NodeId n) const { return data && n < data->tree.size() && !layout.isEmpty(); }
    double totalWidth() const { return std::max<double>(1.0, static_cast<double>(layout.totalWidth())); }

    int rowHeight() const {
        if (cachedRowHeight == 0)
            cachedRowHeight = QFontMetrics(q->font()).height() + 5;
        return cachedRowHeight;
    }
    FlameGeometry geometry(const QRect& area) const {
        return {&layout, orientation == Orientation::Flame, rowHeight(), viewStart, viewEnd, area};
    }
    /// What to paint in `area`; the hovered frame is outlined only on screen.
    FlameScene scene(const QRect& area, bool onScreen) {
        if (paletteDirty) {
            palette.reset(data ? data->profile.get() : nullptr, static_cast<FlameColorScheme>(scheme),
                          q->palette());
            paletteDirty = false;
        }
        return {geometry(area),
                data ? data->profile.get() : nullptr,
                &palette,
                &matches,
                selected,
                onScreen ? hovered : std::nullopt,
                q->font(),
                q->palette(),
                FlameGraphView::tr("all")};
    }
    void resetText() {
        cachedRowHeight = 0;
        renderer.resetFont(q->font());
    }

    void setRange(double start, double end);
    void animateTo(double start, double end);
    void pushHistory(NodeId n);
    void applyZoom(NodeId n, bool animate);
    void recomputeSearch();
    void select(NodeId n);
    void ensureVisible(NodeId n);
    NodeId heaviestNode(FrameId frame);
};

void FlameGraphView::Private::setRange(double start, double end) {
    const double total = totalWidth();
    double width = std::clamp(end - start, total * 1e-12, total);
    start = std::clamp(start, 0.0, total - width);
    viewStart = start;
    viewEnd = start + width;
    q->update();
}

void FlameGraphView::Private::animateTo(double start, double end) {
    animation.stop();
    if (animationMs <= 0 || !q->isVisible()) {
        setRange(start, end);
        return;
    }
    animation.setDuration(animationMs);
    animation.setStartValue(QPointF(viewStart, viewEnd));
    animation.setEndValue(QPointF(start, end));
    animation.start();
}

void FlameGraphView::Private::pushHistory(NodeId n) {
    if (history[historyIndex] == n)
        return;
    history.resize(historyIndex + 1);
    history.push_back(n);
    historyIndex = history.size() - 1;
    Q_EMIT q->historyChanged();
}

void FlameGraphView::Private::applyZoom(NodeId n, bool animate) {
    if (!valid(n) || layout.width(n) <= 0)
        return;
    const auto start = static_cast<double>(layout.offset(n));
    const double end = start + static_cast<double>(layout.width(n));
    if (animate)
        animateTo(start, end);
    else
        setRange(start, end);
    if (zoomRoot != n) {
        zoomRoot = n;
        Q_EMIT q->zoomChanged(n);
    }
}

void FlameGraphView::Private::recomputeSearch() {
    matches.clear();
    matchList.clear();
    if (!data || query.pattern.empty())
        return;
    try {
        matches = matchFrames(*data->profile, query);
    } catch (const std::regex_error&) {
        matches.assign(data->profile->frames.size(), 0);
    }
    for (NodeId n : matchingNodes(data->tree, matches))
        if (layout.width(n) > 0)
            matchList.push_back(n);
}

void FlameGraphView::Private::select(NodeId n) {
    if (!data || n >= data->tree.size() || n == selected)
        return;
    selected = n;
    q->update();
    Q_EMIT q->nodeSelected(n);
    if (n != kRootNode)
        Q_EMIT q->functionSelected(data->tree.frame(n));
}

void FlameGraphView::Private::ensureVisible(NodeId n) {
    if (!valid(n) || n == kRootNode)
        return;
    const auto start = static_cast<double>(layout.offset(n));
    const double end = start + static_cast<double>(layout.width(n));
    const double scale = q->width() / std::max(1e-12, viewEnd - viewStart);
    if (start >= viewStart && end <= viewEnd && (end - start) * scale >= 8 * FlameGeometry::kMinFrameWidth)
        return;
    // Zoom to the parent so the frame is shown among its siblings (or to the frame if that is too small).
    const NodeId parent = data->tree.parent(n);
    const bool parentFits = n != kRootNode && layout.width(parent) > 0 &&
                            static_cast<double>(layout.width(n)) * q->width() / layout.width(parent) >= 40;
    const NodeId target = parentFits ? parent : n;
    pushHistory(target);
    applyZoom(target, true);
}

NodeId FlameGraphView::Private::heaviestNode(FrameId frame) {
    if (!heaviestReady) { // one pass over the tree per setData(); the first widest node of a frame wins
        const CallTree& t = data->tree;
        std::vector<int64_t> best(data->profile->frames.size(), 0);
        heaviest.assign(best.size(), kRootNode);
        for (NodeId n = 1; n < t.size(); ++n) {
            const uint32_t f = t.frame(n).value;
            const int64_t w = layout.width(n);
            if (f >= best.size()) {
                best.resize(std::size_t{f} + 1, 0);
                heaviest.resize(std::size_t{f} + 1, kRootNode);
            }
            if (w > best[f]) {
                best[f] = w;
                heaviest[f] = n;
            }
        }
        heaviestReady = true;
    }
    return frame.value < heaviest.size() ? heaviest[frame.value] : kRootNode;
}

FlameGraphView::FlameGraphView(QWidget* parent)
    : QWidget(parent)
    , d(std::make_unique<Private>(this)) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    d->animation.setEasingCurve(QEasingCurve::OutCubic);
    connect(&d->animation, &QVariantAnimation::valueChanged, this, [this](const QVariant& v) {
        const QPointF r = v.toPointF();
        d->setRange(r.x(), r.y());
    });
}

FlameGraphView::~FlameGraphView() = default;

void FlameGraphView::setData(std::shared_ptr<const ChartData> data) {
    d->animation.stop();
    d->data = std::move(data);
    d->layout.setTree(d->data ? &d->data->tree : nullptr, d->data ? d->data->costType : 0);
    d->paletteDirty = true;
    d->resetText();
    d->selected = kRootNode;
    d->hovered.reset();
    d->zoomRoot = kRootNode;
    d->history.assign(1, kRootNode);
    d->historyIndex = 0;
    d->viewStart = 0;
    d->viewEnd = d->totalWidth();
    d->matches.clear();
    d->matchList.clear();
    d->heaviest.clear();
    d->heaviestReady = false;
    updateGeometry();
    update();
    Q_EMIT zoomChanged(kRootNode);
    Q_EMIT historyChanged();
    if (!d->query.pattern.empty())
        setSearch(d->query);
}

std::shared_ptr<const ChartData> FlameGraphView::data() const {
    return d->data;
}

void FlameGraphView::setOrientation(Orientation orientation) {
    d->orientation = orientation;
    update();
}
FlameGraphView::Orientation FlameGraphView::orientation() const {
    return d->orientation;
}

void FlameGraphView::setColorScheme(ColorScheme scheme) {
    d->scheme = scheme;
    d->paletteDirty = true;
    update();
}
FlameGraphView::ColorScheme FlameGraphView::colorScheme() const {
    return d->scheme;
}

void FlameGraphView::setSearch(const SearchQuery& query) {
    d->query = query;
    d->recomputeSearch();
    update();
    if (!d->data)
        return;
    const std::size_t ct = d->data->costType;
    const int64_t total =
        d->data->tree.size() && ct < d->data->tree.costTypeCount() ? d->data->tree.grandTotal(ct) : 0;
    const int64_t matched = d->matches.empty() ? 0 : matchedCost(d->data->tree, d->matches, ct);
    Q_EMIT searchResultChanged(static_cast<int>(d->matchList.size()), matched, total);
}

SearchQuery FlameGraphView::search() const {
    return d->query;
}

void FlameGraphView::nextMatch(bool backwards) {
    if (d->matchList.empty())
        return;
    const auto& list = d->matchList;
    NodeId next;
    if (backwards) {
        auto it = std::lower_bound(list.begin(), list.end(), d->selected);
        next = it == list.begin() ? list.back() : *(it - 1);
    } else {
        auto it = std::upper_bound(list.begin(), list.end(), d->selected);
        next = it == list.end() ? list.front() : *it;
    }
    d->select(next);
    d->ensureVisible(next);
}

NodeId FlameGraphView::zoomRoot() const {
    return d->zoomRoot;
}

void FlameGraphView::zoomTo(NodeId node) {
    if (!d->valid(node) || d->layout.width(node) <= 0)
        return;
    d->pushHistory(node);
    d->applyZoom(node, true);
}

void FlameGraphView::resetZoom() {
    if (!d->data)
        return;
    d->pushHistory(kRootNode);
    d->applyZoom(kRootNode, true);
}

bool FlameGraphView::canGoBack() const {
    return d->historyIndex > 0;
}
bool FlameGraphView::canGoForward() const {
    return d->historyIndex + 1 < d->history.size();
}

void FlameGraphView::back() {
    if (!canGoBack())
        return;
    --d->historyIndex;
    d->applyZoom(d->history[d->historyIndex], true);
    Q_EMIT historyChanged();
}

void FlameGraphView::forward() {
    if (!canGoForward())
        return;
    ++d->historyIndex;
    d->applyZoom(d->history[d->historyIndex], true);
    Q_EMIT historyChanged();
}

NodeId FlameGraphView::selectedNode() const {
    return d->selected;
}

void FlameGraphView::selectNode(NodeId node) {
    d->select(node);
}

void FlameGraphView::selectFunction(FrameId frame) {
    if (!d->data)
        return;
    const NodeId best = d->heaviestNode(frame);
    if (best == kRootNode)
        return;
    d->select(best);
    d->ensureVisible(best);
}

NodeId FlameGraphView::nodeAt(QPoint pos) const {
    const auto b = d->geometry(rect()).blockAt(pos);
    return b && !b->merged() ? b->node : kRootNode;
}

QRectF FlameGraphView::nodeRect(NodeId node) const {
    return d->geometry(rect()).nodeRect(node);
}

void FlameGraphView::setAnimationDuration(int ms) {
    d->animationMs = ms;
}
int FlameGraphView::animationDuration() const {
    return d->animationMs;
}
double FlameGraphView::visibleStart() const {
    return d->viewStart;
}
double FlameGraphView::visibleEnd() const {
    return d->viewEnd;
}

void FlameGraphView::setVisibleRange(double start, double end) {
    d->animation.stop();
    d->setRange(start, end);
}

void FlameGraphView::zoomIn() {
    const double w = (d->viewEnd - d->viewStart) / 1.5;
    double centre = (d->viewStart + d->viewEnd) / 2;
    if (d->valid(d->selected) && d->selected != kRootNode)
        centre = static_cast<double>(d->layout.offset(d->selected)) + d->layout.width(d->selected) / 2.0;
    d->animateTo(centre - w / 2, centre + w / 2);
}

void FlameGraphView::zoomOut() {
    const double w = (d->viewEnd - d->viewStart) * 1.5, centre = (d->viewStart + d->viewEnd) / 2;
    d->animateTo(centre - w / 2, centre + w / 2);
}

const FlameLayout& FlameGraphView::layout() const {
    return d->layout;
}
int FlameGraphView::rowHeight() const {
    return d->rowHeight();
}

int FlameGraphView::chartHeight() const {
    return d->data ? static_cast<int>(d->data->tree.maxDepth() + 1) * d->rowHeight() : d->rowHeight();
}

QRect FlameGraphView::rowRect(uint32_t depth) const {
    return QRect(0, d->geometry(rect()).rowTop(depth), width(), d->rowHeight());
}

QSize FlameGraphView::sizeHint() const {
    return QSize(800, std::min(chartHeight(), 600));
}

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
    if (n == kRootNode)
        return tr("<b>all</b>") + br + tr("Total: %1").arg(costText(t.total(ct, n), all).toHtmlEscaped());
    const Frame& f = profile.frames[t.frame(n)];
    QString text = QStringLiteral("<b>") + frameDisplayName(profile, t.frame(n)).toHtmlEscaped() +
                   QStringLiteral("</b>");
    if (f.module)
        text += br + tr("Module: %1").arg(toQString(profile.strings.view(f.module)).toHtmlEscaped());
    if (f.file) {
        QString where = toQString(profile.strings.view(f.file));
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
    menu->addSeparator();
    const QString name = frameDisplayName(*profile, frame);
    const QString shortName = QFontMetrics(font()).elidedText(name, Qt::ElideMiddle, 300);
    add(tr("Focus on %1").arg(shortName), "focus", [this, frame] {
        Q_EMIT transformRequested({TreeTransform::Kind::Focus, frame});
    });
    add(tr("Hide %1 (Merge into Callers)").arg(shortName), "hide", [this, frame] {
        Q_EMIT transformRequested({TreeTransform::Kind::Hide, frame});
    });
    add(tr("Collapse Recursion of %1").arg(shortName), "collapseRecursion", [this, frame] {
        Q_EMIT transformRequested({TreeTransform::Kind::CollapseRecursion, frame});
    });
    return menu;
}

QImage FlameGraphView::renderImage(QSize size) const {
    return d->renderer.renderImage(d->scene(QRect(QPoint(0, 0), size), false));
}

bool FlameGraphView::renderSvg(QIODevice* device, QSize size) const {
    if (device == nullptr || !device->isWritable())
        return false;
    return d->renderer.renderSvg(d->scene(QRect(QPoint(0, 0), size), false), device, tr("Flame Graph"));
}

void FlameGraphView::paintEvent(QPaintEvent* event) {
    // Paint the exposed rectangle into an image (direct pixel fills), then blit it.
    const QRect exposed = event->rect();
    const QImage& buffer = d->renderer.paintExposed(d->scene(rect(), true), exposed, devicePixelRatioF());
    QPainter p(this);
    p.drawImage(exposed.topLeft(), buffer);
}

bool FlameGraphView::event(QEvent* event) {
    if (event->type() == QEvent::Leave && d->hovered) {
        d->hovered.reset();
        update();
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

void FlameGraphView::wheelEvent(QWheelEvent* event) {
    if (event->modifiers() & Qt::ShiftModifier || !d->data) {
        event->ignore(); // lets a surrounding scroll area scroll vertically
        return;
    }
    const double w = d->viewEnd - d->viewStart;
    const QPoint delta = event->angleDelta();
    if (std::abs(delta.x()) > std::abs(delta.y())) { // horizontal wheel pans
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
            if (d->layout.width(c) <= 0 || found)
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
            if (d->layout.width(c) > (best ? d->layout.width(*best) : 0))
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
