// The columnar sample store: SampleCostColumn, the builders' SampleLog and SampleStore.
#include "scorch/samples.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace scorch {

namespace {

bool fitsNarrow(int64_t v) {
    return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

template <typename T>
void gatherVector(std::vector<T>& v, std::span<const uint32_t> order) {
    if (v.empty())
        return;
    std::vector<T> out(order.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        out[i] = v[order[i]];
    v.swap(out);
}

template <typename T>
void takeOrCopy(std::vector<T>& to, std::vector<T>& from, std::size_t count, bool consume) {
    if (consume) {
        from.resize(std::min(from.size(), count));
        to.swap(from);
        std::vector<T>().swap(from);
    } else {
        to.assign(from.begin(), from.begin() + static_cast<std::ptrdiff_t>(std::min(from.size(), count)));
    }
}

} // namespace

// --- SampleCostColumn ---

void SampleCostColumn::reserve(std::size_t n) {
    m_expected = n;
    if (!m_wide.empty())
        m_wide.reserve(n);
    else if (!m_narrow.empty())
        m_narrow.reserve(n);
}

void SampleCostColumn::widen() {
    m_wide.reserve(std::max(m_expected, m_size + 1));
    if (!m_narrow.empty()) {
        m_wide.assign(m_narrow.begin(), m_narrow.end());
        std::vector<int32_t>().swap(m_narrow);
    } else {
        m_wide.assign(m_size, m_constant);
    }
}

void SampleCostColumn::push(int64_t value) {
    if (!m_wide.empty()) {
        m_wide.push_back(value);
    } else if (!m_narrow.empty()) {
        if (fitsNarrow(value)) {
            m_narrow.push_back(static_cast<int32_t>(value));
        } else {
            widen();
            m_wide.push_back(value);
        }
    } else if (m_size == 0 || value == m_constant) {
        m_constant = value;
    } else if (fitsNarrow(value) && fitsNarrow(m_constant)) {
        m_narrow.reserve(std::max(m_expected, m_size + 1));
        m_narrow.assign(m_size, static_cast<int32_t>(m_constant));
        m_narrow.push_back(static_cast<int32_t>(value));
    } else {
        widen();
        m_wide.push_back(value);
    }
    ++m_size;
}

void SampleCostColumn::pushRepeated(int64_t value, std::size_t count) {
    if (uniform() && (m_size == 0 || value == m_constant)) {
        m_constant = value;
        m_size += count;
        return;
    }
    for (std::size_t i = 0; i < count; ++i)
        push(value);
}

void SampleCostColumn::gather(std::span<const uint32_t> order) {
    gatherVector(m_narrow, order);
    gatherVector(m_wide, order);
    m_size = order.size();
}

void SampleCostColumn::scale(int64_t factor) {
    if (factor == 1)
        return;
    if (uniform()) {
        m_constant = mulCost(m_constant, factor);
        return;
    }
    if (!m_narrow.empty())
        widen();
    for (int64_t& v : m_wide)
        v = mulCost(v, factor);
}

// --- SampleLog ---

void SampleLog::reserve(std::size_t n) {
    m_expected = n;
    m_time.reserve(n);
    m_thread.reserve(n);
    m_ref.reserve(n);
    if (!m_cpu.empty())
        m_cpu.reserve(n);
    for (SampleCostColumn& c : m_cost)
        c.reserve(n);
}

void SampleLog::add(int64_t timeNs, uint32_t thread, uint32_t ref, int32_t cpu,
                    std::span<const CostValue> costs, uint64_t runKey) {
    if (m_runs.empty() || m_runs.back().first != runKey)
        m_runs.emplace_back(runKey, m_time.size());
    const std::size_t n = m_time.size();
    m_time.push_back(timeNs);
    m_thread.push_back(thread);
    m_ref.push_back(ref);
    if (cpu >= 0 || !m_cpu.empty()) { // the column starts with the first CPU, the samples before it unknown
        if (m_cpu.empty())
            m_cpu.reserve(std::max(m_expected, n + 1));
        m_cpu.resize(n, -1);
        m_cpu.push_back(cpu);
    }
    for (const CostValue& c : costs) {
        if (c.costType >= m_cost.size()) {
            const std::size_t old = m_cost.size();
            m_cost.resize(c.costType + 1);
            for (std::size_t t = old; t < m_cost.size(); ++t) {
                m_cost[t].reserve(m_expected);
                m_cost[t].pushRepeated(0, n);
            }
        }
    }
    for (std::size_t t = 0; t < m_cost.size(); ++t) {
        int64_t v = 0;
        for (const CostValue& c : costs)
            if (c.costType == t)
                addCost(v, c.value);
        m_cost[t].push(v);
    }
}

void SampleLog::scale(uint32_t costType, int64_t factor) {
    if (costType < m_cost.size())
        m_cost[costType].scale(factor);
}

void SampleLog::append(SampleLog&& other, std::span<const uint32_t> threadMap, std::span<const NodeId> refMap,
                       std::span<const uint32_t> typeMap, std::span<const int64_t> typeScale) {
    const std::size_t base = m_time.size();
    const std::size_t n = other.m_time.size();
    for (const auto& [key, first] : other.m_runs)
        m_runs.emplace_back(key, base + first);
    m_time.insert(m_time.end(), other.m_time.begin(), other.m_time.end());
    m_thread.reserve(base + n);
    m_ref.reserve(base + n);
    for (std::size_t i = 0; i < n; ++i) {
        m_thread.push_back(threadMap[other.m_thread[i]]);
        m_ref.push_back(refMap[other.m_ref[i]]);
    }
    if (!other.m_cpu.empty() || !m_cpu.empty()) {
        m_cpu.resize(base, -1);
        if (other.m_cpu.empty())
            m_cpu.resize(base + n, -1);
        else
            m_cpu.insert(m_cpu.end(), other.m_cpu.begin(), other.m_cpu.end());
    }
    std::size_t types = m_cost.size();
    for (std::size_t t = 0; t < other.m_cost.size(); ++t)
        types = std::max<std::size_t>(types, typeMap[t] + 1);
    for (std::size_t t = m_cost.size(); t < types; ++t) {
        m_cost.emplace_back();
        m_cost.back().pushRepeated(0, base);
    }
    std::vector<int> from(types, -1);
    for (std::size_t t = 0; t < other.m_cost.size(); ++t)
        from[typeMap[t]] = static_cast<int>(t);
    for (std::size_t t = 0; t < types; ++t) {
        if (from[t] < 0) {
            m_cost[t].pushRepeated(0, n);
            continue;
        }
        const SampleCostColumn& c = other.m_cost[static_cast<std::size_t>(from[t])];
        const int64_t factor = typeScale[static_cast<std::size_t>(from[t])];
        if (c.uniform())
            m_cost[t].pushRepeated(mulCost(c.constant(), factor), n);
        else
            for (std::size_t i = 0; i < n; ++i)
                m_cost[t].push(mulCost(c[i], factor));
    }
    other = SampleLog();
}

std::shared_ptr<const SampleStore> SampleLog::build(std::size_t count, std::span<const NodeId> refNode,
                                                    std::span<const uint32_t> threadMap,
                                                    std::span<const uint32_t> typeOrder,
                                                    std::size_t threadCount, bool consume, bool keepRefs) {
    count = std::min(count, m_time.size());
    auto store = std::make_shared<SampleStore>();
    SampleStore& s = *store;
    s.m_threadCount = threadCount;
    // input order: runs by key (a run's samples keep their order), then stably by time
    std::vector<uint32_t> order;
    bool runsInOrder = true;
    for (std::size_t r = 1; r < m_runs.size(); ++r)
        runsInOrder = runsInOrder && m_runs[r - 1].first < m_runs[r].first;
    if (!runsInOrder) {
        std::vector<std::size_t> runs(m_runs.size());
        std::iota(runs.begin(), runs.end(), std::size_t{0});
        std::stable_sort(runs.begin(), runs.end(),
                         [&](std::size_t a, std::size_t b) { return m_runs[a].first < m_runs[b].first; });
        order.reserve(count);
        for (std::size_t r : runs) {
            const std::size_t end = r + 1 < m_runs.size() ? m_runs[r + 1].second : m_time.size();
            for (std::size_t i = m_runs[r].second; i < end; ++i)
                if (i < count)
                    order.push_back(static_cast<uint32_t>(i));
        }
    }
    auto timeAt = [&](std::size_t k) {
        return m_time[order.empty() ? k : order[k]];
    };
    bool sorted = true;
    for (std::size_t k = 1; k < count && sorted; ++k)
        sorted = timeAt(k - 1) <= timeAt(k);
    if (!sorted) {
        if (order.empty()) {
            order.resize(count);
            std::iota(order.begin(), order.end(), 0u);
        }
        std::stable_sort(order.begin(), order.end(),
                         [&](uint32_t a, uint32_t b) { return m_time[a] < m_time[b]; });
    }

    takeOrCopy(s.m_time, m_time, count, consume);
    takeOrCopy(s.m_thread, m_thread, count, consume);
    takeOrCopy(s.m_node, m_ref, count, consume);
    takeOrCopy(s.m_cpu, m_cpu, count, consume);
    if (keepRefs)
        s.m_stack = s.m_node;
    if (!order.empty()) {
        gatherVector(s.m_time, order);
        gatherVector(s.m_thread, order);
        gatherVector(s.m_node, order);
        gatherVector(s.m_cpu, order);
        gatherVector(s.m_stack, order);
    }
    for (uint32_t& t : s.m_thread)
        t = t < threadMap.size() ? threadMap[t] : t;
    for (NodeId& n : s.m_node)
        n = n < refNode.size() ? refNode[n] : kRootNode;
    s.m_origin = s.m_time.empty() ? 0 : s.m_time.front();
    for (int64_t& t : s.m_time) // times after the first; a span beyond int64 (damaged input) saturates
        if (__builtin_sub_overflow(t, s.m_origin, &t))
            t = INT64_MAX;
    for (uint32_t type : typeOrder) {
        SampleCostColumn c;
        if (type < m_cost.size()) {
            if (consume)
                c = std::move(m_cost[type]);
            else
                c = m_cost[type];
        }
        if (c.size() < count)
            c.pushRepeated(0, count - c.size());
        if (!order.empty())
            c.gather(order);
        else if (c.size() > count) {
            std::vector<uint32_t> prefix(count);
            std::iota(prefix.begin(), prefix.end(), 0u);
            c.gather(prefix);
        }
        s.m_cost.push_back(std::move(c));
    }
    if (consume)
        *this = SampleLog();
    return store;
}

// --- SampleStore ---

std::size_t SampleStore::lowerBound(int64_t t) const {
    return static_cast<std::size_t>(std::lower_bound(m_time.begin(), m_time.end(), t) - m_time.begin());
}

std::size_t SampleStore::bytes() const {
    std::size_t b = m_time.size() * sizeof(int64_t) + m_thread.size() * sizeof(uint32_t) +
                    m_node.size() * sizeof(NodeId) + m_cpu.size() * sizeof(int32_t) +
                    m_stack.size() * sizeof(uint32_t);
    for (const SampleCostColumn& c : m_cost)
        b += c.bytes();
    return b;
}

void SampleStore::buildThreadIndex() const {
    std::size_t threads = m_threadCount;
    for (uint32_t t : m_thread)
        threads = std::max<std::size_t>(threads, t + 1);
    m_threadFirst.assign(threads + 1, 0);
    for (uint32_t t : m_thread)
        ++m_threadFirst[t + 1];
    for (std::size_t t = 0; t < threads; ++t)
        m_threadFirst[t + 1] += m_threadFirst[t];
    std::vector<uint32_t> next(m_threadFirst.begin(), m_threadFirst.end() - 1);
    m_threadIndex.resize(m_thread.size());
    for (std::size_t i = 0; i < m_thread.size(); ++i)
        m_threadIndex[next[m_thread[i]]++] = static_cast<uint32_t>(i);
}

void SampleStore::prepareThreadIndex() const {
    std::call_once(m_indexOnce, [this] {
        buildThreadIndex();
        m_indexThread = std::this_thread::get_id();
    });
}

std::span<const uint32_t> SampleStore::threadSamples(uint32_t thread) const {
    prepareThreadIndex();
    if (thread + 1 >= m_threadFirst.size())
        return {};
    return std::span<const uint32_t>(m_threadIndex)
        .subspan(m_threadFirst[thread], m_threadFirst[thread + 1] - m_threadFirst[thread]);
}

} // namespace scorch
