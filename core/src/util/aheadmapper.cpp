#include "util/aheadmapper.h"

#include "util/hugepages.h"

#include <sys/mman.h>

#include <algorithm>

namespace scorch::detail {

namespace {

/// Pages mapped in a call: one huge page (the lock that keeps the mapping from moving is held that long).
constexpr std::size_t kStep = kHugePageBytes;

} // namespace

bool AheadMapper::supported() {
#ifdef MADV_POPULATE_WRITE
    static const bool ok = [] {
        void* p = ::mmap(nullptr, kPageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return false;
        const bool works = ::madvise(p, kPageBytes, MADV_POPULATE_WRITE) == 0;
        ::munmap(p, kPageBytes);
        return works;
    }();
    return ok;
#else
    return false;
#endif
}

AheadMapper::AheadMapper(std::size_t distance)
    : m_distance(std::max(roundUp(distance, kPageBytes), kStep)) {}

AheadMapper::~AheadMapper() {
    {
        std::lock_guard lock(m_wakeMutex);
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

void AheadMapper::mapping(char* base, std::size_t bytes) {
    m_base = base;
    m_bytes = bytes;
    if (m_sleeping.load()) { // (more may be wanted now that the mapping grew)
        std::lock_guard lock(m_wakeMutex);
        m_wake.notify_all();
    }
}

void AheadMapper::want(std::size_t upTo) {
    m_wanted = roundUp(upTo, kPageBytes);
    // the thread starts once the array is past the distance: small arrays never need it
    if (!m_thread.joinable()) {
        if (upTo < 2 * m_distance)
            return;
        m_thread = std::thread([this] { run(); });
        return;
    }
    // (Dekker's pattern: either the thread, about to sleep, sees m_wanted, or we see it sleeping)
    if (m_sleeping.load()) {
        std::lock_guard lock(m_wakeMutex);
        m_wake.notify_all();
    }
}

void AheadMapper::run() {
    const auto limit = [this] { // what is wanted and inside the mapping
        return std::min(m_wanted.load(), m_bytes.load());
    };
    while (!m_stop.load()) { // (checked between steps: a destructor waits for one step at most)
        bool more = false;
        {
            std::lock_guard map(m_mapLock);
            const std::size_t done = m_done.load(), upTo = limit();
            if (done < upTo) { // (m_bytes is 0 until there is a mapping)
                const std::size_t to = std::min(upTo, roundDown(done, kStep) + kStep);
#ifdef MADV_POPULATE_WRITE
                if (::madvise(m_base + done, to - done, MADV_POPULATE_WRITE) != 0)
                    return; // (out of memory, or the kernel cannot, see supported(): the writer faults its
                            // pages itself)
#endif
                m_done = to;
                more = to < upTo;
            }
        }
        if (more)
            continue;
        std::unique_lock lock(m_wakeMutex);
        m_sleeping = true;
        m_wake.wait(lock, [&] {
            // (not under m_mapLock: mapping() takes m_wakeMutex with it held)
            const bool wake = m_stop || m_done.load() < limit();
            m_idle = !wake;
            return wake;
        });
        m_sleeping = false;
        if (m_stop)
            return;
    }
}

} // namespace scorch::detail
