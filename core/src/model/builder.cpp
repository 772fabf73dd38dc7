#include "scorch/builder.h"

#include "model/linecosts.h"
#include "model/pathtree.h"
#include "util/hash.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace scorch {

using detail::lineKey;
using detail::probeIndex;

namespace {

/// How many lookups ahead the child index's slots are asked for (TreeBuilder::prefetchSlot()).
constexpr std::size_t kPrefetchAhead = 16;

uint64_t entryKey(uint32_t thread, NodeId node) {
    return detail::hashInt((static_cast<uint64_t>(thread) << 32) | node);
}

} // namespace

TreeBuilder::TreeBuilder()
    : m_parent{0}
    , m_frame{FrameId{}}
    , m_pathKey{0}
    , m_childSlots(4096, 0)
    , m_entrySlots(4096, 0)
    , m_lineSlots(64, 0)
    , m_stackSlots(1024, 0)
    , m_lineStackSlots(1024, 0) {}

FrameId TreeBuilder::frame(std::string_view name, std::string_view module, FrameKind kind) {
    Frame f;
    f.name = m_strings.intern(name);
    f.module = m_strings.intern(module);
    f.kind = kind;
    return m_frames.intern(f);
}

uint32_t TreeBuilder::costType(std::string_view name, CostUnit unit) {
    for (std::size_t i = 0; i < m_costTypes.size(); ++i)
        if (m_costTypes[i].type.name == name)
            return static_cast<uint32_t>(i);
    m_costTypes.push_back({CostType{std::string(name), unit, 0}, m_position});
    m_entryCost.emplace_back(m_entryNode.size(), 0);
    m_lineSelf.emplace_back(m_lines.size(), 0);
    m_lineTotal.emplace_back(m_lines.size(), 0);
    return static_cast<uint32_t>(m_costTypes.size() - 1);
}

void TreeBuilder::ensureDecimals(uint32_t costType, int decimals) {
    CostType& t = m_costTypes[costType].type;
    if (decimals <= t.decimals)
        return;
    const int64_t factor = pow10(decimals - t.decimals);
    for (int64_t& v : m_entryCost[costType])
        v = mulCost(v, factor);
    for (int64_t& v : m_lineSelf[costType])
        v = mulCost(v, factor);
    for (int64_t& v : m_lineTotal[costType])
        v = mulCost(v, factor);
    m_timed.scale(costType, factor);
    t.decimals = decimals;
}

uint32_t TreeBuilder::thread(std::string_view name, int64_t pid, int64_t tid) {
    for (std::size_t i = m_threads.size(); i-- > 0;) { // recent threads are the likely ones
        const ThreadInfo& t = m_threads[i].info;
        if (t.pid == pid && t.tid == tid && t.name == name)
            return static_cast<uint32_t>(i);
        if (m_threads.size() - i > 64)
            break;
    }
    std::string key = std::string(name) + '\0' + std::to_string(pid) + '/' + std::to_string(tid);
    auto [it, inserted] = m_threadIndex.try_emplace(std::move(key), static_cast<uint32_t>(m_threads.size()));
    if (inserted)
        m_threads.push_back({ThreadInfo{std::string(name), pid, tid, 0}, m_position});
    return it->second;
}

uint64_t TreeBuilder::pathKey(uint64_t parentKey, FrameId frame) {
    return detail::hashInt(parentKey ^ (static_cast<uint64_t>(frame.value) * 0x9e3779b97f4a7c15ull));
}

NodeId TreeBuilder::child(NodeId parent, FrameId frame, uint64_t key) {
    return detail::growChildKeyed(
        m_parent, m_frame, m_childSlots, parent, frame, key, [this](uint32_t n) { return m_pathKey[n]; },
        [this, key](NodeId id) {
            if (id >= m_maxNodes)
                throw LimitExceeded("the call tree has more than " + std::to_string(m_maxNodes) +
                                    " nodes (ImportOptions::maxNodes)");
            detail::pushHuge(m_pathKey, key);
        });
}

