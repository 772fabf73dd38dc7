// The sort of a batch's stacks by their frames, which IncrementalTree makes its nodes in (a stack after the
// one it shares the longest prefix with).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace scorch::detail {

/// A frame reference in three bytes, for batches of fewer than 2^24 references (fp-large: 45 M references of
/// the expanded stacks, 135 MB instead of 180 at the import's peak).
struct Ref24 {
    uint8_t b[3];
    static constexpr uint32_t kLimit = uint32_t(1) << 24; ///< the references that fit
    Ref24() = default;
    Ref24(uint32_t v) // NOLINT(google-explicit-constructor): written where a uint32_t reference would be
        : b{static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16)} {}
    operator uint32_t() const { // NOLINT(google-explicit-constructor): read as one
        return b[0] | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16;
    }
};
static_assert(sizeof(Ref24) == 3 && alignof(Ref24) == 1);

/// A stack to sort: its frame references (R: uint32_t or Ref24), root -> leaf (each stands for the key
/// refKey[reference]), and its number.
template <typename R>
struct BasicStackKey {
    const R* path;
    uint32_t size, stack;
    uint32_t next = 0; ///< (the sort's: the key at the depth its stack is sorted at, + 1; 0 past the end)
};
using StackKey = BasicStackKey<uint32_t>;

/// Sorts `keys` lexicographically by the keys of their references, a stack before the longer ones it is a
/// prefix of. Stacks with the same keys throughout end up next to each other, in no particular order. On two
/// threads when `twoThreads`. With `shared` (keys.size() elements), also says how many keys each sorted
/// stack has in common with the one before it (shared[0] = 0): known from where the sort told them apart, so
/// that a caller walking the sorted stacks need not compare each with the one before.
void sortStackKeys(std::span<StackKey> keys, const uint32_t* refKey, bool twoThreads,
                   uint32_t* shared = nullptr);
/// The same for references in three bytes.
void sortStackKeys(std::span<BasicStackKey<Ref24>> keys, const uint32_t* refKey, bool twoThreads,
                   uint32_t* shared = nullptr);

} // namespace scorch::detail
