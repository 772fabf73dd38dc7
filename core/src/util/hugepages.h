// Internal: transparent huge pages for the big arrays of an import.
//
// A 1.2M-node tree and its working arrays touch a few hundred MB once each; with 4 KiB pages that is tens of
// thousands of page faults (on the 2-core test machine ~60 ms of a 0.45 s perf.data import). Advising the
// kernel to back such arrays with 2 MiB pages where THP is enabled for advised regions (Debian's default,
// "madvise") takes one fault per 2 MiB instead. Without THP the advice does nothing. Where huge pages fault
// in slowly (a VM whose host takes back free memory: scorch/hugepages.h), the helpers advise against them.
#pragma once

#include "scorch/hugepages.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace scorch::detail {

/// A page's bytes, and the size of the smallest array the helpers below advise the kernel about (a call
/// costs more than a small array's pages).
constexpr std::uintptr_t kPageBytes = 4096;
constexpr std::size_t kHugePageBytes = std::size_t(2) << 20;
constexpr std::size_t kAdviseFrom = std::size_t(4) << 20;

/// x rounded down / up to a multiple of `unit` (a power of two).
constexpr std::uintptr_t roundDown(std::uintptr_t x, std::uintptr_t unit) {
    return x & ~(unit - 1);
}
constexpr std::uintptr_t roundUp(std::uintptr_t x, std::uintptr_t unit) {
    return roundDown(x + unit - 1, unit);
}

/// madvise(advice) over the pages of [p, p + bytes), rounded out to whole pages; nothing below 4 MiB.
inline void advisePages(const void* p, std::size_t bytes, int advice) {
    if (bytes < kAdviseFrom)
        return;
    const std::uintptr_t begin = roundDown(reinterpret_cast<std::uintptr_t>(p), kPageBytes);
    const std::uintptr_t end = roundUp(reinterpret_cast<std::uintptr_t>(p) + bytes, kPageBytes);
    ::madvise(reinterpret_cast<void*>(begin), end - begin, advice);
}

/// The whole 4 KiB pages inside [p, p + bytes): [first, end), empty (first >= end) where there is none.
inline std::pair<std::uintptr_t, std::uintptr_t> innerPages(std::uintptr_t p, std::size_t bytes) {
    return {roundUp(p, kPageBytes), roundDown(p + bytes, kPageBytes)};
}

/// madvise(advice) over the whole pages inside [p, p + bytes), nothing below 4 MiB. Rounded in, not out: the
/// bytes of a neighbouring allocation sharing the first or last page are not touched.
inline void adviseInnerPages(const void* p, std::size_t bytes, int advice) {
    if (bytes < kAdviseFrom)
        return;
    const auto [begin, end] = innerPages(reinterpret_cast<std::uintptr_t>(p), bytes);
    if (end > begin)
        ::madvise(reinterpret_cast<void*>(begin), end - begin, advice);
}

/// Gives the whole pages inside [p, p + bytes) to the kernel lazily (MADV_FREE; nothing below 4 MiB): it
/// takes them when it runs short of memory, and until then they stay mapped, so that writing them again
/// costs no page fault. Their contents are undefined afterwards (an old value or zero).
inline void freeLazily(const void* p, std::size_t bytes) {
    adviseInnerPages(p, bytes, MADV_FREE);
}

/// Gives the whole pages inside [p, p + bytes) back to the kernel at once (MADV_DONTNEED; nothing below 4
/// MiB): for the part of an array that was read for the last time while the rest is still in use. They read
/// as zero afterwards.
inline void giveBack(const void* p, std::size_t bytes) {
    adviseInnerPages(p, bytes, MADV_DONTNEED);
}

