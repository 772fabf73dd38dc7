// Off-CPU time of perf.data recordings: per thread, the time from switching out to switching back in
// (PERF_RECORD_SWITCH records of `perf record --switch-events`, or the sched_switch tracepoint's prev/next
// pids) is charged to the stack recorded at the switch-out (the sched_switch or context-switches sample's
// call chain), under a leaf that says why it left the CPU ([preempted], [blocked: S], ...). Cost types
// `off-cpu` (ns) and `wall` (on-CPU: the CPU event's sample periods in ns, plus off-CPU).
#include "model/offcpu.h"
#include "perf/perfstate.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace scorch::detail {

using namespace perf;

namespace {

/// "offset:32;" / "size:8;" in one field line of a tracepoint format.
uint32_t formatNumber(std::string_view line, std::string_view key) {
    const std::size_t at = line.find(key);
    if (at == std::string_view::npos)
        return 0;
    uint32_t v = 0;
    std::from_chars(line.data() + at + key.size(), line.data() + line.size(), v);
    return v;
}

/// An unsigned field of 1 to 8 bytes of a tracepoint record, 0 when it lies outside.
uint64_t rawField(std::string_view raw, uint32_t offset, uint32_t size) {
    if (size == 0 || size > 8 || offset > raw.size() || size > raw.size() - offset)
        return 0;
    uint64_t v = 0;
    std::memcpy(&v, raw.data() + offset, size);
    return v;
}

/// The state letter of sched_switch's prev_state (its lowest bit set; 'R' when none is).
char stateLetter(uint64_t state) {
    for (unsigned bit = 0; bit < kTaskStateLetters.size(); ++bit)
        if (state >> bit & 1)
            return kTaskStateLetters[bit];
    return 'R';
}

} // namespace

void PerfState::tracingData(std::string_view bytes) {
    // the format files of the recorded tracepoints, as text: "name: sched_switch\nID:
    // 372\nformat:\n\tfield:..."
    const std::size_t at = bytes.find("name: sched_switch\nID: ");
    if (at == std::string_view::npos)
        return;
    std::string_view rest = bytes.substr(at);
    rest = rest.substr(0, rest.find("print fmt:"));
    SchedSwitchFormat f;
    const std::size_t idAt = rest.find("ID: ") + 4;
    std::from_chars(rest.data() + idAt, rest.data() + rest.size(), f.id);
    for (std::size_t pos = 0; pos < rest.size();) {
        std::size_t end = rest.find('\n', pos);
        if (end == std::string_view::npos)
            end = rest.size();
        const std::string_view line = rest.substr(pos, end - pos);
        if (line.find(" prev_state;") != std::string_view::npos) {
            f.stateOffset = formatNumber(line, "offset:");
            f.stateSize = formatNumber(line, "size:");
        } else if (line.find(" next_pid;") != std::string_view::npos) {
            f.nextPidOffset = formatNumber(line, "offset:");
            f.nextPidSize = formatNumber(line, "size:");
        }
        pos = end + 1;
    }
    m_schedSwitch = f;
}

bool PerfState::switchEvent(const Attr& a) const {
    if (a.type == kTypeSoftware)
        return a.config == kSoftwareContextSwitches;
    return a.type == kTypeTracepoint &&
           (a.name == "sched:sched_switch" ||
            (m_schedSwitch.id >= 0 && a.config == static_cast<uint64_t>(m_schedSwitch.id)));
}

