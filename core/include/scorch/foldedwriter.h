// Folded ("collapsed") stack output, in the conventions of FlameGraph's stackcollapse scripts.
#pragma once

#include "scorch/profile.h"

#include <iosfwd>
#include <string>
#include <string_view>

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

/// Text as written in a folded frame name, so that every stack stays one line of `;`-separated frames: `;`
/// becomes `:`, control characters (0x00–0x1F, 0x7F: newline, CR, NUL, ESC...) become the four characters
/// `\xHH`, and with `spacesToUnderscores` (process frames, `comm-PID`) a space becomes `_`.
std::string foldedText(std::string_view text, bool spacesToUnderscores = false);

/// The name of a frame as written in folded output: foldedText(), annotation suffix appended.
std::string foldedFrameName(const Profile& profile, FrameId frame, const FoldedOptions& options);

} // namespace scorch
