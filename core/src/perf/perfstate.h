// Internal: what the perf.data reader knows while it walks the records: the events, the processes' address
// spaces, thread names, and the RawProfileBuilder the samples go to.
#pragma once

#include "perf/perfattrs.h"
#include "perf/perffeatures.h"
#include "perf/perfformat.h"
#include "perf/perfreader.h"
#include "perf/processmaps.h"
#include "scorch/rawprofile.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace scorch::detail {

class PerfState : private FeatureSink {
public:
    using SampleHook = std::function<void(int64_t pid, int64_t tid, std::span<const uint64_t> ips)>;

    PerfState(const std::string& name, const ImportOptions& options, const ImportControl& control);
    ~PerfState() override;

    /// A pipe-mode file (`perf record -o -`): build-ids come after the samples, so modules are opened at
    /// the end.
    void setPipeMode();
    bool pipeMode() const { return m_pipeMode; }
    /// Called with each sample's absolute addresses (forEachPerfDataSample).
    void setSampleHook(SampleHook hook) { m_sampleHook = std::move(hook); }
    const ProfileMeta& meta() const { return m_meta; }
    void setInput(const std::string& compression, uint64_t bytes);

    void addAttr(Attr attr, const std::vector<uint64_t>& ids);
    bool hasAttrs() const { return !m_attrs.empty(); }
    /// Feature section `bit` (see readFeature).
    void feature(unsigned bit, perf::Cursor c);
    /// True when every record carries a timestamp, so records can be ordered by time.
    bool hasTime() const { return m_attrs.hasTime(); }
    uint64_t recordTime(uint32_t type, std::string_view record) const {
        return m_attrs.recordTime(type, record);
    }
    void record(uint32_t type, perf::Cursor& c);
    void warn(uint64_t offset, std::string message) override;
    /// Tracepoint formats (feature section or pipe-mode record): where sched_switch keeps its fields.
    void tracingData(std::string_view bytes) override;
    /// A serious warning (scorch/warningkind.h): after the serious ones, ahead of the notes, never capped
    /// away.
    void warnFirst(uint64_t offset, std::string message);

    uint64_t samples() const { return m_builder->samples(); }
    /// Sample records read so far (without waiting for the builder), and the reader's estimate of how many
    /// there will be in all, passed on to the builder.
    uint64_t samplesRead() const { return m_samplesRead; }
    void expectSamples(uint64_t n) { m_builder->expectSamples(n); }
    Profile snapshot(const std::atomic<bool>* cancel);
    Profile finish(const std::atomic<bool>* cancel);

private:
    /// The fixed fields of a sample before its call chain.
    struct SampleHead {
        uint64_t ip = 0, time = 0, period = 1;
        int64_t pid = -1, tid = -1;
        int32_t cpu = -1; ///< PERF_SAMPLE_CPU, -1 when not recorded
    };
    void sample(perf::Cursor& c, uint16_t misc);
    SampleHead readSampleHead(perf::Cursor& c, const Attr& a);
    void readCallchain(perf::Cursor& c, uint16_t misc, const SampleHead& h, bool dwarf);
    void skipRawAndBranches(perf::Cursor& c, const Attr& a);
    void unwindUserStack(perf::Cursor& c, const Attr& a, const SampleHead& h);
    void addSample(Attr& a, const SampleHead& h);
    /// Creates the cost types of `a` on its first sample: its period (when the samples have one) and its
    /// sample count.
    void costTypesOf(Attr& a, bool period);

    void mmap(perf::Cursor& c, uint16_t misc, bool v2);
    void comm(perf::Cursor& c, uint16_t misc);
    void fork(perf::Cursor& c);
    RawFrame resolve(int64_t pid, uint64_t ip, bool kernel, bool returnAddress);
    RawFrame resolveAddress(int64_t pid, uint64_t ip, bool kernel, bool returnAddress);
    uint32_t thread(int64_t pid, int64_t tid);
    /// The local file of a mapped module, for the DWARF unwinder (interned; empty when not found).
    std::string_view moduleFile(const Mapping& m);
    std::string_view intern(std::string_view s) { return *m_strings.emplace(s).first; }
    ProfileMeta currentMeta() const;
    void checkArchitecture(const Attr& a) const;

