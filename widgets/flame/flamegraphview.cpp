#include "flame/flamegraphview_p.h"

#include "common/backgroundjob.h"

#include <utility>

namespace scorch {

void FlameGraphView::Private::setRange(double start, double end) {
    const double total = totalWidth();
    double width = std::clamp(end - start, total * 1e-12, total);
    start = std::clamp(start, 0.0, total - width);
    viewStart = start;
    viewEnd = start + width;
    q->update();
    if (animation.state() != QAbstractAnimation::Running) // once the zoom settles
        q->updateChartHeight();
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
    if (!valid(n) || layout().width(n) <= 0)
        return;
    const auto start = static_cast<double>(layout().offset(n));
    const double end = start + static_cast<double>(layout().width(n));
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
        if (layout().width(n) > 0)
            matchList.push_back(n);
    // Heaviest first: the first F3 goes where most of the matched cost is.
    const std::size_t ct = data->costType;
    if (ct < data->tree.costTypeCount())
        std::stable_sort(matchList.begin(), matchList.end(), [&](NodeId a, NodeId b) {
            return std::abs(data->tree.total(ct, a)) > std::abs(data->tree.total(ct, b));
        });
}

int FlameGraphView::Private::matchIndexOf(NodeId n) const {
    const auto it = std::find(matchList.begin(), matchList.end(), n);
    return it == matchList.end() ? -1 : static_cast<int>(it - matchList.begin());
}

void FlameGraphView::Private::select(NodeId n) {
    if (!data || n >= data->tree.size() || n == selected)
        return;
    selected = n;
    q->update();
    if (!matchList.empty())
        Q_EMIT q->matchPositionChanged(matchIndexOf(n), static_cast<int>(matchList.size()));
    Q_EMIT q->nodeSelected(n);
    if (n != kRootNode)
        Q_EMIT q->functionSelected(data->tree.frame(n));
}

void FlameGraphView::Private::ensureVisible(NodeId n) {
    if (!valid(n) || n == kRootNode)
        return;
    const auto start = static_cast<double>(layout().offset(n));
    const double end = start + static_cast<double>(layout().width(n));
    const double scale = q->width() / std::max(1e-12, viewEnd - viewStart);
    if (start >= viewStart && end <= viewEnd && (end - start) * scale >= 8 * FlameGeometry::kMinFrameWidth)
        return;
    // Zoom to the parent so the frame is shown among its siblings (or to the frame if that is too small).
    const NodeId parent = data->tree.parent(n);
    const bool parentFits =
        n != kRootNode && layout().width(parent) > 0 &&
        static_cast<double>(layout().width(n)) * q->width() / layout().width(parent) >= 40;
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
            const int64_t w = layout().width(n);
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
    connect(&d->animation, &QVariantAnimation::finished, this, &FlameGraphView::updateChartHeight);
}

FlameGraphView::~FlameGraphView() = default;

void FlameGraphView::setData(std::shared_ptr<const ChartData> data) {
    d->animation.stop();
    std::shared_ptr<const ChartData> old = std::exchange(d->data, std::move(data));
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
    updateChartHeight();
    updateGeometry();
    update();
    Q_EMIT zoomChanged(kRootNode);
    Q_EMIT historyChanged();
    if (!d->query.pattern.empty())
        setSearch(d->query);
    releaseInBackground(std::move(old));
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

void FlameGraphView::setDiffColoring(const DiffColoring& coloring) {
    d->diffColoring = coloring;
    d->paletteDirty = true;
    update();
}
DiffColoring FlameGraphView::diffColoring() const {
    return d->diffColoring;
}

void FlameGraphView::setToolTipProvider(std::function<QString(NodeId)> provider) {
    d->toolTipProvider = std::move(provider);
}

void FlameGraphView::setHiddenMenuActions(const QStringList& objectNames) {
    d->hiddenActions = objectNames;
}

void FlameGraphView::setRootLabel(const QString& label) {
    if (label == d->rootLabel)
        return;
    d->rootLabel = label;
    d->resetText(); // the label is cached with the frames' labels
    update();
}

std::optional<NodeId> FlameGraphView::hoveredNode() const {
    return d->hovered;
}

void FlameGraphView::setHoveredNode(std::optional<NodeId> node) {
    if (node && !d->valid(*node))
        node.reset();
    if (node == d->hovered)
        return;
    d->hovered = node;
    update();
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
    Q_EMIT matchPositionChanged(d->matchIndexOf(d->selected), static_cast<int>(d->matchList.size()));
}

SearchQuery FlameGraphView::search() const {
    return d->query;
}

void FlameGraphView::nextMatch(bool backwards) {
    if (d->matchList.empty())
        return;
    const auto& list = d->matchList;
    const int count = static_cast<int>(list.size());
    const int at = d->matchIndexOf(d->selected);
    const int next = at < 0 ? (backwards ? count - 1 : 0) : (at + (backwards ? count - 1 : 1)) % count;
    d->select(list[static_cast<std::size_t>(next)]);
    d->ensureVisible(list[static_cast<std::size_t>(next)]);
}

const std::vector<NodeId>& FlameGraphView::matchOrder() const {
    return d->matchList;
}

int FlameGraphView::currentMatch() const {
    return d->matchIndexOf(d->selected);
}

void FlameGraphView::sandwichOfMatch() {
    if (d->matchList.empty() || !d->data)
        return;
    const int at = d->matchIndexOf(d->selected);
    const NodeId node = d->matchList[static_cast<std::size_t>(std::max(at, 0))];
    Q_EMIT sandwichRequested(d->data->tree.frame(node));
}

NodeId FlameGraphView::zoomRoot() const {
    return d->zoomRoot;
}

void FlameGraphView::zoomTo(NodeId node) {
    if (!d->valid(node) || d->layout().width(node) <= 0)
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
        centre = static_cast<double>(d->layout().offset(d->selected)) + d->layout().width(d->selected) / 2.0;
    d->animateTo(centre - w / 2, centre + w / 2);
}

void FlameGraphView::zoomOut() {
    const double w = (d->viewEnd - d->viewStart) * 1.5, centre = (d->viewStart + d->viewEnd) / 2;
    d->animateTo(centre - w / 2, centre + w / 2);
}

const FlameLayout& FlameGraphView::layout() const {
    return d->layout();
}
int FlameGraphView::rowHeight() const {
    return d->rowHeight();
}

int FlameGraphView::chartHeight() const {
    if (!d->data || d->layout().isEmpty())
        return d->rowHeight();
    const CallTree& tree = d->data->tree;
    uint32_t deepest = tree.maxDepth();
    if (d->viewStart > 0 || d->viewEnd < d->totalWidth()) {
        // The deepest frame that overlaps the range; subtrees outside it are skipped whole.
        deepest = 0;
        const auto end = static_cast<NodeId>(tree.size());
        for (NodeId n = kRootNode; n < end;) {
            const auto left = static_cast<double>(d->layout().offset(n));
            const auto width = static_cast<double>(d->layout().width(n));
            if (width <= 0 || left + width <= d->viewStart || left >= d->viewEnd) {
                n = tree.subtreeEnd(n);
                continue;
            }
            deepest = std::max(deepest, tree.depth(n));
            ++n;
        }
    }
    return static_cast<int>(deepest + 1) * d->rowHeight();
}

void FlameGraphView::updateChartHeight() {
    const int height = chartHeight();
    if (height != minimumHeight())
        setMinimumHeight(height);
}

QRect FlameGraphView::rowRect(uint32_t depth) const {
    return QRect(0, d->geometry(rect()).rowTop(depth), width(), d->rowHeight());
}

QSize FlameGraphView::sizeHint() const {
    // The minimum height is chartHeight() as of the last data or zoom change (computing it walks the frames
    // in view; layouts ask for size hints often).
    return QSize(800, std::min(std::max(minimumHeight(), rowHeight()), 600));
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

} // namespace scorch
