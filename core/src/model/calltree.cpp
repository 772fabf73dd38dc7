#include "scorch/calltree.h"

#include "util/hugepages.h"

#include "scorch/costs.h"
#include "scorch/strings.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace scorch {

std::vector<NodeId> CallTree::children(NodeId n) const {
    std::vector<NodeId> out;
    forEachChild(n, [&](NodeId c) { out.push_back(c); });
    return out;
}

std::vector<NodeId> CallTree::childrenByCost(NodeId n, std::size_t costType) const {
    std::vector<NodeId> out = children(n);
    const Costs c = costs(costType);
    std::stable_sort(out.begin(), out.end(), [&](NodeId a, NodeId b) { return c.total(a) > c.total(b); });
    return out;
}

NodeId CallTree::findChild(NodeId n, FrameId frame) const {
    for (NodeId c = n + 1; c < m_end[n]; c = m_end[c])
        if (m_frame[c] == frame)
            return c;
    return kRootNode;
}

std::vector<NodeId> CallTree::path(NodeId n) const {
    std::vector<NodeId> out;
    for (; n != kRootNode; n = m_parent[n])
        out.push_back(n);
    std::reverse(out.begin(), out.end());
    return out;
}

std::vector<int64_t> CallTree::selfCosts(std::size_t costType) const {
    std::vector<int64_t> out(size());
    const Costs c = costs(costType);
    for (NodeId n = 0; n < out.size(); ++n)
        out[n] = c.self(n);
    return out;
}

std::vector<int64_t> CallTree::totalCosts(std::size_t costType) const {
    return m_saturated[costType].empty() ? totalsOf(m_parent, selfCosts(costType)) : m_saturated[costType];
}

void CallTree::setSelfCosts(std::vector<std::vector<int64_t>> self) {
    for (const auto& s : self)
        if (s.size() != size())
            throw std::invalid_argument("CallTree::setSelfCosts: wrong array size");
    takeSelfCosts(std::move(self));
}

std::vector<int64_t> CallTree::totalsOf(std::span<const NodeId> parent, std::span<const int64_t> self) {
    std::vector<int64_t> total;
    detail::reservePopulated(total, self.size());
    total.assign(self.begin(), self.end());
    for (std::size_t i = std::min(parent.size(), total.size()); i-- > 1;)
        addCost(total[parent[i]], total[i]);
    return total;
}

void CallTree::takeSelfCosts(std::vector<std::vector<int64_t>>&& self) {
    m_sum = std::move(self);
    m_saturated.assign(m_sum.size(), {});
    for (std::size_t t = 0; t < m_sum.size(); ++t) {
        std::vector<int64_t>& s = m_sum[t];
        // No sum of self costs, and so no total, is larger in magnitude than the sum of their magnitudes:
        // while that fits, the differences of the wrapping sums are the exact totals.
        uint64_t magnitude = 0, sum = 0;
        bool fits = true;
        for (int64_t& v : s) {
            const uint64_t u = static_cast<uint64_t>(v);
            fits = fits && !__builtin_add_overflow(magnitude, v < 0 ? 0 - u : u, &magnitude);
            sum += u;
            v = static_cast<int64_t>(sum);
        }
        if (!fits || magnitude > static_cast<uint64_t>(INT64_MAX)) {
            m_saturated[t] = totalsOf(m_parent, selfCosts(t)); // (each self cost exact: a difference of sums)
        }
    }
}

CallTree CallTree::fromShape(Shape&& shape, std::vector<std::vector<int64_t>>&& self) {
    const std::size_t n = shape.parent.size();
    if (shape.end.size() != n || shape.depth.size() != n || shape.frame.size() != n ||
        !std::all_of(self.begin(), self.end(), [n](const auto& c) { return c.size() == n; }))
        throw std::invalid_argument("CallTree::fromShape: arrays of different sizes");
    CallTree t;
    t.m_parent = std::move(shape.parent);
    t.m_end = std::move(shape.end);
    t.m_depth = std::move(shape.depth);
    t.m_frame = std::move(shape.frame);
    t.m_maxDepth = shape.maxDepth;
    t.takeSelfCosts(std::move(self));
    return t;
}

void CallTree::release(CallTree&& tree, Shape& shape, std::vector<std::vector<int64_t>>& costs) {
    shape.parent = std::move(tree.m_parent);
    shape.end = std::move(tree.m_end);
    shape.depth = std::move(tree.m_depth);
    shape.frame = std::move(tree.m_frame);
    shape.maxDepth = std::exchange(tree.m_maxDepth, 0);
    costs = std::move(tree.m_sum);
    tree = CallTree();
}

int compareAsStackSegments(std::string_view a, std::string_view b) {
    const std::size_t n = std::min(a.size(), b.size());
    if (const int c = a.substr(0, n).compare(b.substr(0, n)))
        return c < 0 ? -1 : 1;
    if (a.size() == b.size())
        return 0;
    // one name is a prefix of the other: what follows it in a stack string is ';'
    if (a.size() < b.size())
        return ';' <= static_cast<unsigned char>(b[n]) ? -1 : 1;
    return static_cast<unsigned char>(a[n]) < ';' ? -1 : 1;
}

bool CallTree::fromPreorder(std::span<const NodeId> parent, std::span<const FrameId> frame,
                            std::vector<std::vector<int64_t>>& self, CallTree& out) {
    std::vector<NodeId> p;
    std::vector<FrameId> f;
    detail::reserveHuge(p, parent.size());
    detail::reserveHuge(f, frame.size());
    p.assign(parent.begin(), parent.end());
    f.assign(frame.begin(), frame.end());
    return fromPreorder(std::move(p), std::move(f), self, out);
}

