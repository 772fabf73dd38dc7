#include "cli/cli.h"
#include "cli/record.h"

#include "scorch/analysis.h"
#include "scorch/diff.h"
#include "scorch/export.h"
#include "scorch/foldedwriter.h"
#include "scorch/import.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#ifndef SCORCH_VERSION
#define SCORCH_VERSION "0.0.0"
#endif

namespace scorch::cli {

namespace {

constexpr const char* kMainUsage = R"(Usage: scorch [FILE...]                 open profiles in the GUI
       scorch --diff [--normalize] [--strip-hex] BEFORE AFTER
                                        compare two profiles in the GUI
       scorch COMMAND [OPTIONS] FILE    run a headless command

Commands:
  collapse   print the profile as folded stacks (stackcollapse-perf.pl conventions)
  info       summarise a profile: format, costs, threads, top functions, warnings
  diff       print the differential folded stacks of two profiles (`stack before after`)
  convert    write the profile as speedscope JSON, pprof or folded stacks
  svg        write an interactive flame graph SVG (click to zoom, search)
  record     sample a running process or a launched command into a Scorch recording

FILE may be perf.data, perf script text, folded stacks, speedscope JSON, Chrome .cpuprofile or trace
JSON, pprof, d3-flame-graph JSON or a Scorch recording, optionally gzip/zstd/xz-compressed; "-" reads
standard input. Run `scorch COMMAND --help` for a command's options.
)";

// Options of every command that reads profiles, for raw addresses (perf.data, Scorch recordings).
#define SCORCH_SYMBOL_OPTIONS                                                                                \
    "Symbols of perf.data and Scorch recordings:\n"                                                          \
    "  --symbol-path DIR  also look for modules by file name in DIR (repeatable)\n"                          \
    "  --debug-dir DIR    also look for debug info in DIR, laid out as /usr/lib/debug (repeatable)\n"        \
    "  --sysroot DIR      find recorded module paths below DIR (a recording from another system)\n"

constexpr const char* kCollapseUsage = R"(Usage: scorch collapse [OPTIONS] FILE

Prints the profile as folded stacks, `frame;frame;...;frame COUNT`, root first, lines sorted
bytewise, in the conventions of FlameGraph's stackcollapse-perf.pl:
  --pid          root frame is `comm-PID`
  --tid          root frame is `comm-PID/TID`
  --kernel       annotate kernel frames with _[k]
  --jit          annotate JIT frames with _[j]
  --all          --kernel and --jit
  --addrs        name unresolved frames `[module <address>]`
  --event NAME   count samples of this event (default: the first event in the file)
  -h, --help     show this help
FILE "-" reads standard input, e.g. `perf script | scorch collapse -`.
)" SCORCH_SYMBOL_OPTIONS;

constexpr const char* kDiffUsage = R"(Usage: scorch diff [OPTIONS] BEFORE AFTER

Prints `stack COUNT_BEFORE COUNT_AFTER` for every stack of either profile (0 where a profile lacks it),
in the conventions of FlameGraph's difffolded.pl and inferno-diff-folded; the profiles may be in different
formats. Frames match by function name. flamegraph.pl draws the output as a differential flame
graph; Scorch opens it as a profile with two cost types, before and after.
  -n, --normalize   scale BEFORE's counts so that its total equals AFTER's
  -s, --strip-hex   rewrite hexadecimal literals 0x1234 in names as 0x... before matching
  --event NAME      the event (cost type) to compare in both profiles (default: each one's first)
  -h, --help        show this help
)" SCORCH_SYMBOL_OPTIONS;

constexpr const char* kInfoUsage = R"(Usage: scorch info [OPTIONS] FILE

Prints the detected format, cost types with totals, sample count, unique stacks, maximum depth,
threads, the 10 functions with the highest self cost and any import warnings.
)" SCORCH_SYMBOL_OPTIONS;

constexpr const char* kConvertUsage = R"(Usage: scorch convert --to FORMAT [OPTIONS] FILE [-o OUT]

