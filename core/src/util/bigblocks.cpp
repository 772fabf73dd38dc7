#include "scorch/bigblocks.h"

#include "scorch/hugepages.h"
#include "util/bigblocks.h"
#include "util/hugepages.h"

#include <sys/mman.h>

#include <algorithm>
#include <mutex>

namespace scorch {

namespace {

/// Blocks are whole huge pages long: Linux (6.7 on) places anonymous mappings of such lengths on a huge-page
/// boundary, so that all of a block can be huge pages and a move of 2 MiB-aligned pieces moves whole page
/// tables.
constexpr std::size_t kUnit = detail::kHugePageBytes;
constexpr std::size_t kPage = detail::kPageBytes;
/// At most so many blocks live and kept each (a slot is 16 bytes; an import has a few hundred at most):
/// a block beyond is left to malloc.
constexpr std::size_t kSlots = 4096;

struct Range {
    char* p;
    std::size_t len;
};

/// The state is constant-initialized (no constructor runs): operator new may come here before main().
struct State {
    std::mutex mutex;
    Range live[kSlots];
    std::size_t liveCount;
    Range kept[kSlots]; ///< oldest first
    std::size_t keptCount;
    std::size_t liveBytes, keptBytes;
    int scopes;
    uint64_t recycled, fresh;
};
constinit State g_state{};

void forgetKept(State& s, std::size_t i) {
    s.keptBytes -= s.kept[i].len;
    std::copy(s.kept + i + 1, s.kept + s.keptCount, s.kept + i);
    --s.keptCount;
}

void keep(State& s, Range r) {
    if (s.keptCount == kSlots) {
        ::munmap(s.kept[0].p, s.kept[0].len);
        forgetKept(s, 0);
    }
    s.kept[s.keptCount++] = r;
    s.keptBytes += r.len;
}

/// Keeps the stretches of `r` whose pages are mapped in and unmaps the others (a page never written costs a
/// fault wherever it is used: kept, it would only stand in the way), so that a kept block's pages are all
/// mapped and kept bytes are memory. Past kMaxStretches, the rest of the block is kept as it is.
void keepMapped(State& s, Range r) {
    constexpr std::size_t kMaxStretches = 16, kWindow = 65536; // pages a mincore() call
    static unsigned char in[kWindow];                          // (under the lock)
    std::size_t stretches = 0, runStart = 0;
    bool runMapped = false;
    const std::size_t pages = r.len / kPage;
    const auto close = [&](std::size_t end) { // the run [runStart, end) of pages
        if (end == runStart)
            return;
        Range run{r.p + runStart * kPage, (end - runStart) * kPage};
        if (runMapped) {
            keep(s, run);
            ++stretches;
        } else {
            ::munmap(run.p, run.len);
        }
    };
    for (std::size_t from = 0; from < pages; from += kWindow) {
        const std::size_t n = std::min(kWindow, pages - from);
        if (::mincore(r.p + from * kPage, n * kPage, in) != 0) { // (cannot tell: kept as it is)
            close(from);
            keep(s, {r.p + from * kPage, (pages - from) * kPage});
            return;
        }
        for (std::size_t i = 0; i < n; ++i) {
            const bool mapped = in[i] & 1;
            if (from + i == 0) {
                runMapped = mapped;
            } else if (mapped != runMapped) {
                close(from + i);
                runStart = from + i;
                runMapped = mapped;
                if (stretches == kMaxStretches) {
                    keep(s, {r.p + runStart * kPage, (pages - runStart) * kPage});
                    return;
                }
            }
        }
    }
    close(pages);
}

} // namespace

namespace detail {

void movePages(char* from, std::size_t n, char* to, bool piecewise) {
    if (!piecewise && ::mremap(from, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, to) != MAP_FAILED)
        return;
    const std::size_t step = n > kUnit ? kUnit : kPage;
    for (std::size_t off = 0; off < n; off += step) {
        const std::size_t len = std::min(step, n - off);
        if (step == kUnit)
            movePages(from + off, len, to + off, piecewise);
        else if (::mremap(from + off, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to + off) == MAP_FAILED)
            ::munmap(from + off, len);
    }
}

} // namespace detail

void* allocateBigBlock(std::size_t bytes) noexcept {
    if (bytes < kBigBlockBytes || bytes > (std::size_t(1) << 46))
        return nullptr;
    const std::size_t len = detail::roundUp(bytes, kUnit);
    const bool huge = hugePages() == HugePages::Fast; // (before the lock: the first call measures)
    State& s = g_state;
    std::lock_guard lock(s.mutex);
    if (s.liveCount == kSlots || s.scopes == 0)
        return nullptr;
    char* p = nullptr;
    // the most recently freed block that is large enough (its pages are the likeliest to be mapped)
    for (std::size_t i = s.keptCount; i-- > 0;) {
        Range& k = s.kept[i];
        if (k.len < len)
            continue;
        p = k.p;
        if (k.len > len) {
            k.p += len;
            k.len -= len;
            s.keptBytes -= len;
        } else {
            forgetKept(s, i);
        }
        s.recycled += len;
        break;
    }
    if (!p) {
        void* q = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (q == MAP_FAILED)
            return nullptr;
        p = static_cast<char*>(q);
        if (huge) // (glibc's own mappings get the same advice: cli/hugepagemalloc)
            ::madvise(p, len, MADV_HUGEPAGE);
        // none large enough: the kept blocks, the most recent first, moved to the start of the new one
        std::size_t filled = 0;
        while (filled < len && s.keptCount > 0) {
            Range& k = s.kept[s.keptCount - 1];
            const std::size_t take = std::min(k.len, len - filled);
            detail::movePages(k.p, take, p + filled);
            filled += take;
            if (take == k.len) {
                forgetKept(s, s.keptCount - 1);
            } else {
                k.p += take;
                k.len -= take;
                s.keptBytes -= take;
            }
        }
        s.recycled += filled;
        s.fresh += len - filled;
    }
    s.live[s.liveCount++] = {p, len};
    s.liveBytes += len;
    return p;
}

bool freeBigBlock(void* ptr) noexcept {
    if (!ptr || reinterpret_cast<std::uintptr_t>(ptr) % kPage != 0)
        return false;
    State& s = g_state;
    std::lock_guard lock(s.mutex);
    std::size_t i = 0;
    while (i < s.liveCount && s.live[i].p != ptr)
        ++i;
    if (i == s.liveCount)
        return false;
    const Range r = s.live[i];
    s.live[i] = s.live[--s.liveCount];
    s.liveBytes -= r.len;
    if (s.scopes == 0) {
        ::munmap(r.p, r.len);
        return true;
    }
    keepMapped(s, r);
    // beside the largest kept block (the likeliest to serve the next big one), kKeptBeside at most
    while (s.keptCount > 1) {
        std::size_t largest = 0;
        for (std::size_t i = 1; i < s.keptCount; ++i)
            if (s.kept[i].len > s.kept[largest].len)
                largest = i;
        if (s.keptBytes - s.kept[largest].len <= RecycleScope::kKeptBeside)
            break;
        const std::size_t oldest = largest == 0 ? 1 : 0;
        ::munmap(s.kept[oldest].p, s.kept[oldest].len);
        forgetKept(s, oldest);
    }
    return true;
}

RecycleScope::RecycleScope() noexcept {
    std::lock_guard lock(g_state.mutex);
    ++g_state.scopes;
}

RecycleScope::~RecycleScope() {
    State& s = g_state;
    std::lock_guard lock(s.mutex);
    if (--s.scopes > 0)
        return;
    for (std::size_t i = 0; i < s.keptCount; ++i)
        ::munmap(s.kept[i].p, s.kept[i].len);
    s.keptCount = 0;
    s.keptBytes = 0;
}

BigBlockStats bigBlockStats() noexcept {
    State& s = g_state;
    std::lock_guard lock(s.mutex);
    return {s.liveCount, s.liveBytes, s.keptCount, s.keptBytes, s.recycled, s.fresh};
}

} // namespace scorch
