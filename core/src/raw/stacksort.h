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

/// How far the frame references a[from, m) and b[from, m) agree, from `from` on: the same reference, or two
/// with the same key[reference] (the sort's keys, or the frames themselves). Stacks that share a prefix
/// mostly hold the same references there, whose keys are then not looked up.
template <typename Key>
std::size_t agreeFrom(const uint32_t* a, const uint32_t* b, std::size_t from, std::size_t m, const Key* key) {
    std::size_t d = from;
    while (d < m && (a[d] == b[d] || key[a[d]] == key[b[d]]))
        ++d;
    return d;
}

/// Sorts `keys` lexicographically by the keys of their references, a stack before the longer ones it is a
/// prefix of. Stacks with the same keys throughout end up next to each other, in no particular order. On two
/// threads when `twoThreads`.
void sortStackKeys(std::span<StackKey> keys, const uint32_t* refKey, bool twoThreads);

} // namespace scorch::detail
