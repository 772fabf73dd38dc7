// The call tree of a time slice: the nodes its samples end in and their ancestors, taken from the profile's
// tree in its preorder, on two cores for a large slice.
#include "samples/slicetree.h"

#include "model/outermost.h"

#include "util/hugepages.h"
#include "util/phasetimer.h"

#include "scorch/costs.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <future>
#include <limits>

namespace scorch::detail {

namespace {

/// From this many items on, they are marked on two cores.
constexpr std::size_t kMarkAside = 50000;
/// A slice of fewer items than the tree's nodes divided by this lists its nodes instead of mapping them.
constexpr std::size_t kListedBelow = 8;
/// From this many nodes on, they are taken on two cores.
constexpr std::size_t kTakeAside = 50000;

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
    resizeHuge(tmp, items.size(), items.capacity());
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
        , words(request.tree.size() / 64 + 1)
        , bits(request.buffers.bits)
        , before(request.buffers.before) {}

    /// 1: sorts the items by key (by leaf: marking them in that order walks the tree in its order, three
    /// times faster than in time order); on one thread where another sums the slice's lines on the second
    /// of two cores (a third thread made fp-large's half range 4-8 % slower).
    void sort() {
        const bool second = aside(items.size(), kMarkAside) && (r.forced || !r.detailsAside || r.cores > 2);
        radixSort(items, r.buffers.template sorting<Item>(), r.keyBits, r.sampleBits, second);
        detail::trace("slice: sorted");
    }

    /// 2: marks the items' leaves and their ancestors in `bits`, a bit a tree node: a node is marked when
    /// the first leaf at or after it lies in its subtree [n, subtreeEnd(n)) (the root always: a slice
    /// without items is listed). One pass over the tree's ends in order, in two halves on two threads when
    /// there are many items (walking up from each leaf instead, as before, jumped about the tree: 14-20 ms
    /// for half of fp-large, against 4-9 for this pass). Then the marked nodes before each word of bits.
    /// False when cancelled.
    bool mark() {
        if (listed)
            return markInOrder();
        detail::resizeHuge(bits, words);
        detail::resizeHuge(before, words);
        const std::size_t size = tree.size();
        constexpr NodeId kNoLeaf = std::numeric_limits<NodeId>::max();
        const bool marked =
            inParts(aside(items.size(), kMarkAside), words, words / 2, [&](std::size_t from, std::size_t to) {
                // the first item whose leaf is at or after the part's first node
                std::size_t j = static_cast<std::size_t>(
                    std::partition_point(items.begin(), items.end(),
                                         [&](const Item& x) {
                                             return (itemKey(x, r.sampleBits) >> r.threadBits) < from * 64;
                                         }) -
                    items.begin());
                NodeId next = j < items.size() ? leafOf(j) : kNoLeaf; // the first leaf at or after the node
                for (std::size_t w = from; w < to; ++w) {
                    if ((w & 0xfff) == 0 && cancelRequested(r.cancel))
                        return false;
                    const std::size_t first = w * 64, last = std::min(size, first + 64);
                    uint64_t word = 0;
                    for (std::size_t n = first; n < last; ++n) {
                        if (n > next) {
                            while (++j < items.size() && leafOf(j) < n)
                                ;
                            next = j < items.size() ? leafOf(j) : kNoLeaf;
                        }
                        word |= uint64_t{tree.subtreeEnd(static_cast<NodeId>(n)) > next} << (n - first);
                    }
                    bits[w] = word;
                }
                return true;
            });
        if (!marked)
            return false;
        countMarks();
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
            // (a node's depth is its child's less one: one read of the tree a new node, its parent)
            NodeId a = leafOf(g);
            uint32_t d = tree.depth(a);
            for (; d >= path.size() || path[d] != a; a = tree.parent(a), --d)
                up.push_back(a);
            path.resize(d + 1);
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
        const std::size_t room = r.roomForAll ? tree.size() : 0,
                          entryRoom = r.roomForAll ? r.store.size() : 0;
        const auto allocateCosts = [&] {
            detail::resizeHuge(out.source, nodes, room);
            for (auto& s : out.self)
                detail::resizeHuge(s, nodes, room);
            for (auto& s : out.total)
                detail::resizeHuge(s, nodes, room);
        };
        std::future<void> costsAllocated;
        if (aside(nodes, kTakeAside))
            costsAllocated = std::async(std::launch::async, allocateCosts);
        else
            allocateCosts();
        for (std::size_t g = 0; g < items.size(); ++g)
            entries += g == 0 || keyOf(g) != keyOf(g - 1);
        if (r.functions)
            detail::resizeHuge(r.buffers.outer, nodes, room);
        detail::resizeHuge(out.shape.parent, nodes, room);
        detail::resizeHuge(out.shape.end, nodes, room);
        detail::resizeHuge(out.shape.depth, nodes, room);
        detail::resizeHuge(out.shape.frame, nodes, room);
        detail::resizeHuge(out.entries.thread, entries, entryRoom);
        detail::resizeHuge(out.entries.node, entries, entryRoom);
        for (auto& c : out.entries.cost)
            detail::resizeHuge(c, entries, entryRoom);
        if (costsAllocated.valid())
            costsAllocated.get();
        detail::trace("slice: allocated");
    }

