// Whether this process backs its big arrays with transparent huge pages (THP).
//
// Where the kernel offers THP for advised memory (Debian's default), one page fault maps 2 MiB instead of
// 4 KiB: a big import takes a few hundred faults instead of tens of thousands. But on a virtual machine
// whose host takes back the guest's free memory (virtio_balloon free page reporting), a huge page the guest
// has not used lately is backed by the host only on its first write, and then it costs far more than the
// same 2 MiB in small pages: on the 2-vCPU KVM guest of the README, 2.6–4.2 ms for such a huge page, 0.09 ms
// for one used lately, 0.7 ms for 2 MiB of 4 KiB pages. The guest hands out the pages it freed lately first,
// so the first few huge pages a process faults in tell which kind it is getting: hugePages() measures that
// once, and the helpers of core/src/util/hugepages.h advise huge pages only when they are Fast. Where small
// pages are dear too (every 4 KiB fault traps to the hypervisor: on a 2 vCPU guest under shadow paging, 2 MiB
// of them ~8 ms, a huge page 0.1-0.2 ms, 5 ms when the host backs it anew), a huge page only has to beat
// them.
#pragma once

namespace scorch {

enum class HugePages {
    Unavailable, ///< THP is disabled on this system (or not for advised memory), or the user turned it off
    Fast,        ///< the first huge pages faulted in quickly: advised
    Slow,        ///< one of them took over kSlowHugePageMs: small pages instead
};

/// A huge page whose first write takes longer than this many milliseconds is a slow one (a hot one takes
/// ~0.1 ms, 4 KiB pages ~0.7 ms for the same 2 MiB on the VM above; on bare metal all take less).
inline constexpr double kSlowHugePageMs = 1.0;

/// The measurement (made on the first call, thread-safe): 64 small pages written (twice, the faster try
/// counts) for what 2 MiB of them cost, then up to 16 huge pages written one by one, in a mapping of their
/// own that is unmapped again; Slow at the first that takes longer than kSlowHugePageMs or, where the small
/// pages' 2 MiB took longer than that, longer than they did (then two huge pages tell).
HugePages hugePages();

/// Takes `speed` instead of measuring (a re-executed program that measured before it re-executed; the
/// user's own GLIBC_TUNABLES setting of glibc.malloc.hugetlb; tests).
void assumeHugePages(HugePages speed);

/// THP is enabled for advised memory ("always" or "madvise" in /sys/kernel/mm/transparent_hugepage/enabled).
bool thpEnabled();

/// One word for traces (SCORCH_TRACE=1, at the start of a perf.data import): "unavailable", "fast" or "slow".
const char* hugePagesName(HugePages speed);

} // namespace scorch