Writes the profile in another format:
  speedscope   speedscope JSON (https://www.speedscope.app): shared frames, one sampled profile per
               thread; a cost type counting samples is written one entry per sample, others one entry
               per distinct stack with its summed weight
  pprof        pprof protobuf (gzip-compressed), readable by `go tool pprof`: every cost type is a
               sample type, a `thread` label (and `pid`/`tid`) per sample, one mapping per module
  folded       folded stacks, as `scorch collapse` prints them
Options:
  --to FORMAT        speedscope, pprof or folded (required)
  -o, --output OUT   write OUT atomically (temporary file, then rename); never over FILE.
                     Without -o, or with -o -, the output goes to standard output
  --event NAME       speedscope, folded: the cost type to write (default: the first event)
  --aggregate        speedscope: one entry per distinct stack even for a cost type counting samples
  --no-gzip          pprof: write uncompressed protobuf
  -h, --help         show this help
FILE "-" reads standard input.
)" SCORCH_SYMBOL_OPTIONS;

constexpr const char* kSvgUsage = R"(Usage: scorch svg [OPTIONS] FILE [-o OUT]

Writes a self-contained interactive flame graph SVG: click a frame to zoom, "Reset Zoom" or Esc to
go back, "Search" or Ctrl+F to highlight frames matching a regular expression ("Matched: x%"), hover
for names, counts and percentages. Frames narrower than --minwidth merge into grey blocks of their
combined width. `perf script | scorch svg - > out.svg` draws a perf recording in one step.
  -o, --output OUT   write OUT atomically; never over FILE (default: standard output)
  --title TEXT       title at the top (default "Flame Graph", or "Icicle Graph" with --inverted)
  --subtitle TEXT    second line below the title
  --inverted         icicle graph: roots at the top
  --colors PALETTE   hot (default), mem, io, java, js, red, green, blue, aqua, yellow, purple, orange
  --width PX         image width in pixels (default 1200)
  --height PX        height of one frame in pixels (default 16)
  --minwidth PX      frames narrower than this merge with their narrow neighbours (default 0.1)
  --countname TEXT   what counts are called in tooltips (default: the cost type's unit)
  --event NAME       the cost type to draw (default: the first event)
  -h, --help         show this help
)" SCORCH_SYMBOL_OPTIONS;

int fail(const std::string& message) {
    std::fflush(stdout);
    std::fprintf(stderr, "scorch: %s\n", message.c_str());
    return 1;
}

int usageError(const std::string& message, const char* usage) {
    std::fprintf(stderr, "scorch: %s\n%s", message.c_str(), usage);
    return 2;
}

bool optionValue(int argc, char** argv, int& i, std::string_view name, std::string& value, bool& missing) {
    const std::string_view a = argv[i];
    if (a == name) {
        if (i + 1 >= argc) {
            missing = true;
            return true;
        }
        value = argv[++i];
        return true;
    }
    if (a.size() > name.size() && a.starts_with(name) && a[name.size()] == '=') {
        value = std::string(a.substr(name.size() + 1));
        return true;
    }
    return false;
}

/// --symbol-path, --debug-dir, --sysroot: true when argv[i] is one of them (`missing`: without its value).
bool symbolOption(int argc, char** argv, int& i, ImportOptions& import, bool& missing) {
    std::string value;
    if (optionValue(argc, argv, i, "--symbol-path", value, missing)) {
        if (!missing)
            import.symbolSearchPaths.push_back(value);
        return true;
    }
    if (optionValue(argc, argv, i, "--debug-dir", value, missing)) {
        if (!missing)
            import.debugDirs.push_back(value);
        return true;
    }
    if (optionValue(argc, argv, i, "--sysroot", value, missing)) {
        if (!missing)
            import.sysroot = value;
        return true;
    }
    return false;
}

/// Imports with the caller's options, turning importer exceptions into a one-line error. Skipped input is
/// summarised on standard error in one line.
int withProfile(const std::string& file, const ImportOptions& options,
                const std::function<int(Profile&)>& f) {
    try {
        Profile profile = importProfile(file, options);
        if (const std::string summary = profile.meta.warningSummary(); !summary.empty())
            std::fprintf(stderr, "scorch: warning: %s\n", summary.c_str());
        return f(profile);
    } catch (const ImportError& e) {
        return fail(e.what());
    } catch (const std::bad_alloc&) {
        return fail(file + ": out of memory");
    }
}