    /// 4: the slice's nodes and their arrays, in passes that each walk their arrays in order, in two halves
    /// on two threads when there are many: the marked nodes in preorder (their profile nodes; the bitmap of
    /// them gives a node's slice id: the marked nodes before it); the (thread, leaf) entries of the sorted
    /// items; each node's depth, frame, parent (the node met last one level up) and self cost (its
    /// entries'); then the totals and subtree ends (and per-function costs) from the last node back. The
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

    /// f(from, to) over [0, n), or, `twoThreads`, over [0, split) and [split, n) on two threads; false when
    /// a part is (cancelled).
    template <typename F>
    bool inParts(bool twoThreads, std::size_t n, std::size_t split, F&& f) {
        if (!twoThreads || split == 0 || split >= n)
            return f(std::size_t{0}, n);
        auto second = std::async(std::launch::async, [&] { return f(split, n); });
        const bool first = f(std::size_t{0}, split);
        return second.get() && first;
    }

    /// The marked nodes before each word of `bits` (`before`), and in all (`nodes`).
    void countMarks() {
        nodes = 0;
        for (std::size_t w = 0; w < words; nodes += bitsSet(bits[w++]))
            before[w] = static_cast<uint32_t>(nodes);
    }

    /// The slice id of tree node n (n may be tree.size()): the number of marked nodes before it.
    NodeId idOf(NodeId n) const {
        const uint64_t below = (uint64_t{1} << (n & 63)) - 1;
        return static_cast<NodeId>(before[n >> 6] + bitsSet(bits[n >> 6] & below));
    }

    /// The marked nodes in preorder (out.source); for a slice whose nodes were listed, also the bitmap of
    /// them and the counts idOf() looks them up in (mark() made those of the others).
    bool listSources() {
        if (listed) { // (a small slice: no map of the whole tree but this bitmap, 1/64 of a byte a node)
            detail::resizeHuge(bits, words);
            detail::resizeHuge(before, words);
            std::copy(list.begin(), list.end(), out.source.begin());
            std::fill(bits.begin(), bits.end(), 0);
            for (const NodeId n : list)
                bits[n / 64] |= uint64_t{1} << (n % 64);
            countMarks();
            return true;
        }
        // the second half from the word holding the middle node on
        const std::size_t half = static_cast<std::size_t>(
            std::upper_bound(before.begin(), before.end(), static_cast<uint32_t>(nodes / 2)) -
            before.begin());
        return inParts(aside(nodes, kTakeAside), words, half, [&](std::size_t from, std::size_t to) {
            for (std::size_t w = from; w < to; ++w) {
                if ((w & 0xfff) == 0 && cancelRequested(r.cancel))
                    return false;
                NodeId k = before[w];
                for (uint64_t word = bits[w]; word; word &= word - 1)
                    out.source[k++] = static_cast<NodeId>(w * 64 + std::countr_zero(word));
            }
            return true;
        });
    }

