// The sort of a batch's stacks by their frames, which IncrementalTree makes its nodes in (a stack after the
// one it shares the longest prefix with).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace scorch::detail {

/// A stack to sort: its frame references, root -> leaf (each stands for the key refKey[reference]), and
/// its number.
struct StackKey {
    const uint32_t* path;
    uint32_t size, stack;
    uint32_t next = 0; ///< (the sort's: the key at the depth its stack is sorted at, + 1; 0 past the end)
};

/// Sorts `keys` lexicographically by the keys of their references, a stack before the longer ones it is a
/// prefix of. Stacks with the same keys throughout end up next to each other, in no particular order. On two
/// threads when `twoThreads`. With `shared` (keys.size() elements), also says how many keys each sorted
/// stack has in common with the one before it (shared[0] = 0): known from where the sort told them apart, so
/// that a caller walking the sorted stacks need not compare each with the one before.
void sortStackKeys(std::span<StackKey> keys, const uint32_t* refKey, bool twoThreads,
                   uint32_t* shared = nullptr);

} // namespace scorch::detail
