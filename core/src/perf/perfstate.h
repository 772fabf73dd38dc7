// Internal: what the perf.data reader knows while it walks the records: events, processes' address spaces,
// thread names, and the RawProfileBuilder the samples go to.
#pragma once

#include "perf/perfformat.h"
#include "perf/perfreader.h"
#include "scorch/rawprofile.h"

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace scorch::detail {

struct Attr {
    uint32_t type = 0;
    uint64_t config = 0, sampleType = 0, readFormat = 0, flags = 0, branchSampleType = 0, regsUser = 0;
    uint32_t stackUser = 0;
    std::string name;
    uint32_t samplesCost = UINT32_MAX, periodCost = UINT32_MAX; ///< created on the first sample
};

struct MapEntry {
    UnwindMap map; ///< start, end, pgoff, path (interned)
    std::string_view buildId;
    enum class Kind : uint8_t { File, Jit, Other } kind = Kind::File;
    mutable ModuleHandle handle;
};

class PerfState {
public:
    PerfState(const std::string& name, const ImportOptions& options);
    ~PerfState();

    bool pipeMode = false;
    /// Called with each sample's absolute addresses (forEachPerfDataSample).
    std::function<void(int64_t, int64_t, std::span<const uint64_t>)> sampleHook;
    std::vector<Attr> attrs;
    ProfileMeta meta;

    void addAttr(Attr attr, const std::vector<uint64_t>& ids);
    void feature(unsigned bit, perf::Cursor c);
    /// True when every record carries a timestamp, so records can be ordered by time.
    bool hasTime() const;
    uint64_t recordTime(uint32_t type, std::string_view record) const;
    void record(uint32_t type, perf::Cursor& c);
    void warn(uint64_t offset, std::string message);
    /// Modules are opened at the end (pipe mode: build-ids come after the samples).
    void deferSymbolization();

    uint64_t samples() const { return m_builder->samples(); }
    Profile snapshot(const std::atomic<bool>* cancel);
    Profile finish(const std::atomic<bool>* cancel);

private:
    using AddressSpace = std::map<uint64_t, MapEntry>; // by start
    const Attr* attrOf(std::string_view sample) const;
    void sample(perf::Cursor& c, uint16_t misc);
    void mmap(perf::Cursor& c, uint16_t misc, bool v2);
    void addMap(int64_t pid, MapEntry entry);
    const MapEntry* findMap(int64_t pid, uint64_t address) const;
    RawFrame resolve(int64_t pid, uint64_t ip, bool kernel, bool returnAddress);
    /// One build-id entry (feature section or pipe-mode record) after its header: pid, id, path.
    void buildIdEntry(uint16_t misc, perf::Cursor& e);
    RawFrame resolveAddress(int64_t pid, uint64_t ip, bool kernel, bool returnAddress);
    uint32_t thread(int64_t pid, int64_t tid);
    std::string_view intern(std::string_view s) { return *m_strings.emplace(s).first; }
    ProfileMeta currentMeta() const;

    const std::string& m_name;
    const ImportOptions& m_options;
    std::unique_ptr<Symbolizer> m_symbolizer;
    std::unique_ptr<RawProfileBuilder> m_builder;
    std::unique_ptr<DwarfUnwinder> m_unwinder;
    ModuleHandle m_kernel; ///< registered on the first kernel frame
    std::unordered_set<std::string> m_strings;
    std::unordered_map<uint64_t, std::size_t> m_idToAttr;
    std::unordered_map<std::string_view, std::string_view> m_buildIds; // path -> hex
    std::unordered_map<int64_t, AddressSpace> m_spaces;                // by pid
    // findMap's last hit (consecutive frames mostly fall into the same mapping); any change of m_spaces
    // bumps m_mapGeneration, which drops it
    uint64_t m_mapGeneration = 0;
    mutable uint64_t m_lastGeneration = UINT64_MAX;
    mutable int64_t m_lastPid = 0;
    mutable const MapEntry* m_lastMap = nullptr;
    std::unordered_map<int64_t, std::string> m_comms; // by tid
    std::unordered_map<int64_t, uint32_t> m_threads;  // by tid, reset when the comm changes
    std::string m_arch;
    std::vector<RawFrame> m_frames;
    std::vector<uint64_t> m_ips; // absolute, for sampleHook
    std::vector<DwarfUnwinder::Frame> m_unwound;
    std::vector<uint64_t> m_regs;
    std::map<uint32_t, uint64_t> m_unknownTypes;
    uint64_t m_lost = 0, m_unwindFailures = 0, m_dwarfSamples = 0;
};

} // namespace scorch::detail