void PerfState::prepareSwitches() {
    m_switchReady = true;
    bool schedSwitch = false;
    for (std::size_t i = 0; i < m_attrs.size(); ++i) {
        Attr& a = m_attrs.at(i);
        if (a.flags & kAttrContextSwitch)
            m_switchRecords = true;
        if (switchEvent(a)) {
            a.switchEvent = true;
            m_switchSamples = true;
            schedSwitch = schedSwitch || a.type == kTypeTracepoint;
        }
    }
    // without switch records, the sched_switch tracepoint's next_pid says who comes back in
    m_offCpu = m_switchRecords || (schedSwitch && m_schedSwitch.nextPidSize);
    if (!m_offCpu)
        return;
    // the CPU event: preferably one counting nanoseconds (cpu-clock, task-clock)
    for (std::size_t i = 0; i < m_attrs.size(); ++i) {
        const Attr& a = m_attrs.all()[i];
        if (switchEvent(a) || a.type == kTypeTracepoint ||
            (a.type == kTypeSoftware && a.config == kSoftwareDummy))
            continue;
        if (m_wallAttr == SIZE_MAX || (periodUnit(a.name) == CostUnit::Nanoseconds &&
                                       periodUnit(m_attrs.all()[m_wallAttr].name) != CostUnit::Nanoseconds))
            m_wallAttr = i;
    }
    if (m_wallAttr != SIZE_MAX)
        m_attrs.at(m_wallAttr).wallEvent = true;
    if (!m_switchSamples)
        warn(0, "the recording has context switches but no sched_switch samples: off-CPU time is charged to "
                "each thread's last sampled stack before it switched out");
}

void PerfState::switchRecord(uint32_t type, uint16_t misc, Cursor& c) {
    if (!m_switchReady)
        prepareSwitches();
    if (!m_offCpu)
        return;
    const EventAttrs::RecordId id = m_attrs.sampleId(std::string_view(c.bytes(0).data() - 8, c.left() + 8));
    (void)type; // SWITCH_CPU_WIDE adds the other task; the sample_id is the one switching in or out
    if (id.tid <= 0 || !id.time)
        return;
    m_lastTime = std::max(m_lastTime, id.time);
    if (misc & kMiscSwitchOut)
        switchOut(id.pid, id.tid, id.time, id.cpu, misc & kMiscSwitchOutPreempt);
    else
        switchIn(id.tid, id.time, id.cpu);
}

void PerfState::switchSample(const Attr& a, const SampleHead& h) {
    if (h.tid <= 0) {
        // the idle task switching out (system-wide recordings): on an idle machine most wake-ups come this
        // way, so its next_pid is the switch-in of the thread that woke
        if (!m_switchRecords && a.type == kTypeTracepoint && m_schedSwitch.nextPidSize) {
            const uint64_t nextPid = rawField(m_raw, m_schedSwitch.nextPidOffset, m_schedSwitch.nextPidSize);
            if (nextPid && nextPid < (uint64_t(1) << 31))
                switchIn(static_cast<int64_t>(nextPid), h.time, h.cpu);
        }
        return;
    }
    SwitchThread& t = m_switch[h.tid];
    t.pid = h.pid;
    t.stack.assign(m_frames.begin(), m_frames.end());
    t.stashed = true;
    t.stashTime = h.time;
    t.hasKind = false;
    uint64_t nextPid = 0;
    if (a.type == kTypeTracepoint && m_schedSwitch.stateSize) {
        const char state = stateLetter(rawField(m_raw, m_schedSwitch.stateOffset, m_schedSwitch.stateSize));
        t.kind = m_builder->pseudoFrame(offCpuLeaf(state));
        t.hasKind = true;
        if (deadTaskState(state))
            t.dead = true;
        nextPid = rawField(m_raw, m_schedSwitch.nextPidOffset, m_schedSwitch.nextPidSize);
    }
    if (!m_switchRecords && a.type == kTypeTracepoint) {
        // the tracepoint alone: it is the switch-out of this thread and the switch-in of next_pid
        switchOut(h.pid, h.tid, h.time, h.cpu, false);
        if (nextPid && nextPid < (uint64_t(1) << 31))
            switchIn(static_cast<int64_t>(nextPid), h.time, h.cpu);
    }
}

