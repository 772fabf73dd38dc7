// `scorch top FILE`: the function table (self and total cost of every function over all its call sites).
#include "cli/query.h"

#include "scorch/analysis.h"
#include "scorch/safetext.h"

#include <algorithm>
#include <charconv>
#include <iostream>

namespace scorch::cli {

namespace {

int run(const Command& command, const Args& args) {
    if (args.operands.empty())
        return usageError(command, "top: no FILE given");
    const ProfileArgs profile = profileArgs(args);
    std::size_t limit = 20;
    if (args.has("-n")) {
        const std::string& n = args.value("-n");
        const auto r = std::from_chars(n.data(), n.data() + n.size(), limit);
        if (r.ec != std::errc() || r.ptr != n.data() + n.size())
            return usageError(command, "top: -n needs a count, not \"" + n + "\"");
    }
    const std::string by = args.has("--by") ? args.value("--by") : "self";
    if (by != "self" && by != "total")
        return usageError(command, "top: --by is self or total, not \"" + by + "\"");
    const bool json = args.has("--json");
    return withProfile(args.operands.front(), profile, [&](Profile& p) {
        CostChoice choice;
        if (const std::string error = chooseCostType(p, profile.event, choice); !error.empty())
            return fail(error);
        const auto type = static_cast<std::size_t>(choice.type);
        std::vector<FunctionCost> all = functionCosts(p);
        const bool bySelf = by == "self";
        std::stable_sort(all.begin(), all.end(), [&](const FunctionCost& a, const FunctionCost& b) {
            const int64_t ka = bySelf ? a.self[type] : a.total[type],
                          kb = bySelf ? b.self[type] : b.total[type];
            if (ka != kb)
                return ka > kb;
            return (bySelf ? a.total[type] : a.self[type]) > (bySelf ? b.total[type] : b.self[type]);
        });
        if (all.size() > limit)
            all.resize(limit);
        const int64_t whole = p.tree.grandTotal(type);
        std::ostream& o = std::cout;
        if (json) {
            writeJsonHeader(o, "top", p, type);
            o << ",\n  \"by\": " << jsonString(by) << ",\n  \"functions\": [";
            for (std::size_t i = 0; i < all.size(); ++i) {
                const FunctionCost& f = all[i];
                o << (i ? "," : "") << "\n    {\"name\": " << jsonString(matchName(p, f.frame))
                  << ", \"module\": " << jsonString(p.strings.view(p.frames[f.frame].module))
                  << ", \"self\": " << costNumber(p, type, f.self[type])
                  << ", \"total\": " << costNumber(p, type, f.total[type])
                  << ", \"callSites\": " << f.callSites << "}";
            }
            o << (all.empty() ? "]\n}\n" : "\n  ]\n}\n");
            return finishStandardOutput();
        }
        o << "# functions by " << by << " cost of " << costNumber(p, type, whole) << " "
          << escapeText(p.costTypes[type].name) << "\n";
        o << "#  self%        self   total%       total  function\n";
        for (const FunctionCost& f : all) {
            auto column = [](std::string s, std::size_t width) {
                s.insert(0, s.size() < width ? width - s.size() : 0, ' ');
                return s;
            };
            o << column(percentOf(f.self[type], whole), 8) << column(costNumber(p, type, f.self[type]), 12)
              << column(percentOf(f.total[type], whole), 9) << column(costNumber(p, type, f.total[type]), 12)
              << "  " << escapeText(matchName(p, f.frame));
            if (const StringId m = p.frames[f.frame].module; m)
                o << "  [" << escapeText(p.strings.view(m)) << "]";
            o << '\n';
        }
        return finishStandardOutput();
    });
}

} // namespace

const Command& topCommand() {
    static const Command command{
        .name = "top",
        .summary = "the function table: self and total cost of the top functions, as text or JSON",
        .synopsis = "Usage: scorch top [OPTIONS] FILE\n"
                    "\n"
                    "Prints the functions with the highest cost, each over all its call sites: self cost\n"
                    "(samples that ended in it) and total cost (samples with it on the stack, counted once\n"
                    "under recursion), with percentages of the whole profile.\n",
        .options =
            {{.shortName = "-n", .value = "N", .help = "print N functions (default 20)", .needs = "a count"},
             {.longName = "--by",
              .value = "self|total",
              .help = "sort by self (default) or total cost",
              .needs = "self or total"},
             {.longName = "--json", .help = "print JSON (docs/query-json.md, \"scorch-query/1\")"},
             profileOption("--event", "the event to count (default: the first event)")},
        .footer = {},
        .readsProfiles = true,
        .operands = {.maxOperands = 1, .tooMany = "top: one FILE only"},
        .run = run,
    };
    return command;
}

} // namespace scorch::cli
