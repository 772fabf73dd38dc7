// The options of every command that reads profiles, parsed once for all of them. To add one (say --thread):
// its `Option` in profileOptionGroups(), its field in `ProfileArgs` (command.h) filled in profileArgs(), and
// its effect in withProfile(); every such command then takes it and lists it in its usage.
#include "cli/command.h"

#include "scorch/export.h"
#include "scorch/safetext.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace scorch::cli {

const std::vector<OptionGroup>& profileOptionGroups() {
    static const std::vector<OptionGroup> groups = {
        {"",
         {{.shortName = {},
           .longName = "--event",
           .value = "NAME",
           .help = "the event (cost type) to use (default: the first event)",
           .needs = "an event name",
           .alias = "--event-filter"}}},
        {"Symbols of perf.data and Scorch recordings:",
         {{.shortName = {},
           .longName = "--symbol-path",
           .value = "DIR",
           .help = "also look for modules by file name in DIR (repeatable)",
           .needs = "a directory"},
          {.shortName = {},
           .longName = "--debug-dir",
           .value = "DIR",
           .help = "also look for debug info in DIR, laid out as /usr/lib/debug (repeatable)",
           .needs = "a directory"},
          {.shortName = {},
           .longName = "--sysroot",
           .value = "DIR",
           .help = "find recorded module paths below DIR (a recording from another system)",
           .needs = "a directory"}}},
        transformOptionGroup(),
    };
    return groups;
}

Option profileOption(std::string_view key, std::string_view help) {
    for (const OptionGroup& group : profileOptionGroups())
        for (Option o : group.options)
            if (o.key() == key) {
                o.help = help;
                return o;
            }
    return {};
}

ProfileArgs profileArgs(const Args& args) {
    ProfileArgs p;
    p.event = args.value("--event");
    p.import.symbolSearchPaths = args.values("--symbol-path");
    p.import.debugDirs = args.values("--debug-dir");
    p.import.sysroot = args.value("--sysroot");
    p.transforms = transformArgs(args);
    return p;
}

int withProfile(const std::string& file, const ProfileArgs& args, const std::function<int(Profile&)>& f) {
    try {
        Profile profile = importProfile(file, args.import);
        if (const std::string summary = profile.meta.warningSummary(); !summary.empty())
            std::fprintf(stderr, "scorch: warning: %s\n", escapeText(summary).c_str());
        if (const std::string error = applyTransformArgs(profile, args.transforms); !error.empty())
            return fail(error);
        return f(profile);
    } catch (const ImportError& e) {
        return fail(e.what());
    } catch (const std::bad_alloc&) {
        return fail(file + ": out of memory");
    }
}

CostChoice defaultCostType(const Profile& p) {
    CostChoice choice;
    if (p.meta.format != Format::PerfScript)
        return choice;
    const int unnamed = p.costTypeIndex("samples");
    for (std::size_t i = 0; i < p.costTypes.size(); ++i)
        if (static_cast<int>(i) != unnamed) {
            choice.alwaysIncluded = unnamed;
            choice.type = static_cast<int>(i);
            return choice;
        }
    return choice;
}

std::string chooseCostType(const Profile& p, const std::string& event, CostChoice& choice) {
    choice = defaultCostType(p);
    if (event.empty())
        return {};
    choice.type = p.costTypeIndex(event);
    if (choice.type >= 0)
        return {};
    std::string names;
    for (const auto& t : p.costTypes)
        names += (names.empty() ? "" : ", ") + t.name;
    return p.meta.source + ": no event named \"" + event + "\" (the file has: " + names + ")";
}

bool isDifferential(const Profile& p) {
    return p.meta.format == Format::FoldedDiff;
}

int finishStandardOutput() {
    std::cout.flush();
    const int err = errno;
    return std::cout
               ? 0
               : fail(std::string("standard output: cannot write (") + std::strerror(err ? err : EIO) + ")");
}

int writeOutput(const std::string& output, const std::string& input,
                const std::function<void(std::ostream&)>& write) {
    try {
        if (output.empty() || output == "-") {
            try {
                write(std::cout);
            } catch (const ExportError&) {
                const int err = errno; // the writers say only that the stream failed
                return fail(std::string("standard output: cannot write (") + std::strerror(err ? err : EIO) +
                            ")");
            }
            return finishStandardOutput();
        }
        writeFileAtomically(output, input, write);
        return 0;
    } catch (const ExportError& e) {
        return fail(e.what());
    }
}

} // namespace scorch::cli
