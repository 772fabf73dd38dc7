// hugePages(): see scorch/hugepages.h.
#include "scorch/hugepages.h"

#include "util/hugepages.h"

#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>

namespace scorch {

namespace {

constexpr int kUnmeasured = -1;
std::atomic<int> g_speed{kUnmeasured};

/// Milliseconds to write 2 MiB of fresh 4 KiB pages, extrapolated from 64 of them (the faster of two tries:
/// a try the scheduler interrupted does not count).
double smallPagesMs() {
    constexpr std::size_t kPages = 64, bytes = kPages * detail::kPageBytes;
    double best = -1;
    for (int attempt = 0; attempt < 2; ++attempt) {
        void* map = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED)
            return -1;
        ::madvise(map, bytes, MADV_NOHUGEPAGE);
        auto* page = static_cast<volatile char*>(map);
        const auto start = std::chrono::steady_clock::now();
        for (std::size_t i = 0; i < kPages; ++i)
            page[i * detail::kPageBytes] = 1;
        const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
        ::munmap(map, bytes);
        if (best < 0 || took.count() < best)
            best = took.count();
    }
    return best * static_cast<double>(detail::kHugePageBytes / bytes);
}

HugePages measure() {
    if (!thpEnabled())
        return HugePages::Unavailable;
    // Where small pages are dear too (a fault per 4 KiB traps to the hypervisor: 2 MiB of them ~8 ms on a
    // guest under shadow paging, where a huge page took 0.1-0.2 ms, 5 ms when the host backed it anew), a
    // huge page is slow only when it costs more than the small pages it replaces; one or two tell.
    const double smallMs = smallPagesMs();
    const bool smallDear = smallMs > kSlowHugePageMs;
    const double limit = smallDear ? smallMs : kSlowHugePageMs;
    const std::size_t probePages = smallDear ? 2 : 16;
    constexpr std::size_t huge = detail::kHugePageBytes;
    const std::size_t bytes = probePages * huge + huge; // room to align the start to a huge page
    void* map = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED)
        return HugePages::Slow; // (no memory to spare: small pages are the safe choice)
    auto* first =
        reinterpret_cast<volatile char*>(detail::roundUp(reinterpret_cast<std::uintptr_t>(map), huge));
    ::madvise(const_cast<char*>(first), probePages * huge, MADV_HUGEPAGE);
    HugePages speed = HugePages::Fast;
    for (std::size_t i = 0; i < probePages; ++i) {
        const auto start = std::chrono::steady_clock::now();
        first[i * huge] = 1;
        const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
        if (took.count() > limit) {
            speed = HugePages::Slow;
            break;
        }
    }
    ::munmap(map, bytes);
    return speed;
}

} // namespace

bool thpEnabled() {
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    return std::getline(in, line) && line.find("[never]") == std::string::npos;
}

HugePages hugePages() {
    int speed = g_speed.load(std::memory_order_acquire);
    if (speed == kUnmeasured) {
        // (two threads may both measure on the first calls; the first result stays)
        int measured = static_cast<int>(measure());
        g_speed.compare_exchange_strong(speed, measured, std::memory_order_acq_rel);
        speed = g_speed.load(std::memory_order_acquire);
    }
    return static_cast<HugePages>(speed);
}

void assumeHugePages(HugePages speed) {
    g_speed.store(static_cast<int>(speed), std::memory_order_release);
}

const char* hugePagesName(HugePages speed) {
    switch (speed) {
    case HugePages::Unavailable:
        return "unavailable";
    case HugePages::Fast:
        return "fast";
    case HugePages::Slow:
        return "slow";
    }
    return "unknown";
}

} // namespace scorch
