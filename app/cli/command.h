// The command table's entry type and what the commands share: usage texts from the table, one-line errors,
// and the options and loading of every command that reads profiles (profileoptions.cpp).
#pragma once

#include "cli/options.h"

#include "scorch/import.h"
#include "scorch/profile.h"
#include "scorch/samples.h"

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace scorch::cli {

/// One headless command of the scorch executable: its line in `scorch --help`, its usage text, its options.
struct Command {
    std::string_view name;
    std::string_view summary;    ///< one line for `scorch --help`
    std::string_view synopsis;   ///< the usage text before the option list ("Usage: scorch NAME ...")
    std::vector<Option> options; ///< listed in this order, before -h/--help
    std::string_view footer;     ///< the usage text after the option list
    bool readsProfiles = false;  ///< also takes the profile options (`profileOptionGroups`)
    OperandRules operands;
    int (*run)(const Command&, const Args&) = nullptr;
};

// The commands, one file each (collapse.cpp, info.cpp, ...); the table of them is in cli.cpp.
const Command& collapseCommand();
const Command& infoCommand();
const Command& diffCommand();
const Command& convertCommand();
const Command& svgCommand();
const Command& recordCommand();
const Command& topCommand();
const Command& callersCommand();
const Command& calleesCommand();
const Command& annotateCommand();

/// Every option `command` takes: its own, -h/--help, then the profile options it does not list itself.
std::vector<const Option*> commandOptions(const Command& command);
/// The full usage text of `command`, from its table entry.
std::string usage(const Command& command);
/// -o, --output OUT, described with `help` (convert, svg).
Option outputOption(std::string_view help);
/// "scorch: MESSAGE" (escapeText: control characters, invalid UTF-8 and bidi overrides shown escaped) and the
/// usage on standard error; exit status 2.
int usageError(const Command& command, const std::string& message);
/// "scorch: MESSAGE" (escaped as by usageError) on standard error; exit status 1.
int fail(const std::string& message);

// --- profile options (profileoptions.cpp) ------------------------------------------------------------------

/// The options of every command that reads profiles, in titled groups for the usage text. A command may list
/// one of them itself to describe it in its own words (`--event`); it is parsed the same way.
struct OptionGroup {
    std::string_view title; ///< a line before the options ("Symbols of ...:"), or empty
    std::vector<Option> options;
};
const std::vector<OptionGroup>& profileOptionGroups();
/// The profile option `key` ("--event") described with `help`, for a command's own option list.
Option profileOption(std::string_view key, std::string_view help);

/// One transform option as given: its key ("--focus") and value (empty for --collapse-recursion).
struct TransformArg {
    std::string option, value;
};

/// What the profile options ask for.
struct ProfileArgs {
    ImportOptions import;
    std::string event;                    ///< --event NAME, or empty for the default
    std::string time;                     ///< --time BEGIN-END as given, or empty
    std::vector<std::string> threads;     ///< --thread NAME|TID, repeatable
    std::vector<TransformArg> transforms; ///< --focus, --merge, ... in command-line order
};
/// The options every profile-reading command shares. Without --time and --thread no per-sample store is
/// kept (ImportOptions::sampleStore): a command that shows one sets it again.
ProfileArgs profileArgs(const Args& args);

/// What --time and --thread chose from a profile's timeline, for a command that shows it (info).
struct Selection {
    std::shared_ptr<const SampleStore> samples; ///< the whole profile's store; null without a timeline
    bool timeGiven = false;                     ///< --time was given
    TimeRange range;                            ///< --time, nanoseconds since the first sample
    std::vector<uint32_t> threads;              ///< --thread: indexes into Profile::threads; empty = all
};

/// "--time BEGIN-END": a half-open range of times since the first sample (`1.5s-3s`, `200ms-`, `-2s`; units
/// s, ms, us, ns, seconds without one). Returns an error message, or "" with `range` set.
std::string parseTimeRange(std::string_view text, TimeRange& range);
/// Why `p` has no timeline: "format folded stacks has no per-sample time" (or, for a format that may have
/// one, "this perf script input has no per-sample time").
std::string noTimelineReason(const Profile& p);

/// Imports `file` with `args`, turning importer exceptions into a one-line error, and runs `f` on the
/// profile, restricted to the samples of --time and --thread when given. Skipped input is summarised on
/// standard error in one line.
int withProfile(const std::string& file, const ProfileArgs& args, const std::function<int(Profile&)>& f);
/// The same, also telling `f` what --time and --thread selected.
int withProfile(const std::string& file, const ProfileArgs& args,
                const std::function<int(Profile&, const Selection&)>& f);

/// The cost type a command works on: --event NAME or the default one.
struct CostChoice {
    int type = 0;
    /// perf script's unnamed-event cost type ("samples"), counted along with any event; -1 when none.
    int alwaysIncluded = -1;
};
/// The default cost type of `p` (--event not given).
CostChoice defaultCostType(const Profile& p);
/// --event `event` (the default when empty), or an error message naming the events the file has.
std::string chooseCostType(const Profile& p, const std::string& event, CostChoice& choice);
/// True for differential folded stacks (`stack BEFORE AFTER`), whose folded output keeps both counts.
bool isDifferential(const Profile& p);

// --- transform options (transformoptions.cpp) --------------------------------------------------------------

/// --focus, --merge, --drop, --collapse-module, --merge-module, --collapse-recursion (a profile option
/// group).
OptionGroup transformOptionGroup();
/// The transform options of `args` in command-line order.
std::vector<TransformArg> transformArgs(const Args& args);
/// Applies `transforms` in order to `p` (its tree and per-thread costs). Returns an error message naming
/// the option ("" on success): a bad regular expression, a module the profile does not have.
std::string applyTransformArgs(Profile& p, const std::vector<TransformArg>& transforms);
/// The printed name of `frame` that --focus/--merge/--drop and the query commands match: as folded output
/// prints it.
std::string matchName(const Profile& p, FrameId frame);

/// Runs `write` into OUT atomically (never over INPUT), or into standard output when OUT is empty or "-".
int writeOutput(const std::string& output, const std::string& input,
                const std::function<void(std::ostream&)>& write);
/// Writes folded output to standard output.
int finishStandardOutput();
/// Reports that writing standard output failed with `err` (EIO when 0): "standard output: cannot write
/// (REASON)"; returns the exit status.
int standardOutputFailed(int err);

} // namespace scorch::cli