    /// Each node's depth, frame and parent, from its profile node: its parent is the node met last one
    /// level up (the second half starts with the path to its first node); its self cost, its entries' (met
    /// in the same order: sumEntries()); its subtree end and total start as those of a leaf (sumTotals()).
    bool shapeNodes() {
        std::atomic<uint32_t> maxDepth{0};
        const bool done =
            inParts(aside(nodes, kTakeAside), nodes, nodes / 2, [&](std::size_t from, std::size_t to) {
                // (the cost loops unrolled for the usual counts of cost types: 18 % of the pass was reloading
                // the arrays' addresses in them)
                switch (r.types) {
                case 1:
                    return shapePart<1>(from, to, maxDepth);
                case 2:
                    return shapePart<2>(from, to, maxDepth);
                default:
                    return shapePart<0>(from, to, maxDepth);
                }
            });
        out.shape.maxDepth = maxDepth.load();
        return done;
    }

    /// shapeNodes() for the nodes [from, to), with kTypes cost types (0: r.types).
    template <std::size_t kTypes>
    bool shapePart(std::size_t from, std::size_t to, std::atomic<uint32_t>& maxDepth) {
        const std::size_t types = kTypes ? kTypes : r.types;
        CallTree::Shape& shape = out.shape;
        const std::span<const NodeId> entryNode = out.entries.node;
        std::vector<int64_t*> self(types), total(types);
        std::vector<const int64_t*> entryCost(types);
        for (std::size_t t = 0; t < types; ++t) {
            self[t] = out.self[t].data();
            total[t] = out.total[t].data();
            entryCost[t] = out.entries.cost[t].data();
        }
        uint32_t* const depthOut = shape.depth.data();
        FrameId* const frameOut = shape.frame.data();
        NodeId* const parentOut = shape.parent.data();
        NodeId* const endOut = shape.end.data();
        const NodeId* const source = out.source.data();
        std::vector<NodeId> path(tree.maxDepth() + 2, kRootNode); // path[d]: the last node at depth d
        if (from < to)
            for (NodeId a = tree.parent(source[from]); a != kRootNode; a = tree.parent(a))
                path[tree.depth(a)] = idOf(a);
        // the entries of the nodes from `from` on (sorted by node)
        std::size_t e = static_cast<std::size_t>(
            std::lower_bound(entryNode.begin(), entryNode.end(), static_cast<NodeId>(from)) -
            entryNode.begin());
        const std::size_t entryCount = entryNode.size();
        // with functions, whether each node is the outermost of its frame on its path (found in the profile's
        // tree, as functionCosts() does)
        uint8_t* const outer = r.functions ? r.buffers.outer.data() : nullptr;
        OutermostOfFrame outermost(tree, outer ? r.frames : 0, from < to ? source[from] : kRootNode);
        uint32_t deepest = 0;
        std::vector<int64_t> sums(kTypes ? 0 : types); // (a node's self costs, kTypes 0: any number of types)
        for (std::size_t k = from; k < to; ++k) {
            if ((k & 0xffff) == 0 && cancelRequested(r.cancel))
                return false;
            const NodeId n = source[k];
            const uint32_t d = tree.depth(n);
            depthOut[k] = d;
            deepest = std::max(deepest, d);
            frameOut[k] = tree.frame(n);
            parentOut[k] = d ? path[d - 1] : kRootNode;
            path[d] = static_cast<NodeId>(k);
            endOut[k] = static_cast<NodeId>(k + 1);
            if (outer) // (the root is in no function)
                outer[k] = n != kRootNode && outermost.visit(n, frameOut[k].value);
            int64_t sum[kTypes ? kTypes : 1] = {};
            if constexpr (kTypes == 0)
                std::fill(sums.begin(), sums.end(), 0);
            for (; e < entryCount && entryNode[e] == k; ++e)
                for (std::size_t t = 0; t < types; ++t)
                    addCost(kTypes ? sum[t] : sums[t], entryCost[t][e]);
            for (std::size_t t = 0; t < types; ++t) {
                self[t][k] = kTypes ? sum[t] : sums[t];
                total[t][k] = kTypes ? sum[t] : sums[t];
            }
        }
        for (uint32_t m = maxDepth.load(); m < deepest && !maxDepth.compare_exchange_weak(m, deepest);)
            ;
        return true;
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
        return inParts(aside(items.size(), kTakeAside), items.size(), split,
                       [&](std::size_t from, std::size_t to) {
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

    /// What a part of the nodes adds up in sumTotals(): per frame, with functions; and what its nodes add to
    /// the nodes before it (the ancestors of its first node, by depth).
    struct TotalsPart {
        FrameSums functions;
        std::vector<std::vector<int64_t>> carry; ///< [cost type][depth]: totals
        std::vector<NodeId> carryEnd;            ///< [depth]: subtree ends
    };

    /// Each node's total (its self cost plus its children's totals) and subtree end (its last child's),
    /// added and taken from the last node back (a child comes after its parent); with functions, each
    /// node's self cost and, where it is the outermost of its frame, its total (final when it is met) added
    /// to its frame's. In two halves on two threads for many nodes: the second half's sums for the
    /// ancestors of its first node (in the first half) are carried and added up that path afterwards.
    /// (Before, a cost type per thread: a tree of one cost type summed on one.)
    bool sumTotals() {
        const std::size_t split = aside(nodes, kTakeAside) && nodes > 2 ? nodes / 2 : nodes;
        TotalsPart parts[2];
        const auto sumPart = [&](std::size_t from, std::size_t to) {
            TotalsPart& part = parts[from == 0 ? 0 : 1];
            switch (r.types) {
            case 1:
                return r.functions ? sumRange<1, true>(from, to, part) : sumRange<1, false>(from, to, part);
            case 2:
                return r.functions ? sumRange<2, true>(from, to, part) : sumRange<2, false>(from, to, part);
            default:
                return r.functions ? sumRange<0, true>(from, to, part) : sumRange<0, false>(from, to, part);
            }
        };
        if (!inParts(split < nodes, nodes, split, sumPart))
            return false;
        if (split < nodes) // the second half's sums up the path to its first node
            addCarried(split, parts[1], parts[0]);
        if (!r.functions)
            return true;
        FrameSums& sums = parts[0].functions;
        if (split < nodes)
            for (std::size_t f = 0; f < r.frames; ++f) {
                const FrameSums& second = parts[1].functions;
                if (second.callSites[f] == 0)
                    continue;
                for (std::size_t t = 0; t < r.types; ++t) {
                    addCost(sums.self[t][f], second.self[t][f]);
                    addCost(sums.total[t][f], second.total[t][f]);
                }
                if (sums.callSites[f] == 0)
                    sums.firstNode[f] = second.firstNode[f];
                sums.callSites[f] += second.callSites[f];
            }
        out.functions = std::move(sums);
        return true;
    }

    /// sumTotals() for the nodes [from, to) (but the root), with kTypes cost types (0: r.types): the sums
    /// for nodes before `from` go to part.carry.
    template <std::size_t kTypes, bool kFunctions>
    bool sumRange(std::size_t from, std::size_t to, TotalsPart& part) {
        const std::size_t types = kTypes ? kTypes : r.types;
        const NodeId* const parent = out.shape.parent.data();
        const uint32_t* const depth = out.shape.depth.data();
        NodeId* const end = out.shape.end.data();
        const FrameId* const frame = out.shape.frame.data();
        const uint8_t* const outer = r.buffers.outer.data();
        std::vector<int64_t*> total(types), functionSelf(types), functionTotal(types), carry(types);
        std::vector<const int64_t*> self(types);
        const std::size_t carried = from < to ? depth[from] : 0; // (the depths of the ancestors of `from`)
        part.carry.assign(types, std::vector<int64_t>(carried, 0));
        part.carryEnd.assign(carried, 0);
        FrameSums& functions = part.functions;
        if (kFunctions) {
            functions.self.assign(types, std::vector<int64_t>(r.frames, 0));
            functions.total.assign(types, std::vector<int64_t>(r.frames, 0));
            functions.callSites.assign(r.frames, 0);
            functions.firstNode.assign(r.frames, 0);
        }
        for (std::size_t t = 0; t < types; ++t) {
            total[t] = out.total[t].data();
            self[t] = out.self[t].data();
            carry[t] = part.carry[t].data();
            if (kFunctions) {
                functionSelf[t] = functions.self[t].data();
                functionTotal[t] = functions.total[t].data();
            }
        }
        for (std::size_t k = to; k-- > std::max<std::size_t>(from, 1);) {
            if ((k & 0xffff) == 0 && cancelRequested(r.cancel))
                return false;
            const NodeId p = parent[k];
            if (p >= from) {
                for (std::size_t t = 0; t < types; ++t)
                    addCost(total[t][p], total[t][k]);
                end[p] = std::max(end[p], end[k]);
            } else { // (a child of an ancestor of `from`)
                const uint32_t d = depth[k] - 1;
                for (std::size_t t = 0; t < types; ++t)
                    addCost(carry[t][d], total[t][k]);
                part.carryEnd[d] = std::max(part.carryEnd[d], end[k]);
            }
            if constexpr (kFunctions) {
                const uint32_t f = frame[k].value;
                for (std::size_t t = 0; t < types; ++t) {
                    addCost(functionSelf[t][f], self[t][k]);
                    addCost(functionTotal[t][f], outer[k] ? total[t][k] : 0);
                }
                ++functions.callSites[f];
                functions.firstNode[f] = static_cast<NodeId>(k);
            }
        }
        return true;
    }

    /// Adds what the nodes from `from` on carried to the ancestors of `from` up the path (each gets its own
    /// and its descendants' on the path), and to their frames' totals where they are outermost (`sums`: the
    /// first part's, which added their totals without it).
    void addCarried(std::size_t from, const TotalsPart& carried, TotalsPart& sums) {
        std::vector<int64_t> running(r.types, 0);
        NodeId runningEnd = 0;
        for (NodeId p = out.shape.parent[from];; p = out.shape.parent[p]) {
            const uint32_t d = out.shape.depth[p];
            runningEnd = std::max(runningEnd, carried.carryEnd[d]);
            out.shape.end[p] = std::max(out.shape.end[p], runningEnd);
            for (std::size_t t = 0; t < r.types; ++t) {
                addCost(running[t], carried.carry[t][d]);
                addCost(out.total[t][p], running[t]);
                if (r.functions && p != kRootNode && r.buffers.outer[p])
                    addCost(sums.functions.total[t][out.shape.frame[p].value], running[t]);
            }
            if (p == kRootNode)
                break;
        }
    }

    const SliceTreeRequest<Item>& r;
    const CallTree& tree;
    std::vector<Item>& items;
    SliceTree& out;
    const std::size_t words; ///< of bits: 64 tree nodes a word, and a word for idOf(tree.size())
    /// few items against the tree's size: the marked nodes are listed, not mapped
    const bool listed = items.size() * kListedBelow < tree.size();
    std::vector<NodeId> list;      ///< listed: the marked nodes in preorder
    std::vector<uint64_t>& bits;   ///< per 64 tree nodes: their marks
    std::vector<uint32_t>& before; ///< per 64 tree nodes: the marked nodes before them
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
