// The options of every command that reads profiles, parsed once for all of them. To add one (say --thread):
// its `Option` in profileOptionGroups(), its field in `ProfileArgs` (command.h) filled in profileArgs(), and
// its effect in withProfile(); every such command then takes it and lists it in its usage.
#include "cli/command.h"

#include "scorch/export.h"
#include "scorch/safetext.h"
#include "scorch/symbolizer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace scorch::cli {

const std::vector<OptionGroup>& profileOptionGroups() {
    static const std::vector<OptionGroup> groups = {
        {"",
         {{.shortName = {},
           .longName = "--event",
           .value = "NAME",
           .help = "the event (cost type) to use (default: the first event)",
           .needs = "an event name",
           .alias = "--event-filter"}}},
        {"Symbols of perf.data and Scorch recordings:",
         {{.shortName = {},
           .longName = "--symbol-path",
           .value = "DIR",
           .help = "also look for modules by file name in DIR (repeatable)",
           .needs = "a directory"},
          {.shortName = {},
           .longName = "--debug-dir",
           .value = "DIR",
           .help = "also look for debug info in DIR, laid out as /usr/lib/debug (repeatable)",
           .needs = "a directory"},
          {.shortName = {},
           .longName = "--sysroot",
           .value = "DIR",
           .help = "find recorded module paths below DIR (a recording from another system)",
           .needs = "a directory"},
          {.shortName = {},
           .longName = "--debuginfod",
           .value = "URLS",
           .help = "fetch binaries and debug info not found here from these debuginfod servers, by\n"
                   "build-id (space-separated; default: $DEBUGINFOD_URLS; '' for none)",
           .needs = "debuginfod server URLs"}}},
        {"Time and threads (--time needs a profile with per-sample times):",
         {{.shortName = {},
           .longName = "--time",
           .value = "BEGIN-END",
           .help = "only the samples from BEGIN to before END, times since the first sample with a unit\n"
                   "(s, ms, us, ns; seconds without one): 1.5s-3s, 200ms-, -2s, 250us-1ms",
           .needs = "a time range BEGIN-END, e.g. 1s-2.5s"},
          {.shortName = {},
           .longName = "--thread",
           .value = "NAME|TID",
           .help = "only the samples of the threads with this name or thread id (repeatable)",
           .needs = "a thread name or thread id"}}},
        transformOptionGroup(),
    };
    return groups;
}

Option profileOption(std::string_view key, std::string_view help) {
    for (const OptionGroup& group : profileOptionGroups())
        for (Option o : group.options)
            if (o.key() == key) {
                o.help = help;
                return o;
            }
    return {};
}

ProfileArgs profileArgs(const Args& args) {
    ProfileArgs p;
    p.event = args.value("--event");
    p.import.symbolSearchPaths = args.values("--symbol-path");
    p.import.debugDirs = args.values("--debug-dir");
    p.import.sysroot = args.value("--sysroot");
    if (args.has("--debuginfod"))
        p.import.debuginfodUrls = args.value("--debuginfod");
    else if (const char* urls = std::getenv("DEBUGINFOD_URLS"))
        p.import.debuginfodUrls = urls;
    p.import.inflatedCopies = defaultInflatedCopies();
    p.time = args.value("--time");
    p.threads = args.values("--thread");
    p.transforms = transformArgs(args);
    // The commands read the call tree alone; each sample's time, thread and stack are kept only for --time
    // and --thread to select from (and for `info`'s timeline, which asks for them).
    p.import.sampleStore = !p.time.empty() || !p.threads.empty();
    return p;
}

