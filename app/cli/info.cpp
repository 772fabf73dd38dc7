// `scorch info`: a summary of a profile (format, costs, timeline, threads, top functions, warnings).
#include "cli/command.h"

#include "scorch/analysis.h"
#include "scorch/safetext.h"
#include "scorch/symbolizer.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <numeric>

namespace scorch::cli {

namespace {

std::string percent(int64_t part, int64_t whole) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%5.1f%%",
                  whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
    return buf;
}

/// A bucket width of 1, 2 or 5 times a power of ten nanoseconds, as text ("100 ms", "2 s", "50 us").
std::string bucketWidthText(int64_t ns) {
    static constexpr std::pair<int64_t, const char*> kUnits[] = {
        {1000000000, "s"}, {1000000, "ms"}, {1000, "us"}, {1, "ns"}};
    for (const auto& [scale, name] : kUnits)
        if (ns % scale == 0)
            return std::to_string(ns / scale) + " " + name;
    return std::to_string(ns) + " ns";
}

/// The narrowest width of 1, 2 or 5 times a power of ten nanoseconds that cuts `span` into at most `most`
/// buckets.
int64_t bucketWidth(int64_t span, int64_t most) {
    for (int64_t decade = 1;; decade *= 10)
        for (const int64_t step : {1, 2, 5})
            if (span / (step * decade) + (span % (step * decade) != 0) <= most || decade > INT64_MAX / 100)
                return step * decade;
}

/// One character a bucket: a blank for none, then ▁ to █ in eighths of `max`.
std::string sparkline(const std::vector<uint32_t>& counts, uint64_t max) {
    static constexpr const char* kBars[] = {" ",      "\u2581", "\u2582", "\u2583", "\u2584",
                                            "\u2585", "\u2586", "\u2587", "\u2588"};
    std::string line;
    for (const uint32_t c : counts)
        line += kBars[c == 0 || max == 0 ? 0 : std::min<uint64_t>(8, (uint64_t{c} * 8 + max - 1) / max)];
    return line;
}

/// The timeline of the selected samples: duration, CPUs, samples per bucket and a sparkline per thread.
void printTimeline(std::ostream& o, const Profile& p, const Selection& s) {
    if (!s.samples) {
        o << "timeline:      no timeline (" << noTimelineReason(p) << ")\n";
        return;
    }
    const SampleStore& store = *s.samples;
    const std::size_t first = store.lowerBound(s.range.begin), last = store.lowerBound(s.range.end);
    std::vector<uint32_t> threads;
    for (uint32_t t = 0; t < store.threadCount(); ++t)
        if (s.threads.empty() || std::binary_search(s.threads.begin(), s.threads.end(), t))
            threads.push_back(t);
    const int64_t from = s.timeGiven ? s.range.begin : 0;
    const int64_t to = first < last ? store.time(last - 1) + 1 : from + 1;
    constexpr int64_t kMostBuckets = 40;
    const int64_t width = bucketWidth(to - from, kMostBuckets);
    const auto buckets = static_cast<std::size_t>((to - from) / width + ((to - from) % width != 0));
    const __int128_t end = static_cast<__int128_t>(from) + static_cast<__int128_t>(buckets) * width;
    const std::vector<std::vector<uint32_t>> series = activitySeries(
        store, TimeRange{from, static_cast<int64_t>(std::min<__int128_t>(end, INT64_MAX))}, buckets, threads);
    std::vector<uint32_t> total(buckets, 0);
    std::vector<uint64_t> threadTotal(threads.size(), 0);
    uint64_t max = 0;
    for (std::size_t k = 0; k < series.size(); ++k)
        for (std::size_t b = 0; b < buckets; ++b) {
            total[b] += series[k][b];
            threadTotal[k] += series[k][b];
            max = std::max<uint64_t>(max, series[k][b]);
        }
    const uint64_t samples = std::accumulate(threadTotal.begin(), threadTotal.end(), uint64_t{0});
    const CostType time{"", CostUnit::Nanoseconds, 0};
    o << "timeline:      " << samples << " samples over "
      << formatCost(first < last ? store.time(last - 1) - store.time(first) : 0, time);
    if (s.timeGiven)
        o << " (--time " << formatCost(s.range.begin, time) << " to "
          << (s.range.end == INT64_MAX ? std::string("the end") : formatCost(s.range.end, time)) << ')';
    o << '\n';
    if (store.hasCpu()) {
        std::vector<uint64_t> perCpu;
        std::vector<char> chosen(store.threadCount(), 0);
        for (const uint32_t t : threads)
            if (t < chosen.size())
                chosen[t] = 1;
        uint64_t unknown = 0;
        for (std::size_t i = first; i < last; ++i) {
            if (store.thread(i) >= chosen.size() || !chosen[store.thread(i)])
                continue;
            const int32_t cpu = store.cpu(i);
            if (cpu < 0) {
                ++unknown;
                continue;
            }
            if (static_cast<std::size_t>(cpu) >= perCpu.size())
                perCpu.resize(static_cast<std::size_t>(cpu) + 1, 0);
            ++perCpu[static_cast<std::size_t>(cpu)];
        }
        o << "cpu samples:   ";
        bool any = false;
        for (std::size_t c = 0; c < perCpu.size(); ++c)
            if (perCpu[c]) {
                o << (any ? ", " : "") << "cpu" << c << ' ' << perCpu[c];
                any = true;
            }
        if (unknown)
            o << (any ? ", " : "") << "unknown " << unknown;
        o << '\n';
    }
    std::string label = "per " + bucketWidthText(width) + ":";
    label.resize(std::max<std::size_t>(label.size() + 1, 15), ' ');
    o << label;
    for (std::size_t b = 0; b < buckets; ++b)
        o << (b ? " " : "") << total[b];
    o << "  (samples from " << formatCost(from, time) << ")\n";
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < threads.size(); ++k)
        if (threadTotal[k])
            order.push_back(k);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return threadTotal[a] > threadTotal[b]; });
    o << "activity per thread, one character per " << bucketWidthText(width) << " (\u2588 = " << max
      << " samples):\n";
    constexpr std::size_t kMostThreads = 10;
    for (std::size_t i = 0; i < order.size() && i < kMostThreads; ++i) {
        const std::size_t k = order[i];
        const ThreadInfo& t = p.threads[threads[k]];
        o << "  |" << sparkline(series[k], max) << "| " << threadTotal[k] << "  "
          << (t.name.empty() ? std::string("(unnamed)") : escapeText(t.name));
        if (t.pid >= 0 || t.tid >= 0)
            o << " [pid " << (t.pid >= 0 ? std::to_string(t.pid) : "?") << " tid " << t.tid << "]";
        o << '\n';
    }
    if (order.size() > kMostThreads)
        o << "  ... " << order.size() - kMostThreads << " more threads\n";
}

