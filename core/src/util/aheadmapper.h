// Internal: maps in the pages of an array that a thread fills front to back, a stretch ahead of the writer,
// on a thread of its own.
//
// The first write to an anonymous page faults, and the kernel zeroes the page first; on a VM whose host
// takes back the guest's free memory, the host backs it anew too (the PVM guest: ~2.2 ms a MiB, a page
// reached for the first time in a while). The thread merging fp-large.data's samples spent 37 % of its time
// there, mostly in the 180 MB of its stacks' address ids (MappedArray), while the other core idled about a
// quarter of the time: that thread is what the reading waits for. Here another thread takes those faults
// ahead of it (MADV_POPULATE_WRITE, Linux 5.14 on: the pages are mapped in, their contents left as they are).
//
// At most `distance` bytes past what is written are mapped in (memory held before it is used), so that the
// peak grows by that at most while the array grows. The thread starts once the array has grown past
// `distance` (small arrays never start one).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

namespace scorch::detail {

class AheadMapper {
public:
    explicit AheadMapper(std::size_t distance);
    ~AheadMapper(); ///< stops the thread (a call under way finishes first)
    AheadMapper(const AheadMapper&) = delete;
    AheadMapper& operator=(const AheadMapper&) = delete;

    /// The array's mapping: its start and length (whole pages). Call with mapLock() held, after creating or
    /// moving it (the bytes mapped in so far keep their offsets); nothing is mapped in before the first call.
    void mapping(char* base, std::size_t bytes);
    /// Held while the array's mapping is made or moved: the thread maps in pages only while it holds it.
    std::mutex& mapLock() { return m_mapLock; }
    /// The writer has written the first `bytes` of the array: pages up to `bytes` + distance are wanted.
    /// Cheap when nothing needs doing (an atomic load and a compare); never waits on the thread's work.
    void wrote(std::size_t bytes) {
        if (bytes + m_distance / 2 > m_wanted.load(std::memory_order_relaxed)) [[unlikely]]
            want(bytes + m_distance);
    }
    /// Bytes from the start that were mapped in here so far (for tests and traces).
    std::size_t mappedIn() const { return m_done.load(); }
    /// The thread found nothing (more) to map in and waits for the writer (for tests: until the next
    /// wrote(), mappedIn() stays as it is).
    bool idle() const { return m_idle.load(); }
    /// False where the kernel cannot map pages in ahead (before Linux 5.14): an AheadMapper's thread would
    /// stop at its first call (MappedArray::mapAhead() makes none).
    static bool supported();

private:
    void want(std::size_t upTo);
    void run();

    const std::size_t m_distance;
    std::atomic<std::size_t> m_wanted{0}; ///< map in up to here (bytes from the start)
    std::atomic<std::size_t> m_done{0};   ///< mapped in up to here
    std::atomic<bool> m_sleeping{false};  ///< the thread waits for more wanted
    std::atomic<bool> m_idle{false};      ///< it found nothing to do (idle())
    std::mutex m_mapLock;                 ///< guards m_base and the mapping against moves
    char* m_base = nullptr;               ///< the mapping (mapping()), under m_mapLock
    std::atomic<std::size_t> m_bytes{0};  ///< its length (0: none yet); written under m_mapLock
    std::mutex m_wakeMutex;
    std::condition_variable m_wake;
    std::atomic<bool> m_stop{false}; ///< set under m_wakeMutex
    std::thread m_thread;
};

} // namespace scorch::detail
