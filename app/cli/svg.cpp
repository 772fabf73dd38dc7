// `scorch svg`: an interactive flame graph SVG.
#include "cli/command.h"

#include "scorch/analysis.h"
#include "scorch/export.h"

#include <cstdlib>

namespace scorch::cli {

namespace {

/// A number from `low` to `high`, all of `text`.
bool number(const std::string& text, double low, double high, double& out) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(v >= low && v <= high))
        return false;
    out = v;
    return true;
}

int run(const Command& command, const Args& args) {
    SvgOptions options;
    const std::string& output = args.value("--output");
    const ProfileArgs profile = profileArgs(args);
    options.inverted = args.has("--inverted");
    const bool reverse = args.has("--reverse");
    options.subtitle = args.value("--subtitle");
    options.countName = args.value("--countname");
    if (args.operands.empty())
        return usageError(command, "svg: no FILE given");
    double v = 0;
    if (!args.value("--width").empty()) {
        if (!number(args.value("--width"), 100, 100000, v))
            return usageError(command, "svg: --width must be a number of pixels from 100 to 100000");
        options.width = static_cast<int>(v);
    }
    if (!args.value("--height").empty()) {
        if (!number(args.value("--height"), 4, 200, v))
            return usageError(command, "svg: --height must be a number of pixels from 4 to 200");
        options.frameHeight = static_cast<int>(v);
    }
    if (!args.value("--minwidth").empty()) {
        if (!number(args.value("--minwidth"), 0, 1000, v))
            return usageError(command, "svg: --minwidth must be a number of pixels from 0 to 1000");
        options.minWidth = v;
    }
    const std::string& colors = args.value("--colors");
    if (!colors.empty() && !svgPaletteFromName(colors, options.palette))
        return usageError(command,
                          "svg: unknown palette \"" + colors + "\" (" + std::string(svgPaletteNames()) + ")");
    options.title = args.has("--title") ? args.value("--title")
                    : options.inverted  ? "Icicle Graph"
                                        : "Flame Graph";
    const std::string& file = args.operands.front();
    if (!output.empty() && output != "-" && output == file)
        return fail(output + ": is the input file; choose another output file name");
    return withProfile(file, profile, [&](Profile& p) {
        CostChoice choice;
        if (const std::string error = chooseCostType(p, profile.event, choice); !error.empty())
            return fail(error);
        options.costType = choice.type;
        if (reverse) { // every stack flipped: the functions where cost was spent at the base
            p.tree = bottomUpTree(p, p.tree);
            p.functions.clear(); // (the old tree's)
        }
        return writeOutput(output, file, [&](std::ostream& out) { writeFlameGraphSvg(p, options, out); });
    });
}

} // namespace

const Command& svgCommand() {
    static const Command command{
        .name = "svg",
        .summary = "write an interactive flame graph SVG (click to zoom, search)",
        .synopsis =
            "Usage: scorch svg [OPTIONS] FILE [-o OUT]\n"
            "\n"
            "Writes a self-contained interactive flame graph SVG: click a frame to zoom, \"Reset Zoom\" or "
            "Esc to\n"
            "go back, \"Search\" or Ctrl+F to highlight frames matching a regular expression (\"Matched: "
            "x%\"), hover\n"
            "for names, counts and percentages. Frames narrower than --minwidth merge into grey blocks of "
            "their\n"
            "combined width. `perf script | scorch svg - > out.svg` draws a perf recording in one step.\n",
        .options =
            {outputOption("write OUT atomically; never over FILE (default: standard output)"),
             {.longName = "--title",
              .value = "TEXT",
              .help = "title at the top (default \"Flame Graph\", or \"Icicle Graph\" with --inverted)"},
             {.longName = "--subtitle", .value = "TEXT", .help = "second line below the title"},
             {.longName = "--inverted", .help = "icicle graph: roots at the top"},
             {.longName = "--reverse",
              .help = "reversed stacks (flamegraph.pl --reverse): the functions where cost was spent at the "
                      "base, their callers above"},
             {.longName = "--colors",
              .value = "PALETTE",
              .help = "hot (default), mem, io, java, js, red, green, blue, aqua, yellow, purple, orange"},
             {.longName = "--width", .value = "PX", .help = "image width in pixels (default 1200)"},
             {.longName = "--height", .value = "PX", .help = "height of one frame in pixels (default 16)"},
             {.longName = "--minwidth",
              .value = "PX",
              .help = "frames narrower than this merge with their narrow neighbours (default 1, as the "
                      "window draws "
                      "them; 0 keeps every frame)"},
             {.longName = "--countname",
              .value = "TEXT",
              .help = "what counts are called in tooltips (default: the cost type's unit)"},
             profileOption("--event", "the cost type to draw (default: the first event)")},
        .footer = {},
        .readsProfiles = true,
        .operands = {.maxOperands = 1, .tooMany = "svg: one FILE only"},
        .run = run,
    };
    return command;
}

} // namespace scorch::cli
