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

HugePages measure() {
    if (!thpEnabled())
        return HugePages::Unavailable;
    constexpr std::size_t kProbePages = 16, huge = detail::kHugePageBytes;
    const std::size_t bytes = kProbePages * huge + huge; // room to align the start to a huge page
    void* map = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED)
        return HugePages::Slow; // (no memory to spare: small pages are the safe choice)
    auto* first =
        reinterpret_cast<volatile char*>(detail::roundUp(reinterpret_cast<std::uintptr_t>(map), huge));
    ::madvise(const_cast<char*>(first), kProbePages * huge, MADV_HUGEPAGE);
    HugePages speed = HugePages::Fast;
    for (std::size_t i = 0; i < kProbePages; ++i) {
        const auto start = std::chrono::steady_clock::now();
        first[i * huge] = 1;
        const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
        if (took.count() > kSlowHugePageMs) {
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
