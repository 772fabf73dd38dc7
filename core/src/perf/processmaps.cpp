// ProcessMaps: see processmaps.h.
#include "perf/processmaps.h"

namespace scorch::detail {

void ProcessMaps::map(int64_t pid, const Mapping& m) {
    ++m_generation;
    m_spaces[pid].map(m);
}

void ProcessMaps::exec(int64_t pid) {
    ++m_generation;
    m_spaces.erase(pid);
}

void ProcessMaps::fork(int64_t pid, int64_t ppid) {
    ++m_generation;
    const auto parent = m_spaces.find(ppid);
    if (parent != m_spaces.end()) {
        const AddressSpace& copy = parent->second; // stays valid when the insertion below rehashes
        m_spaces[pid] = copy;
    } else {
        m_spaces.erase(pid);
    }
}

const Mapping* ProcessMaps::find(int64_t pid, uint64_t address) const {
    if (m_lastGeneration == m_generation && m_lastPid == pid && address >= m_lastMap->start &&
        address < m_lastMap->end)
        return m_lastMap;
    const auto s = m_spaces.find(pid);
    if (s == m_spaces.end())
        return nullptr;
    const Mapping* m = s->second.find(address);
    if (!m)
        return nullptr;
    m_lastGeneration = m_generation;
    m_lastPid = pid;
    m_lastMap = m;
    return m;
}

} // namespace scorch::detail
