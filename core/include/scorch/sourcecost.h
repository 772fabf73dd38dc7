// Source-line costs of one function: which lines of which files its samples executed (self) or had on the
// stack (total), summed over the profile's LineCosts, hottest first. Feeds the source view.
#pragma once

#include "scorch/profile.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace scorch {

/// Which frames make up "the function" of a frame.
enum class FunctionScope : uint8_t {
    Frame,    ///< exactly this frame
    SameName, ///< every frame with the same function name and module (e.g. the same function seen with
              ///< different definition lines, or as both a native and an inlined frame)
};

/// One source line of a function with its costs, one value per cost type of the profile.
struct FunctionLine {
    StringId file;
    uint32_t line = 0;
    std::vector<int64_t> self;  ///< [costType]
    std::vector<int64_t> total; ///< [costType]
};

/// A file that a function's lines are in, with the summed costs of those lines.
struct FunctionFile {
    StringId file;
    int64_t self = 0;  ///< of the cost type the analysis was sorted by
    int64_t total = 0; ///< largest line total in the file (line totals overlap, so they are not summed)
};

struct FunctionSource {
    std::vector<FrameId> frames;     ///< the frames summed (sorted by id)
    std::vector<FunctionLine> lines; ///< sorted by self, then total (of `costType`), then file id, line
    std::vector<FunctionFile> files; ///< files of `lines`, by self then total, descending
    std::size_t costType = 0;        ///< the cost type `lines` and `files` are sorted by
    /// Where the function is defined, when a frame records it (speedscope / Chrome / pprof); else empty / 0.
    StringId definitionFile;
    uint32_t definitionLine = 0;

    /// True when the profile has per-line costs for this function.
    bool hasLineCosts() const { return !lines.empty(); }
    /// Index into `lines` of the hottest line (most self cost; most total cost when no line has self cost),
    /// or -1 without line costs.
    int hottest() const { return lines.empty() ? -1 : 0; }
    /// The file to open first: the hottest line's, else the definition's; empty when neither is known.
    StringId primaryFile() const { return lines.empty() ? definitionFile : lines.front().file; }
    /// The line to scroll to in primaryFile(): the hottest line, else the definition line; 0 when unknown.
    uint32_t primaryLine() const { return lines.empty() ? definitionLine : lines.front().line; }
};

/// The line costs of the function of `frame` in `profile`, sorted by `costType`. Totals of lines summed over
/// several frames (FunctionScope::SameName) count a sample once per frame, which only overcounts a line
/// that is on the stack under two different frames of the same function in one sample.
FunctionSource functionSource(const Profile& profile, FrameId frame, std::size_t costType = 0,
                              FunctionScope scope = FunctionScope::SameName);

/// The entries of `source.lines` in `file`, ordered by line number (the source view's gutter).
std::vector<const FunctionLine*> linesInFile(const FunctionSource& source, StringId file);

} // namespace scorch