/// The capacity to reserve for n elements of `size` bytes: from 4 MiB on, rounded up so that the bytes asked
/// of malloc are a whole number of huge pages less 32. Where glibc serves the request with a mapping of its
/// own (above its mmap threshold), that mapping is then exactly that many huge pages long, and Linux places
/// mappings of such lengths on a huge-page boundary (6.7 on), so that every page of the buffer, its first and
/// last 2 MiB too, can be a huge one. (Otherwise its ends, on average 2 MiB of 4 KiB pages, cost a fault
/// each: about 6 ms a buffer on a VM, where a fault costs 10 us.) Elsewhere the rounding wastes under 2 MiB.
inline std::size_t hugeCapacity(std::size_t n, std::size_t size) {
    constexpr std::size_t header = 32;
    if (n * size < 2 * kHugePageBytes)
        return n;
    const std::size_t bytes = roundUp(n * size + header, kHugePageBytes) - header;
    return std::max(n, bytes / size);
}

/// Advises huge pages for [p, p + bytes) (nothing below 4 MiB): the kernel backs the 2 MiB-aligned stretches
/// of the mapping with huge pages. Where hugePages() found them slow, advises against them instead (where
/// THP is "always", the array then stays in small pages too).
inline void adviseHugePages(const void* p, std::size_t bytes) {
    if (bytes < kAdviseFrom)
        return;
    advisePages(p, bytes, hugePages() == HugePages::Fast ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
}

/// Maps in the pages of [p, p + bytes) that are not yet (from 4 MiB on; Linux 5.14 on), before they are
/// written: one call instead of a page fault per page, which on a VM costs 10 us each.
inline void populate(const void* p, std::size_t bytes) {
#ifdef MADV_POPULATE_WRITE
    advisePages(p, bytes, MADV_POPULATE_WRITE);
#else
    (void)p, (void)bytes;
#endif
}

/// v.reserve(n), the new buffer advised for huge pages (before it is touched), its capacity rounded by
/// hugeCapacity().
template <typename T>
void reserveHuge(std::vector<T>& v, std::size_t n) {
    if (n <= v.capacity())
        return;
    v.reserve(hugeCapacity(n, sizeof(T)));
    adviseHugePages(v.data(), v.capacity() * sizeof(T));
}

/// reserveHuge(v, n), the pages of the first n elements mapped in at once (populate()): for a vector about
/// to be filled with n elements.
template <typename T>
void reservePopulated(std::vector<T>& v, std::size_t n) {
    reserveHuge(v, n);
    populate(v.data(), n * sizeof(T));
}

/// A full vector's buffer doubled (pushHuge()), out of line: the push itself inlines in a hot loop.
template <typename T>
[[gnu::noinline]] void growHuge(std::vector<T>& v) {
    reserveHuge(v, v.capacity() < 512 ? 1024 : v.capacity() * 2);
}

/// v.push_back(x), a full vector growing (doubling) into a huge-page-advised buffer.
template <typename T>
inline void pushHuge(std::vector<T>& v, const T& x) {
    if (v.size() == v.capacity()) [[unlikely]]
        growHuge(v);
    v.push_back(x);
}

/// v.assign(n, value) into a huge-page-advised buffer.
template <typename T>
void assignHuge(std::vector<T>& v, std::size_t n, const T& value) {
    if (n > v.capacity()) {
        std::vector<T>().swap(v);
        reserveHuge(v, n);
    }
    populate(v.data(), n * sizeof(T));
    v.assign(n, value);
}

/// v sized n, a new buffer huge-page-advised and mapped in: the elements v had keep their values, the others
/// are zero. For arrays about to be written in full, so that a recycled one is not written twice
/// (SliceMemory). A new buffer has room for `room` elements where that is more than n, of which only the
/// first n are mapped in: a later resize up to `room` stays in place and maps in only what it adds (the
/// growing slices of a selection being dragged).
template <typename T>
void resizeHuge(std::vector<T>& v, std::size_t n, std::size_t room = 0) {
    if (n > v.capacity()) {
        std::vector<T>().swap(v);
        reserveHuge(v, std::max(n, room));
    }
    if (n > v.size())
        populate(v.data() + v.size(), (n - v.size()) * sizeof(T));
    v.resize(n);
}

} // namespace scorch::detail
