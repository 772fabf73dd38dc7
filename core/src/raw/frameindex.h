// Internal: the ids of a RawProfileBuilder's distinct raw frames (address, module, return address).
#pragma once

#include "scorch/rawprofile.h"

#include "util/hash.h"
#include "util/hugepages.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace scorch::detail {

inline uint64_t hashRaw(const RawFrame& f) {
    return mix64(hashInt(f.address),
                 (static_cast<uint64_t>(f.module.value) << 1 | f.returnAddress) ^ 0x9e3779b97f4a7c15ull);
}

/// The ids of the distinct raw frames: open addressing with the frames themselves in the table, so that a
/// lookup costs one cache miss (an index into the frames' vector cost a second one for the comparison: on
/// fp-large, tens of millions of lookups for the frames of new stacks).
class FrameIndex {
public:
    /// The id of the frame `f` of hash `h` (hashRaw()) where the small table of recent frames holds it (the
    /// frames of new stacks are mostly those of the stacks just before: on fp-large 93 % of 25 M lookups of
    /// 360 k frames are answered there, from the cache), else kNotRecent, after asking for the big table's
    /// slot where findOrInsert() will look: the frames of a new stack are asked for so first, then the others
    /// found in the big table, their cache misses overlapping instead of one after the other (on fp-large
    /// 1.8 M).
    static constexpr uint32_t kNotRecent = UINT32_MAX;
    uint32_t findRecent(const RawFrame& f, uint64_t h) const {
        const Slot& recent = m_recent[recentAt(h)];
        if (recent.tag != 0 && holds(recent, f, f.returnAddress ? 1 : 0))
            return idOf(recent);
        if (!m_slots.empty())
            __builtin_prefetch(&m_slots[h & (m_slots.size() - 1)]);
        return kNotRecent;
    }
    /// The id of `f`, whose hashRaw() is `h`, from the big table, which holds every frame: the rest of a
    /// lookup that findRecent() did not answer (it is not asked again). When `f` is new, `fresh` becomes its
    /// id and `inserted` is set. Either way `f` goes into the recent table.
    uint32_t findOrInsert(const RawFrame& f, uint64_t h, uint32_t fresh, bool& inserted) {
        const uint32_t ra = f.returnAddress ? 1 : 0;
        Slot& recent = m_recent[recentAt(h)];
        if ((m_size + 1) * 2 > m_slots.size())
            grow();
        const std::size_t mask = m_slots.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            Slot& s = m_slots[i];
            if (s.tag == 0) {
                if (fresh >= kMaxId)
                    throw std::length_error("more distinct addresses than a raw profile can number");
                s = {f.address, f.module.value, (fresh + 1) << 1 | ra};
                recent = s;
                ++m_size;
                inserted = true;
                return fresh;
            }
            if (holds(s, f, ra)) {
                recent = s;
                inserted = false;
                return idOf(s);
            }
        }
    }

private:
    static constexpr uint32_t kMaxId = (1u << 31) - 1;
    struct Slot {
        uint64_t address = 0;
        uint32_t module = 0;
        uint32_t tag = 0; ///< (id + 1) << 1 | returnAddress; 0 = empty
    };
    static std::size_t recentAt(uint64_t h) { return (h >> 40) & (kRecent - 1); }
    static uint32_t idOf(const Slot& s) { return (s.tag >> 1) - 1; }
    static bool holds(const Slot& s, const RawFrame& f, uint32_t returnAddress) {
        return s.address == f.address && s.module == f.module.value && (s.tag & 1) == returnAddress;
    }
    void grow() {
        std::vector<Slot> bigger;
        assignHuge(bigger, std::max<std::size_t>(1024, m_slots.size() * 2), Slot{});
        const std::size_t mask = bigger.size() - 1;
        for (const Slot& s : m_slots) {
            if (s.tag == 0)
                continue;
            std::size_t i = hashRaw({ModuleHandle{s.module}, s.address, (s.tag & 1) != 0}) & mask;
            while (bigger[i].tag != 0)
                i = (i + 1) & mask;
            bigger[i] = s;
        }
        m_slots.swap(bigger);
    }
    static constexpr std::size_t kRecent = 4096; ///< 64 KiB
    std::vector<Slot> m_slots;
    std::vector<Slot> m_recent = std::vector<Slot>(kRecent);
    std::size_t m_size = 0;
};

} // namespace scorch::detail