uint32_t TreeBuilder::entry(uint32_t thread, NodeId node) {
    const uint64_t h = entryKey(thread, node);
    const detail::IndexProbe p = probeIndex(
        m_entrySlots, h, [&](uint32_t e) { return m_entryThread[e] == thread && m_entryNode[e] == node; });
    if (p.found())
        return p.index;
    const auto id = static_cast<uint32_t>(m_entryNode.size());
    m_entryThread.push_back(thread);
    m_entryNode.push_back(node);
    for (auto& costs : m_entryCost)
        costs.push_back(0);
    detail::insertIndex(m_entrySlots, p, h, id, m_entryNode.size(),
                        [&](uint32_t e) { return entryKey(m_entryThread[e], m_entryNode[e]); });
    return id;
}

NodeId TreeBuilder::leafNode(uint32_t thread, std::span<const FrameId> rootToLeaf) {
    // Most samples repeat an earlier stack exactly: one hash over the frame ids finds its leaf node without
    // a (parent, frame) lookup per frame. The match is verified by walking the candidate's parents.
    const uint64_t h = hashBytes({reinterpret_cast<const char*>(rootToLeaf.data()), rootToLeaf.size_bytes()});
    const detail::IndexProbe p = probeIndex(m_stackSlots, h, [&](uint32_t e) {
        const StackEntry& s = m_stacks[e];
        return s.hash == h && s.depth == rootToLeaf.size() && samePath(s.node, rootToLeaf);
    });
    if (p.found())
        return m_stacks[p.index].node;
    // A new stack mostly shares its outer frames with the thread's previous new stack (deep stacks differ
    // near the leaf): those nodes are taken from it by comparing frame ids, and only the rest is looked up
    // (parent, frame) by (parent, frame).
    if (thread >= m_lastPaths.size())
        m_lastPaths.resize(thread + 1);
    LastPath& last = m_lastPaths[thread];
    const std::size_t shared = std::min(last.frames.size(), rootToLeaf.size());
    std::size_t k = 0;
    while (k < shared && last.frames[k] == rootToLeaf[k])
        ++k;
    last.frames.resize(k);
    last.nodes.resize(k);
    NodeId n = k ? last.nodes.back() : kRootNode;
    // Each lookup's slot is a cache miss in a big index; keyed by path, their places are known beforehand,
    // and asked for a few lookups ahead they arrive together.
    m_newKeys.resize(rootToLeaf.size() - k);
    uint64_t key = m_pathKey[n];
    for (std::size_t i = k; i < rootToLeaf.size(); ++i)
        m_newKeys[i - k] = key = pathKey(key, rootToLeaf[i]);
    for (std::size_t j = 0; j < std::min(kPrefetchAhead, m_newKeys.size()); ++j)
        prefetchSlot(m_newKeys[j]);
    for (std::size_t i = k; i < rootToLeaf.size(); ++i) {
        if (i - k + kPrefetchAhead < m_newKeys.size())
            prefetchSlot(m_newKeys[i - k + kPrefetchAhead]);
        n = child(n, rootToLeaf[i], m_newKeys[i - k]);
        last.frames.push_back(rootToLeaf[i]);
        last.nodes.push_back(n);
    }
    if (n == kRootNode)
        return n;
    const auto id = static_cast<uint32_t>(m_stacks.size());
    m_stacks.push_back({h, n, static_cast<uint32_t>(rootToLeaf.size())});
    detail::insertIndex(m_stackSlots, p, h, id, m_stacks.size(),
                        [&](uint32_t e) { return m_stacks[e].hash; });
    return n;
}

bool TreeBuilder::pristine() const {
    return m_parent.size() == 1 && m_frames.size() <= 1 && m_costTypes.empty() && m_threads.empty() &&
           m_lines.empty() && m_lineStacks.empty() && m_samples == 0 && !m_hasTime && m_timed.empty();
}

bool TreeBuilder::samePath(NodeId n, std::span<const FrameId> rootToLeaf) const {
    for (std::size_t k = rootToLeaf.size(); k-- > 0; n = m_parent[n])
        if (n == kRootNode || m_frame[n] != rootToLeaf[k])
            return false;
    return n == kRootNode;
}

