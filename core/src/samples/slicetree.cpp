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
/// From this many nodes on, they are taken on two cores.
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

/// The bits set in x, inline (std::popcount calls libgcc where the build may not assume the POPCNT
/// instruction, as Debian's x86-64 baseline does not: 9% of a slice's time went to that call).
inline int bitsSet(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return static_cast<int>((x * 0x0101010101010101ULL) >> 56);
}

/// LSD radix sort on the low `bits` bits of the keys, 11 bits a pass (stable), in `tmp` and back; with
/// `twoThreads`, each pass counts and moves the two halves of the items on two threads (the first half's
/// items of a digit before the second's).
template <typename Item>
void radixSort(std::vector<Item>& items, std::vector<Item>& tmp, int bits, int sampleBits, bool twoThreads) {
    if (items.size() < 4096) {
        std::stable_sort(items.begin(), items.end(), [&](const Item& a, const Item& b) {
            return itemKey(a, sampleBits) < itemKey(b, sampleBits);
        });
        return;
    }
    resizeHuge(tmp, items.size());
    constexpr int kDigit = 11;
    constexpr std::size_t kDigits = std::size_t{1} << kDigit;
    const std::size_t n = items.size(), half = twoThreads ? n / 2 : n;
    std::vector<std::size_t> count[2] = {std::vector<std::size_t>(kDigits),
                                         std::vector<std::size_t>(kDigits)};
    // runs f(part, from, to) for the first half here and the second on another thread
    const auto inHalves = [&](auto&& f) {
        std::future<void> second;
        if (half < n)
            second = std::async(std::launch::async, [&] { f(1, half, n); });
        f(0, 0, half);
        if (second.valid())
            second.get();
    };
    for (int shift = 0; shift < bits; shift += kDigit) {
        const auto digit = [&](const Item& x) {
            return (itemKey(x, sampleBits) >> shift) & (kDigits - 1);
        };
        inHalves([&](int part, std::size_t from, std::size_t to) {
            std::vector<std::size_t>& c = count[part];
            std::fill(c.begin(), c.end(), 0);
            for (std::size_t i = from; i < to; ++i)
                ++c[digit(items[i])];
        });
        for (std::size_t d = 0, at = 0; d < kDigits; ++d) { // each half's first place for each digit
            const std::size_t first = count[0][d], second = count[1][d];
            count[0][d] = at;
            count[1][d] = at + first;
            at += first + (half < n ? second : 0);
        }
        inHalves([&](int part, std::size_t from, std::size_t to) {
            std::vector<std::size_t>& at = count[part];
            for (std::size_t i = from; i < to; ++i)
                tmp[at[digit(items[i])]++] = items[i];
        });
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
        radixSort(items, r.buffers.template sorting<Item>(), r.keyBits, r.sampleBits,
                  aside(items.size(), kMarkAside));
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

    /// 3: counts the (thread, leaf) entries and sizes the output arrays (takeAll() writes every element: an
    /// old slice's arrays are not zeroed first); with many nodes, the per-node arrays with costs on another
    /// core meanwhile (new memory is mapped in there).
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
        for (std::size_t g = 0; g < items.size(); ++g)
            entries += g == 0 || keyOf(g) != keyOf(g - 1);
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

    /// 4: the slice's nodes and their arrays, in passes that each walk their arrays in order, in two halves
    /// on two threads when there are many: the marked nodes in preorder (their profile nodes, and a bitmap of
    /// them that gives a node's slice id: the marked nodes before it); the (thread, leaf) entries of the
    /// sorted items; each node's depth, frame, parent (the node met last one level up) and self cost (its
    /// entries'); then the totals and subtree ends from the last node back, a cost type per thread. The
    /// marked nodes include every ancestor of each, so the slice keeps the tree's preorder. (The walk this
    /// replaces kept the open path, with branches per node on the data: 32 ns a node here, now about 15.)
    /// False when cancelled.
    bool takeAll() {
        if (!listSources())
            return false;
        detail::trace("slice: sources listed");
        if (!sumEntries())
            return false;
        detail::trace("slice: entries summed");
        if (!shapeNodes())
            return false;
        detail::trace("slice: nodes shaped");
        if (!sumTotals())
            return false;
        detail::trace("slice: taken");
        return true;
    }

private:
    uint64_t keyOf(std::size_t item) const { return itemKey(items[item], r.sampleBits); }
    NodeId leafOf(std::size_t item) const { return static_cast<NodeId>(keyOf(item) >> r.threadBits); }
    bool aside(std::size_t size, std::size_t from) const { return r.cores > 1 && (r.forced || size >= from); }

    /// f(from, to) over [0, n), or over [0, split) and [split, n) on two threads where there are many
    /// (`size` against kTakeAside); false when a part is (cancelled).
    template <typename F>
    bool inParts(std::size_t size, std::size_t n, std::size_t split, F&& f) {
        if (!aside(size, kTakeAside) || split == 0 || split >= n)
            return f(std::size_t{0}, n);
        auto second = std::async(std::launch::async, [&] { return f(split, n); });
        const bool first = f(std::size_t{0}, split);
        return second.get() && first;
    }

    /// The slice id of tree node n (n may be tree.size()): the number of marked nodes before it.
    NodeId idOf(NodeId n) const {
        const uint64_t below = (uint64_t{1} << (n & 63)) - 1;
        return static_cast<NodeId>(before[n >> 6] + bitsSet(bits[n >> 6] & below));
    }

    /// The marked nodes in preorder (out.source), and the bitmap and counts idOf() looks them up in: per 64
    /// tree nodes a word of marks and the number of marked nodes before them.
    bool listSources() {
        const std::size_t words = tree.size() / 64 + 1;
        std::vector<uint64_t>& bitmap = r.buffers.bits;
        std::vector<uint32_t>& counts = r.buffers.before;
        detail::resizeHuge(bitmap, words);
        detail::resizeHuge(counts, words);
        bits = bitmap.data();
        before = counts.data();
        if (listed) { // (a small slice: no map of the whole tree but this bitmap, 1/64 of a byte a node)
            std::copy(list.begin(), list.end(), out.source.begin());
            std::fill(bitmap.begin(), bitmap.end(), 0);
            for (const NodeId n : list)
                bitmap[n / 64] |= uint64_t{1} << (n % 64);
            for (std::size_t w = 0, k = 0; w < words; k += bitsSet(bitmap[w++]))
                counts[w] = static_cast<uint32_t>(k);
            return true;
        }
        std::vector<std::size_t> blockFirst(blocks + 1, 0); // the slice id of each block's first marked node
        for (std::size_t b = 0; b < blocks; ++b)
            blockFirst[b + 1] = blockFirst[b] + blockNodes[b];
        std::size_t half = 0; // the block the second half starts with (on a word: the halves share none)
        while (half < blocks && (blockFirst[half] < nodes / 2 || ((half << blockBits) % 64) != 0))
            ++half;
        if (!inParts(nodes, blocks, half, [&](std::size_t from, std::size_t to) {
                for (std::size_t b = from; b < to; ++b) {
                    if ((b & 7) == 0 && cancelRequested(r.cancel))
                        return false;
                    const std::size_t last = std::min(tree.size(), (b + 1) << blockBits);
                    NodeId k = static_cast<NodeId>(blockFirst[b]);
                    for (std::size_t n = b << blockBits; n < last;) {
                        if (n % 64 == 0 && n + 64 <= last) { // 64 nodes at once
                            uint64_t word = 0;
                            for (std::size_t i = 0; i < 64; i += 8) {
                                uint64_t eight; // eight marks of 0 or 1 gathered into eight bits
                                std::memcpy(&eight, keep.data() + n + i, 8);
                                word |= ((eight * 0x0102040810204080ULL) >> 56) << i;
                            }
                            bitmap[n / 64] = word;
                            counts[n / 64] = k;
                            for (uint64_t w = word; w; w &= w - 1)
                                out.source[k++] = static_cast<NodeId>(n + std::countr_zero(w));
                            n += 64;
                            continue;
                        }
                        if (n % 64 == 0) // (the tree's last, partial word, or a word of small blocks)
                            bitmap[n / 64] = 0, counts[n / 64] = k;
                        if (keep[n]) {
                            bitmap[n / 64] |= uint64_t{1} << (n % 64);
                            out.source[k++] = static_cast<NodeId>(n);
                        }
                        ++n;
                    }
                }
                return true;
            }))
            return false;
        if (tree.size() % 64 == 0) // (the word of idOf(tree.size()), the end of the root's subtree)
            bitmap[words - 1] = 0, counts[words - 1] = static_cast<uint32_t>(nodes);
        return true;
    }

    /// Each node's depth, frame and parent, from its profile node: its parent is the node met last one
    /// level up (the second half starts with the path to its first node); its self cost, its entries' (met
    /// in the same order: sumEntries()); its subtree end and total start as those of a leaf (sumTotals()).
    bool shapeNodes() {
        std::atomic<uint32_t> maxDepth{0};
        CallTree::Shape& shape = out.shape;
        const std::size_t pathSize = tree.maxDepth() + 2;
        const std::span<const NodeId> entryNode = out.entries.node;
        std::vector<int64_t*> self(r.types);
        for (std::size_t t = 0; t < r.types; ++t)
            self[t] = out.self[t].data();
        const bool done = inParts(nodes, nodes, nodes / 2, [&](std::size_t from, std::size_t to) {
            std::vector<NodeId> path(pathSize, kRootNode); // path[d]: the last node at depth d
            if (from < to)
                for (NodeId a = tree.parent(out.source[from]); a != kRootNode; a = tree.parent(a))
                    path[tree.depth(a)] = idOf(a);
            // the entries of the nodes from `from` on (sorted by node)
            std::size_t e = static_cast<std::size_t>(
                std::lower_bound(entryNode.begin(), entryNode.end(), static_cast<NodeId>(from)) -
                entryNode.begin());
            uint32_t deepest = 0;
            for (std::size_t k = from; k < to; ++k) {
                if ((k & 0xffff) == 0 && cancelRequested(r.cancel))
                    return false;
                const NodeId n = out.source[k];
                const uint32_t d = tree.depth(n);
                shape.depth[k] = d;
                deepest = std::max(deepest, d);
                shape.frame[k] = tree.frame(n);
                shape.parent[k] = d ? path[d - 1] : kRootNode;
                path[d] = static_cast<NodeId>(k);
                shape.end[k] = static_cast<NodeId>(k + 1);
                for (std::size_t t = 0; t < r.types; ++t)
                    self[t][k] = 0;
                for (; e < entryNode.size() && entryNode[e] == k; ++e)
                    for (std::size_t t = 0; t < r.types; ++t)
                        addCost(self[t][k], out.entries.cost[t][e]);
                for (std::size_t t = 0; t < r.types; ++t)
                    out.total[t][k] = self[t][k];
            }
            for (uint32_t m = maxDepth.load(); m < deepest && !maxDepth.compare_exchange_weak(m, deepest);)
                ;
            return true;
        });
        shape.maxDepth = maxDepth.load();
        return done;
    }

    /// The (thread, leaf) entries of the sorted items, by slice node and thread, the two halves split
    /// between two leaves.
    bool sumEntries() {
        std::vector<const SampleCostColumn*> columns(r.types, nullptr);
        for (std::size_t t = 0; t < r.types && t < r.store.costTypeCount(); ++t)
            columns[t] = &r.store.cost(t);
        std::size_t split = items.size() / 2; // (the first item of a leaf)
        while (split > 0 && split < items.size() && leafOf(split) == leafOf(split - 1))
            ++split;
        std::size_t splitEntry = 0;
        for (std::size_t g = 1; g <= split && g < items.size(); ++g)
            splitEntry += keyOf(g) != keyOf(g - 1);
        const uint64_t threadMask = (uint64_t{1} << r.threadBits) - 1;
        return inParts(items.size(), items.size(), split, [&](std::size_t from, std::size_t to) {
            std::size_t e = from == 0 ? 0 : splitEntry;
            for (std::size_t g = from, h; g < to; g = h, ++e) {
                if ((e & 0xffff) == 0 && cancelRequested(r.cancel))
                    return false;
                const uint64_t key = keyOf(g);
                for (h = g + 1; h < to && keyOf(h) == key;)
                    ++h;
                const NodeId k = idOf(static_cast<NodeId>(key >> r.threadBits));
                for (std::size_t t = 0; t < r.types; ++t) {
                    const SampleCostColumn* c = columns[t];
                    int64_t sum = 0; // (0 for a cost type the store has no column of)
                    if (c && c->uniform())
                        sum = mulCost(c->constant(), static_cast<int64_t>(h - g));
                    else if (c)
                        for (std::size_t i = g; i < h; ++i)
                            addCost(sum, (*c)[itemSample(items[i], r.sampleBits)]);
                    out.entries.cost[t][e] = sum;
                }
                out.entries.thread[e] = static_cast<uint32_t>(key & threadMask);
                out.entries.node[e] = k;
            }
            return true;
        });
    }

    /// Each node's total (its self cost plus its children's totals) and subtree end (its last child's),
    /// added and taken from the last node back (a child comes after its parent): a cost type per thread,
    /// the ends with the first.
    bool sumTotals() {
        std::atomic<bool> cancelled{false};
        const NodeId* parent = out.shape.parent.data();
        const auto sumType = [&](std::size_t t) {
            int64_t* total = t < r.types ? out.total[t].data() : nullptr; // (a tree without costs: ends only)
            NodeId* end = out.shape.end.data();
            for (std::size_t k = nodes; k-- > 1;) {
                if ((k & 0xffff) == 0 && cancelRequested(r.cancel))
                    return cancelled.store(true);
                if (total)
                    addCost(total[parent[k]], total[k]);
                if (t == 0)
                    end[parent[k]] = std::max(end[parent[k]], end[k]);
            }
        };
        std::vector<std::future<void>> others;
        for (std::size_t t = 1; t < r.types; ++t)
            if (aside(nodes, kTakeAside))
                others.push_back(std::async(std::launch::async, sumType, t));
            else
                sumType(t);
        sumType(0);
        for (auto& f : others)
            f.get();
        return !cancelled.load();
    }

    const SliceTreeRequest<Item>& r;
    const CallTree& tree;
    std::vector<Item>& items;
    SliceTree& out;
    const int blockBits; ///< blocks of nodes: 64 to 128 of them, of at most 64 Ki nodes
    const std::size_t blocks;
    /// few items against the tree's size: the marked nodes are listed, not mapped
    const bool listed = items.size() * kListedBelow < tree.size();
    std::vector<NodeId> list;            ///< listed: the marked nodes in preorder
    const uint64_t* bits = nullptr;      ///< per 64 tree nodes: their marks (listSources())
    const uint32_t* before = nullptr;    ///< per 64 tree nodes: the marked nodes before them
    std::vector<uint8_t>& keep;          ///< not listed: per tree node, 1 when marked
    std::vector<std::size_t> blockNodes; ///< per block: the nodes marked
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
