// `scorch diff`: the differential folded stacks of two profiles, `stack BEFORE AFTER`.
#include "cli/command.h"
#include "cli/comparearguments.h"

#include "scorch/diff.h"
#include "scorch/foldedwriter.h"

#include <iostream>

namespace scorch::cli {

namespace {

int run(const Command&, const Args& args) {
    DiffOptions options = comparisonOptionsFrom(args);
    options.matchModules = false; // the folded output names frames only: match them the same way
    const ProfileArgs profile = profileArgs(args);
    if (args.operands.size() != 2)
        return usageError(diffCommand(), "diff: needs two files, BEFORE and AFTER");
    return withProfile(args.operands[0], profile, [&](Profile& before) {
        return withProfile(args.operands[1], profile, [&](Profile& after) {
            std::size_t types[2];
            const Profile* sides[2] = {&before, &after};
            for (int s = 0; s < 2; ++s) {
                CostChoice choice;
                if (const std::string error = chooseCostType(*sides[s], profile.event, choice);
                    !error.empty())
                    return fail(error);
                types[s] = static_cast<std::size_t>(choice.type);
            }
            const Profile d = diffProfiles(before, types[0], after, types[1], options);
            FoldedOptions folded;
            folded.costType = kBefore;
            folded.secondCostType = kAfter;
            writeFolded(d, folded, std::cout);
            return finishStandardOutput();
        });
    });
}

std::vector<Option> diffOptions() {
    std::vector<Option> options = comparisonOptions();
    options.push_back(profileOption(
        "--event", "the event (cost type) to compare in both profiles (default: each one's first)"));
    return options;
}

} // namespace

const Command& diffCommand() {
    static const Command command{
        .name = "diff",
        .summary = "print the differential folded stacks of two profiles (`stack before after`)",
        .synopsis =
            "Usage: scorch diff [OPTIONS] BEFORE AFTER\n"
            "\n"
            "Prints `stack COUNT_BEFORE COUNT_AFTER` for every stack of either profile (0 where a profile "
            "lacks it),\n"
            "in the conventions of FlameGraph's difffolded.pl and inferno-diff-folded; the profiles may be "
            "in "
            "different\n"
            "formats. Frames match by function name. flamegraph.pl draws the output as a differential flame\n"
            "graph; Scorch opens it as a profile with two cost types, before and after.\n",
        .options = diffOptions(),
        .footer = {},
        .readsProfiles = true,
        .operands = {},
        .run = run,
    };
    return command;
}

} // namespace scorch::cli
