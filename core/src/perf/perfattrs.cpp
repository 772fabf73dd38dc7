// EventAttrs: see perfattrs.h.
#include "perf/perfattrs.h"

#include "perf/perfformat.h"

#include <bit>
#include <cstring>

namespace scorch::detail {

using namespace perf;

namespace {

/// perf record's id position in a sample (for finding the event of a sample when there are several).
std::size_t idSlot(uint64_t sampleType) {
    if (sampleType & SampleIdentifier)
        return 0;
    return static_cast<std::size_t>(
        std::popcount(sampleType & (SampleIp | SampleTid | SampleTime | SampleAddr)));
}

} // namespace

bool Attr::dwarfStacks() const {
    return (sampleType & SampleRegsUser) && regsUser && stackUser;
}

bool EventAttrs::fits(const Attr& attr) const {
    return m_attrs.empty() || idSlot(attr.sampleType) == idSlot(m_attrs.front().sampleType);
}

void EventAttrs::add(Attr attr, const std::vector<uint64_t>& ids) {
    for (uint64_t id : ids)
        m_idToAttr.emplace(id, m_attrs.size());
    m_attrs.push_back(std::move(attr));
}

bool EventAttrs::hasTime() const {
    return !m_attrs.empty() && (m_attrs.front().sampleType & SampleTime) &&
           (m_attrs.front().flags & kAttrSampleIdAll);
}

const Attr* EventAttrs::of(std::string_view sample) const {
    if (m_attrs.size() == 1)
        return &m_attrs.front();
    if (m_attrs.empty())
        return nullptr;
    const uint64_t type = m_attrs.front().sampleType;
    if (!(type & (SampleId | SampleIdentifier)))
        return &m_attrs.front();
    const std::size_t at = 8 + 8 * idSlot(type);
    if (sample.size() < at + 8)
        return nullptr;
    uint64_t id;
    std::memcpy(&id, sample.data() + at, 8);
    const auto it = m_idToAttr.find(id);
    return it == m_idToAttr.end() ? nullptr : &m_attrs[it->second];
}

Attr* EventAttrs::of(std::string_view sample) {
    return const_cast<Attr*>(static_cast<const EventAttrs*>(this)->of(sample));
}

uint64_t EventAttrs::recordTime(uint32_t type, std::string_view record) const {
    uint64_t t = 0;
    if (type == RecordSample) {
        const Attr* a = of(record);
        if (!a || !(a->sampleType & SampleTime))
            return 0;
        const std::size_t at = 8 + 8 * static_cast<std::size_t>(std::popcount(
                                           a->sampleType & (SampleIdentifier | SampleIp | SampleTid)));
        if (record.size() >= at + 8)
            std::memcpy(&t, record.data() + at, 8);
        return t;
    }
    const uint64_t st = m_attrs.front().sampleType;
    const std::size_t after = static_cast<std::size_t>(
        std::popcount(st & (SampleId | SampleStreamId | SampleCpu | SampleIdentifier)));
    if (record.size() >= 8 + 8 * (after + 1))
        std::memcpy(&t, record.data() + record.size() - 8 * (after + 1), 8);
    return t;
}

EventAttrs::RecordId EventAttrs::sampleId(std::string_view record) const {
    RecordId id;
    if (m_attrs.empty() || !(m_attrs.front().flags & kAttrSampleIdAll))
        return id;
    const uint64_t st = m_attrs.front().sampleType;
    const auto fields = static_cast<std::size_t>(std::popcount(
        st & (SampleTid | SampleTime | SampleId | SampleStreamId | SampleCpu | SampleIdentifier)));
    if (record.size() < 8 + 8 * fields)
        return id;
    const char* p = record.data() + record.size() - 8 * fields;
    auto next = [&p]() {
        uint64_t v;
        std::memcpy(&v, p, 8);
        p += 8;
        return v;
    };
    if (st & SampleTid) {
        const uint64_t v = next();
        id.pid = static_cast<int32_t>(v & 0xffffffffu);
        id.tid = static_cast<int32_t>(v >> 32);
    }
    if (st & SampleTime)
        id.time = next();
    if (st & SampleId)
        next();
    if (st & SampleStreamId)
        next();
    if (st & SampleCpu)
        id.cpu = static_cast<int32_t>(next() & INT32_MAX);
    return id;
}

} // namespace scorch::detail
