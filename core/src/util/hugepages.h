// Internal: transparent huge pages for the big arrays of an import.
//
// A 1.2M-node tree and its working arrays touch a few hundred MB once each; with 4 KiB pages that is tens of
// thousands of page faults (on the 2-core test machine ~60 ms of a 0.45 s perf.data import). Advising the
// kernel to back such arrays with 2 MiB pages where THP is enabled for advised regions (Debian's default,
// "madvise") takes one fault per 2 MiB instead. Without THP the advice does nothing.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace scorch::detail {

/// Advises huge pages for the 2 MiB-aligned part of [p, p + bytes) (nothing below 4 MiB).
inline void adviseHugePages(const void* p, std::size_t bytes) {
    constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
    if (bytes < 2 * huge)
        return;
    const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
    const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
    if (end > begin)
        ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

/// v.reserve(n), the new buffer advised for huge pages (before it is touched).
template <typename T>
void reserveHuge(std::vector<T>& v, std::size_t n) {
    if (n <= v.capacity())
        return;
    v.reserve(n);
    adviseHugePages(v.data(), v.capacity() * sizeof(T));
}

/// v.push_back(x), a full vector growing (doubling) into a huge-page-advised buffer.
template <typename T>
void pushHuge(std::vector<T>& v, const T& x) {
    if (v.size() == v.capacity())
        reserveHuge(v, v.capacity() < 512 ? 1024 : v.capacity() * 2);
    v.push_back(x);
}

/// v.assign(n, value) into a huge-page-advised buffer.
template <typename T>
void assignHuge(std::vector<T>& v, std::size_t n, const T& value) {
    if (n > v.capacity()) {
        std::vector<T>().swap(v);
        reserveHuge(v, n);
    }
    v.assign(n, value);
}

} // namespace scorch::detail
