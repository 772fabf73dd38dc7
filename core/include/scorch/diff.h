// Comparing two profiles: one merged call tree that carries "before", "after" and "delta" costs.
#pragma once

#include "scorch/profile.h"

namespace scorch {

struct DiffOptions {
    /// Scale "before" so that its total equals the "after" total (difffolded.pl -n): per stack,
    /// before' = floor(before * totalAfter / totalBefore).
    bool normalize = false;
    /// Rewrite hexadecimal literals `0x1234abcd` in frame names as `0x...` before matching (difffolded -s).
    bool stripHex = false;
};

/// Index of the cost types in a diff profile.
enum DiffCost : std::size_t { kBefore = 0, kAfter = 1, kDelta = 2 };

/// Merges two profiles of any formats into one tree. Frames match by their function name alone (modules,
/// addresses and offsets are ignored, so a perf script recording and its folded form match), stacks match
/// frame by frame from the root. The result has three cost types: before, after and delta = after - before
/// (signed); per node, self and total of each. `beforeType`/`afterType` pick the cost type of each input.
Profile diffProfiles(const Profile& before, std::size_t beforeType, const Profile& after,
                     std::size_t afterType, const DiffOptions& options = {});

enum class DiffStatus { Same, Grew, Shrank, Added, Removed };

/// How a node of a diff profile changed, by total cost: Added when only "after" has it, Removed when only
/// "before" has it.
DiffStatus diffStatus(const CallTree& diffTree, NodeId node);

/// `0x` followed by hex digits becomes `0x...`.
std::string stripHexLiterals(std::string_view name);

} // namespace scorch
