// Internal: the speedscope importer's call tree over frame indices, shared by the document's profiles, and
// what each profile spent where (speedscope.cpp).
#pragma once

#include "util/hash.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace scorch::detail::speedscope {

struct FrameInfo {
    std::string name, file;
    int64_t line = 0;
};

/// The call tree over frame indices (the names may only come later in the document), shared by all
/// profiles; what each profile spent where is kept apart (ProfileCosts).
class IndexTree {
public:
    IndexTree()
        : m_parent{0}
        , m_frame{0} {}
    uint32_t child(uint32_t parent, uint32_t frame) {
        bool inserted;
        const uint32_t n = m_children.findOrInsert((static_cast<uint64_t>(parent) << 32) | frame,
                                                   static_cast<uint32_t>(m_parent.size()), inserted);
        if (inserted) {
            m_parent.push_back(parent);
            m_frame.push_back(frame);
        }
        return n;
    }
    /// The node of a whole stack (root first). Consecutive samples mostly share a long prefix, often the
    /// whole stack: the nodes of the previous stack are kept, so only the frames after the shared prefix are
    /// looked up. A stack that differs early is first looked up whole, by its hash (verified against the
    /// node's parents).
    uint32_t path(std::span<const uint32_t> stack) {
        const std::size_t limit = std::min(stack.size(), m_prevStack.size());
        std::size_t common = 0;
        while (common < limit && stack[common] == m_prevStack[common])
            ++common;
        if (common == stack.size() && common == m_prevStack.size())
            return m_prevNodes.empty() ? 0 : m_prevNodes.back();
        m_prevStack.assign(stack.begin(), stack.end());
        m_prevNodes.resize(common);
        uint32_t n = common ? m_prevNodes.back() : 0;
        if (stack.size() - common > 4) { // worth a whole-stack lookup
            const uint64_t h =
                hashBytes({reinterpret_cast<const char*>(stack.data()), stack.size_bytes()}) | 1;
            bool inserted;
            uint32_t& cached = m_stacks.findOrInsert(h, 0, inserted);
            if (!inserted && cached != 0 && matches(cached, stack)) {
                m_prevNodes.resize(stack.size());
                uint32_t m = cached;
                for (std::size_t k = stack.size(); k-- > common; m = m_parent[m])
                    m_prevNodes[k] = m;
                return cached;
            }
            for (std::size_t k = common; k < stack.size(); ++k)
                m_prevNodes.push_back(n = child(n, stack[k]));
            m_stacks.findOrInsert(h, 0, inserted) = n; // a colliding stack just takes the slot over
            return n;
        }
        for (std::size_t k = common; k < stack.size(); ++k)
            m_prevNodes.push_back(n = child(n, stack[k]));
        return n;
    }
    std::size_t size() const { return m_parent.size(); }
    uint32_t parent(uint32_t n) const { return m_parent[n]; }
    uint32_t frame(uint32_t n) const { return m_frame[n]; }

private:
    std::vector<uint32_t> m_parent, m_frame;
    FlatMap64 m_children, m_stacks;
    std::vector<uint32_t> m_prevStack, m_prevNodes; // the last stack looked up and its nodes

    bool matches(uint32_t n, std::span<const uint32_t> stack) const {
        for (std::size_t k = stack.size(); k-- > 0; n = m_parent[n])
            if (n == 0 || m_frame[n] != stack[k])
                return false;
        return n == 0;
    }
};

/// Weight and sample count of one profile per node of the shared tree.
class ProfileCosts {
public:
    void add(uint32_t node, double weight, uint64_t count) {
        bool inserted;
        const uint32_t e = m_index.findOrInsert(node, static_cast<uint32_t>(m_node.size()), inserted);
        if (inserted) {
            m_node.push_back(node);
            m_weight.push_back(weight);
            m_count.push_back(count);
        } else {
            m_weight[e] += weight;
            m_count[e] += count;
        }
    }
    std::size_t size() const { return m_node.size(); }
    uint32_t node(std::size_t e) const { return m_node[e]; }
    double weight(std::size_t e) const { return m_weight[e]; }
    uint64_t count(std::size_t e) const { return m_count[e]; }

private:
    FlatMap64 m_index; // node -> entry
    std::vector<uint32_t> m_node;
    std::vector<double> m_weight;
    std::vector<uint64_t> m_count;
};

struct ProfileState {
    std::string name, type, unit;
    ProfileCosts costs;
    std::vector<uint32_t> sampleLeaves;
    std::vector<double> weights;
    // evented
    std::vector<uint32_t> openFrames, openNodes;
    double lastAt = 0;
    bool haveAt = false;
    uint64_t events = 0;
    // the timeline: per sample (sampled) or per interval between two events (evented) its start, index node
    // and weight, in the profile's unit; a profile in a unit of time gets a sample store from these
    double startValue = 0;
    std::vector<double> timedAt, timedWeight;
    std::vector<uint32_t> timedNode;
};

} // namespace scorch::detail::speedscope
