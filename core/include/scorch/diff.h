// Comparing two profiles: one merged call tree that carries "before", "after" and "delta" costs, the
// semantics the comparison views choose (self or total delta, noise floor, chart widths) and a
// function-level summary of the biggest regressions and improvements.
#pragma once

#include "scorch/profile.h"

#include <vector>

namespace scorch {

struct DiffOptions {
    /// Scale "before" so that its total equals the "after" total (difffolded.pl -n): per stack,
    /// before' = floor(before * totalAfter / totalBefore).
    bool normalize = false;
    /// Rewrite hexadecimal literals `0x1234abcd` in frame names as `0x...` before matching (difffolded -s).
    bool stripHex = false;
    /// Match frames by function name and module (the module's file name, so that the same library under
    /// another directory still matches) when both profiles know modules; see diffMatchesModules().
    bool matchModules = true;
};

/// Index of the cost types in a diff profile. `kWidth` is what the differential chart is laid out by:
/// diffProfiles() sets it to "after"; diffLayoutTree() replaces it as the view asks.
enum DiffCost : std::size_t { kBefore = 0, kAfter = 1, kDelta = 2, kWidth = 3 };

/// True when diffProfiles() matches frames by name and module: `options.matchModules` is set and both
/// profiles have at least one frame with a module. When one side has none (folded stacks against a perf
/// recording), frames match by name alone, so the same recording in both forms gives no delta.
bool diffMatchesModules(const Profile& before, const Profile& after, const DiffOptions& options);

/// Merges two profiles of any formats into one tree. Frames match by their function name (and module, see
/// diffMatchesModules(); addresses and offsets are always ignored), stacks match frame by frame from the
/// root. The result has four cost types: before, after, delta = after - before (signed) and width (=
/// after); per node, self and total of each. `beforeType`/`afterType` pick the cost type of each input.
Profile diffProfiles(const Profile& before, std::size_t beforeType, const Profile& after,
                     std::size_t afterType, const DiffOptions& options = {});

enum class DiffStatus { Same, Grew, Shrank, Added, Removed };

/// How a node of a diff profile changed, by total cost: Added when only "after" has it, Removed when only
/// "before" has it.
DiffStatus diffStatus(const CallTree& diffTree, NodeId node);

/// `0x` followed by hex digits becomes `0x...`.
std::string stripHexLiterals(std::string_view name);

/// Whether deltas compare a frame's own (self) cost or its inclusive (total) cost.
enum class DiffMetric { Total, Self };

/// A node's cost of one diff cost type by the metric.
inline int64_t diffCost(const CallTree& t, std::size_t costType, NodeId n, DiffMetric metric) {
    return metric == DiffMetric::Self ? t.self(costType, n) : t.total(costType, n);
}

/// Deltas smaller than this are noise: |delta| < max(samples, percent% of the larger of the two totals).
/// Noise is drawn neutral (grey) or hidden, as the view chooses.
struct NoiseFloor {
    int64_t samples = 0;  ///< in cost units of the diff profile (fixed point)
    double percent = 0.0; ///< of max(total before, total after)
    int64_t threshold(const CallTree& diffTree) const;
};

/// What the differential chart's widths are: "after" (flamegraph.pl's differential), "before", or the
/// larger of the two per stack (every frame of both profiles fits).
enum class DiffWidth { After, Before, Max };

struct DiffLayoutOptions {
    DiffWidth width = DiffWidth::After;
    /// With After widths, stacks that exist only in "before" (removed) are drawn at their before cost;
    /// with Before widths, stacks only in "after" (added) at their after cost. No effect with Max.
    bool showMissing = true;
    /// Hide stacks whose last frame's delta (by `metric`) is below this (0 = show everything).
    int64_t hideBelow = 0;
    DiffMetric metric = DiffMetric::Total;
    friend bool operator==(const DiffLayoutOptions&, const DiffLayoutOptions&) = default;
};

/// A copy of a diff profile's tree (same node ids) whose kWidth costs follow `options`; the other cost
/// types are unchanged.
CallTree diffLayoutTree(const CallTree& diffTree, const DiffLayoutOptions& options);

/// One function (frame) of a diff profile, summed over its call sites (recursion counted once).
struct FunctionDelta {
    FrameId frame;
    int64_t selfBefore = 0, selfAfter = 0, totalBefore = 0, totalAfter = 0;
    int64_t selfDelta() const { return subCost(selfAfter, selfBefore); }
    int64_t totalDelta() const { return subCost(totalAfter, totalBefore); }
    int64_t delta(DiffMetric m) const { return m == DiffMetric::Self ? selfDelta() : totalDelta(); }
    /// Added / Removed when only one side has the function; otherwise by total.
    DiffStatus status() const;
};

/// Every function of a diff profile (the tree's own frames), in first-seen preorder.
std::vector<FunctionDelta> functionDeltas(const Profile& diff);

/// The `limit` functions that grew most (regressions: largest positive delta first) or shrank most
/// (improvements: most negative first) by the metric; functions without that change are left out.
std::vector<FunctionDelta> biggestChanges(std::vector<FunctionDelta> functions, DiffMetric metric,
                                          bool regressions, std::size_t limit);

} // namespace scorch
