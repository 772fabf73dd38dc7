// Internal hashing helpers and the two generic open-addressing tables (IndexTable, FlatMap64) that the
// interners, the tree builders and the raw-profile builder use.
#pragma once

#include "util/hugepages.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace scorch::detail {

inline uint64_t mix64(uint64_t a, uint64_t b) {
    const __uint128_t r = static_cast<__uint128_t>(a) * b;
    return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

inline uint64_t hashInt(uint64_t x) {
    return mix64(x ^ 0xa0761d6478bd642full, 0xe7037ed1a0b428dbull);
}

/// The open-addressing index of items that live elsewhere (in the owner's vectors, by index): linear probing
/// over slots of (hash tag << 32 | index + 1), 0 = empty; a table of a power-of-two size grows (doubles) when
/// more than half full. The slots are a plain vector, so that classes of the public API can hold one without
/// this header; internal owners use IndexTable.
inline uint64_t makeSlot(uint64_t hash, uint32_t value) {
    return (hash & 0xffffffff00000000ull) | (static_cast<uint64_t>(value) + 1);
}
inline uint32_t slotValue(uint64_t slot) {
    return static_cast<uint32_t>(slot) - 1;
}
inline bool slotTagMatches(uint64_t slot, uint64_t hash) {
    return (slot & 0xffffffff00000000ull) == (hash & 0xffffffff00000000ull);
}

/// Where probeIndex() stopped: at the item found, or at the empty slot where it belongs.
struct IndexProbe {
    static constexpr uint32_t kAbsent = UINT32_MAX;
    std::size_t slot;
    uint32_t index; ///< the item found, or kAbsent
    bool found() const { return index != kAbsent; }
};

/// Looks for the item of hash `h` that `equal(index)` accepts (called only on a matching tag).
template <typename Equal>
IndexProbe probeIndex(const std::vector<uint64_t>& table, uint64_t h, Equal&& equal) {
    const std::size_t mask = table.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
        const uint64_t slot = table[i];
        if (!slot)
            return {i, IndexProbe::kAbsent};
        if (slotTagMatches(slot, h) && equal(slotValue(slot)))
            return {i, slotValue(slot)};
    }
}

/// Moves the items of `table` into a table of `size` slots (a power of two, over twice the items), advised
/// for huge pages: a table of millions of slots then costs a page fault per 2 MiB, not per 4 KiB (faults are
/// the dearer part of growing one on a VM).
template <typename HashOf>
void rehashIndex(std::vector<uint64_t>& table, std::size_t size, HashOf&& hashOf) {
    std::vector<uint64_t> bigger;
    assignHuge(bigger, size, uint64_t(0));
    const std::size_t mask = bigger.size() - 1;
    for (uint64_t slot : table) {
        if (!slot)
            continue;
        std::size_t i = hashOf(slotValue(slot)) & mask;
        while (bigger[i])
            i = (i + 1) & mask;
        bigger[i] = slot;
    }
    table.swap(bigger);
}

/// Stores item `index` of hash `h` at the empty slot `p` found; `count` = the items indexed with it. When
/// that fills more than half of the table it doubles, placing every item by `hashOf(index)`.
template <typename HashOf>
void insertIndex(std::vector<uint64_t>& table, const IndexProbe& p, uint64_t h, uint32_t index,
                 std::size_t count, HashOf&& hashOf) {
    table[p.slot] = makeSlot(h, index);
    if (count * 2 <= table.size())
        return;
    rehashIndex(table, table.size() * 2, hashOf);
}

/// Grows `table` once so that `count` items fit without further doubling (for a bulk insert of known size).
template <typename HashOf>
void reserveIndex(std::vector<uint64_t>& table, std::size_t count, HashOf&& hashOf) {
    std::size_t size = table.size();
    while (count * 2 > size)
        size *= 2;
    if (size != table.size())
        rehashIndex(table, size, hashOf);
}

/// probeIndex() and insertIndex() over a table of one's own.
class IndexTable {
public:
    explicit IndexTable(std::size_t capacity = 1024)
        : m_slots(capacity, 0) {}

    template <typename Equal>
    IndexProbe find(uint64_t h, Equal&& equal) const {
        return probeIndex(m_slots, h, equal);
    }
    /// After find() failed: stores item `index` (already stored by the owner, so that hashOf(index) works).
    template <typename HashOf>
    void insert(const IndexProbe& p, uint64_t h, uint32_t index, HashOf&& hashOf) {
        insertIndex(m_slots, p, h, index, ++m_size, hashOf);
    }
    std::size_t size() const { return m_size; }
    /// Asks for the slot where a find(h) starts (a cache miss in a big table), ahead of the find.
    void prefetch(uint64_t h) const { __builtin_prefetch(m_slots.data() + (h & (m_slots.size() - 1))); }
    /// The item a find(h) would test first: the first of the probe's slots whose tag matches h (of at most
    /// four), else IndexProbe::kAbsent. A hint for asking for the item's own memory ahead of the find; the
    /// find still decides.
    uint32_t candidate(uint64_t h) const {
        const std::size_t mask = m_slots.size() - 1;
        std::size_t i = h & mask;
        for (int n = 0; n < 4; ++n, i = (i + 1) & mask) {
            const uint64_t slot = m_slots[i];
            if (!slot)
                break;
            if (slotTagMatches(slot, h))
                return slotValue(slot);
        }
        return IndexProbe::kAbsent;
    }

private:
    std::vector<uint64_t> m_slots;
    std::size_t m_size = 0;
};

} // namespace scorch::detail

namespace scorch::detail {

/// Open-addressing map from a 64-bit key to a 32-bit value, the key stored in the table (for keys that are
/// not items of a vector; see IndexTable for those): one flat array, no per-entry allocation.
class FlatMap64 {
public:
    FlatMap64()
        : m_keys(1024, kEmpty)
        , m_values(1024, 0) {}

    /// The value stored for key, inserting `fresh` when the key is new (then `inserted` is true). The
    /// reference stays valid until the next insertion.
    uint32_t& findOrInsert(uint64_t key, uint32_t fresh, bool& inserted) {
        if ((m_size + 1) * 2 > m_keys.size())
            grow();
        const std::size_t mask = m_keys.size() - 1;
        for (std::size_t i = hashInt(key) & mask;; i = (i + 1) & mask) {
            if (m_keys[i] == key) {
                inserted = false;
                return m_values[i];
            }
            if (m_keys[i] == kEmpty) {
                m_keys[i] = key;
                m_values[i] = fresh;
                inserted = true;
                ++m_size;
                return m_values[i];
            }
        }
    }

private:
    static constexpr uint64_t kEmpty = ~0ull; // never a real key: (parent, frame) ids stay below 2^32 - 1
    void grow() {
        std::vector<uint64_t> keys(m_keys.size() * 2, kEmpty);
        std::vector<uint32_t> values(keys.size(), 0);
        const std::size_t mask = keys.size() - 1;
        for (std::size_t j = 0; j < m_keys.size(); ++j) {
            if (m_keys[j] == kEmpty)
                continue;
            std::size_t i = hashInt(m_keys[j]) & mask;
            while (keys[i] != kEmpty)
                i = (i + 1) & mask;
            keys[i] = m_keys[j];
            values[i] = m_values[j];
        }
        m_keys.swap(keys);
        m_values.swap(values);
    }
    std::vector<uint64_t> m_keys;
    std::vector<uint32_t> m_values;
    std::size_t m_size = 0;
};

} // namespace scorch::detail
