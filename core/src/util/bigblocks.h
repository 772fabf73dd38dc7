// Internal: the page moves behind scorch/bigblocks.h.
#pragma once

#include <cstddef>

namespace scorch::detail {

/// Moves the pages of [from, from + n) to [to, to + n) (both 4 KiB-aligned, `to` mapped or not; what was
/// mapped there goes): the pages keep their contents and need no fault, the source range is unmapped
/// afterwards. One mremap() where the kernel moves the range at once (Linux 6.17 on moves a range of several
/// mappings; advice given to part of a block splits it into several); else 2 MiB at a time and, for a piece
/// that still spans mappings, page by page (`piecewise`: page by page throughout, for tests). A page that
/// cannot move is unmapped and its destination left as it was.
void movePages(char* from, std::size_t n, char* to, bool piecewise = false);

} // namespace scorch::detail
