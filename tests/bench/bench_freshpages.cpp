// bench_freshpages: what memory the process has not used before costs on this machine, against memory it
// has just given back.
//
//   build/tests/bench/bench_freshpages [--mb N] [--rounds R] [--pause S] [--pages 2m|4k|both]
//
// Maps N MB (default 256) of anonymous memory, advised for transparent huge pages, writes one byte per 4 KiB
// page (the first write faults the page in: the kernel zeroes it, and on a virtual machine whose host backs
// guest pages lazily, the host backs it too), then rewrites it all (memset: the pages are in place) and
// unmaps it; R rounds (default 3) one after the other, then again after a pause of S seconds (default 3), and
// the same with 4 KiB pages. On a guest that reports free memory to its host (virtio_balloon free page
// reporting: /sys/module/page_reporting exists), the first round and the one after the pause take far longer
// than the rounds that reuse the pages just unmapped; an import pays that price for every MB its peak grows
// by.
#include "benchutil.h"

#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

using scorch::bench::seconds;

namespace {

/// One round: map, first-touch, rewrite, unmap; prints the times. False when the mapping failed.
bool round(std::size_t bytes, bool huge, const char* label) {
    constexpr std::size_t kHuge = std::size_t(2) << 20;
    void* raw = ::mmap(nullptr, bytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return false;
    char* p = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(raw) + kHuge - 1) & ~(kHuge - 1));
    ::madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    const double t0 = seconds();
    for (std::size_t i = 0; i < bytes; i += 4096)
        p[i] = 1;
    const double t1 = seconds();
    std::memset(p, 2, bytes);
    const double t2 = seconds();
    ::munmap(raw, bytes + kHuge);
    const double mb = static_cast<double>(bytes) / 1e6;
    std::printf("%-28s %-9s first write %8.1f ms (%6.0f MB/s, %.2f ms/MB)   rewrite %6.1f ms\n", label,
                huge ? "2 MiB" : "4 KiB", (t1 - t0) * 1e3, mb / (t1 - t0), (t1 - t0) * 1e3 / mb,
                (t2 - t1) * 1e3);
    return true;
}

} // namespace

int main(int argc, char** argv) {
    std::size_t mb = 256;
    int rounds = 3;
    double pause = 3;
    std::string_view pages = "both";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string_view a = argv[i];
        if (a == "--mb")
            mb = std::strtoul(argv[i + 1], nullptr, 10);
        else if (a == "--rounds")
            rounds = std::atoi(argv[i + 1]);
        else if (a == "--pause")
            pause = std::atof(argv[i + 1]);
        else if (a == "--pages")
            pages = argv[i + 1];
        else {
            std::fprintf(stderr,
                         "usage: bench_freshpages [--mb N] [--rounds R] [--pause S] [--pages 2m|4k|both]\n");
            return 2;
        }
    }
    if (argc % 2 == 0 || mb == 0 || rounds < 1 || (pages != "both" && pages != "2m" && pages != "4k")) {
        std::fprintf(stderr,
                     "usage: bench_freshpages [--mb N] [--rounds R] [--pause S] [--pages 2m|4k|both]\n");
        return 2;
    }
    std::FILE* reporting = std::fopen("/sys/module/page_reporting/parameters/page_reporting_order", "r");
    int order = -1;
    if (reporting) {
        if (std::fscanf(reporting, "%d", &order) != 1)
            order = -1;
        std::fclose(reporting);
    }
    std::printf("bench_freshpages: %zu MB, %d rounds, pause %.1f s; free page reporting: %s", mb, rounds,
                pause, order >= 0 ? "on, order " : "not found\n");
    if (order >= 0)
        std::printf("%d (%d KiB blocks)\n", order, 4 << order);
    const std::size_t bytes = mb << 20;
    for (const bool huge : {true, false}) {
        if (pages != "both" && (pages == "2m") != huge)
            continue;
        for (int r = 0; r < rounds; ++r)
            if (!round(bytes, huge, r == 0 ? "round 1" : "again at once"))
                return 1;
        std::this_thread::sleep_for(std::chrono::duration<double>(pause));
        if (!round(bytes, huge, "after the pause"))
            return 1;
    }
    return 0;
}