/// The unnamed-event cost type of perf script input ("samples") is counted along with any event.
int defaultCostType(const Profile& p, int& alwaysIncluded) {
    alwaysIncluded = -1;
    if (p.meta.format != Format::PerfScript)
        return 0;
    const int unnamed = p.costTypeIndex("samples");
    for (std::size_t i = 0; i < p.costTypes.size(); ++i)
        if (static_cast<int>(i) != unnamed) {
            alwaysIncluded = unnamed;
            return static_cast<int>(i);
        }
    return 0;
}

int collapse(int argc, char** argv) {
    FoldedOptions folded;
    ImportOptions import;
    std::string event, file;
    bool haveFile = false;
    for (int i = 2; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "-h" || a == "--help") {
            std::fputs(kCollapseUsage, stdout);
            return 0;
        } else if (a == "--pid") {
            folded.includePid = true;
        } else if (a == "--tid") {
            folded.includeTid = true;
        } else if (a == "--kernel") {
            folded.annotateKernel = true;
        } else if (a == "--jit") {
            folded.annotateJit = true;
        } else if (a == "--all") {
            folded.annotateKernel = folded.annotateJit = true;
        } else if (a == "--addrs") {
            import.perfAddresses = true;
        } else if (bool missing = false; symbolOption(argc, argv, i, import, missing)) {
            if (missing)
                return usageError(std::string(a) + " needs a directory", kCollapseUsage);
        } else if (a == "--event" || a == "--event-filter") {
            if (++i >= argc)
                return usageError("--event needs an event name", kCollapseUsage);
            event = argv[i];
        } else if (a.starts_with("--event=") || a.starts_with("--event-filter=")) {
            event = std::string(a.substr(a.find('=') + 1));
        } else if (a.size() > 1 && a[0] == '-') {
            return usageError("collapse: unknown option " + std::string(a), kCollapseUsage);
        } else if (haveFile) {
            return usageError("collapse: one FILE only", kCollapseUsage);
        } else {
            file = std::string(a);
            haveFile = true;
        }
    }
    if (!haveFile)
        return usageError("collapse: no FILE given", kCollapseUsage);
    return withProfile(file, import, [&](Profile& p) {
        folded.costType = defaultCostType(p, folded.alwaysIncludedCostType);
        if (!event.empty()) {
            folded.costType = p.costTypeIndex(event);
            if (folded.costType < 0) {
                std::string names;
                for (const auto& t : p.costTypes)
                    names += (names.empty() ? "" : ", ") + t.name;
                return fail(p.meta.source + ": no event named \"" + event + "\" (the file has: " + names +
                            ")");
            }
        } else if (p.meta.format == Format::FoldedDiff) {
            folded.costType = 0;
            folded.secondCostType = 1;
        }
        writeFolded(p, folded, std::cout);
        std::cout.flush();
        return std::cout ? 0 : fail("error writing to standard output");
    });
}

int diff(int argc, char** argv) {
    DiffOptions options;
    options.matchModules = false; // the folded output names frames only: match them the same way
    ImportOptions import;
    std::string event;
    std::vector<std::string> files;
    for (int i = 2; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "-h" || a == "--help") {
            std::fputs(kDiffUsage, stdout);
            return 0;
        } else if (a == "-n" || a == "--normalize") {
            options.normalize = true;
        } else if (a == "-s" || a == "--strip-hex") {
            options.stripHex = true;
        } else if (bool missing = false; symbolOption(argc, argv, i, import, missing)) {
            if (missing)
                return usageError(std::string(a) + " needs a directory", kDiffUsage);
        } else if (a == "--event") {
            if (++i >= argc)
                return usageError("--event needs an event name", kDiffUsage);
            event = argv[i];
        } else if (a.size() > 1 && a[0] == '-') {
            return usageError("diff: unknown option " + std::string(a), kDiffUsage);
        } else {
            files.emplace_back(a);
        }
    }
    if (files.size() != 2)
        return usageError("diff: needs two files, BEFORE and AFTER", kDiffUsage);
    return withProfile(files[0], import, [&](Profile& before) {
        return withProfile(files[1], import, [&](Profile& after) {
            std::size_t types[2];
            Profile* sides[2] = {&before, &after};
            for (int s = 0; s < 2; ++s) {
                int always = -1;
                int t = defaultCostType(*sides[s], always);
                if (!event.empty() && (t = sides[s]->costTypeIndex(event)) < 0)
                    return fail(sides[s]->meta.source + ": no event named \"" + event + "\"");
                types[s] = static_cast<std::size_t>(t);
            }
            const Profile d = diffProfiles(before, types[0], after, types[1], options);
            FoldedOptions folded;
            folded.costType = kBefore;
            folded.secondCostType = kAfter;
            writeFolded(d, folded, std::cout);
            std::cout.flush();
            return std::cout ? 0 : fail("error writing to standard output");
        });
    });
}

