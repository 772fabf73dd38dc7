// `scorch annotate FILE FUNCTION`: FUNCTION's machine instructions with the share of its samples that ended
// at each one and the source lines between them, like `perf annotate --stdio` (scorch/disasm.h).
#include "cli/query.h"

#include "scorch/disasm.h"
#include "scorch/safetext.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

namespace scorch::cli {

namespace {

std::string hex(uint64_t v) {
    char text[32];
    std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(v));
    return text;
}

int run(const Command& command, const Args& args) {
    return withFunction(command, args, [&](Profile& p, std::size_t type, const std::vector<FrameId>& frames) {
        Annotation a;
        try {
            a = annotate(p, frames.front());
            SourceLocatorConfig sources; // as the window's source view finds files, relative ones beside FILE
            sources.baseDir = std::filesystem::path(args.operands[0]).parent_path().string();
            addSourceText(a, sources);
        } catch (const DisasmError& e) {
            return fail(p.meta.source + ": " + escapeText(e.what()));
        }
        std::ostream& o = std::cout;
        const int64_t whole = a.total[type];
        o << "# " << escapeText(a.function) << " in " << escapeText(a.module) << " [0x" << hex(a.start)
          << ", 0x" << hex(a.end) << "): " << costNumber(p, type, whole) << " "
          << escapeText(p.costTypes[type].name) << " at its instructions";
        if (a.outside[type] != 0)
            o << ", " << costNumber(p, type, a.outside[type]) << " at addresses that start no instruction";
        o << "\n# self%        self  address  instruction\n";
        std::string source;
        for (const AnnotatedInstruction& i : a.instructions) {
            std::string here = i.file.empty() ? std::string() : i.file + ":" + std::to_string(i.line);
            if (!i.inlined.empty())
                here += " (inlined " + i.inlined + ")";
            if (here != source && !here.empty()) {
                const std::size_t indent = i.sourceText.find_first_not_of(" \t");
                o << "                           " << escapeText(here)
                  << (indent == std::string::npos ? std::string()
                                                  : "  " + escapeText(i.sourceText.substr(indent)))
                  << "\n";
            }
            source = here;
            char line[64];
            const std::string percent = i.self[type] ? percentOf(i.self[type], whole) : std::string();
            std::snprintf(line, sizeof line, "%7s %10s %8s:  ", percent.c_str(),
                          i.self[type] ? costNumber(p, type, i.self[type]).c_str() : "",
                          hex(i.address).c_str());
            o << line << i.mnemonic << (i.operands.empty() ? "" : " ") << i.operands << "\n";
        }
        return finishStandardOutput();
    });
}

} // namespace

const Command& annotateCommand() {
    static const Command command{
        .name = "annotate",
        .summary = "a function's instructions with the share of samples at each and its source lines",
        .synopsis = "Usage: scorch annotate [OPTIONS] FILE FUNCTION\n"
                    "\n"
                    "Disassembles FUNCTION from the module file its samples were symbolized from (build-id\n"
                    "verified; capstone, x86-64 and AArch64) and prints each instruction's address, the\n"
                    "share and cost of the samples that ended there, and the source lines between them\n"
                    "(with the inlined function they belong to), like `perf annotate --stdio`. perf.data\n"
                    "and Scorch recordings keep the instruction addresses; other formats have none.\n"
                    "FUNCTION is a name as `scorch collapse` prints it, or an ECMAScript regex that matches\n"
                    "one such name.\n",
        .options = {profileOption("--event", "the event to count (default: the first event)")},
        .footer = {},
        .readsProfiles = true,
        .operands = {.maxOperands = 2, .tooMany = "annotate: one FILE and one FUNCTION only"},
        .run = run,
    };
    return command;
}

} // namespace scorch::cli
