// `scorch callees FILE FUNCTION`: what FUNCTION calls over all its invocations (the lower half of the
// sandwich).
#include "cli/query.h"

namespace scorch::cli {

namespace {

int run(const Command& command, const Args& args) {
    return runSandwich(command, args, false);
}

} // namespace

const Command& calleesCommand() {
    static const Command command{
        .name = "callees",
        .summary = "what a function calls over all its invocations, as a text tree or JSON",
        .synopsis =
            "Usage: scorch callees [OPTIONS] FILE FUNCTION\n"
            "\n"
            "Prints FUNCTION and, below it, what it calls, what those call and so on, merged over all its\n"
            "invocations (every call site; each stack from FUNCTION's outermost call down, so recursion\n"
            "counts once and FUNCTION's line is its total cost in `scorch top`).\n"
            "FUNCTION is a name as `scorch collapse` prints it, or an ECMAScript regex that matches\n"
            "one such name.\n",
        .options = {{.longName = "--json", .help = "print JSON (docs/query-json.md, \"scorch-query/1\")"},
                    profileOption("--event", "the event to count (default: the first event)")},
        .footer = {},
        .readsProfiles = true,
        .operands = {.maxOperands = 2, .tooMany = "callees: one FILE and one FUNCTION only"},
        .run = run,
    };
    return command;
}

} // namespace scorch::cli
