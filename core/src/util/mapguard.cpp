#include "util/mapguard.h"

#include "util/hugepages.h"

#include <array>
#include <atomic>
#include <csignal>
#include <mutex>
#include <sys/mman.h>

namespace scorch::detail {

namespace {

/// A guarded mapping; read by the SIGBUS handler, so only lock-free atomics.
struct Slot {
    std::atomic<uintptr_t> begin{0}, end{0}; ///< end rounded up to whole pages; begin 0: free
    std::atomic<uintptr_t> lost{0};          ///< the first page replaced with zeros, 0: none
    std::atomic<bool> used{false};
};
static_assert(std::atomic<uintptr_t>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

constexpr std::size_t kSlots = 64;
std::array<Slot, kSlots> g_slots;
struct sigaction g_previous {};
std::once_flag g_installed;

void onSigbus(int sig, siginfo_t* info, void* context) {
    const auto at = reinterpret_cast<uintptr_t>(info->si_addr);
    if (info->si_code > 0) { // a fault, not kill(): the address is meaningful
        for (Slot& s : g_slots) {
            const uintptr_t begin = s.begin.load(std::memory_order_acquire);
            const uintptr_t end = s.end.load(std::memory_order_acquire);
            if (begin == 0 || at < begin || at >= end)
                continue;
            // zero pages from the lost one to the end: the faulting read, and every later one, find zeros
            const uintptr_t page = roundDown(at, kPageBytes);
            if (::mmap(reinterpret_cast<void*>(page), end - page, PROT_READ,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
                break;
            uintptr_t seen = s.lost.load(std::memory_order_relaxed);
            while ((seen == 0 || page < seen) && !s.lost.compare_exchange_weak(seen, page))
                ;
            return;
        }
    }
    // not a guarded mapping: whoever handled SIGBUS before
    if (g_previous.sa_flags & SA_SIGINFO) {
        if (g_previous.sa_sigaction) {
            g_previous.sa_sigaction(sig, info, context);
            return;
        }
    } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
        g_previous.sa_handler(sig);
        return;
    }
    // the default action: a fault repeats once this handler returns; a signal sent by kill() is raised again
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    ::sigaction(SIGBUS, &fallback, nullptr);
    if (info->si_code <= 0)
        ::raise(sig);
}

void install() {
    struct sigaction action {};
    action.sa_sigaction = onSigbus;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &g_previous);
}

} // namespace

bool MappingGuard::watch(const void* data, std::size_t size) {
    stop();
    if (!data || size == 0)
        return false;
    std::call_once(g_installed, install);
    for (std::size_t i = 0; i < kSlots; ++i) {
        bool expected = false;
        if (!g_slots[i].used.compare_exchange_strong(expected, true))
            continue;
        const auto begin = reinterpret_cast<uintptr_t>(data);
        g_slots[i].lost.store(0, std::memory_order_relaxed);
        g_slots[i].end.store(roundUp(begin + size, kPageBytes), std::memory_order_release);
        g_slots[i].begin.store(begin, std::memory_order_release);
        m_slot = static_cast<int>(i);
        return true;
    }
    return false;
}

void MappingGuard::stop() {
    if (m_slot < 0)
        return;
    Slot& s = g_slots[static_cast<std::size_t>(m_slot)];
    s.begin.store(0, std::memory_order_release);
    s.end.store(0, std::memory_order_release);
    s.used.store(false, std::memory_order_release);
    m_slot = -1;
}

std::optional<uint64_t> MappingGuard::lostFrom() const {
    if (m_slot < 0)
        return std::nullopt;
    const Slot& s = g_slots[static_cast<std::size_t>(m_slot)];
    const uintptr_t lost = s.lost.load(std::memory_order_acquire);
    if (lost == 0)
        return std::nullopt;
    return lost - s.begin.load(std::memory_order_relaxed);
}

} // namespace scorch::detail