bool CallTree::fromPreorder(std::vector<NodeId>&& parentIn, std::vector<FrameId>&& frameIn,
                            std::vector<std::vector<int64_t>>& self, CallTree& out) {
    const std::size_t n = parentIn.size();
    CallTree t;
    t.m_parent.swap(parentIn);
    t.m_frame.swap(frameIn);
    const std::vector<NodeId>& parent = t.m_parent;
    detail::assignHuge(t.m_end, n, NodeId(0));
    detail::assignHuge(t.m_depth, n, 0u);
    std::vector<NodeId> path; // the path from the root to the previous node
    path.reserve(64);
    if (n) {
        t.m_parent[0] = kRootNode;
        path.push_back(0);
    }
    for (std::size_t i = 1; i < n; ++i) {
        while (!path.empty() && path.back() != parent[i]) {
            t.m_end[path.back()] = static_cast<NodeId>(i);
            path.pop_back();
        }
        if (path.empty()) { // refused: the caller keeps its vectors
            parentIn.swap(t.m_parent);
            frameIn.swap(t.m_frame);
            return false;
        }
        t.m_depth[i] = static_cast<uint32_t>(path.size());
        t.m_maxDepth = std::max(t.m_maxDepth, t.m_depth[i]);
        path.push_back(static_cast<NodeId>(i));
    }
    for (NodeId x : path)
        t.m_end[x] = static_cast<NodeId>(n);
    for (auto& s : self)
        s.resize(n, 0);
    t.takeSelfCosts(std::move(self));
    out = std::move(t);
    return true;
}

CallTree CallTree::fromParentArray(std::span<const NodeId> parent, std::span<const FrameId> frame,
                                   std::vector<std::vector<int64_t>> self, const FrameTable& frames,
                                   const StringTable& strings, std::vector<NodeId>* remap) {
    const std::size_t n = parent.size();
    // children lists (CSR), then name-sorted
    std::vector<uint32_t> offset(n + 1, 0);
    for (std::size_t i = 1; i < n; ++i)
        ++offset[parent[i] + 1];
    for (std::size_t i = 0; i < n; ++i)
        offset[i + 1] += offset[i];
    std::vector<NodeId> kids(n > 0 ? n - 1 : 0);
    {
        std::vector<uint32_t> fill(offset.begin(), offset.end() - 1);
        for (std::size_t i = 1; i < n; ++i)
            kids[fill[parent[i]]++] = static_cast<NodeId>(i);
    }
    // Siblings are sorted by name (then frame id), compared as ranks: the frames in use are sorted by name
    // once, instead of comparing the names of every node's children (most of the time of inverting fp-large's
    // 3.5 M-node trees went to those string comparisons).
    std::vector<uint32_t> rank(frames.size() + 1, 0);
    {
        std::vector<uint32_t> used;
        for (std::size_t i = 1; i < n; ++i)
            if (frame[i].value < rank.size() && rank[frame[i].value]++ == 0)
                used.push_back(frame[i].value);
        const auto name = [&](uint32_t f) {
            return f < frames.size() ? strings.view(frames[FrameId{f}].name) : std::string_view{};
        };
        std::sort(used.begin(), used.end(), [&](uint32_t a, uint32_t b) {
            const int c = compareAsStackSegments(name(a), name(b));
            return c != 0 ? c < 0 : a < b;
        });
        for (uint32_t r = 0; r < used.size(); ++r)
            rank[used[r]] = r;
    }
    const auto rankOf = [&](NodeId x) {
        return frame[x].value < rank.size() ? rank[frame[x].value] : UINT32_MAX;
    };
    for (std::size_t p = 0; p < n; ++p) {
        if (offset[p + 1] - offset[p] > 1)
            std::sort(kids.begin() + offset[p], kids.begin() + offset[p + 1], [&](NodeId a, NodeId b) {
                const uint32_t ra = rankOf(a), rb = rankOf(b);
                return ra != rb ? ra < rb : frame[a].value < frame[b].value;
            });
    }
    // subtree sizes (parents precede children in the input order)
    std::vector<uint32_t> subtree(n, 1);
    for (std::size_t i = n; i-- > 1;)
        subtree[parent[i]] += subtree[i];

    CallTree t;
    detail::assignHuge(t.m_parent, n, NodeId(0));
    detail::assignHuge(t.m_end, n, NodeId(0));
    detail::assignHuge(t.m_frame, n, FrameId{});
    detail::assignHuge(t.m_depth, n, 0u);
    std::vector<NodeId> newId(n);
    std::vector<NodeId> stack;
    stack.reserve(64);
    if (n)
        stack.push_back(0);
    NodeId next = 0;
    while (!stack.empty()) {
        const NodeId old = stack.back();
        stack.pop_back();
        const NodeId id = next++;
        newId[old] = id;
        t.m_frame[id] = frame[old];
        t.m_end[id] = id + subtree[old];
        if (old != 0) {
            t.m_parent[id] = newId[parent[old]];
            t.m_depth[id] = t.m_depth[t.m_parent[id]] + 1;
            t.m_maxDepth = std::max(t.m_maxDepth, t.m_depth[id]);
        }
        for (uint32_t k = offset[old + 1]; k-- > offset[old];)
            stack.push_back(kids[k]);
    }
    for (auto& s : self) {
        std::vector<int64_t> reordered;
        detail::assignHuge(reordered, n, int64_t(0));
        for (std::size_t i = 0; i < n && i < s.size(); ++i)
            reordered[newId[i]] = s[i];
        s.swap(reordered);
    }
    t.takeSelfCosts(std::move(self));
    if (remap)
        *remap = std::move(newId);
    return t;
}

} // namespace scorch
