// `scorch info`: a summary of a profile (format, costs, threads, top functions, warnings).
#include "cli/command.h"

#include "scorch/analysis.h"
#include "scorch/safetext.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace scorch::cli {

namespace {

std::string percent(int64_t part, int64_t whole) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%5.1f%%",
                  whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
    return buf;
}

int run(const Command&, const Args& args) {
    if (args.operands.empty())
        return usageError(infoCommand(), "info: no FILE given");
    const ProfileArgs profile = profileArgs(args);
    return withProfile(args.operands.front(), profile, [&](Profile& p) {
        CostChoice choice;
        if (const std::string error = chooseCostType(p, profile.event, choice); !error.empty())
            return fail(error);
        const CallTree& tree = p.tree;
        std::size_t stacks = 0;
        for (NodeId n = 1; n < tree.size(); ++n)
            stacks += tree.hasSelfCost(n) ? 1 : 0;
        std::ostream& o = std::cout;
        o << "file:          " << escapeText(p.meta.source) << '\n';
        o << "format:        " << formatName(p.meta.format);
        if (!p.meta.compression.empty())
            o << " (" << escapeText(p.meta.compression) << "-compressed)";
        o << '\n';
        o << "bytes:         " << p.meta.inputBytes << '\n';
        for (const auto& [key, value] : p.meta.recording) {
            std::string label = escapeText(key) + ':';
            label.resize(std::max<std::size_t>(label.size() + 1, 15), ' ');
            o << label << escapeText(value) << '\n';
        }
        o << "samples:       " << p.meta.samples << '\n';
        o << "cost types:\n";
        for (std::size_t t = 0; t < p.costTypes.size(); ++t)
            o << "  " << escapeText(p.costTypes[t].name) << " (" << costUnitName(p.costTypes[t].unit)
              << "): " << formatCost(tree.grandTotal(t), p.costTypes[t]) << '\n';
        o << "unique stacks: " << stacks << '\n';
        o << "nodes:         " << tree.size() - 1 << '\n';
        o << "max depth:     " << tree.maxDepth() << '\n';
        if (p.meta.timeStart)
            o << "time range:    " << std::to_string(*p.meta.timeStart) << " - "
              << std::to_string(*p.meta.timeEnd) << " s ("
              << std::to_string(*p.meta.timeEnd - *p.meta.timeStart) << " s)\n";
        o << "threads:       " << p.threads.size() << '\n';
        std::vector<const ThreadInfo*> threads;
        for (const auto& t : p.threads)
            threads.push_back(&t);
        std::stable_sort(threads.begin(), threads.end(),
                         [](auto* a, auto* b) { return a->samples > b->samples; });
        for (std::size_t i = 0; i < threads.size() && i < 10; ++i) {
            const ThreadInfo& t = *threads[i];
            if (t.name.empty() && t.tid < 0)
                continue;
            o << "  " << t.samples << " samples  " << escapeText(t.name);
            if (t.pid >= 0 || t.tid >= 0)
                o << " [pid " << (t.pid >= 0 ? std::to_string(t.pid) : "?") << " tid " << t.tid << "]";
            o << '\n';
        }
        const int type = choice.type;
        const int64_t whole = tree.grandTotal(static_cast<std::size_t>(type));
        o << "top functions by self cost (" << escapeText(p.costTypes[static_cast<std::size_t>(type)].name)
          << "):\n";
        for (const FunctionCost& f : topFunctions(p, static_cast<std::size_t>(type), 10)) {
            const Frame& fr = p.frames[f.frame];
            o << "  " << percent(f.self[type], whole) << " self " << percent(f.total[type], whole)
              << " total  " << escapeText(p.strings.view(fr.name));
            if (fr.module)
                o << "  [" << escapeText(p.strings.view(fr.module)) << "]";
            o << '\n';
        }
        o << "warnings:      " << p.meta.warningCount << '\n';
        for (const ImportWarning& w : p.meta.warnings) {
            o << "  ";
            if (w.line > 0)
                o << "line " << w.line << ": ";
            o << escapeText(w.message) << '\n'; // escaped when kept; again in case a warning came another way
        }
        o.flush();
        return 0;
    });
}

} // namespace

const Command& infoCommand() {
    static const Command command{
        .name = "info",
        .summary = "summarise a profile: format, costs, threads, top functions, warnings",
        .synopsis = "Usage: scorch info [OPTIONS] FILE\n"
                    "\n"
                    "Prints the detected format, cost types with totals, sample count, unique stacks, "
                    "maximum depth,\n"
                    "threads, the 10 functions with the highest self cost and any import warnings. Text from "
                    "the profile\n"
                    "(names, warnings) is printed with control characters, invalid UTF-8 and bidi overrides "
                    "escaped (\\x1b, \\u202e).\n",
        .options = {profileOption("--event",
                                  "rank the top functions by this event (default: the first event)")},
        .footer = {},
        .readsProfiles = true,
        .operands = {.maxOperands = 1, .tooMany = "info: one FILE only"},
        .run = run,
    };
    return command;
}

} // namespace scorch::cli
