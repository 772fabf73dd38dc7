// Internal hashing helpers shared by the interners and the tree builder.
#pragma once

#include <cstdint>

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