    // --- off-CPU time (perfswitch.cpp) ---
    /// Decides, on the first sample or switch record, what the events say about context switches.
    void prepareSwitches();
    bool switchEvent(const Attr& a) const;
    void switchRecord(uint32_t type, uint16_t misc, perf::Cursor& c);
    /// A sched_switch or context-switches sample: its stack is where the thread goes off-CPU.
    void switchSample(const Attr& a, const SampleHead& h);
    void switchOut(int64_t pid, int64_t tid, uint64_t time, int32_t cpu, bool preempt);
    void switchIn(int64_t tid, uint64_t time, int32_t cpu);
    /// wall's on-CPU part of a sample of the CPU event (ns).
    int64_t onCpuNs(const Attr& a, const SampleHead& h);
    void threadExit(int64_t tid);
    void finishSwitches();
    struct SwitchThread {
        int64_t pid = -1;
        uint64_t in = 0;        ///< the last switch-in, 0 before the first
        uint64_t lastOnCpu = 0; ///< the last switch-in or CPU sample (on-CPU time of non-clock events)
        uint64_t out = 0;       ///< while off: when it switched out
        int32_t outCpu = -1;
        bool off = false, dead = false;
        bool stashed = false; ///< `stack` was taken since the last switch-in
        uint64_t stashTime = 0;
        RawFrame kind; ///< the pseudo leaf ([preempted], [blocked: S]); none: no address
        bool hasKind = false;
        std::vector<RawFrame> stack, offStack; ///< leaf first
    };
    void chargeOffCpu(int64_t tid, SwitchThread& t, uint64_t until);
    void offCpuCostTypes();

    // FeatureSink
    void note(std::string key, std::string value) override;
    void architecture(const std::string& arch) override;
    void eventName(std::size_t event, std::string name) override;
    void buildId(std::string_view path, std::string_view id) override;

    const std::string& m_name;
    const ImportOptions& m_options;
    bool m_pipeMode = false;
    SampleHook m_sampleHook;
    EventAttrs m_attrs;
    ProfileMeta m_meta;
    std::unique_ptr<Symbolizer> m_symbolizer;
    std::unique_ptr<RawProfileBuilder> m_builder;
    std::unique_ptr<DwarfUnwinder> m_unwinder;
    ModuleHandle m_kernel; ///< registered on the first kernel frame
    std::unordered_set<std::string> m_strings;
    std::unordered_map<std::string_view, std::string_view> m_buildIds; // path -> hex
    ProcessMaps m_maps;
    std::unordered_map<uint32_t, std::string_view> m_moduleFiles; // by module handle
    std::unordered_map<int64_t, std::string> m_comms;             // by tid
    std::unordered_map<int64_t, uint32_t> m_threads;              // by tid, reset when the comm changes
    std::string m_arch;
    // the sample being read
    std::vector<RawFrame> m_frames;
    std::vector<uint64_t> m_ips; // absolute, for the sample hook
    std::vector<DwarfUnwinder::Frame> m_unwound;
    std::vector<uint64_t> m_regs;
    std::vector<std::pair<uint64_t, uint64_t>> m_readValues; // PERF_SAMPLE_READ: (id, counter value)
    std::unordered_map<uint64_t, uint64_t> m_readLast;       // by id: the counter at its previous sample
    std::vector<CostValue> m_costs;
    uint64_t m_samplesRead = 0;
    std::map<uint32_t, uint64_t> m_unknownTypes;
    uint64_t m_lost = 0, m_unwindFailures = 0, m_dwarfSamples = 0;

    // off-CPU time
    struct SchedSwitchFormat {
        int64_t id = -1; ///< the tracepoint id (attr config)
        uint32_t stateOffset = 0, stateSize = 0, nextPidOffset = 0, nextPidSize = 0;
    };
    SchedSwitchFormat m_schedSwitch;
    bool m_switchReady = false;
    bool m_offCpu = false;             ///< the file says when threads switch out and back in
    bool m_switchRecords = false;      ///< PERF_RECORD_SWITCH(_CPU_WIDE) say when (--switch-events)
    bool m_switchSamples = false;      ///< sched_switch / context-switches samples give the stacks
    std::size_t m_wallAttr = SIZE_MAX; ///< the CPU event whose samples are wall's on-CPU part
    uint32_t m_offCpuCost = UINT32_MAX, m_wallCost = UINT32_MAX;
    std::unordered_map<int64_t, SwitchThread> m_switch; // by tid
    std::string_view m_raw;                             // the sample's PERF_SAMPLE_RAW bytes
    std::vector<RawFrame> m_offFrames;
    uint64_t m_lastTime = 0, m_switches = 0, m_migrations = 0, m_unmatched = 0, m_noSwitchIn = 0;
};

} // namespace scorch::detail
