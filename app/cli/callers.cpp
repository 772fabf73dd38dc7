// `scorch callers FILE FUNCTION`: who calls FUNCTION over all its call sites (the upper half of the
// sandwich).
#include "cli/query.h"

namespace scorch::cli {

namespace {

int run(const Command& command, const Args& args) {
    return runSandwich(command, args, true);
}

} // namespace

const Command& callersCommand() {
    static const Command command{
        .name = "callers",
        .summary = "the callers of a function over all its call sites, as a text tree or JSON",
        .synopsis =
            "Usage: scorch callers [OPTIONS] FILE FUNCTION\n"
            "\n"
            "Prints FUNCTION and, below it, its callers, their callers and so on out to the roots,\n"
            "merged over all its call sites: each line is the cost of the samples that reached\n"
            "FUNCTION through that chain of callers. A sample counts once even when FUNCTION recurses\n"
            "(from its outermost call), so FUNCTION's line is its total cost in `scorch top`.\n"
            "FUNCTION is a name as `scorch collapse` prints it, or an ECMAScript regex that matches\n"
            "one such name.\n",
        .options = {{.longName = "--json", .help = "print JSON (docs/query-json.md, \"scorch-query/1\")"},
                    profileOption("--event", "the event to count (default: the first event)")},
        .footer = {},
        .readsProfiles = true,
        .operands = {.maxOperands = 2, .tooMany = "callers: one FILE and one FUNCTION only"},
        .run = run,
    };
    return command;
}

} // namespace scorch::cli
