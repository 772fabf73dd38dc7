// The call tree of a time slice: the nodes its samples end in and their ancestors, taken from the profile's
// tree in its preorder, on two cores for a large slice.
#include "samples/slicetree.h"

#include "util/hugepages.h"
#include "util/phasetimer.h"

#include "scorch/costs.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <future>

namespace scorch::detail {

namespace {

/// From this many items on, they are marked on two cores.
constexpr std::size_t kMarkAside = 50000;
/// A slice of fewer items than the tree's nodes divided by this lists its nodes instead of mapping them.
constexpr std::size_t kListedBelow = 8;
/// From this many nodes on, the nodes are zeroed and taken on two cores.
constexpr std::size_t kTakeAside = 50000;

/// The number of bytes 1 in [p, p + n), bytes all 0 or 1: eight at a time.
std::size_t countMarked(const uint8_t* p, std::size_t n) {
    std::size_t count = 0, i = 0;
    while (i + 8 <= n) {
        uint64_t sum = 0; // eight byte sums, each up to 255
        for (int r = 0; r < 255 && i + 8 <= n; ++r, i += 8) {
            uint64_t word;
            std::memcpy(&word, p + i, 8);
            sum += word;
        }
        constexpr uint64_t kLow = 0x00ff00ff00ff00ffULL, kOnes = 0x0001000100010001ULL;
        count += (((sum & kLow) + ((sum >> 8) & kLow)) * kOnes) >> 48;
    }
    for (; i < n; ++i)
        count += p[i];
    return count;
}

/// LSD radix sort on the low `bits` bits of the keys, 11 bits a pass (stable).
/// `tmp` is the buffer to sort in.
template <typename Item>
void radixSort(std::vector<Item>& items, std::vector<Item>& tmp, int bits, int sampleBits) {
    if (items.size() < 4096) {
        std::stable_sort(items.begin(), items.end(), [&](const Item& a, const Item& b) {
            return itemKey(a, sampleBits) < itemKey(b, sampleBits);
        });
        return;
    }
    resizeHuge(tmp, items.size());
    constexpr int kDigit = 11;
    for (int shift = 0; shift < bits; shift += kDigit) {
        std::vector<std::size_t> count((1u << kDigit) + 1, 0);
        for (const Item& x : items)
            ++count[((itemKey(x, sampleBits) >> shift) & ((1u << kDigit) - 1)) + 1];
        for (std::size_t d = 1; d < count.size(); ++d)
            count[d] += count[d - 1];
        for (const Item& x : items)
            tmp[count[(itemKey(x, sampleBits) >> shift) & ((1u << kDigit) - 1)]++] = x;
        items.swap(tmp);
    }
}

/// Building one slice tree: the four steps of buildSliceTree(), each a method (sort, mark, allocate, take).
template <typename Item>
class SliceTreeBuilder {
public:
    explicit SliceTreeBuilder(const SliceTreeRequest<Item>& request)
        : r(request)
        , tree(request.tree)
        , items(request.buffers.template items<Item>())
        , out(request.buffers.tree)
        , blockBits(std::clamp(static_cast<int>(std::bit_width(tree.size())) - 7, 0, 16))
        , blocks((tree.size() >> blockBits) + 1)
        , keep(request.buffers.keep) {}

    /// 1: sorts the items by key (by leaf: marking them in that order walks the tree in its order, three
    /// times faster than in time order).
    void sort() {
        radixSort(items, r.buffers.template sorting<Item>(), r.keyBits, r.sampleBits);
        detail::trace("slice: sorted");
    }

