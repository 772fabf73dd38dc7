// `scorch collapse`: the profile as folded stacks, in the conventions of stackcollapse-perf.pl.
#include "cli/command.h"

#include "scorch/foldedwriter.h"

#include <iostream>

namespace scorch::cli {

namespace {

int run(const Command&, const Args& args) {
    FoldedOptions folded;
    folded.includePid = args.has("--pid");
    folded.includeTid = args.has("--tid");
    folded.annotateKernel = args.has("--kernel") || args.has("--all");
    folded.annotateJit = args.has("--jit") || args.has("--all");
    ProfileArgs profile = profileArgs(args);
    profile.import.perfAddresses = args.has("--addrs");
    if (args.operands.empty())
        return usageError(collapseCommand(), "collapse: no FILE given");
    return withProfile(args.operands.front(), profile, [&](Profile& p) {
        CostChoice choice;
        if (const std::string error = chooseCostType(p, profile.event, choice); !error.empty())
            return fail(error);
        folded.costType = choice.type;
        // unlike `convert --to folded`, the unnamed-event samples are counted with an explicit --event too
        folded.alwaysIncludedCostType = choice.alwaysIncluded;
        if (profile.event.empty() && isDifferential(p)) {
            folded.costType = 0;
            folded.secondCostType = 1;
        }
        writeFolded(p, folded, std::cout);
        return finishStandardOutput();
    });
}

} // namespace

const Command& collapseCommand() {
    static const Command command{
        .name = "collapse",
        .summary = "print the profile as folded stacks (stackcollapse-perf.pl conventions)",
        .synopsis =
            "Usage: scorch collapse [OPTIONS] FILE\n"
            "\n"
            "Prints the profile as folded stacks, `frame;frame;...;frame COUNT`, root first, lines sorted\n"
            "bytewise, in the conventions of FlameGraph's stackcollapse-perf.pl:\n",
        .options = {{.longName = "--pid", .help = "root frame is `comm-PID`"},
                    {.longName = "--tid", .help = "root frame is `comm-PID/TID`"},
                    {.longName = "--kernel", .help = "annotate kernel frames with _[k]"},
                    {.longName = "--jit", .help = "annotate JIT frames with _[j]"},
                    {.longName = "--all", .help = "--kernel and --jit"},
                    {.longName = "--addrs", .help = "name unresolved frames `[module <address>]`"},
                    profileOption("--event",
                                  "count samples of this event (default: the first event in the file)")},
        .footer = "FILE \"-\" reads standard input, e.g. `perf script | scorch collapse -`.\n",
        .readsProfiles = true,
        .operands = {.maxOperands = 1, .tooMany = "collapse: one FILE only"},
        .run = run,
    };
    return command;
}

} // namespace scorch::cli
