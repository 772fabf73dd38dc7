// Internal: whether a file's pages are cheaper to parse where they are mapped or to read() into reused
// buffers, on this machine and for this file.
//
// The text importers parse an uncompressed file in its mapping. On most machines a page of the page cache
// then costs its share of a page fault (the kernel maps 16 pages, or a whole large folio, per fault) and is
// read once, which beats read()'s copy of every byte: on a 2 vCPU KVM guest, `scorch collapse` of 1.3 GB of
// perf script text to /dev/null took 0.42 s mapped against 0.50 s read. Where the first touch of every 4 KiB
// page traps to the hypervisor (a guest under shadow paging: `pvm_irq_enable` in its kernel's profiles), a
// page of a file whose page cache is in 4 KiB folios (just written in small writes: `perf script > out.txt`)
// costs ~1.6 us to touch, 8 times what copying it costs, and the same command took 0.90 s mapped against 0.60
// s read; the same file in large folios (read back after the cache was dropped), 0.44 s either way. Neither
// the machine nor the folios can be asked, so the importer times some of the file's pages: a probe of a few
// hundred microseconds to a few milliseconds on 2 MiB spread over it.
#pragma once

#include "scorch/import.h"

#include <cstddef>
#include <string_view>

namespace scorch::detail {

/// The bytes of a mapping that probeMappedPages() touches, in all.
inline constexpr std::size_t kProbedBytes = std::size_t(2) << 20;

struct MappedPageCost {
    double touchNs = 0;       ///< first touch of a mapped page (the median of the probe's spots)
    double copyNs = 0;        ///< copying a page's bytes out of the mapping once touched (likewise)
    bool readInstead = false; ///< touching costs more than twice copying: read() the file instead
};

/// Times the first touch of pages of a file mapping [bytes, bytes + size) (from mmap(): page-aligned, not yet
/// touched by anyone) against copying them out: 8 spots of 64 pages spread over the file, the medians. The
/// pages are given back afterwards (MADV_DONTNEED). Inputs under 16 MiB are not probed (readInstead false:
/// the difference is a few ms at most).
MappedPageCost probeMappedPages(const char* bytes, std::size_t size);

/// Whether an importer reads the file mapped at `mapped` with read() rather than parse the mapping in place:
/// as `access` says, Auto as the environment's SCORCH_READ_INPUT=1 (read) or 0 (map) says, else as the probe
/// finds (traced with SCORCH_TRACE=1, naming `what`).
bool readRatherThanMap(ImportOptions::FileAccess access, std::string_view mapped, const char* what);

} // namespace scorch::detail