void TreeBuilder::addSample(uint32_t thread, std::span<const FrameId> rootToLeaf,
                            std::span<const CostValue> costs, uint64_t sampleCount) {
    const NodeId n = leafNode(thread, rootToLeaf);
    m_lastLeaf = n;
    const uint32_t e = entry(thread, n);
    for (const CostValue& c : costs)
        addCost(m_entryCost[c.costType][e], c.value);
    m_threads[thread].info.samples += sampleCount;
    m_samples += sampleCount;
}

void TreeBuilder::addSample(uint32_t thread, std::span<const FrameId> rootToLeaf,
                            std::span<const CostValue> costs, uint64_t sampleCount,
                            std::span<const SourceLine> lines) {
    addSample(thread, rootToLeaf, costs, sampleCount);
    addLineCosts(rootToLeaf, costs, lines);
}

void TreeBuilder::addTimedSample(uint32_t thread, std::span<const FrameId> rootToLeaf,
                                 std::span<const CostValue> costs, int64_t timeNs, int32_t cpu,
                                 std::span<const SourceLine> lines, uint64_t sampleCount) {
    if (lines.empty()) {
        addSample(thread, rootToLeaf, costs, sampleCount);
        m_sampleLines.clear();
        m_sampleLeafLine = kNoLine;
    } else {
        addSample(thread, rootToLeaf, costs, sampleCount, lines);
    }
    if (m_keepSamples) {
        m_timedSamples += sampleCount;
        m_timed.add(timeNs, thread, lineStack(m_lastLeaf, m_sampleLeafLine, m_sampleLines), cpu, costs,
                    m_position >> 32);
    }
    noteTime(static_cast<double>(timeNs) * 1e-9);
}

namespace {

/// The hash of a line stack's key: (leaf node, leaf line entry, line entries).
uint64_t lineStackKey(NodeId node, uint32_t leafLine, std::span<const uint32_t> lines) {
    uint64_t h = detail::hashInt((static_cast<uint64_t>(node) << 32) | leafLine);
    if (!lines.empty())
        h ^= hashBytes({reinterpret_cast<const char*>(lines.data()), lines.size_bytes()});
    return h;
}

} // namespace

uint32_t TreeBuilder::lineStack(NodeId node, uint32_t leafLine, std::span<const uint32_t> lines) {
    const uint64_t h = lineStackKey(node, leafLine, lines);
    const detail::IndexProbe p = probeIndex(m_lineStackSlots, h, [&](uint32_t e) {
        const LineStack& s = m_lineStacks[e];
        return s.node == node && s.leafLine == leafLine && s.count == lines.size() &&
               std::equal(lines.begin(), lines.end(), m_lineStackLines.begin() + s.first);
    });
    if (p.found())
        return p.index;
    const auto id = static_cast<uint32_t>(m_lineStacks.size());
    m_lineStacks.push_back({node, leafLine, static_cast<uint32_t>(m_lineStackLines.size()),
                            static_cast<uint32_t>(lines.size())});
    m_lineStackLines.insert(m_lineStackLines.end(), lines.begin(), lines.end());
    detail::insertIndex(m_lineStackSlots, p, h, id, m_lineStacks.size(), [&](uint32_t e) {
        const LineStack& s = m_lineStacks[e];
        return lineStackKey(s.node, s.leafLine, std::span(m_lineStackLines).subspan(s.first, s.count));
    });
    return id;
}

uint32_t TreeBuilder::lineEntry(FrameId frame, SourceLine where) {
    const uint64_t h = lineKey(frame, where);
    const detail::IndexProbe p = probeIndex(m_lineSlots, h, [&](uint32_t e) {
        const LineEntry& l = m_lines[e];
        return l.frame == frame && l.where.file == where.file && l.where.line == where.line;
    });
    if (p.found())
        return p.index;
    const auto id = static_cast<uint32_t>(m_lines.size());
    m_lines.push_back({frame, where, UINT64_MAX});
    for (auto& v : m_lineSelf)
        v.push_back(0);
    for (auto& v : m_lineTotal)
        v.push_back(0);
    detail::insertIndex(m_lineSlots, p, h, id, m_lines.size(),
                        [&](uint32_t e) { return lineKey(m_lines[e].frame, m_lines[e].where); });
    return id;
}