namespace {

/// A time since the first sample in nanoseconds: digits with an optional fraction, then s, ms, us (µs), ns
/// or nothing (seconds). Digits below a nanosecond are dropped.
bool parseTime(std::string_view text, int64_t& ns) {
    std::size_t digits = 0;
    while (digits < text.size() && ((text[digits] >= '0' && text[digits] <= '9') || text[digits] == '.'))
        ++digits;
    const std::string_view number = text.substr(0, digits), unit = text.substr(digits);
    int exponent = -1; // nanoseconds per unit, as a power of ten
    if (unit.empty() || unit == "s")
        exponent = 9;
    else if (unit == "ms")
        exponent = 6;
    else if (unit == "us" || unit == "\u00b5s")
        exponent = 3;
    else if (unit == "ns")
        exponent = 0;
    const std::size_t dot = number.find('.');
    const std::string_view whole = number.substr(0, dot);
    const std::string_view fraction = dot == std::string_view::npos ? "" : number.substr(dot + 1);
    if (exponent < 0 || (whole.empty() && fraction.empty()) || fraction.find('.') != std::string_view::npos)
        return false;
    __int128_t value = 0;
    for (const char c : whole) {
        value = value * 10 + (c - '0');
        if (value > INT64_MAX)
            return false;
    }
    for (int e = 0; e < exponent; ++e)
        value *= 10;
    __int128_t scale = 1;
    for (int e = 0; e < exponent; ++e)
        scale *= 10;
    for (std::size_t k = 0; k < fraction.size() && scale > 1; ++k) {
        scale /= 10;
        value += (fraction[k] - '0') * scale;
    }
    if (value > INT64_MAX)
        return false;
    ns = static_cast<int64_t>(value);
    return true;
}

std::string threadLabel(const ThreadInfo& t) {
    std::string label = t.name.empty() ? std::string("(unnamed)") : escapeText(t.name);
    if (t.tid >= 0)
        label += " [tid " + std::to_string(t.tid) + "]";
    return label;
}

/// The threads --thread names (by name or thread id), or an error message.
std::string chooseThreads(const Profile& p, const std::vector<std::string>& wanted,
                          std::vector<uint32_t>& out) {
    for (const std::string& w : wanted) {
        const bool numeric = !w.empty() && w.size() <= 18 &&
                             std::all_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; });
        const int64_t tid = numeric ? std::stoll(w) : -1;
        bool found = false;
        for (uint32_t t = 0; t < p.threads.size(); ++t)
            if (p.threads[t].name == w || (numeric && p.threads[t].tid == tid)) {
                out.push_back(t);
                found = true;
            }
        if (found)
            continue;
        std::string names;
        constexpr std::size_t kListed = 8;
        for (std::size_t t = 0; t < p.threads.size() && t < kListed; ++t)
            names += (t ? ", " : "") + threadLabel(p.threads[t]);
        if (p.threads.size() > kListed)
            names += ", ... (" + std::to_string(p.threads.size()) + " threads)";
        return p.meta.source + ": --thread " + escapeText(w) + ": no thread has this name or thread id (" +
               (names.empty() ? std::string("the profile has no threads") : "the threads: " + names) + ")";
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return {};
}

/// Restricts `p` to the samples --time and --thread select (nothing to do when neither is given).
std::string applySelection(Profile& p, const ProfileArgs& args, Selection& s) {
    s.samples = p.samples;
    if (!s.timeGiven && args.threads.empty())
        return {};
    if (s.timeGiven && !p.samples)
        return p.meta.source + ": --time needs a timeline, and there is none: " + noTimelineReason(p);
    if (const std::string error = chooseThreads(p, args.threads, s.threads); !error.empty())
        return error;
    TimeSlice slice;
    if (p.samples) {
        SliceRequest request;
        request.range = s.range;
        request.threads = s.threads;
        request.details = true;            // `annotate --time`: the range's instruction costs
        slice = *sliceSamples(p, request); // no cancel flag: always a slice
    } else {
        slice = sliceThreads(p, s.threads);
    }
    Profile sliced = sliceProfile(p, std::move(slice));
    if (s.timeGiven) { // the time range the selected samples span, on the input's clock
        const SampleStore& store = *p.samples;
        const std::size_t first = store.lowerBound(s.range.begin), last = store.lowerBound(s.range.end);
        if (p.meta.timeStart && first < last) {
            sliced.meta.timeEnd = *p.meta.timeStart + static_cast<double>(store.time(last - 1)) * 1e-9;
            sliced.meta.timeStart = *p.meta.timeStart + static_cast<double>(store.time(first)) * 1e-9;
        } else {
            sliced.meta.timeStart.reset();
            sliced.meta.timeEnd.reset();
        }
    }
    if (sliced.meta.samples == 0)
        std::fprintf(stderr, "scorch: warning: %s: no samples in the selected %s\n", p.meta.source.c_str(),
                     s.timeGiven && !args.threads.empty() ? "time range and threads"
                     : s.timeGiven                        ? "time range"
                                                          : "threads");
    p = std::move(sliced);
    return {};
}

} // namespace

