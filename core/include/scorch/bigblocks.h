// Big blocks of memory, recycled while a perf.data import builds its tree.
//
// The build frees working arrays of a few hundred MB (the expanded stacks' frames, the sort's keys) and
// right after allocates the profile's arrays. glibc maps each block of 4 MiB and more apart and unmaps it
// when it is freed, so that the next one faults in fresh pages, each zeroed by the kernel (and, on a VM
// whose host takes back free memory, backed by the host again): fp-large in 4 KiB pages makes 38 000 such
// faults in the build's last phase alone. Here, while a RecycleScope lives, big blocks are mapped here; the
// pages of a freed one that were written are kept (the others are unmapped: they would cost a fault
// anywhere), and the next big block is made of kept ones: the most recently kept stretch that is large
// enough, or else kept stretches moved into one range with mremap() (their pages move with them, already
// mapped), fresh pages only for the rest.
// Outside a scope, big blocks are left to malloc, which may serve one from free memory of its heap: over a
// whole import (its reading too), recycling made fp-large 5 % faster still but raised its peak by 10 MB (a
// kept page goes to a block whose owner may never write it), within the build alone it does not.
//
// The executable routes operator new and delete of blocks of kBigBlockBytes and more here
// (app/cli/bigblocks.cpp); programs that do not (tests, fuzzers, sanitizer builds) keep glibc's behaviour
// and the scopes change nothing for them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace scorch {

/// The smallest block handled here (glibc's mmap threshold as the program sets it: cli/hugepagemalloc).
inline constexpr std::size_t kBigBlockBytes = std::size_t(4) << 20;

/// Inside a RecycleScope, a block of at least `bytes` (kBigBlockBytes or more), 4 KiB-aligned, its contents
/// undefined (a recycled block keeps what it held); nullptr outside a scope, or when no memory is left (the
/// caller then asks malloc).
void* allocateBigBlock(std::size_t bytes) noexcept;

/// Frees `p` if it is a block allocateBigBlock() gave (kept for recycling while a RecycleScope lives,
/// else unmapped); false, doing nothing, for any other pointer.
bool freeBigBlock(void* p) noexcept;

/// While one lives (on any thread), big blocks are allocated here, and the written pages of freed ones are
/// kept for the next ones: the largest stretch, and up to kKeptBeside bytes of others (the oldest unmapped
/// beyond: a kept page that is not reused is memory held in vain); when the last scope ends, the kept pages
/// are unmapped.
class RecycleScope {
public:
    RecycleScope() noexcept;
    ~RecycleScope();
    RecycleScope(const RecycleScope&) = delete;
    RecycleScope& operator=(const RecycleScope&) = delete;

    static constexpr std::size_t kKeptBeside = std::size_t(16) << 20;
};

/// What the big blocks did so far (for traces and tests).
struct BigBlockStats {
    std::size_t liveBlocks = 0, liveBytes = 0; ///< allocated and not freed
    std::size_t keptBlocks = 0, keptBytes = 0; ///< freed and kept for recycling
    uint64_t recycledBytes = 0;                ///< of the blocks given out, made of kept blocks
    uint64_t freshBytes = 0;                   ///< of the blocks given out, newly mapped
};
BigBlockStats bigBlockStats() noexcept;

} // namespace scorch