void TreeBuilder::addLineCosts(std::span<const FrameId> rootToLeaf, std::span<const CostValue> costs,
                               std::span<const SourceLine> lines) {
    const std::size_t n = std::min(rootToLeaf.size(), lines.size());
    ++m_lineStamp;
    m_sampleLines.clear();
    m_sampleLeafLine = kNoLine;
    for (std::size_t k = 0; k < n; ++k) {
        if (lines[k].line == 0)
            continue;
        const uint32_t e = lineEntry(rootToLeaf[k], lines[k]);
        if (k + 1 == n) {
            m_sampleLeafLine = e;
            for (const CostValue& c : costs)
                addCost(m_lineSelf[c.costType][e], c.value);
        }
        if (m_lines[e].lastSample == m_lineStamp)
            continue;
        m_lines[e].lastSample = m_lineStamp;
        m_sampleLines.push_back(e);
        for (const CostValue& c : costs)
            addCost(m_lineTotal[c.costType][e], c.value);
    }
}

void TreeBuilder::noteTime(double seconds) {
    if (!m_hasTime) {
        m_timeMin = m_timeMax = seconds;
        m_hasTime = true;
        return;
    }
    m_timeMin = std::min(m_timeMin, seconds);
    m_timeMax = std::max(m_timeMax, seconds);
}

