// IncrementalTree: see rawprofile_tree.h.
#include "raw/rawprofile_tree.h"

#include "raw/stacksort.h"

#include "model/linecosts.h"
#include "util/hugepages.h"
#include "util/phasetimer.h"

#include <algorithm>
#include <future>
#include <numeric>
#include <stdexcept>

namespace scorch::detail {

namespace {

uint64_t entryKey(uint32_t thread, uint32_t node) {
    return hashInt(static_cast<uint64_t>(thread) << 32 | node);
}

} // namespace

IncrementalTree::IncrementalTree()
    : m_parent(1, kRootNode)
    , m_frame(1, FrameId{})
    , m_firstChild(1, 0)
    , m_nextSibling(1, 0) {}

void IncrementalTree::setCostTypes(const std::vector<CostType>& types) {
    for (std::size_t t = m_types.size(); t < types.size(); ++t) {
        m_entryCost.emplace_back(m_entryNode.size(), 0);
        m_lineSelf.emplace_back(m_lines.size(), 0);
        m_lineTotal.emplace_back(m_lines.size(), 0);
    }
    m_types = types;
}

void IncrementalTree::setThreads(const std::vector<ThreadInfo>& threads) {
    for (std::size_t t = m_threads.size(); t < threads.size(); ++t) {
        m_threads.push_back(threads[t]);
        m_threads.back().samples = 0;
    }
}

uint32_t IncrementalTree::child(uint32_t parent, FrameId frame) {
    for (uint32_t c = m_firstChild[parent]; c != 0; c = m_nextSibling[c])
        if (m_frame[c] == frame)
            return c;
    return newChild(parent, frame);
}

uint32_t IncrementalTree::newChild(uint32_t parent, FrameId frame) {
    const auto node = static_cast<uint32_t>(m_parent.size());
    m_parent.push_back(parent);
    m_frame.push_back(frame);
    if (m_sealed)
        return node;
    m_firstChild.push_back(0);
    m_nextSibling.push_back(m_firstChild[parent]);
    m_firstChild[parent] = node;
    return node;
}

uint32_t IncrementalTree::lineEntry(FrameId frame, SourceLine where) {
    const uint64_t h = lineKey(frame, where);
    const IndexProbe p = m_lineIndex.find(h, [&](uint32_t e) {
        const Line& l = m_lines[e];
        return l.frame == frame && l.where.file == where.file && l.where.line == where.line;
    });
    if (p.found())
        return p.index;
    const auto id = static_cast<uint32_t>(m_lines.size());
    m_lines.push_back({frame, where});
    m_lineStamp.push_back(UINT32_MAX);
    for (auto& v : m_lineSelf)
        v.push_back(0);
    for (auto& v : m_lineTotal)
        v.push_back(0);
    m_lineIndex.insert(p, h, id, [&](uint32_t e) { return lineKey(m_lines[e].frame, m_lines[e].where); });
    return id;
}

namespace {

/// From this many stacks on, they are sorted and their lines listed on two threads.
constexpr std::size_t kStacksAside = 20000;

/// The nodes of the last batch into the empty tree (sealed: new nodes are not linked as children), made on
/// two threads, each taking half of the sorted stacks (half of their frames), both writing into `parent` and
/// `frame` in place: a sorted stack makes a node for each frame past those it shares with the stack before
/// (common[i]), so where the second half's nodes start is known beforehand. Until the first half is done, the
/// second refers to the nodes of the first half's last stack by their depth (1..D on that stack's path of D
/// frames, below the second half's first id), and those references are renumbered when both are done.
/// order[i]: the i-th stack in sorted order.
template <typename PathOf>
void makeNodesOnTwoThreads(std::span<const uint32_t> order, std::span<const uint32_t> common,
                           const PathOf& pathOf, std::span<const FrameId> refFrame,
                           std::vector<NodeId>& parent, std::vector<FrameId>& frame,
                           std::vector<uint32_t>& leaf) {
    std::size_t frames = 0, half = 0, split = 0;
    for (const uint32_t k : order)
        frames += pathOf(k).size();
    while (split + 1 < order.size() && half < frames / 2)
        half += pathOf(order[split++]).size();
    split = std::max<std::size_t>(split, 1); // (callers pass two stacks or more)
    std::size_t firstHalfNodes = 0, nodeCount = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (i == split)
            firstHalfNodes = nodeCount;
        nodeCount += pathOf(order[i]).size() - common[i];
    }
    const std::size_t begin = parent.size(); // the root (and nothing else) is in already
    const auto base = static_cast<uint32_t>(begin + firstHalfNodes); // the second half's first node
    parent.resize(begin + nodeCount);
    frame.resize(begin + nodeCount);
    // Makes the nodes of the sorted stacks order[from, to) after the stack before (nodes[d]: its node at
    // depth d + 1), writing node `id` at parent[id] and frame[id] from `firstId` on; `early` receives the
    // nodes whose parent is a node of the stack before `from` referred to by its depth.
    const auto makeNodes = [&](std::size_t from, std::size_t to, std::vector<uint32_t>& nodes,
                               uint32_t firstId, std::vector<uint32_t>* early) {
        uint32_t id = firstId;
        for (std::size_t i = from; i < to; ++i) {
            const uint32_t k = order[i];
            const auto p = pathOf(k);
            std::size_t d = common[i];
            nodes.resize(d);
            uint32_t node = d ? nodes[d - 1] : kRootNode;
            if (early && d < p.size() && node != kRootNode && node < firstId)
                early->push_back(id);
            for (; d < p.size(); ++d, ++id) {
                parent[id] = node;
                frame[id] = refFrame[p[d]];
                node = id;
                nodes.push_back(id);
            }
            leaf[k] = node;
        }
    };
    // the first half on another thread; the second half here
    std::vector<uint32_t> firstNodes;
    auto first = std::async(std::launch::async,
                            [&] { makeNodes(0, split, firstNodes, static_cast<uint32_t>(begin), nullptr); });
    const auto depths = static_cast<uint32_t>(pathOf(order[split - 1]).size());
    std::vector<uint32_t> nodes(depths), early;
    for (uint32_t d = 0; d < depths; ++d)
        nodes[d] = d + 1;
    makeNodes(split, order.size(), nodes, base, &early);
    first.get();
    // firstNodes is the path of the first half's last stack now
    const auto renumber = [&](uint32_t v) {
        return v == kRootNode || v >= base ? v : firstNodes[v - 1];
    };
    for (const uint32_t id : early)
        parent[id] = renumber(parent[id]);
    for (std::size_t i = split; i < order.size(); ++i)
        leaf[order[i]] = renumber(leaf[order[i]]);
}

} // namespace

