// SwitchTimeline: see switchtimeline.h.
#include "sampler/switchtimeline.h"

#include <algorithm>
#include <utility>

namespace scorch::detail {

namespace {

/// CPU time between two events of a thread counts at most this much (a bigger gap is no stretch of running).
constexpr uint64_t kMaxOnCpuNs = 1'000'000'000;

} // namespace

SwitchTimeline::SwitchTimeline(uint64_t periodNs, Sink sink)
    : m_period(periodNs)
    , m_sink(std::move(sink)) {}

void SwitchTimeline::queue(Kind kind, pid_t tid, uint64_t timeNs, std::vector<uint64_t> stack) {
    m_newest = std::max(m_newest, timeNs);
    m_events.push_back({kind, timeNs, m_seq++, tid, std::move(stack)});
}

void SwitchTimeline::drained() {
    process(m_limit);
    m_limit = m_newest;
}

void SwitchTimeline::finish(uint64_t endNs) {
    process(UINT64_MAX);
    for (auto& [tid, t] : m_threads)
        if (t.off && !t.dead && endNs > t.out)
            m_sink(tid, t.out, endNs - t.out, t.preempt ? 'R' : '?', t.offStack.data(), t.offStack.size());
}

void SwitchTimeline::process(uint64_t limit) {
    std::stable_sort(m_events.begin(), m_events.end(), [](const Event& a, const Event& b) {
        return a.time != b.time ? a.time < b.time : a.seq < b.seq;
    });
    std::size_t n = 0;
    for (; n < m_events.size() && m_events[n].time <= limit; ++n) {
        Event& e = m_events[n];
        Thread& t = m_threads[e.tid];
        switch (e.kind) {
        case Kind::Sample: {
            // the CPU time since the thread's previous sample or switch-in, which the timer's period only
            // approximates (on a virtual machine cpu-clock fires late: 0.75 s of samples a second)
            const uint64_t since = std::max(t.lastIn, t.lastSample);
            const uint64_t ns = since && e.time > since ? std::min(e.time - since, kMaxOnCpuNs) : m_period;
            t.lastSample = e.time;
            m_sink(e.tid, e.time, ns, 0, e.stack.data(), e.stack.size());
            t.lastStack = std::move(e.stack);
            break;
        }
        case Kind::Stack:
            t.stack = std::move(e.stack);
            t.stackTime = e.time;
            t.haveStack = true;
            break;
        case Kind::Out:
        case Kind::OutPreempt:
            if (t.dead)
                break;
            t.off = true;
            t.out = e.time;
            t.preempt = e.kind == Kind::OutPreempt;
            t.offStack.clear();
            if (t.haveStack && t.stackTime >= t.lastIn && t.stackTime <= e.time)
                std::swap(t.offStack, t.stack);
            t.haveStack = false;
            // the CPU time since the last sample or switch-in, at the stack it leaves with (else at the last
            // sample's): with it the on-CPU time adds up to the time between switches
            if (const uint64_t since = std::max(t.lastIn, t.lastSample); since && e.time > since) {
                const std::vector<uint64_t>& at = t.offStack.empty() ? t.lastStack : t.offStack;
                m_sink(e.tid, e.time, std::min(e.time - since, kMaxOnCpuNs), 0, at.data(), at.size());
            }
            t.lastSample = 0;
            break;
        case Kind::In:
            t.lastIn = e.time;
            t.dead = false; // a thread id used again
            if (!t.off)
                break;
            t.off = false;
            if (e.time > t.out)
                m_sink(e.tid, t.out, e.time - t.out, t.preempt ? 'R' : '?', t.offStack.data(),
                       t.offStack.size());
            break;
        case Kind::Exit:
            t.dead = true;
            t.off = false;
            break;
        }
    }
    m_events.erase(m_events.begin(), m_events.begin() + static_cast<std::ptrdiff_t>(n));
}

} // namespace scorch::detail