    /// 2: marks the items' leaves and their ancestors in `keep` (a leaf's walk up stops at a node already
    /// marked), 4096 items at a time, on two cores when there are many items: each takes the next stretch
    /// left (a node both reach may be marked by both: relaxed stores of the same value). Then counts the
    /// marked nodes per block. False when cancelled.
    bool mark() {
        if (listed)
            return markInOrder();
        detail::assignHuge(keep, tree.size(), uint8_t{0});
        keep[kRootNode] = 1;
        std::atomic<std::size_t> nextStretch{0};
        constexpr std::size_t kStretch = 4096;
        const auto markStretches = [&] {
            for (std::size_t from; (from = nextStretch.fetch_add(kStretch)) < items.size();) {
                if (cancelRequested(r.cancel))
                    return false;
                for (std::size_t g = from; g < std::min(items.size(), from + kStretch); ++g)
                    for (NodeId n = leafOf(g); !std::atomic_ref(keep[n]).load(std::memory_order_relaxed);
                         n = tree.parent(n))
                        std::atomic_ref(keep[n]).store(uint8_t{1}, std::memory_order_relaxed);
            }
            return true;
        };
        std::future<bool> otherMarked;
        if (aside(items.size(), kMarkAside))
            otherMarked = std::async(std::launch::async, markStretches);
        const bool marked = markStretches();
        if (!(otherMarked.valid() ? otherMarked.get() : true) || !marked)
            return false;
        detail::trace("slice: marked (counting)");
        blockNodes.assign(blocks, 0);
        for (std::size_t b = 0; b < blocks; ++b) {
            const std::size_t first = b << blockBits;
            blockNodes[b] = countMarked(keep.data() + first,
                                        std::min(tree.size(), first + (std::size_t{1} << blockBits)) - first);
            nodes += blockNodes[b];
        }
        detail::trace("slice: marked");
        return true;
    }

    /// 2, for a slice with few items against the tree's size: lists the items' leaves and their ancestors
    /// in the tree's preorder, on one core, without a map of the whole tree (zeroing, counting and scanning
    /// it cost more than such a slice). Each new leaf's ancestors are walked up to the first on the path to
    /// the leaf before it (sorted by preorder, the nodes met are after every node listed). False when
    /// cancelled.
    bool markInOrder() {
        std::vector<NodeId> path{kRootNode}, up; // path[d]: the listed node at depth d on the way to the last
        list.push_back(kRootNode);
        for (std::size_t g = 0; g < items.size(); ++g) {
            if ((g & 0xfff) == 0 && cancelRequested(r.cancel))
                return false;
            if (g > 0 && leafOf(g) == leafOf(g - 1))
                continue;
            NodeId a = leafOf(g);
            for (uint32_t d; (d = tree.depth(a)) >= path.size() || path[d] != a; a = tree.parent(a))
                up.push_back(a);
            path.resize(tree.depth(a) + 1);
            for (; !up.empty(); up.pop_back()) {
                path.push_back(up.back());
                detail::pushHuge(list, up.back());
            }
        }
        nodes = list.size();
        detail::trace("slice: listed");
        return true;
    }

    /// 3: counts the (thread, leaf) entries per block and sizes the output arrays (take() writes every
    /// element: an old slice's arrays are not zeroed first); with many nodes, the per-node arrays with costs
    /// on another core meanwhile (new memory is mapped in there).
    void allocate() {
        out.self.resize(r.types);
        out.total.resize(r.types);
        out.entries.cost.resize(r.types);
        const auto allocateCosts = [&] {
            detail::resizeHuge(out.source, nodes);
            for (auto& s : out.self)
                detail::resizeHuge(s, nodes);
            for (auto& s : out.total)
                detail::resizeHuge(s, nodes);
        };
        std::future<void> costsAllocated;
        if (aside(nodes, kTakeAside))
            costsAllocated = std::async(std::launch::async, allocateCosts);
        else
            allocateCosts();
        blockEntries.assign(blocks, 0);
        for (std::size_t g = 0; g < items.size(); ++g)
            blockEntries[leafOf(g) >> blockBits] += g == 0 || keyOf(g) != keyOf(g - 1);
        for (const std::size_t n : blockEntries)
            entries += n;
        detail::resizeHuge(out.shape.parent, nodes);
        detail::resizeHuge(out.shape.end, nodes);
        detail::resizeHuge(out.shape.depth, nodes);
        detail::resizeHuge(out.shape.frame, nodes);
        detail::resizeHuge(out.entries.thread, entries);
        detail::resizeHuge(out.entries.node, entries);
        for (auto& c : out.entries.cost)
            detail::resizeHuge(c, entries);
        if (costsAllocated.valid())
            costsAllocated.get();
        detail::trace("slice: allocated");
    }