template <typename R>
void IncrementalTree::addStacks(std::span<const StackInput> stacks, std::span<const R> refs,
                                std::span<const FrameId> refFrame, std::span<const SourceLine> refLine,
                                bool last, const std::function<void()>& refsRead) {
    if (m_sealed)
        throw std::logic_error("IncrementalTree: stacks added after the last batch");
    m_sealed = last;
    auto pathOf = [&](uint32_t k) {
        return refs.subspan(stacks[k].first, stacks[k].size);
    };
    // Sort key of a reference: its frame's rank in the order CallTree gives siblings (by name, then id).
    // Sorted by it, a batch into an empty tree creates its nodes in CallTree's own order (preorder,
    // name-sorted siblings), and profile() takes them as they are.
    std::vector<uint32_t> refKey(refFrame.size());
    {
        std::vector<FrameId> distinct;
        std::vector<bool> seen(m_frames.size(), false);
        for (FrameId f : refFrame)
            if (!seen[f.value]) {
                seen[f.value] = true;
                distinct.push_back(f);
            }
        std::sort(distinct.begin(), distinct.end(), [this](FrameId a, FrameId b) {
            const int c =
                compareAsStackSegments(m_strings.view(m_frames[a].name), m_strings.view(m_frames[b].name));
            return c != 0 ? c < 0 : a.value < b.value;
        });
        std::vector<uint32_t> rank(m_frames.size(), 0);
        for (std::size_t i = 0; i < distinct.size(); ++i)
            rank[distinct[i].value] = static_cast<uint32_t>(i);
        for (std::size_t r = 0; r < refFrame.size(); ++r)
            refKey[r] = rank[refFrame[r].value];
    }
    // each reference's line entry, looked up once (stacks repeat the same references many times)
    std::vector<uint32_t> refLineEntry(refFrame.size(), UINT32_MAX);
    for (std::size_t r = 0; r < refFrame.size(); ++r)
        if (refLine[r].line != 0)
            refLineEntry[r] = lineEntry(refFrame[r], refLine[r]);
    const auto firstStack = m_stacks.size();
    const auto listLines = [&] {
        // at most one entry per reference: reserved (only what is written is mapped in), so that growing
        // never copies (fp-large: 5.5 M entries, a 17 MB copy beside its 34 MB buffer near the peak); at
        // least doubled, so that the many small batches of a recording's snapshots do not copy each time
        if (const std::size_t need = m_stackLines.size() + refs.size(); need > m_stackLines.capacity())
            reserveHuge(m_stackLines, std::max(need, m_stackLines.capacity() * 2));
        m_stacks.resize(firstStack + stacks.size());
        for (std::size_t k = 0; k < stacks.size(); ++k)
            listStackLines(static_cast<uint32_t>(firstStack + k), pathOf(static_cast<uint32_t>(k)),
                           refLineEntry);
    };
    std::vector<BasicStackKey<R>> keys(stacks.size());
    for (uint32_t k = 0; k < stacks.size(); ++k)
        keys[k] = {refs.data() + stacks[k].first, stacks[k].size, k};
    trace("tree: " + std::to_string(stacks.size()) + " new stacks, " + std::to_string(refs.size()) +
          " frames");
    // Many stacks: their lines listed on another thread meanwhile they are sorted and their nodes made.
    std::future<void> linesListed;
    if (stacks.size() >= kStacksAside)
        linesListed = std::async(std::launch::async, listLines);
    // common[i]: the frames the sorted stack keys[i] shares with keys[i - 1] (the sort knows it; the same
    // keys are the same frames)
    std::vector<uint32_t> common(keys.size());
    sortStackKeys(keys, refKey.data(), stacks.size() >= kStacksAside, common.data());
    // only the sorted order is needed from here on (fp-large: 15 MB of keys given back before the nodes are
    // made)
    std::vector<uint32_t> order(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
        order[i] = keys[i].stack;
    std::vector<BasicStackKey<R>>().swap(keys);
    trace("tree: stacks sorted");
    // In sorted order, the stacks that share a prefix are adjacent: past the prefix shared with the previous
    // stack, a child of a node made in this batch is new too (no lookup); only nodes of earlier batches are
    // searched.
    const auto firstNew = static_cast<uint32_t>(m_parent.size());
    // at most one new node per frame
    reserveHuge(m_parent, firstNew + refs.size());
    reserveHuge(m_frame, firstNew + refs.size());
    if (!last) {
        reserveHuge(m_firstChild, firstNew + refs.size());
        reserveHuge(m_nextSibling, firstNew + refs.size());
    }
    const bool intoEmpty = firstNew == 1;
    std::vector<uint32_t> leaf(stacks.size(), kRootNode);
    if (last && intoEmpty && order.size() >= kStacksAside) {
        makeNodesOnTwoThreads(order, common, pathOf, refFrame, m_parent, m_frame, leaf);
    } else {
        std::vector<uint32_t> nodes; // nodes[d]: the previous stack's node at depth d + 1
        for (std::size_t i = 0; i < order.size(); ++i) {
            const uint32_t k = order[i];
            const auto p = pathOf(k);
            std::size_t d = common[i];
            nodes.resize(d);
            uint32_t node = d ? nodes[d - 1] : kRootNode;
            for (; d < p.size(); ++d) {
                const FrameId f = refFrame[p[d]];
                node = node >= firstNew ? newChild(node, f) : child(node, f);
                nodes.push_back(node);
            }
            leaf[k] = node;
        }
    }
    trace("tree: " + std::to_string(m_parent.size()) + " nodes");
    if (m_parent.size() > firstNew)
        m_preorder = intoEmpty;
    if (linesListed.valid())
        linesListed.get();
    else
        listLines();
    // the frame references and the sort's arrays are not needed for the stacks' entries (fp-large: 135 MB
    // of references given back before the entries' arrays are made)
    std::vector<uint32_t>().swap(order);
    std::vector<uint32_t>().swap(common);
    std::vector<uint32_t>().swap(refKey);
    std::vector<uint32_t>().swap(refLineEntry);
    if (refsRead)
        refsRead();
    for (std::size_t k = 0; k < stacks.size(); ++k)
        m_stacks[firstStack + k].entry = entryOf(stacks[k].thread, leaf[k]);
}

uint32_t IncrementalTree::entryOf(uint32_t thread, uint32_t node) {
    const uint64_t h = entryKey(thread, node);
    const IndexProbe p =
        m_entries.find(h, [&](uint32_t e) { return m_entryThread[e] == thread && m_entryNode[e] == node; });
    if (p.found())
        return p.index;
    const auto entry = static_cast<uint32_t>(m_entryNode.size());
    m_entryThread.push_back(thread);
    m_entryNode.push_back(node);
    for (auto& v : m_entryCost)
        v.push_back(0);
    m_entries.insert(p, h, entry, [&](uint32_t e) { return entryKey(m_entryThread[e], m_entryNode[e]); });
    return entry;
}

template <typename R>
void IncrementalTree::listStackLines(uint32_t stack, std::span<const R> rootToLeaf,
                                     std::span<const uint32_t> refLineEntry) {
    Stack& s = m_stacks[stack];
    s = {0, static_cast<uint32_t>(m_stackLines.size()), 0, UINT32_MAX};
    const std::size_t n = rootToLeaf.size();
    for (std::size_t k = 0; k < n; ++k) {
        const uint32_t l = refLineEntry[rootToLeaf[k]];
        if (l == UINT32_MAX)
            continue;
        if (k + 1 == n)
            s.leafLine = l;
        // "total" counts a line once per sample, also when recursion puts it on the stack twice
        if (m_lineStamp[l] == stack)
            continue;
        m_lineStamp[l] = stack;
        m_stackLines.push_back(l);
    }
    s.linesCount = static_cast<uint32_t>(m_stackLines.size() - s.linesFirst);
}

void IncrementalTree::addCost(uint32_t stack, uint64_t samples, std::span<const int64_t> costs) {
    const Stack& s = m_stacks[stack];
    m_threads[m_entryThread[s.entry]].samples += samples;
    for (std::size_t t = 0; t < costs.size() && t < m_entryCost.size(); ++t) {
        if (costs[t] == 0)
            continue;
        scorch::addCost(m_entryCost[t][s.entry], costs[t]);
        for (uint32_t k = s.linesFirst; k < s.linesFirst + s.linesCount; ++k)
            scorch::addCost(m_lineTotal[t][m_stackLines[k]], costs[t]);
        if (s.leafLine != UINT32_MAX)
            scorch::addCost(m_lineSelf[t][s.leafLine], costs[t]);
    }
}

Profile IncrementalTree::profile(ProfileMeta meta, bool stacks, bool take) {
    if (m_taken)
        throw std::logic_error("IncrementalTree: used after its final profile took its arrays");
    // the arrays, moved from when taken, else copied
    const auto give = [take](auto& v) {
        return take ? std::move(v) : v;
    };
    Profile p;
    p.meta = std::move(meta);
    if (take) {
        m_taken = true;
        // what only adding stacks needs goes before the final tree's arrays are made
        std::vector<uint32_t>().swap(m_firstChild);
        std::vector<uint32_t>().swap(m_nextSibling);
        std::vector<uint32_t>().swap(m_lineStamp);
        m_entries = IndexTable(16);
        m_lineIndex = IndexTable(16);
        p.strings = std::move(m_strings);
    } else {
        for (std::size_t i = 1; i < m_strings.size(); ++i) // same ids: interned in id order
            p.strings.intern(m_strings.view(StringId{static_cast<uint32_t>(i)}));
    }
    p.frames = give(m_frames);
    p.costTypes = m_types;
    p.threads = m_threads;

    std::vector<std::vector<int64_t>> self;
    for (std::size_t t = 0; t < m_types.size(); ++t) {
        std::vector<int64_t> s;
        assignHuge(s, m_parent.size(), int64_t(0));
        for (std::size_t e = 0; e < m_entryNode.size(); ++e)
            scorch::addCost(s[m_entryNode[e]], m_entryCost[t][e]);
        self.push_back(std::move(s));
    }
    const bool preorder =
        m_preorder && (take ? CallTree::fromPreorder(std::move(m_parent), std::move(m_frame), self, p.tree)
                            : CallTree::fromPreorder(m_parent, m_frame, self, p.tree));
    if (preorder) {
        p.threadCosts.node = give(m_entryNode);
    } else {
        std::vector<NodeId> remap;
        p.tree = CallTree::fromParentArray(m_parent, m_frame, std::move(self), p.frames, p.strings, &remap);
        if (take) {
            std::vector<NodeId>().swap(m_parent);
            std::vector<FrameId>().swap(m_frame);
        }
        p.threadCosts.node.reserve(m_entryNode.size());
        for (NodeId n : m_entryNode)
            p.threadCosts.node.push_back(remap[n]);
        if (take)
            std::vector<NodeId>().swap(m_entryNode);
    }
    p.threadCosts.thread = give(m_entryThread);
    p.threadCosts.cost = give(m_entryCost);

    std::vector<uint32_t> types(m_types.size());
    std::iota(types.begin(), types.end(), 0u);
    std::vector<uint32_t> rank;
    p.lineCosts = sortedLineCosts(m_lines, m_lineSelf, m_lineTotal, types, &rank);
    if (take) {
        std::vector<Line>().swap(m_lines);
        std::vector<std::vector<int64_t>>().swap(m_lineSelf);
        std::vector<std::vector<int64_t>>().swap(m_lineTotal);
    }
    if (stacks) { // in the sorted entries' numbers
        StackDetails& d = p.stacks;
        // m_stackLines holds the stacks' line entries one stack after the other, in stack order
        d.lines = give(m_stackLines);
        for (uint32_t& l : d.lines)
            l = rank[l];
        d.linesFirst.reserve(m_stacks.size() + 1);
        d.leafLine.reserve(m_stacks.size());
        for (const Stack& s : m_stacks) {
            d.linesFirst.push_back(s.linesFirst);
            d.leafLine.push_back(s.leafLine == UINT32_MAX ? StackDetails::kNone : rank[s.leafLine]);
        }
        d.linesFirst.push_back(static_cast<uint32_t>(d.lines.size()));
        d.leafAddress.assign(m_stacks.size(), StackDetails::kNone);
    }
    return p;
}

template void IncrementalTree::addStacks<uint32_t>(std::span<const StackInput>, std::span<const uint32_t>,
                                                   std::span<const FrameId>, std::span<const SourceLine>,
                                                   bool, const std::function<void()>&);
template void IncrementalTree::addStacks<Ref24>(std::span<const StackInput>, std::span<const Ref24>,
                                                std::span<const FrameId>, std::span<const SourceLine>, bool,
                                                const std::function<void()>&);

} // namespace scorch::detail
