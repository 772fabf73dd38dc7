// Internal: a process's address space (its file mappings) and the lookup of an instruction address in it:
// which module holds the address and at which file offset. Shared by the perf.data reader (maps as perf
// records them, later ones replacing what they overlap) and Scorch recordings (every mapping a recording
// saw, overlapping, with the time it appeared).
#pragma once

#include "scorch/rawprofile.h"
#include "scorch/symbolizer.h"

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace scorch::detail {

/// One file (or anonymous memory) mapped into a process: [start, end) shows the file from byte `pgoff` on.
struct Mapping {
    uint64_t start = 0, end = 0, pgoff = 0;
    std::string_view path;    ///< interned by the owner; empty or not a file: cannot be unwound through
    std::string_view buildId; ///< hex, interned by the owner; empty when unknown
    enum class Kind : uint8_t { File, Jit, Other } kind = Kind::File;
    uint64_t timeNs = 0;         ///< when the mapping appeared (recordings)
    mutable ModuleHandle module; ///< the symbolizer's module, opened on first use by the owner

    /// The raw frame of `ip` (inside this mapping): the module and the file offset of the address.
    RawFrame frame(uint64_t ip, bool returnAddress) const {
        RawFrame f;
        f.module = module;
        f.address = ip - start + pgoff;
        f.returnAddress = returnAddress;
        return f;
    }
};

/// What a mapping's path says it is: a file, JIT code (anonymous memory, perf maps) or neither ([stack]).
Mapping::Kind mappingKind(std::string_view path);

/// A process's mappings, sorted by start address.
class AddressSpace {
public:
    /// Adds a mapping that replaces whatever part of earlier ones it covers (as perf splits maps); the
    /// pieces left of a split mapping past the new one have no module yet.
    void map(const Mapping& m);
    /// Adds mappings that may overlap earlier ones (a history of mappings, for findAt()).
    void add(std::span<const Mapping> mappings);
    void clear() { m_mappings.clear(); }

    /// The mapping that holds `address` (in a space built by map()), or null.
    const Mapping* find(uint64_t address) const;
    /// The mapping that held `address` at `timeNs` (in a space built by add()): the latest one that appeared
    /// before then, else the earliest one; null when none holds it.
    const Mapping* findAt(uint64_t address, uint64_t timeNs) const;

    std::span<Mapping> mappings() { return m_mappings; }

private:
    std::vector<Mapping> m_mappings; // by start; equal starts in the order added
};

} // namespace scorch::detail