void PerfState::switchOut(int64_t pid, int64_t tid, uint64_t time, int32_t cpu, bool preempt) {
    SwitchThread& t = m_switch[tid];
    t.pid = pid;
    if (t.dead)
        return;
    ++m_switches;
    t.off = true;
    t.outCpu = cpu;
    t.offStack.clear();
    const bool matched = t.stashed && t.stashTime >= t.in && t.stashTime <= time;
    // from the sched_switch sample on (a few microseconds before the switch record), as `perf script`
    // text gives it
    t.out = matched && m_switchSamples ? t.stashTime : time;
    if (matched)
        std::swap(t.offStack, t.stack);
    else if (m_switchSamples)
        ++m_unmatched;
    if (m_switchSamples && !matched)
        t.offStack.push_back(m_builder->pseudoFrame("[no stack]"));
    const RawFrame kind = matched && t.hasKind ? t.kind
                          : preempt            ? m_builder->pseudoFrame("[preempted]")
                                               : m_builder->pseudoFrame("[blocked]");
    t.offStack.insert(t.offStack.begin(), kind);
    t.stashed = false;
}

void PerfState::switchIn(int64_t tid, uint64_t time, int32_t cpu) {
    SwitchThread& t = m_switch[tid];
    t.in = time;
    t.lastOnCpu = time;
    t.dead = false;
    if (!t.off)
        return;
    t.off = false;
    if (time < t.out)
        return;
    if (cpu >= 0 && t.outCpu >= 0 && cpu != t.outCpu)
        ++m_migrations;
    chargeOffCpu(tid, t, time);
}

void PerfState::chargeOffCpu(int64_t tid, SwitchThread& t, uint64_t until) {
    offCpuCostTypes();
    const auto ns = static_cast<int64_t>(std::min<uint64_t>(until - t.out, INT64_MAX));
    const CostValue costs[] = {{m_offCpuCost, ns}, {m_wallCost, ns}};
    m_builder->addSample(thread(t.pid, tid), t.offStack, costs, static_cast<double>(t.out) / 1e9, t.outCpu);
}

void PerfState::offCpuCostTypes() {
    if (m_offCpuCost != UINT32_MAX)
        return;
    m_offCpuCost = m_builder->costType(kOffCpuCost, CostUnit::Nanoseconds);
    m_wallCost = m_builder->costType(kWallCost, CostUnit::Nanoseconds);
}

int64_t PerfState::onCpuNs(const Attr& a, const SampleHead& h) {
    if (!a.wallEvent || h.tid <= 0)
        return -1;
    SwitchThread& t = m_switch[h.tid];
    if (!m_switchSamples) { // the stack to charge when it next switches out
        t.stack.assign(m_frames.begin(), m_frames.end());
        t.stashed = true;
        t.stashTime = h.time;
        t.hasKind = false;
    }
    if (periodUnit(a.name) == CostUnit::Nanoseconds)
        return static_cast<int64_t>(h.period & INT64_MAX);
    // another event (cycles): the on-CPU time since the thread's previous sample or switch-in
    const uint64_t since = t.lastOnCpu && t.lastOnCpu <= h.time ? h.time - t.lastOnCpu : 0;
    t.lastOnCpu = h.time;
    return static_cast<int64_t>(since);
}

void PerfState::threadExit(int64_t tid) {
    const auto it = m_switch.find(tid);
    if (it == m_switch.end())
        return;
    it->second.off = false;
    it->second.dead = true;
}

void PerfState::finishSwitches() {
    if (!m_offCpu || !m_switches)
        return;
    for (auto& [tid, t] : m_switch)
        if (t.off && !t.dead && m_lastTime >= t.out) {
            ++m_noSwitchIn;
            chargeOffCpu(tid, t, m_lastTime);
            t.off = false;
        }
    m_meta.recording.emplace_back("context switches", std::to_string(m_switches) + " switch-outs, " +
                                                          std::to_string(m_migrations) +
                                                          " came back on another CPU");
    if (m_unmatched)
        warn(0,
             std::to_string(m_unmatched) + " of " + std::to_string(m_switches) +
                 " switch-outs had no sched_switch sample with their stack: their off-CPU time is charged to "
                 "[no stack]");
    if (m_noSwitchIn)
        warn(0,
             std::to_string(m_noSwitchIn) +
                 " threads were off-CPU at the end of the recording without a switch-in: their off-CPU time "
                 "is charged up to the last record");
}

} // namespace scorch::detail