    /// 4: takes the marked nodes in the tree's preorder, with their totals, in two parts on two threads when
    /// there are many (the second from the block boundary nearest half of the nodes). False when cancelled.
    bool takeAll() {
        Part head{0, static_cast<NodeId>(tree.size()), 0, 0, 0, {}, 0, {}, {}}, tail = head;
        const bool split = aside(nodes, kTakeAside) && (listed ? splitList(head, tail) : splitAt(head, tail));
        // (the part that ends the tree closes every node left open)
        bool taken = true;
        if (split) {
            auto tailTaken = std::async(std::launch::async, [&] { return take(tail); });
            taken = take(head);
            taken = tailTaken.get() && taken;
        } else {
            taken = take(head);
        }
        out.shape.maxDepth = std::max(head.maxDepth, tail.maxDepth);
        if (taken && split)
            addCarried(tail);
        return taken;
    }

private:
    /// The tree nodes from `from` to `to`, which are numbered from `k` on, their items from `g` and their
    /// entries from `e` on; `open` holds the slice nodes on the path to the node before `from`, by depth.
    struct Part {
        NodeId from, to, k;
        std::size_t g, e;
        std::vector<NodeId> open;
        uint32_t maxDepth = 0;
        /// The second part's: the nodes it started with open (the path the two parts share), and what it
        /// added to their totals, [cost type][depth]; the first part's nodes are not its to write.
        std::vector<NodeId> shared;
        std::vector<std::vector<int64_t>> carried;
    };

    uint64_t keyOf(std::size_t item) const { return itemKey(items[item], r.sampleBits); }
    NodeId leafOf(std::size_t item) const { return static_cast<NodeId>(keyOf(item) >> r.threadBits); }
    bool aside(std::size_t size, std::size_t from) const { return r.cores > 1 && (r.forced || size >= from); }

    /// The first marked node in [n, to), or `to`: eight at a time where none is.
    NodeId nextMarked(NodeId n, NodeId to) const {
        for (; n < to && n % 8; ++n)
            if (keep[n])
                return n;
        for (uint64_t word; n + 8 <= to; n += 8) {
            std::memcpy(&word, keep.data() + n, 8);
            if (word)
                return static_cast<NodeId>(n + std::countr_zero(word) / 8); // (little-endian)
        }
        for (; n < to; ++n)
            if (keep[n])
                return n;
        return to;
    }

    /// The marked node after node n, which was numbered k (to at most): the next in the list, or the next
    /// marked in the map.
    NodeId markedAfter(NodeId n, NodeId k, NodeId to) const {
        if (listed)
            return k + 1 < list.size() ? list[k + 1] : static_cast<NodeId>(tree.size());
        return nextMarked(n + 1, to);
    }

    /// The first item whose leaf is `node` or after it.
    std::size_t firstItemFrom(NodeId node) const {
        return static_cast<std::size_t>(
            std::lower_bound(items.begin(), items.end(), uint64_t{node} << r.threadBits,
                             [&](const Item& x, uint64_t key) { return itemKey(x, r.sampleBits) < key; }) -
            items.begin());
    }

    /// The ancestors of `node`, from the root down (the path a part starting at node has open).
    std::vector<NodeId> ancestorsOf(NodeId node) const {
        std::vector<NodeId> up;
        for (NodeId a = tree.parent(node); a != kRootNode; a = tree.parent(a))
            up.push_back(a);
        up.push_back(kRootNode);
        return {up.rbegin(), up.rend()};
    }