std::string percent(int64_t part, int64_t whole) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%5.1f%%",
                  whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
    return buf;
}

int info(int argc, char** argv) {
    std::string file;
    ImportOptions import;
    for (int i = 2; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "-h" || a == "--help") {
            std::fputs(kInfoUsage, stdout);
            return 0;
        }
        if (bool missing = false; symbolOption(argc, argv, i, import, missing)) {
            if (missing)
                return usageError(std::string(a) + " needs a directory", kInfoUsage);
            continue;
        }
        if (a.size() > 1 && a[0] == '-')
            return usageError("info: unknown option " + std::string(a), kInfoUsage);
        if (!file.empty())
            return usageError("info: one FILE only", kInfoUsage);
        file = std::string(a);
    }
    if (file.empty())
        return usageError("info: no FILE given", kInfoUsage);
    return withProfile(file, import, [&](Profile& p) {
        const CallTree& tree = p.tree;
        std::size_t stacks = 0;
        for (NodeId n = 1; n < tree.size(); ++n)
            stacks += tree.hasSelfCost(n) ? 1 : 0;
        std::ostream& o = std::cout;
        o << "file:          " << p.meta.source << '\n';
        o << "format:        " << formatName(p.meta.format);
        if (!p.meta.compression.empty())
            o << " (" << p.meta.compression << "-compressed)";
        o << '\n';
        o << "bytes:         " << p.meta.inputBytes << '\n';
        for (const auto& [key, value] : p.meta.recording) {
            std::string label = key + ':';
            label.resize(std::max<std::size_t>(label.size() + 1, 15), ' ');
            o << label << value << '\n';
        }
        o << "samples:       " << p.meta.samples << '\n';
        o << "cost types:\n";
        for (std::size_t t = 0; t < p.costTypes.size(); ++t)
            o << "  " << p.costTypes[t].name << " (" << costUnitName(p.costTypes[t].unit)
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
            o << "  " << t.samples << " samples  " << t.name;
            if (t.pid >= 0 || t.tid >= 0)
                o << " [pid " << (t.pid >= 0 ? std::to_string(t.pid) : "?") << " tid " << t.tid << "]";
            o << '\n';
        }
        int always = -1;
        const int type = defaultCostType(p, always);
        const int64_t whole = tree.grandTotal(static_cast<std::size_t>(type));
        o << "top functions by self cost (" << p.costTypes[static_cast<std::size_t>(type)].name << "):\n";
        for (const FunctionCost& f : topFunctions(p, static_cast<std::size_t>(type), 10)) {
            const Frame& fr = p.frames[f.frame];
            o << "  " << percent(f.self[type], whole) << " self " << percent(f.total[type], whole)
              << " total  " << p.strings.view(fr.name);
            if (fr.module)
                o << "  [" << p.strings.view(fr.module) << "]";
            o << '\n';
        }
        o << "warnings:      " << p.meta.warningCount << '\n';
        for (const ImportWarning& w : p.meta.warnings) {
            o << "  ";
            if (w.line > 0)
                o << "line " << w.line << ": ";
            o << w.message << '\n';
        }
        o.flush();
        return 0;
    });
}

