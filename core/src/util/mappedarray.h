// Internal: an append-only array of trivially copyable elements in its own anonymous mapping, which grows
// with mremap() instead of copying.
//
// A std::vector that doubles copies its elements into a new buffer each time; for a buffer of 100 MB that is
// another ~100 MB written to pages the kernel has to zero first (on a VM where the host backs a page on its
// first write, that zeroing and copying took a quarter of the time of the thread merging fp-large's
// samples). mremap() moves the pages instead: each element is written once, each page zeroed once.
#pragma once

#include "util/aheadmapper.h"
#include "util/hugepages.h"

#include <sys/mman.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

namespace scorch::detail {

template <typename T>
class MappedArray {
    static_assert(std::is_trivially_copyable_v<T>,
                  "MappedArray moves its pages: T must be trivially copyable");

public:
    MappedArray() = default;
    ~MappedArray() { release(); }
    MappedArray(const MappedArray&) = delete;
    MappedArray& operator=(const MappedArray&) = delete;
    MappedArray(MappedArray&& o) noexcept
        : m_data(std::exchange(o.m_data, nullptr))
        , m_size(std::exchange(o.m_size, 0))
        , m_bytes(std::exchange(o.m_bytes, 0))
        , m_ahead(std::move(o.m_ahead)) {}
    MappedArray& operator=(MappedArray&& o) noexcept {
        if (this != &o) {
            release();
            m_data = std::exchange(o.m_data, nullptr);
            m_size = std::exchange(o.m_size, 0);
            m_bytes = std::exchange(o.m_bytes, 0);
            m_ahead = std::move(o.m_ahead);
        }
        return *this;
    }

    std::size_t size() const { return m_size; }
    /// Elements the mapping has room for.
    std::size_t capacity() const { return m_bytes / sizeof(T); }
    bool empty() const { return m_size == 0; }
    T* data() { return m_data; }
    const T* data() const { return m_data; }
    T& operator[](std::size_t i) { return m_data[i]; }
    const T& operator[](std::size_t i) const { return m_data[i]; }
    const T* begin() const { return m_data; }
    const T* end() const { return m_data + m_size; }

    /// Appends `items` (which must not point into this array: growing may move it).
    void append(std::span<const T> items) {
        if (items.empty())
            return;
        reserve(m_size + items.size());
        std::memcpy(static_cast<void*>(m_data + m_size), items.data(), items.size_bytes());
        m_size += items.size();
        if (m_ahead)
            m_ahead->wrote(m_size * sizeof(T));
    }
    void push_back(const T& x) { append(std::span<const T>(&x, 1)); }

    /// Room for n elements (the capacity at least doubles: amortised O(1) appends); throws std::bad_alloc.
    void reserve(std::size_t n) {
        if (n * sizeof(T) <= m_bytes)
            return;
        std::size_t bytes = std::max(n * sizeof(T), m_bytes * 2);
        bytes = std::max<std::size_t>(roundUp(bytes, kPageBytes), 64 * 1024);
        if (bytes >= 2 * kHugePageBytes) // whole huge pages, so that the last one can be one too
            bytes = roundUp(bytes, kHugePageBytes);
        std::unique_lock<std::mutex> moving;
        if (m_ahead)
            moving = std::unique_lock(m_ahead->mapLock());
        void* p = m_data ? ::mremap(m_data, m_bytes, bytes, MREMAP_MAYMOVE)
                         : ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            throw std::bad_alloc();
        m_data = static_cast<T*>(p);
        m_bytes = bytes;
        if (m_ahead)
            m_ahead->mapping(reinterpret_cast<char*>(m_data), m_bytes);
        adviseHugePages(m_data, m_bytes);
    }

    /// Gives back the pages that hold only elements before n, rounded down to whole huge pages from 2 MiB on
    /// (those elements read as zero afterwards; the size stays): for a reader done with the front of a large
    /// array, whose memory may then serve what it writes. No more pages are mapped in ahead (mapAhead()) from
    /// then on: the array is being read, not grown.
    void discardFront(std::size_t n) {
        m_ahead.reset();
        const auto begin = reinterpret_cast<std::uintptr_t>(m_data);
        std::uintptr_t end = begin + std::min(n, m_size) * sizeof(T);
        end = roundDown(end, end - begin >= kHugePageBytes ? kHugePageBytes : kPageBytes);
        if (end > begin)
            ::madvise(m_data, end - begin, MADV_DONTNEED);
    }

    /// From now on, a thread of its own maps in up to `distance` bytes of pages past the elements written
    /// (AheadMapper, once the array has grown past `distance`), until discardFront() or release(); nothing
    /// where the kernel cannot.
    void mapAhead(std::size_t distance) {
        if (!AheadMapper::supported())
            return;
        m_ahead = std::make_unique<AheadMapper>(distance);
        if (m_data) { // (else reserve() tells it of the mapping it makes)
            std::lock_guard lock(m_ahead->mapLock());
            m_ahead->mapping(reinterpret_cast<char*>(m_data), m_bytes);
        }
    }
    /// Bytes from the start mapped in ahead of the writer so far (0 without mapAhead()).
    std::size_t mappedAhead() const { return m_ahead ? m_ahead->mappedIn() : 0; }
    /// Nothing more is mapped in ahead until the next append (AheadMapper::idle(); true without a thread).
    bool aheadIdle() const { return !m_ahead || m_ahead->idle(); }

    /// Empties the array and gives its memory back (and stops mapping in ahead).
    void release() {
        m_ahead.reset();
        if (m_data)
            ::munmap(m_data, m_bytes);
        m_data = nullptr;
        m_size = 0;
        m_bytes = 0;
    }

private:
    T* m_data = nullptr;
    std::size_t m_size = 0;
    std::size_t m_bytes = 0;              ///< of the mapping
    std::unique_ptr<AheadMapper> m_ahead; ///< mapAhead()
};

} // namespace scorch::detail