void TreeBuilder::merge(TreeBuilder&& other) {
    if (pristine()) {
        // Into an empty builder a merge would re-intern everything in the order `other` holds it, ending
        // with the same frames, nodes and entries: take them instead (the pipeline's first worker; about
        // half of what merging the workers of a big file cost).
        const std::size_t maxNodes = m_maxNodes;
        const uint64_t position = m_position;
        const bool keepSamples = m_keepSamples;
        *this = std::move(other);
        m_maxNodes = maxNodes;
        m_position = position;
        m_keepSamples = keepSamples;
        other = TreeBuilder();
        return;
    }
    // frames
    std::vector<FrameId> frameMap(other.m_frames.size());
    for (uint32_t i = 1; i < other.m_frames.size(); ++i) {
        Frame f = other.m_frames[FrameId{i}];
        f.name = m_strings.intern(other.m_strings.view(f.name));
        f.module = m_strings.intern(other.m_strings.view(f.module));
        f.file = m_strings.intern(other.m_strings.view(f.file));
        frameMap[i] = m_frames.intern(f);
    }
    // cost types (matched by name; decimals reconciled)
    std::vector<uint32_t> typeMap(other.m_costTypes.size());
    std::vector<int64_t> typeScale(other.m_costTypes.size(), 1);
    for (std::size_t t = 0; t < other.m_costTypes.size(); ++t) {
        const TypeSlot& slot = other.m_costTypes[t];
        const uint64_t saved = m_position;
        m_position = slot.firstSeen;
        const uint32_t mine = costType(slot.type.name, slot.type.unit);
        m_position = saved;
        m_costTypes[mine].firstSeen = std::min(m_costTypes[mine].firstSeen, slot.firstSeen);
        ensureDecimals(mine, slot.type.decimals);
        typeScale[t] = pow10(m_costTypes[mine].type.decimals - slot.type.decimals);
        typeMap[t] = mine;
    }
    // threads
    std::vector<uint32_t> threadMap(other.m_threads.size());
    for (std::size_t t = 0; t < other.m_threads.size(); ++t) {
        const ThreadSlot& slot = other.m_threads[t];
        const uint64_t saved = m_position;
        m_position = slot.firstSeen;
        const uint32_t mine = thread(slot.info.name, slot.info.pid, slot.info.tid);
        m_position = saved;
        m_threads[mine].firstSeen = std::min(m_threads[mine].firstSeen, slot.firstSeen);
        m_threads[mine].info.samples += slot.info.samples;
        threadMap[t] = mine;
    }
    // nodes: parents precede children. The index is grown once for all of them (at most all are new), not
    // doubled (and faulted in) again and again on the way.
    detail::reserveIndex(m_childSlots, m_parent.size() + other.m_parent.size(),
                         [&](uint32_t n) { return m_pathKey[n]; });
    detail::reserveHuge(m_parent, m_parent.size() + other.m_parent.size());
    detail::reserveHuge(m_frame, m_frame.size() + other.m_frame.size());
    detail::reserveHuge(m_pathKey, m_pathKey.size() + other.m_pathKey.size());
    // the other's nodes keyed by their paths in this builder's frame ids (the keys do not depend on the
    // lookups, so each slot is asked for ahead of its lookup)
    std::vector<uint64_t>& keys = other.m_pathKey; // other is emptied below
    keys[0] = m_pathKey[0];
    for (std::size_t i = 1; i < keys.size(); ++i)
        keys[i] = pathKey(keys[other.m_parent[i]], frameMap[other.m_frame[i].value]);
    std::vector<NodeId> nodeMap(other.m_parent.size(), kRootNode);
    for (std::size_t i = 1; i < other.m_parent.size(); ++i) {
        if (i + kPrefetchAhead < keys.size())
            prefetchSlot(keys[i + kPrefetchAhead]);
        nodeMap[i] = child(nodeMap[other.m_parent[i]], frameMap[other.m_frame[i].value], keys[i]);
    }
    detail::reserveIndex(m_entrySlots, m_entryNode.size() + other.m_entryNode.size(),
                         [&](uint32_t e) { return entryKey(m_entryThread[e], m_entryNode[e]); });
    for (std::size_t e = 0; e < other.m_entryNode.size(); ++e) {
        const uint32_t mine = entry(threadMap[other.m_entryThread[e]], nodeMap[other.m_entryNode[e]]);
        for (std::size_t t = 0; t < other.m_costTypes.size(); ++t)
            addCost(m_entryCost[typeMap[t]][mine], mulCost(other.m_entryCost[t][e], typeScale[t]));
    }
    std::vector<uint32_t> lineMap(other.m_lines.size());
    for (std::size_t e = 0; e < other.m_lines.size(); ++e) {
        const LineEntry& l = other.m_lines[e];
        const SourceLine where{m_strings.intern(other.m_strings.view(l.where.file)), l.where.line};
        const uint32_t mine = lineEntry(frameMap[l.frame.value], where);
        lineMap[e] = mine;
        for (std::size_t t = 0; t < other.m_costTypes.size(); ++t) {
            addCost(m_lineSelf[typeMap[t]][mine], mulCost(other.m_lineSelf[t][e], typeScale[t]));
            addCost(m_lineTotal[typeMap[t]][mine], mulCost(other.m_lineTotal[t][e], typeScale[t]));
        }
    }
    std::vector<uint32_t> stackMap(other.m_lineStacks.size()), lines;
    for (std::size_t k = 0; k < other.m_lineStacks.size(); ++k) {
        const LineStack& x = other.m_lineStacks[k];
        lines.clear();
        for (uint32_t j = x.first; j < x.first + x.count; ++j)
            lines.push_back(lineMap[other.m_lineStackLines[j]]);
        stackMap[k] =
            lineStack(nodeMap[x.node], x.leafLine == kNoLine ? kNoLine : lineMap[x.leafLine], lines);
    }
    m_timed.append(std::move(other.m_timed), threadMap, stackMap, typeMap, typeScale);
    m_samples += other.m_samples;
    m_timedSamples += other.m_timedSamples;
    if (other.m_hasTime) {
        noteTime(other.m_timeMin);
        noteTime(other.m_timeMax);
    }
    other = TreeBuilder();
}