std::string parseTimeRange(std::string_view text, TimeRange& range) {
    const std::string example = " (e.g. 1.5s-3s, 200ms-, -2s; units s, ms, us, ns)";
    const std::size_t dash = text.find('-');
    if (dash == std::string_view::npos || text.find('-', dash + 1) != std::string_view::npos ||
        text.size() == 1)
        return "--time " + escapeText(text) + ": not a time range BEGIN-END" + example;
    const std::string_view begin = text.substr(0, dash), end = text.substr(dash + 1);
    TimeRange r;
    if ((!begin.empty() && !parseTime(begin, r.begin)) || (!end.empty() && !parseTime(end, r.end)))
        return "--time " + escapeText(text) + ": not a time range BEGIN-END" + example;
    if (r.end <= r.begin)
        return "--time " + escapeText(text) + ": the range is empty (END must be after BEGIN)";
    range = r;
    return {};
}

std::string noTimelineReason(const Profile& p) {
    switch (p.meta.format) {
    case Format::PerfScript:
    case Format::PerfData:
    case Format::PerfDataPerfScript:
    case Format::Speedscope:
    case Format::ChromeCpuProfile:
    case Format::ChromeTrace:
    case Format::ScorchRecording:
        return "this " + std::string(formatName(p.meta.format)) + " input has no per-sample time";
    default:
        return "format " + std::string(formatName(p.meta.format)) + " has no per-sample time";
    }
}

int withProfile(const std::string& file, const ProfileArgs& args, const std::function<int(Profile&)>& f) {
    return withProfile(file, args, [&](Profile& p, const Selection&) { return f(p); });
}

int withProfile(const std::string& file, const ProfileArgs& args,
                const std::function<int(Profile&, const Selection&)>& f) {
    Selection selection;
    if (!args.time.empty()) {
        if (const std::string error = parseTimeRange(args.time, selection.range); !error.empty()) {
            std::fprintf(stderr, "scorch: %s\n", error.c_str());
            return 2;
        }
        selection.timeGiven = true;
    }
    try {
        Profile profile = importProfile(file, args.import);
        if (const std::string summary = profile.meta.warningSummary(); !summary.empty())
            std::fprintf(stderr, "scorch: warning: %s\n", escapeText(summary).c_str());
        // The time range and threads first: the transforms drop the per-sample store they need.
        if (const std::string error = applySelection(profile, args, selection); !error.empty())
            return fail(error);
        if (const std::string error = applyTransformArgs(profile, args.transforms); !error.empty())
            return fail(error);
        return f(profile, selection);
    } catch (const ImportError& e) {
        return fail(e.what());
    } catch (const std::bad_alloc&) {
        return fail(file + ": out of memory");
    }
}

CostChoice defaultCostType(const Profile& p) {
    CostChoice choice;
    if (p.meta.format != Format::PerfScript)
        return choice;
    const int unnamed = p.costTypeIndex("samples");
    for (std::size_t i = 0; i < p.costTypes.size(); ++i)
        if (static_cast<int>(i) != unnamed) {
            choice.alwaysIncluded = unnamed;
            choice.type = static_cast<int>(i);
            return choice;
        }
    return choice;
}

std::string chooseCostType(const Profile& p, const std::string& event, CostChoice& choice) {
    choice = defaultCostType(p);
    if (event.empty())
        return {};
    choice.type = p.costTypeIndex(event);
    if (choice.type >= 0)
        return {};
    std::string names;
    for (const auto& t : p.costTypes)
        names += (names.empty() ? "" : ", ") + t.name;
    return p.meta.source + ": no event named \"" + event + "\" (the file has: " + names + ")";
}

bool isDifferential(const Profile& p) {
    return p.meta.format == Format::FoldedDiff;
}

int standardOutputFailed(int err) {
    return fail(std::string("standard output: cannot write (") + std::strerror(err ? err : EIO) + ")");
}

int finishStandardOutput() {
    std::cout.flush();
    const int err = errno;
    return std::cout ? 0 : standardOutputFailed(err);
}

int writeOutput(const std::string& output, const std::string& input,
                const std::function<void(std::ostream&)>& write) {
    try {
        if (output.empty() || output == "-") {
            try {
                write(std::cout);
            } catch (const ExportError&) {
                return standardOutputFailed(errno); // the writers say only that the stream failed
            }
            return finishStandardOutput();
        }
        writeFileAtomically(output, input, write);
        return 0;
    } catch (const ExportError& e) {
        return fail(e.what());
    }
}

} // namespace scorch::cli