    /// The number of (thread, leaf) entries among items [0, g).
    std::size_t entriesBefore(std::size_t g) const {
        std::size_t e = 0;
        for (std::size_t i = 0; i < g; ++i)
            e += i == 0 || keyOf(i) != keyOf(i - 1);
        return e;
    }

    /// splitAt() for listed nodes: at the middle of the list.
    bool splitList(Part& head, Part& tail) const {
        const std::size_t middle = list.size() / 2;
        if (middle == 0)
            return false;
        tail.from = head.to = list[middle];
        tail.k = static_cast<NodeId>(middle);
        tail.g = firstItemFrom(tail.from);
        tail.e = entriesBefore(tail.g);
        for (const NodeId a : ancestorsOf(tail.from)) // (all listed: ancestors of a listed node)
            tail.open.push_back(
                static_cast<NodeId>(std::lower_bound(list.begin(), list.end(), a) - list.begin()));
        return true;
    }

    /// Splits the whole tree's part `head` at the block boundary nearest half of the nodes: `tail` from
    /// there, its open path the marked ancestors of its first node, each numbered by the nodes marked before
    /// it. False when no boundary splits it.
    bool splitAt(Part& head, Part& tail) const {
        std::size_t split = 0, before = 0; // the tail's first block, the nodes before it
        for (; split < blocks && before + blockNodes[split] / 2 < nodes / 2; ++split)
            before += blockNodes[split];
        if (split == 0 || split >= blocks)
            return false;
        tail.from = head.to = static_cast<NodeId>(split << blockBits);
        tail.k = static_cast<NodeId>(before);
        for (std::size_t b = 0; b < split; ++b)
            tail.e += blockEntries[b];
        tail.g = firstItemFrom(tail.from);
        for (const NodeId a : ancestorsOf(tail.from)) {
            if (!keep[a])
                break;
            std::size_t id = 0;
            for (std::size_t b = 0; b < (a >> blockBits); ++b)
                id += blockNodes[b];
            for (NodeId x = (a >> blockBits) << blockBits; x < a; ++x)
                id += keep[x];
            tail.open.push_back(static_cast<NodeId>(id));
        }
        return true;
    }

    /// The second part's additions to the totals of the nodes the parts share (see take()), added once both
    /// are done: each shared node's total gains what the second part carried for it and the total of the
    /// shared node below it.
    void addCarried(const Part& tail) {
        for (std::size_t t = 0; t < r.types; ++t)
            for (std::size_t d = tail.shared.size(); d-- > 0;) {
                int64_t& total = out.total[t][tail.shared[d]];
                addCost(total, tail.carried[t][d]);
                if (d + 1 < tail.shared.size())
                    addCost(total, out.total[t][tail.shared[d + 1]]);
            }
    }

