// Internal: the address spaces of the processes in a perf.data file, as its mmap, fork and exec records
// change them, with a one-entry cache for the lookups of a sample's frames.
#pragma once

#include "symbols/addressspace.h"

#include <cstdint>
#include <unordered_map>

namespace scorch::detail {

class ProcessMaps {
public:
    /// Maps `m` into process `pid` (see AddressSpace::map).
    void map(int64_t pid, const Mapping& m);
    /// `pid` executed a new program: its mappings are gone.
    void exec(int64_t pid);
    /// Process `pid` was forked from `ppid`: it starts with a copy of the parent's mappings.
    void fork(int64_t pid, int64_t ppid);
    /// The mapping of `pid` that holds `address`, or null.
    const Mapping* find(int64_t pid, uint64_t address) const;
    /// Calls f(Mapping&) for every mapping of every process.
    template <typename F>
    void forEach(F&& f) {
        for (auto& [pid, space] : m_spaces)
            for (Mapping& m : space.mappings())
                f(m);
    }

private:
    std::unordered_map<int64_t, AddressSpace> m_spaces; // by pid
    // find()'s last hit (consecutive frames mostly fall into the same mapping); any change of m_spaces
    // bumps m_generation, which drops it
    uint64_t m_generation = 0;
    mutable uint64_t m_lastGeneration = UINT64_MAX;
    mutable int64_t m_lastPid = 0;
    mutable const Mapping* m_lastMap = nullptr;
};

} // namespace scorch::detail
