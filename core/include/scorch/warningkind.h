// What an import warning means for the profile: most are notes, a few are serious (the window shows those in
// a banner with what to do): the file is truncated, samples were lost, hot code has no symbols, many stacks
// could not be unwound. Classified from the messages the importers write (perf.data, Scorch recordings,
// the symbolizer's module report), which this file names.
#pragma once

#include "scorch/profile.h"

#include <string_view>

namespace scorch {

enum class WarningKind : uint8_t {
    Note,      ///< worth reading, not worth interrupting for
    Truncated, ///< the file ends early: the profile holds only the samples before the cut
    Lost,      ///< samples or events were lost while recording
    Symbols, ///< a module without symbols or with a build-id mismatch holds over kSeriousShare of the samples
    Unwind,  ///< over kSeriousShare of the stacks could not be unwound
};

/// The share of samples over which a module's or the unwinder's problem is serious.
inline constexpr double kSeriousShare = 0.05;

WarningKind warningKind(std::string_view message);
inline bool isSerious(const ImportWarning& w) {
    return warningKind(w.message) != WarningKind::Note;
}

/// Adds a serious warning after the serious ones already kept and ahead of the rest (the last kept note gives
/// way when the cap is reached), so the cap never drops it and the first one met stays first.
void warnSerious(ProfileMeta& meta, std::string message);

} // namespace scorch
