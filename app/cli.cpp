#include "cli.h"
#include "record.h"

#include "scorch/analysis.h"
#include "scorch/diff.h"
#include "scorch/folded.h"
#include "scorch/import.h"

#include <cstdio>
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
       scorch COMMAND [OPTIONS] FILE    run a headless command

Commands:
  collapse   print the profile as folded stacks (stackcollapse-perf.pl conventions)
  info       summarise a profile: format, costs, threads, top functions, warnings
  diff       print the differential folded stacks of two profiles (`stack before after`)
  record     sample a running process or a launched command into a Scorch recording

FILE may be perf script text, folded stacks or speedscope JSON, optionally gzip/zstd/xz-compressed;
"-" reads standard input. Run `scorch COMMAND --help` for a command's options.
)";

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
)";

constexpr const char* kDiffUsage = R"(Usage: scorch diff [OPTIONS] BEFORE AFTER

Prints `stack COUNT_BEFORE COUNT_AFTER` for every stack of either profile (0 where a profile lacks it),
in the conventions of FlameGraph's difffolded.pl and inferno-diff-folded; the profiles may be in different
formats. Frames match by function name. flamegraph.pl draws the output as a differential flame
graph; Scorch opens it as a profile with two cost types, before and after.
  -n, --normalize   scale BEFORE's counts so that its total equals AFTER's
  -s, --strip-hex   rewrite hexadecimal literals 0x1234 in names as 0x... before matching
  --event NAME      the event (cost type) to compare in both profiles (default: each one's first)
  -h, --help        show this help
)";

constexpr const char* kInfoUsage = R"(Usage: scorch info FILE

Prints the detected format, cost types with totals, sample count, unique stacks, maximum depth,
threads, the 10 functions with the highest self cost and any import warnings.
)";

int fail(const std::string& message) {
    std::fflush(stdout);
    std::fprintf(stderr, "scorch: %s\n", message.c_str());
    return 1;
}

int usageError(const std::string& message, const char* usage) {
    std::fprintf(stderr, "scorch: %s\n%s", message.c_str(), usage);
    return 2;
}

/// Imports with the caller's options, turning importer exceptions into a one-line error. Skipped input is
/// summarised on standard error in one line.
int withProfile(const std::string& file, const ImportOptions& options,
                const std::function<int(Profile&)>& f) {
    try {
        Profile profile = importProfile(file, options);
        if (profile.meta.warningCount > 0 && !profile.meta.warnings.empty()) {
            const ImportWarning& w = profile.meta.warnings.front();
            std::fprintf(
                stderr, "scorch: warning: %s: %llu line(s) skipped or repaired; first at line %llu: %s\n",
                profile.meta.source.c_str(), static_cast<unsigned long long>(profile.meta.warningCount),
                static_cast<unsigned long long>(w.line), w.message.c_str());
        }
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
    if (p.meta.format != "perf script")
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
        } else if (p.meta.format == "differential folded stacks") {
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
    return withProfile(files[0], {}, [&](Profile& before) {
        return withProfile(files[1], {}, [&](Profile& after) {
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
    for (int i = 2; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "-h" || a == "--help") {
            std::fputs(kInfoUsage, stdout);
            return 0;
        }
        if (a.size() > 1 && a[0] == '-')
            return usageError("info: unknown option " + std::string(a), kInfoUsage);
        if (!file.empty())
            return usageError("info: one FILE only", kInfoUsage);
        file = std::string(a);
    }
    if (file.empty())
        return usageError("info: no FILE given", kInfoUsage);
    return withProfile(file, {}, [&](Profile& p) {
        const CallTree& tree = p.tree;
        std::size_t stacks = 0;
        for (NodeId n = 1; n < tree.size(); ++n)
            stacks += tree.hasSelfCost(n) ? 1 : 0;
        std::ostream& o = std::cout;
        o << "file:          " << p.meta.source << '\n';
        o << "format:        " << p.meta.format;
        if (!p.meta.compression.empty())
            o << " (" << p.meta.compression << "-compressed)";
        o << '\n';
        o << "bytes:         " << p.meta.inputBytes << '\n';
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
        for (const ImportWarning& w : p.meta.warnings)
            o << "  line " << w.line << ": " << w.message << '\n';
        o.flush();
        return 0;
    });
}

} // namespace

bool isHeadlessCommand(int argc, char** argv) {
    if (argc < 2)
        return false;
    const std::string_view a = argv[1];
    return a == "collapse" || a == "info" || a == "diff" || a == "record" || a == "help" || a == "--help" ||
           a == "-h" || a == "--version";
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
    if (command == "record")
        return record(argc, argv);
    return usageError("unknown command " + std::string(command), kMainUsage);
}

} // namespace scorch::cli
