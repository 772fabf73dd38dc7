// Internal: the events of a perf.data file (one perf_event_attr each) and how to tell which event a record
// belongs to and when it happened.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace scorch::detail {

struct Attr {
    uint32_t type = 0;
    uint64_t config = 0, sampleType = 0, readFormat = 0, flags = 0, branchSampleType = 0, regsUser = 0;
    uint32_t stackUser = 0;
    /// `perf record -c N`: every sample stands for N events (no PERF_SAMPLE_PERIOD in the samples); 0 when
    /// the event samples at a frequency or every event (a period of 1: the sample count says it all).
    uint64_t fixedPeriod = 0;
    std::string name;
    uint32_t samplesCost = UINT32_MAX, periodCost = UINT32_MAX; ///< created on the first sample
    /// Off-CPU time (perfswitch.cpp): a sched_switch or context-switches event, whose samples give the
    /// stacks of switch-outs; the CPU event, whose samples are wall's on-CPU part.
    bool switchEvent = false, wallEvent = false;

    /// A `--call-graph dwarf` event: samples carry user registers and a copy of the user stack.
    bool dwarfStacks() const;
};

class EventAttrs {
public:
    /// False when `attr` puts the sample id elsewhere than the events so far (one layout per file).
    bool fits(const Attr& attr) const;
    void add(Attr attr, const std::vector<uint64_t>& ids);

    bool empty() const { return m_attrs.empty(); }
    std::size_t size() const { return m_attrs.size(); }
    const std::vector<Attr>& all() const { return m_attrs; }
    Attr& at(std::size_t i) { return m_attrs[i]; }
    void setName(std::size_t i, std::string name) { m_attrs[i].name = std::move(name); }

    /// The event with sample id `id` (a PERF_SAMPLE_READ value names its event so), or null.
    Attr* byId(uint64_t id) {
        const auto it = m_idToAttr.find(id);
        return it == m_idToAttr.end() ? nullptr : &m_attrs[it->second];
    }
    /// The event of a sample record (header included), or null.
    Attr* of(std::string_view sample);
    const Attr* of(std::string_view sample) const;
    /// True when every record carries a timestamp, so records can be ordered by time.
    bool hasTime() const;
    /// The timestamp of a record (header included); 0 when it has none.
    uint64_t recordTime(uint32_t type, std::string_view record) const;

    /// The sample_id fields perf appends to a non-sample record (`sample_id_all`); -1 / 0 when absent.
    struct RecordId {
        int64_t pid = -1, tid = -1;
        uint64_t time = 0;
        int32_t cpu = -1;
    };
    RecordId sampleId(std::string_view record) const;

private:
    std::vector<Attr> m_attrs;
    std::unordered_map<uint64_t, std::size_t> m_idToAttr;
};

} // namespace scorch::detail
