// Internal hashing helpers shared by the interners and the tree builder.
#pragma once

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

/// Open-addressing table helpers: slots hold (tag << 32 | value + 1); 0 means empty.
inline uint64_t makeSlot(uint64_t hash, uint32_t value) {
    return (hash & 0xffffffff00000000ull) | (static_cast<uint64_t>(value) + 1);
}
inline uint32_t slotValue(uint64_t slot) {
    return static_cast<uint32_t>(slot) - 1;
}
inline bool slotTagMatches(uint64_t slot, uint64_t hash) {
    return (slot & 0xffffffff00000000ull) == (hash & 0xffffffff00000000ull);
}

} // namespace scorch::detail

namespace scorch::detail {

/// Open-addressing map from a 64-bit key to a 32-bit value (e.g. (parent, frame) -> child): one flat array,
/// no per-entry allocation.
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
