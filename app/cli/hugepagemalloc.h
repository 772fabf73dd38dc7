// malloc's settings for the large blocks of a big profile, made first thing in main().
//
// Transparent huge pages, through glibc's own tunable (glibc.malloc.hugetlb=1, glibc >= 2.35). Opening a big
// profile first-touches a few hundred MB; with 4 KiB pages that is tens of thousands of page faults, and on a
// VM a fault costs microseconds (fp-medium.data: 49k faults, with the tunable 24k and a fifth less time).
// Tunables are read only when a program starts, so main() calls enableHugePageMalloc() first: it re-executes
// /proc/self/exe once with the tunable added, and the new image puts GLIBC_TUNABLES back as it was, so that
// programs Scorch starts (a recorded command, perf) inherit the user's environment unchanged.
//
// A fixed threshold for mapping a block apart (fixMallocMapThreshold(), mallopt at run time).
#pragma once

#include <string>

namespace scorch::cli {

/// Re-executes the program with glibc.malloc.hugetlb=1 unless GLIBC_TUNABLES already sets that tunable (the
/// user's choice wins, e.g. =0 to turn it off), THP is disabled system-wide, or the first huge pages fault in
/// slowly (scorch/hugepages.h: a VM whose host backs them anew); in the re-executed image, restores
/// GLIBC_TUNABLES. Returns (without re-executing) when anything fails.
void enableHugePageMalloc(char** argv);

/// One line for `scorch --version`: whether this process runs with the tunable, and why (not).
std::string hugePageMallocStatus();

/// Gives every block of 4 MiB or more a mapping of its own (mallopt M_MMAP_THRESHOLD), unless GLIBC_TUNABLES
/// sets glibc.malloc.mmap_threshold. glibc's own threshold rises with each large block freed (up to 32 MB),
/// after which blocks below it come from arenas that keep them when freed, one arena per thread: opening
/// fp-large.data peaked at 760 MB RSS, 643 MB with this, in no more time (scorch info, 3 runs alternated).
void fixMallocMapThreshold();

/// One line for `scorch --version`: what fixMallocMapThreshold() did.
std::string mallocMapThresholdStatus();

} // namespace scorch::cli