int run(const Command&, const Args& args) {
    if (args.operands.empty())
        return usageError(infoCommand(), "info: no FILE given");
    ProfileArgs profile = profileArgs(args);
    profile.import.sampleStore = true; // (the timeline)
    return withProfile(args.operands.front(), profile, [&](Profile& p, const Selection& selection) {
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
        printTimeline(o, p, selection);
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
        if (!p.meta.modules.empty()) { // the Symbols report: why a frame is [unknown], what to point at
            o << "symbols:       " << p.meta.modules.size() << " modules with samples\n";
            for (const ModuleReport& m : p.meta.modules)
                o << "  " << percent(static_cast<int64_t>(m.samples), static_cast<int64_t>(p.meta.samples))
                  << "  " << escapeText(m.path)
                  << (m.buildId.empty() ? "" : " [" + m.buildId.substr(0, 12) + "]") << ": "
                  << escapeText(describeModule(m)) << '\n';
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
        .synopsis =
            "Usage: scorch info [OPTIONS] FILE\n"
            "\n"
            "Prints the detected format, cost types with totals, sample count, unique stacks, "
            "maximum depth,\n"
            "the timeline (duration, samples per CPU, samples per time bucket, a sparkline per "
            "thread), threads,\n"
            "the 10 functions with the highest self cost, for perf.data and Scorch recordings where each\n"
            "module's binary, symbols, debug and unwind info were found (or every place searched), and any\n"
            "import warnings. Text from the profile\n"
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
