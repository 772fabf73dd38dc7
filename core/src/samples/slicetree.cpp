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
/// From this many nodes on, the nodes are zeroed and taken on two cores.
constexpr std::size_t kTakeAside = 200000;

bool cancelled(const std::atomic<bool>* cancel) {
    return cancel && cancel->load(std::memory_order_relaxed);
}

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

} // namespace

bool buildSliceTree(const SliceTreeRequest& r, SliceTree& out) {
    const CallTree& tree = r.tree;
    const SampleStore& store = r.store;
    const std::size_t types = r.types;
    const std::span<const SliceItem> items = r.items;
    const int threadBits = r.threadBits;
    const auto aside = [&](std::size_t size, std::size_t from) {
        return r.cores > 1 && (r.forced || size >= from);
    };

    // the touched leaves and their ancestors: marked (a leaf's walk up stops at a node already marked), then
    // taken in the tree's own preorder, which is the slice's. A node keeps its depth; its parent is the node
    // taken last one level up; it ends where the next node at its depth or above is taken. The items, sorted
    // by (leaf, thread), are met in the same order: their costs go to their leaf's self cost and (thread,
    // node) entry as it is taken.
    const uint64_t threadMask = (uint64_t{1} << threadBits) - 1;
    std::vector<uint8_t> keep;
    detail::assignHuge(keep, tree.size(), uint8_t{0});
    keep[kRootNode] = 1;
    // per block of nodes (64 to 128 blocks, of at most 64 Ki nodes): the nodes marked, and the (thread, leaf)
    // entries of the leaves there
    const int blockBits = std::clamp(static_cast<int>(std::bit_width(tree.size())) - 7, 0, 16);
    const std::size_t blocks = (tree.size() >> blockBits) + 1;
    // marked a stretch of 4096 items at a time, on two cores when there are many items: each takes the next
    // stretch left (a node both reach may be marked by both: relaxed stores of the same value); then counted
    std::atomic<std::size_t> nextStretch{0};
    constexpr std::size_t kStretch = 4096;
    const auto mark = [&](std::vector<std::size_t>& blockEntries) {
        for (std::size_t from; (from = nextStretch.fetch_add(kStretch)) < items.size();) {
            if (cancelled(r.cancel))
                return false;
            for (std::size_t g = from; g < std::min(items.size(), from + kStretch); ++g) {
                const auto leaf = static_cast<NodeId>(items[g].key >> threadBits);
                blockEntries[leaf >> blockBits] += g == 0 || items[g].key != items[g - 1].key;
                for (NodeId n = leaf; !std::atomic_ref(keep[n]).load(std::memory_order_relaxed);
                     n = tree.parent(n))
                    std::atomic_ref(keep[n]).store(uint8_t{1}, std::memory_order_relaxed);
            }
        }
        return true;
    };
    std::vector<std::size_t> blockNodes(blocks, 0), blockEntries(blocks, 0), otherEntries(blocks, 0);
    std::future<bool> otherMarked;
    if (aside(items.size(), kMarkAside))
        otherMarked = std::async(std::launch::async, [&] { return mark(otherEntries); });
    const bool marked = mark(blockEntries);
    if (!(otherMarked.valid() ? otherMarked.get() : true) || !marked)
        return false;
    detail::trace("slice: marked (counting)");
    std::size_t nodes = 0, entries = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t first = b << blockBits;
        blockNodes[b] =
            countMarked(keep.data() + first, std::min(tree.size(), first + (1u << blockBits)) - first);
        blockEntries[b] += otherEntries[b];
        nodes += blockNodes[b], entries += blockEntries[b];
    }
    detail::trace("slice: marked");

    // the arrays, half of them zeroed on another core when there are many nodes
    const bool twoCores = aside(nodes, kTakeAside);
    CallTree::Shape& shape = out.shape;
    std::vector<NodeId>& source = out.source;
    std::vector<std::vector<int64_t>>& self = out.self;
    self.assign(types, {});
    ThreadCosts& entry = out.entries;
    entry.cost.assign(types, {});
    const auto allocateOthers = [&] {
        detail::assignHuge(source, nodes, kRootNode);
        for (auto& s : self)
            detail::assignHuge(s, nodes, int64_t{0});
        for (auto& c : entry.cost)
            detail::assignHuge(c, entries, int64_t{0});
    };
    std::future<void> othersAllocated;
    if (twoCores)
        othersAllocated = std::async(std::launch::async, allocateOthers);
    else
        allocateOthers();
    detail::assignHuge(shape.parent, nodes, kRootNode);
    detail::assignHuge(shape.end, nodes, NodeId(0));
    detail::assignHuge(shape.depth, nodes, 0u);
    detail::assignHuge(shape.frame, nodes, FrameId{});
    detail::assignHuge(entry.thread, entries, 0u);
    detail::assignHuge(entry.node, entries, kRootNode);
    if (othersAllocated.valid())
        othersAllocated.get();
    detail::trace("slice: allocated");

    // the first marked node in [n, to), or `to`: eight at a time where none is
    const auto nextMarked = [&keep](NodeId n, NodeId to) {
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
    };
    // Taking the nodes from `from` to `to` (tree nodes), which are numbered from `k` on, their items from `g`
    // and their entries from `e` on; `open` holds the slice nodes on the path to the node before `from`, by
    // depth. Those of them still open at `to` are left open (and in `open`) when `to` is inside their
    // subtree. The deepest depth seen goes to `maxDepth`. False when cancelled.
    struct Part {
        NodeId from, to, k;
        std::size_t g, e;
        std::vector<NodeId> open;
        uint32_t maxDepth = 0;
    };
    const auto take = [&](Part& p) {
        // (all in locals: the two parts' structs may share a cache line)
        std::vector<NodeId> open = std::move(p.open);
        std::size_t g = p.g, e = p.e;
        NodeId k = p.k;
        uint32_t maxDepth = 0;
        for (NodeId n = nextMarked(p.from, p.to); n < p.to; n = nextMarked(n + 1, p.to)) {
            if ((k & 0xffff) == 0 && cancelled(r.cancel))
                return false;
            const uint32_t d = tree.depth(n);
            for (; open.size() > d; open.pop_back())
                shape.end[open.back()] = k;
            shape.parent[k] = d ? open[d - 1] : kRootNode;
            shape.depth[k] = d;
            maxDepth = std::max(maxDepth, d);
            shape.frame[k] = tree.frame(n);
            source[k] = n;
            open.push_back(k);
            // the samples that end here, by thread
            for (; g < items.size() && static_cast<NodeId>(items[g].key >> threadBits) == n; ++e) {
                std::size_t h = g;
                while (h < items.size() && items[h].key == items[g].key)
                    ++h;
                for (std::size_t t = 0; t < types && t < store.costTypeCount(); ++t) {
                    const SampleCostColumn& c = store.cost(t);
                    int64_t sum = 0;
                    if (c.uniform())
                        sum = mulCost(c.constant(), static_cast<int64_t>(h - g));
                    else
                        for (std::size_t i = g; i < h; ++i)
                            addCost(sum, c[items[i].sample]);
                    addCost(self[t][k], sum);
                    entry.cost[t][e] = sum;
                }
                entry.thread[e] = static_cast<uint32_t>(items[g].key & threadMask);
                entry.node[e] = k;
                g = h;
            }
            ++k;
        }
        // the nodes still open: those whose subtree goes on past `to` are left to the next part
        while (!open.empty() && tree.subtreeEnd(source[open.back()]) <= p.to) {
            shape.end[open.back()] = k;
            open.pop_back();
        }
        p.open = std::move(open);
        p.maxDepth = maxDepth;
        return true;
    };
    // on two cores: a head up to the block boundary nearest half of the nodes, and the tail from there
    Part head{0, static_cast<NodeId>(tree.size()), 0, 0, 0, {}}, tail = head;
    std::size_t split = blocks; // the tail part's first block
    if (twoCores) {
        std::size_t before = 0;
        for (split = 0; split < blocks && before + blockNodes[split] / 2 < nodes / 2; ++split)
            before += blockNodes[split];
        if (split > 0 && split < blocks) {
            tail.from = head.to = static_cast<NodeId>(split << blockBits);
            tail.k = static_cast<NodeId>(before);
            for (std::size_t b = 0; b < split; ++b)
                tail.e += blockEntries[b];
            tail.g = static_cast<std::size_t>(
                std::lower_bound(items.begin(), items.end(), uint64_t{tail.from} << threadBits,
                                 [](const SliceItem& x, uint64_t key) { return x.key < key; }) -
                items.begin());
            // its open path: the marked ancestors of its first node, each numbered by the nodes marked before
            // it
            std::vector<NodeId> ancestors;
            for (NodeId a = tree.parent(tail.from); a != kRootNode; a = tree.parent(a))
                ancestors.push_back(a);
            ancestors.push_back(kRootNode);
            for (auto it = ancestors.rbegin(); it != ancestors.rend() && keep[*it]; ++it) {
                std::size_t id = 0;
                for (std::size_t b = 0; b < (*it >> blockBits); ++b)
                    id += blockNodes[b];
                for (NodeId x = (*it >> blockBits) << blockBits; x < *it; ++x)
                    id += keep[x];
                tail.open.push_back(static_cast<NodeId>(id));
            }
        } else {
            split = blocks;
        }
    }
    // (the part that ends the tree closes every node left open)
    bool taken = true;
    if (split < blocks) {
        auto tailTaken = std::async(std::launch::async, [&] { return take(tail); });
        taken = take(head);
        taken = tailTaken.get() && taken;
    } else {
        taken = take(head);
    }
    shape.maxDepth = std::max(head.maxDepth, tail.maxDepth);
    return taken;
}

} // namespace scorch::detail