Profile TreeBuilder::finish(ProfileMeta meta) {
    Profile p;
    // cost types and threads in first-seen order
    std::vector<uint32_t> typeOrder(m_costTypes.size());
    std::iota(typeOrder.begin(), typeOrder.end(), 0u);
    std::stable_sort(typeOrder.begin(), typeOrder.end(), [&](uint32_t a, uint32_t b) {
        return m_costTypes[a].firstSeen < m_costTypes[b].firstSeen;
    });
    std::vector<uint32_t> threadOrder(m_threads.size()), threadNew(m_threads.size());
    std::iota(threadOrder.begin(), threadOrder.end(), 0u);
    std::stable_sort(threadOrder.begin(), threadOrder.end(),
                     [&](uint32_t a, uint32_t b) { return m_threads[a].firstSeen < m_threads[b].firstSeen; });
    for (uint32_t i = 0; i < threadOrder.size(); ++i) {
        threadNew[threadOrder[i]] = i;
        p.threads.push_back(std::move(m_threads[threadOrder[i]].info));
    }

    // the child index and its keys are done with: freed before the tree's arrays are made
    std::vector<uint64_t>().swap(m_childSlots);
    std::vector<uint64_t>().swap(m_pathKey);
    std::vector<std::vector<int64_t>> self;
    for (uint32_t t : typeOrder) {
        p.costTypes.push_back(m_costTypes[t].type);
        std::vector<int64_t> s(m_parent.size(), 0);
        const auto& costs = m_entryCost[t];
        for (std::size_t e = 0; e < m_entryNode.size(); ++e)
            addCost(s[m_entryNode[e]], costs[e]);
        self.push_back(std::move(s));
    }
    std::vector<NodeId> remap;
    p.tree = CallTree::fromParentArray(m_parent, m_frame, std::move(self), m_frames, m_strings, &remap);

    p.threadCosts.thread.reserve(m_entryNode.size());
    for (std::size_t e = 0; e < m_entryNode.size(); ++e) {
        p.threadCosts.thread.push_back(threadNew[m_entryThread[e]]);
        p.threadCosts.node.push_back(remap[m_entryNode[e]]);
    }
    for (uint32_t t : typeOrder)
        p.threadCosts.cost.push_back(std::move(m_entryCost[t]));

    std::vector<uint32_t> rank;
    p.lineCosts = detail::sortedLineCosts(m_lines, m_lineSelf, m_lineTotal, typeOrder, &rank);
    if (!m_timed.empty() && m_timedSamples == m_samples) {
        std::vector<NodeId> stackNode(m_lineStacks.size());
        for (std::size_t k = 0; k < m_lineStacks.size(); ++k)
            stackNode[k] = remap[m_lineStacks[k].node];
        // the stacks are kept (a time range's own line costs) where the samples have lines
        const bool keep = !m_lines.empty();
        if (keep) {
            StackDetails& d = p.stacks;
            d.lines.reserve(m_lineStackLines.size());
            for (const LineStack& x : m_lineStacks) {
                d.linesFirst.push_back(static_cast<uint32_t>(d.lines.size()));
                for (uint32_t j = x.first; j < x.first + x.count; ++j)
                    d.lines.push_back(rank[m_lineStackLines[j]]);
                d.leafLine.push_back(x.leafLine == kNoLine ? StackDetails::kNone : rank[x.leafLine]);
            }
            d.linesFirst.push_back(static_cast<uint32_t>(d.lines.size()));
            d.leafAddress.assign(m_lineStacks.size(), StackDetails::kNone);
        }
        p.samples =
            m_timed.build(m_timed.size(), stackNode, threadNew, typeOrder, p.threads.size(), true, keep);
    }

    meta.samples = m_samples;
    if (m_hasTime) {
        meta.timeStart = m_timeMin;
        meta.timeEnd = m_timeMax;
    }
    p.meta = std::move(meta);
    p.strings = std::move(m_strings);
    p.frames = std::move(m_frames);
    *this = TreeBuilder();
    return p;
}

int Profile::costTypeIndex(std::string_view name) const {
    for (std::size_t i = 0; i < costTypes.size(); ++i)
        if (costTypes[i].name == name)
            return static_cast<int>(i);
    return -1;
}

} // namespace scorch
