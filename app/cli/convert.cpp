// `scorch convert`: the profile as speedscope JSON, pprof or folded stacks.
#include "cli/command.h"

#include "scorch/export.h"
#include "scorch/foldedwriter.h"

namespace scorch::cli {

namespace {

int run(const Command&, const Args& args) {
    const std::string& to = args.value("--to");
    const std::string& output = args.value("--output");
    const ProfileArgs profile = profileArgs(args);
    if (to.empty())
        return usageError(convertCommand(), "convert: --to FORMAT is required (speedscope, pprof or folded)");
    if (to != "speedscope" && to != "pprof" && to != "folded")
        return usageError(convertCommand(),
                          "convert: unknown format \"" + to + "\" (speedscope, pprof or folded)");
    if (args.operands.empty())
        return usageError(convertCommand(), "convert: no FILE given");
    const std::string& file = args.operands.front();
    if (!output.empty() && output != "-" && output == file)
        return fail(output + ": is the input file; choose another output file name");
    return withProfile(file, profile, [&](Profile& p) {
        CostChoice choice;
        if (const std::string error = chooseCostType(p, profile.event, choice); !error.empty())
            return fail(error);
        if (to == "speedscope") {
            SpeedscopeOptions options;
            options.costType = choice.type;
            if (!args.has("--aggregate") &&
                p.costTypes[static_cast<std::size_t>(choice.type)].unit == CostUnit::Samples)
                options.sampleCountType = choice.type;
            return writeOutput(output, file, [&](std::ostream& out) { writeSpeedscope(p, options, out); });
        }
        if (to == "pprof") {
            PprofOptions options;
            options.gzip = !args.has("--no-gzip");
            return writeOutput(output, file, [&](std::ostream& out) { writePprof(p, options, out); });
        }
        FoldedOptions folded;
        folded.costType = choice.type;
        folded.alwaysIncludedCostType = profile.event.empty() ? choice.alwaysIncluded : -1;
        if (profile.event.empty() && isDifferential(p)) {
            folded.costType = 0;
            folded.secondCostType = 1;
        }
        return writeOutput(output, file, [&](std::ostream& out) { writeFolded(p, folded, out); });
    });
}

} // namespace

const Command& convertCommand() {
    static const Command command{
        .name = "convert",
        .summary = "write the profile as speedscope JSON, pprof or folded stacks",
        .synopsis = "Usage: scorch convert --to FORMAT [OPTIONS] FILE [-o OUT]\n"
                    "\n"
                    "Writes the profile in another format:\n"
                    "  speedscope   speedscope JSON (https://www.speedscope.app): shared frames, one sampled "
                    "profile per\n"
                    "               thread; a cost type counting samples is written one entry per sample, "
                    "others one entry\n"
                    "               per distinct stack with its summed weight\n"
                    "  pprof        pprof protobuf (gzip-compressed), readable by `go tool pprof`: every "
                    "cost type is a\n"
                    "               sample type, a `thread` label (and `pid`/`tid`) per sample, one mapping "
                    "per module\n"
                    "  folded       folded stacks, as `scorch collapse` prints them\n"
                    "Options:\n",
        .options = {{.longName = "--to", .value = "FORMAT", .help = "speedscope, pprof or folded (required)"},
                    outputOption("write OUT atomically (temporary file, then rename); never over FILE.\n"
                                 "Without -o, or with -o -, the output goes to standard output"),
                    profileOption("--event",
                                  "speedscope, folded: the cost type to write (default: the first event)"),
                    {.longName = "--aggregate",
                     .help =
                         "speedscope: one entry per distinct stack even for a cost type counting samples"},
                    {.longName = "--no-gzip", .help = "pprof: write uncompressed protobuf"}},
        .footer = "FILE \"-\" reads standard input.\n",
        .readsProfiles = true,
        .operands = {.maxOperands = 1, .tooMany = "convert: one FILE only"},
        .run = run,
    };
    return command;
}

} // namespace scorch::cli
