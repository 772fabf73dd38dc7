// Folded ("collapsed") stack output, in the conventions of FlameGraph's stackcollapse scripts.
#pragma once

#include "scorch/profile.h"

#include <iosfwd>
#include <string>

namespace scorch {

struct FoldedOptions {
    int costType = 0;            ///< which cost type to write
    bool includePid = false;     ///< perf: root frame `comm-PID`
    bool includeTid = false;     ///< perf: root frame `comm-PID/TID`
    bool annotateKernel = false; ///< `_[k]` on kernel frames
    bool annotateJit = false;    ///< `_[j]` on JIT frames
    /// Samples whose event could not be named (perf script lines without an event) are added to every
    /// cost type, as stackcollapse-perf.pl does: set to that cost type's index, or -1.
    int alwaysIncludedCostType = -1;
    /// When set, lines carry two counts, `stack COUNT COUNT2` (the differential folded form).
    int secondCostType = -1;
};

/// Writes `stack count` lines sorted bytewise, identical stacks summed, zero counts left out.
void writeFolded(const Profile& profile, const FoldedOptions& options, std::ostream& out);

/// The name of a frame as written in folded output: `;` replaced, annotation suffix appended.
std::string foldedFrameName(const Profile& profile, FrameId frame, const FoldedOptions& options);

} // namespace scorch
