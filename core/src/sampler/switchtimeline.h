// Off-CPU time of the perf mechanism (sampler_perf.cpp): its on-CPU samples, switch records, stacks at a
// switch-out and thread exits come from one ring buffer per CPU, read in turn, so they are put in time order
// here before they are paired (a switch-out on one CPU, the switch-in on another). Each drain of the rings
// processes what is older than the newest event of the drain before (perf's own ordering rule).
//
// What comes out, through the sink: each on-CPU sample weighted by the CPU time since the thread's previous
// sample or switch-in; at a switch-out, the CPU time since then at the stack the thread leaves with; and
// each wait off the CPU with that stack, as runnable ('R', preempted) or waiting ('?').
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <sys/types.h>
#include <unordered_map>
#include <vector>

namespace scorch::detail {

class SwitchTimeline {
public:
    /// A timed stretch of a thread: on the CPU when state is 0, else off it ('R' or '?').
    using Sink = std::function<void(pid_t tid, uint64_t timeNs, uint64_t durationNs, char state,
                                    const uint64_t* ips, std::size_t n)>;
    enum class Kind : uint8_t {
        Sample,     ///< an on-CPU sample with its stack
        Stack,      ///< the stack of a context-switches event: the one the thread leaves the CPU with
        Out,        ///< switched out, waiting
        OutPreempt, ///< switched out while runnable
        In,         ///< switched in
        Exit,       ///< the thread exited
    };

    /// `periodNs`: the sampling period, the weight of a sample with nothing before it to time it by.
    SwitchTimeline(uint64_t periodNs, Sink sink);

    void queue(Kind kind, pid_t tid, uint64_t timeNs, std::vector<uint64_t> stack = {});
    /// Every ring has been read once more: processes the events older than the newest of the drain before.
    void drained();
    /// The recording ended at `endNs`: processes all events, and the threads still off the CPU waited
    /// until then.
    void finish(uint64_t endNs);
    /// Events queued and not processed yet.
    std::size_t pending() const { return m_events.size(); }

private:
    void process(uint64_t limit);

    uint64_t m_period;
    Sink m_sink;
    struct Event {
        Kind kind;
        uint64_t time, seq;
        pid_t tid;
        std::vector<uint64_t> stack;
    };
    std::vector<Event> m_events;
    uint64_t m_seq = 0, m_newest = 0, m_limit = 0;
    struct Thread {
        bool off = false, dead = false, preempt = false, haveStack = false;
        uint64_t out = 0, lastIn = 0, lastSample = 0, stackTime = 0;
        std::vector<uint64_t> stack, offStack, lastStack; ///< lastStack: of the latest on-CPU sample
    };
    std::unordered_map<pid_t, Thread> m_threads;
};

} // namespace scorch::detail