    /// Takes part p: a node keeps its depth; its parent is the node taken last one level up; it ends where
    /// the next node at its depth or above is taken. The items, sorted by (leaf, thread), are met in the same
    /// order: their costs go to their leaf's self cost and (thread, node) entry as it is taken. A node's
    /// total starts as its self cost and is added to its parent's when it ends, except for the nodes the
    /// part started with open (the second part's): those it leaves to addCarried(), and what their children
    /// add it keeps in p.carried. The nodes still open at p.to whose subtrees go on past it are left open
    /// (in p.open) for the next part. False when cancelled.
    bool take(Part& p) {
        // (all in locals: the two parts' structs may share a cache line)
        std::vector<NodeId> open = std::move(p.open);
        std::vector<std::vector<int64_t>> carried(r.types, std::vector<int64_t>(open.size(), 0));
        std::size_t shared = open.size(); // open[0, shared) are nodes the part started with
        p.shared = open;
        std::size_t g = p.g, e = p.e;
        NodeId k = p.k;
        uint32_t maxDepth = 0;
        CallTree::Shape& shape = out.shape;
        // per cost type: the store's column (null where it has none), and the node's self cost
        std::vector<const SampleCostColumn*> columns(r.types, nullptr);
        for (std::size_t t = 0; t < r.types && t < r.store.costTypeCount(); ++t)
            columns[t] = &r.store.cost(t);
        std::vector<int64_t> self(r.types, 0);
        const uint64_t threadMask = (uint64_t{1} << r.threadBits) - 1;
        // ends the node open.back() before node k: its total goes to its parent's (or is carried)
        const auto close = [&] {
            const NodeId x = open.back();
            const std::size_t d = open.size() - 1;
            shape.end[x] = k;
            open.pop_back();
            if (d < shared) {
                shared = d;
            } else if (d > 0) {
                for (std::size_t t = 0; t < r.types; ++t)
                    addCost(d - 1 < shared ? carried[t][d - 1] : out.total[t][open.back()], out.total[t][x]);
            }
        };
        const NodeId first = listed ? (p.k < list.size() ? list[p.k] : static_cast<NodeId>(tree.size()))
                                    : nextMarked(p.from, p.to);
        for (NodeId n = first; n < p.to; n = markedAfter(n, k - 1, p.to)) {
            if ((k & 0xffff) == 0 && cancelRequested(r.cancel))
                return false;
            const uint32_t d = tree.depth(n);
            while (open.size() > d)
                close();
            shape.parent[k] = d ? open[d - 1] : kRootNode;
            shape.depth[k] = d;
            maxDepth = std::max(maxDepth, d);
            shape.frame[k] = tree.frame(n);
            out.source[k] = n;
            open.push_back(k);
            std::fill(self.begin(), self.end(), 0);
            // the samples that end here, by thread
            for (; g < items.size() && leafOf(g) == n; ++e) {
                std::size_t h = g;
                const uint64_t key = keyOf(g);
                while (h < items.size() && keyOf(h) == key)
                    ++h;
                for (std::size_t t = 0; t < r.types; ++t) {
                    const SampleCostColumn* c = columns[t];
                    int64_t sum = 0; // (0 for a cost type the store has no column of)
                    if (c && c->uniform())
                        sum = mulCost(c->constant(), static_cast<int64_t>(h - g));
                    else if (c)
                        for (std::size_t i = g; i < h; ++i)
                            addCost(sum, (*c)[itemSample(items[i], r.sampleBits)]);
                    addCost(self[t], sum);
                    out.entries.cost[t][e] = sum;
                }
                out.entries.thread[e] = static_cast<uint32_t>(key & threadMask);
                out.entries.node[e] = k;
                g = h;
            }
            for (std::size_t t = 0; t < r.types; ++t)
                out.self[t][k] = out.total[t][k] = self[t];
            ++k;
        }
        while (!open.empty() && tree.subtreeEnd(out.source[open.back()]) <= p.to)
            close();
        p.open = std::move(open);
        p.maxDepth = maxDepth;
        p.carried = std::move(carried);
        detail::trace("slice: part taken");
        return true;
    }

    const SliceTreeRequest<Item>& r;
    const CallTree& tree;
    std::vector<Item>& items;
    SliceTree& out;
    const int blockBits; ///< blocks of nodes: 64 to 128 of them, of at most 64 Ki nodes
    const std::size_t blocks;
    /// few items against the tree's size: the marked nodes are listed, not mapped
    const bool listed = items.size() * kListedBelow < tree.size();
    std::vector<NodeId> list;                          ///< listed: the marked nodes in preorder
    std::vector<uint8_t>& keep;                        ///< not listed: per tree node, 1 when marked
    std::vector<std::size_t> blockNodes, blockEntries; ///< per block: nodes marked, entries of leaves there
    std::size_t nodes = 0, entries = 0;
};

} // namespace

template <typename Item>
bool buildSliceTree(const SliceTreeRequest<Item>& request) {
    SliceTreeBuilder<Item> builder(request);
    builder.sort();
    if (!builder.mark())
        return false;
    builder.allocate();
    return builder.takeAll();
}

template bool buildSliceTree(const SliceTreeRequest<SliceItem>& request);
template bool buildSliceTree(const SliceTreeRequest<PackedSliceItem>& request);

} // namespace scorch::detail