/// Applies `--event NAME` (or the default cost type) to `type`; an error message when there is no such event.
std::string chooseCostType(const Profile& p, const std::string& event, int& type, int& alwaysIncluded) {
    type = defaultCostType(p, alwaysIncluded);
    if (event.empty())
        return {};
    type = p.costTypeIndex(event);
    if (type >= 0)
        return {};
    std::string names;
    for (const auto& t : p.costTypes)
        names += (names.empty() ? "" : ", ") + t.name;
    return p.meta.source + ": no event named \"" + event + "\" (the file has: " + names + ")";
}

/// Runs `write` into OUT atomically, or into standard output when OUT is empty or "-".
int writeOutput(const std::string& output, const std::string& input,
                const std::function<void(std::ostream&)>& write) {
    try {
        if (output.empty() || output == "-") {
            write(std::cout);
            std::cout.flush();
            return std::cout ? 0 : fail("error writing to standard output");
        }
        writeFileAtomically(output, input, write);
        return 0;
    } catch (const ExportError& e) {
        return fail(e.what());
    }
}

/// Reads the value of an option given as `--name VALUE` or `--name=VALUE`; false when it is not this option.

int convert(int argc, char** argv) {
    std::string to, output, event, file;
    ImportOptions import;
    bool haveFile = false, aggregate = false, gzip = true;
    for (int i = 2; i < argc; ++i) {
        const std::string_view a = argv[i];
        bool missing = false;
        if (a == "-h" || a == "--help") {
            std::fputs(kConvertUsage, stdout);
            return 0;
        } else if (optionValue(argc, argv, i, "--to", to, missing) ||
                   optionValue(argc, argv, i, "--output", output, missing) ||
                   optionValue(argc, argv, i, "-o", output, missing) ||
                   optionValue(argc, argv, i, "--event", event, missing) ||
                   symbolOption(argc, argv, i, import, missing)) {
            if (missing)
                return usageError(std::string(a) + " needs a value", kConvertUsage);
        } else if (a == "--aggregate") {
            aggregate = true;
        } else if (a == "--no-gzip") {
            gzip = false;
        } else if (a.size() > 1 && a[0] == '-') {
            return usageError("convert: unknown option " + std::string(a), kConvertUsage);
        } else if (haveFile) {
            return usageError("convert: one FILE only", kConvertUsage);
        } else {
            file = std::string(a);
            haveFile = true;
        }
    }
    if (to.empty())
        return usageError("convert: --to FORMAT is required (speedscope, pprof or folded)", kConvertUsage);
    if (to != "speedscope" && to != "pprof" && to != "folded")
        return usageError("convert: unknown format \"" + to + "\" (speedscope, pprof or folded)",
                          kConvertUsage);
    if (!haveFile)
        return usageError("convert: no FILE given", kConvertUsage);
    if (!output.empty() && output != "-" && output == file)
        return fail(output + ": is the input file; choose another output file name");
    return withProfile(file, import, [&](Profile& p) {
        int type = 0, always = -1;
        if (const std::string error = chooseCostType(p, event, type, always); !error.empty())
            return fail(error);
        if (to == "speedscope") {
            SpeedscopeOptions options;
            options.costType = type;
            if (!aggregate && p.costTypes[static_cast<std::size_t>(type)].unit == CostUnit::Samples)
                options.sampleCountType = type;
            return writeOutput(output, file, [&](std::ostream& out) { writeSpeedscope(p, options, out); });
        }
        if (to == "pprof") {
            PprofOptions options;
            options.gzip = gzip;
            return writeOutput(output, file, [&](std::ostream& out) { writePprof(p, options, out); });
        }
        FoldedOptions folded;
        folded.costType = type;
        folded.alwaysIncludedCostType = event.empty() ? always : -1;
        if (event.empty() && p.meta.format == Format::FoldedDiff) {
            folded.costType = 0;
            folded.secondCostType = 1;
        }
        return writeOutput(output, file, [&](std::ostream& out) { writeFolded(p, folded, out); });
    });
}

int svg(int argc, char** argv) {
    SvgOptions options;
    ImportOptions import;
    std::string output, event, file, title, width, height, minWidth, colors;
    bool haveFile = false, haveTitle = false;
    for (int i = 2; i < argc; ++i) {
        const std::string_view a = argv[i];
        bool missing = false;
        if (a == "-h" || a == "--help") {
            std::fputs(kSvgUsage, stdout);
            return 0;
        } else if (optionValue(argc, argv, i, "--output", output, missing) ||
                   optionValue(argc, argv, i, "-o", output, missing) ||
                   optionValue(argc, argv, i, "--event", event, missing) ||
                   optionValue(argc, argv, i, "--subtitle", options.subtitle, missing) ||
                   optionValue(argc, argv, i, "--countname", options.countName, missing) ||
                   optionValue(argc, argv, i, "--colors", colors, missing) ||
                   optionValue(argc, argv, i, "--width", width, missing) ||
                   optionValue(argc, argv, i, "--height", height, missing) ||
                   optionValue(argc, argv, i, "--minwidth", minWidth, missing) ||
                   symbolOption(argc, argv, i, import, missing)) {
            if (missing)
                return usageError(std::string(a) + " needs a value", kSvgUsage);
        } else if (optionValue(argc, argv, i, "--title", title, missing)) {
            if (missing)
                return usageError("--title needs a value", kSvgUsage);
            haveTitle = true;
        } else if (a == "--inverted") {
            options.inverted = true;
        } else if (a.size() > 1 && a[0] == '-') {
            return usageError("svg: unknown option " + std::string(a), kSvgUsage);
        } else if (haveFile) {
            return usageError("svg: one FILE only", kSvgUsage);
        } else {
            file = std::string(a);
            haveFile = true;
        }
    }
    if (!haveFile)
        return usageError("svg: no FILE given", kSvgUsage);
    auto number = [](const std::string& text, double low, double high, double& out) {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !(v >= low && v <= high))
            return false;
        out = v;
        return true;
    };
    double v = 0;
    if (!width.empty()) {
        if (!number(width, 100, 100000, v))
            return usageError("svg: --width must be a number of pixels from 100 to 100000", kSvgUsage);
        options.width = static_cast<int>(v);
    }
    if (!height.empty()) {
        if (!number(height, 4, 200, v))
            return usageError("svg: --height must be a number of pixels from 4 to 200", kSvgUsage);
        options.frameHeight = static_cast<int>(v);
    }
    if (!minWidth.empty()) {
        if (!number(minWidth, 0, 1000, v))
            return usageError("svg: --minwidth must be a number of pixels from 0 to 1000", kSvgUsage);
        options.minWidth = v;
    }
    if (!colors.empty() && !svgPaletteFromName(colors, options.palette))
        return usageError("svg: unknown palette \"" + colors + "\" (" + std::string(svgPaletteNames()) + ")",
                          kSvgUsage);
    options.title = haveTitle ? title : options.inverted ? "Icicle Graph" : "Flame Graph";
    if (!output.empty() && output != "-" && output == file)
        return fail(output + ": is the input file; choose another output file name");
    return withProfile(file, import, [&](Profile& p) {
        int always = -1;
        if (const std::string error = chooseCostType(p, event, options.costType, always); !error.empty())
            return fail(error);
        return writeOutput(output, file, [&](std::ostream& out) { writeFlameGraphSvg(p, options, out); });
    });
}

} // namespace

bool isHeadlessCommand(int argc, char** argv) {
    if (argc < 2)
        return false;
    const std::string_view a = argv[1];
    return a == "collapse" || a == "info" || a == "diff" || a == "convert" || a == "svg" || a == "record" ||
           a == "help" || a == "--help" || a == "-h" || a == "--version";
}

int run(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    const std::string_view command = argv[1];
    if (command == "--version") {
        std::printf("scorch %s\n", SCORCH_VERSION);
        return 0;
    }
    if (command == "help" || command == "--help" || command == "-h") {
        std::fputs(kMainUsage, stdout);
        return 0;
    }
    if (command == "collapse")
        return collapse(argc, argv);
    if (command == "info")
        return info(argc, argv);
    if (command == "diff")
        return diff(argc, argv);
    if (command == "convert")
        return convert(argc, argv);
    if (command == "svg")
        return svg(argc, argv);
    if (command == "record")
        return record(argc, argv);
    return usageError("unknown command " + std::string(command), kMainUsage);
}

} // namespace scorch::cli
