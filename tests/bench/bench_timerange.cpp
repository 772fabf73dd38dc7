// bench_timerange: the time dimension on a real recording: the sample store's size, how long re-aggregating
// a time range takes, how long the timeline's bucket queries take, and the peak RSS of it all.
//
//   build/tests/bench/bench_timerange FILE [--runs N] [--buckets N] [--pause S]
//
// Imports FILE (perf.data, a Scorch recording or perf script text; not timed), then prints the store's bytes
// per sample, the median time of sliceSamples() (and apart from it, of freeing its result) for the middle
// half and a 1% range of the recording (and for half of the threads over the whole time), of activitySeries()
// for all threads at N buckets (default 2000, a wide timeline) over the whole and over 1% of the recording,
// of onStackSeries() for the busiest depth-2 frame, and the process's peak RSS (VmHWM). The window's path for
// a range (slice, Profile, per-function costs) is timed for the first range after the import (in new
// memory, and after SliceMemory::prepare() as the window does once a profile is shown), for ranges
// reusing the memory of those before (a drag), in new memory, and after a pause of S seconds (default 5; 0:
// not timed) with the memory kept freed or given to the kernel lazily (SliceMemory::release()), as the window
// does: on a VM whose host takes a guest's free memory back, freed memory comes back slowly. Targets (issue
// 13, fp-large: 1.17 M samples, 4.6 M nodes, 2 cores): half range <= 100 ms, 1% <= 10 ms.
#include "scorch/analysis.h"
#include "scorch/import.h"
#include "scorch/procstatus.h"
#include "scorch/samples.h"

#include "benchutil.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace scorch;
using scorch::bench::median;

namespace {

/// The median time of f() over `runs` runs; with `after`, called after each run and not counted in it, the
/// median time of that in *afterMs.
/// The fastest and slowest run of the last timeMs() (this VM's speed varies by tens of per cent).
double g_fastest = 0, g_slowest = 0;

double timeMs(int runs, const std::function<void()>& f, const std::function<void()>& after = {},
              double* afterMs = nullptr) {
    std::vector<double> ms, msAfter;
    for (int r = 0; r < runs; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        const auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        if (after) {
            after();
            msAfter.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count());
        }
    }
    if (afterMs && !msAfter.empty())
        *afterMs = median(msAfter);
    g_fastest = *std::min_element(ms.begin(), ms.end());
    g_slowest = *std::max_element(ms.begin(), ms.end());
    return median(ms);
}

std::string peakRss() {
    const long long kb = procKilobytes("/proc/self/status", "VmHWM");
    return kb < 0 ? " ?" : " " + std::to_string(kb) + " kB";
}

} // namespace

int main(int argc, char** argv) {
    std::string file;
    int runs = 9;
    std::size_t buckets = 2000;
    int pause = 5;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--buckets") && i + 1 < argc)
            buckets = static_cast<std::size_t>(std::max(1, std::atoi(argv[++i])));
        else if (!std::strcmp(argv[i], "--pause") && i + 1 < argc)
            pause = std::max(0, std::atoi(argv[++i]));
        else
            file = argv[i];
    }
    if (file.empty()) {
        std::fprintf(stderr, "usage: bench_timerange FILE [--runs N] [--buckets N] [--pause S]\n");
        return 2;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const Profile profile = importProfile(file);
    const double importMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s: %llu samples, %zu nodes, %zu threads, imported in %.0f ms, peak RSS after import:%s\n",
                file.c_str(), static_cast<unsigned long long>(profile.meta.samples), profile.tree.size(),
                profile.threads.size(), importMs, peakRss().c_str());
    if (!profile.samples) {
        std::fprintf(stderr, "%s has no per-sample times\n", file.c_str());
        return 1;
    }
    const SampleStore& store = *profile.samples;
    const double n = static_cast<double>(std::max<std::size_t>(store.size(), 1));
    std::printf("store: %zu samples, %.2f bytes/sample (8 time + 4 thread + 4 node%s%s, %zu cost columns: ",
                store.size(), static_cast<double>(store.bytes()) / n, store.hasCpu() ? " + 4 CPU" : "",
                store.hasStacks() ? " + 4 stack" : "", store.costTypeCount());
    for (std::size_t t = 0; t < store.costTypeCount(); ++t)
        std::printf("%s%.1f", t ? " + " : "", static_cast<double>(store.cost(t).bytes()) / n);
    std::printf(")\n");
    const int64_t span = store.lastTime() + 1;
    if (hasSliceDetails(profile)) {
        const StackDetails& st = profile.stacks;
        std::printf(
            "stack details (a range's lines and instructions): %zu stacks, %zu line refs, %.1f MB, "
            "+ 4 bytes/sample for the stack column\n",
            st.size(), st.lines.size(),
            static_cast<double>(
                (st.linesFirst.size() + st.lines.size() + st.leafLine.size() + st.leafAddress.size()) * 4) /
                1e6);
    }
    // what the window does for a range: the slice with its lines and instructions (where kept), the Profile
    // the views are given, and the per-function costs the Functions table shows
    // (the window's slices reuse the memory of those before: sliceProfile() with a SliceMemory)
    enum class Memory {
        Reused,        // the memory of the slice before (a drag)
        New,           // each slice in new memory, freed right after
        PauseFreed,    // a pause after each: the memory kept freed (the window before 2026-11-27)
        PauseReleased, // a pause after each: the memory kept given to the kernel lazily (the window now)
        Prepared,      // SliceMemory::prepare() before (the window once a profile is loaded; timed apart)
    };
    auto windowSlice = [&](TimeRange r, const char* what, Memory how = Memory::Reused, int times = 0) {
        auto memory = std::make_shared<SliceMemory>();
        SliceRequest req;
        req.range = r;
        req.details = true;
        req.functions = true;
        req.memory = memory.get();
        std::shared_ptr<const Profile> p;
        std::size_t functions = 0;
        double sliceMs = 0, profileMs = 0, functionsMs = 0;
        if (how == Memory::Prepared) {
            const auto a = std::chrono::steady_clock::now();
            memory->prepare(profile);
            std::printf(
                "prepare(): a slice of everything, %.1f MB kept, in %.1f ms\n",
                static_cast<double>(memory->bytes()) / 1e6,
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
        }
        const double ms = timeMs(
            times ? times : runs,
            [&] {
                const auto a = std::chrono::steady_clock::now();
                std::optional<TimeSlice> s = sliceSamples(profile, req);
                const auto b = std::chrono::steady_clock::now();
                p = sliceProfile(profile, std::move(*s), memory);
                const auto c = std::chrono::steady_clock::now();
                functions = functionCosts(*p).size();
                const auto d = std::chrono::steady_clock::now();
                sliceMs = std::chrono::duration<double, std::milli>(b - a).count();
                profileMs = std::chrono::duration<double, std::milli>(c - b).count();
                functionsMs = std::chrono::duration<double, std::milli>(d - c).count();
            },
            [&] {
                p.reset();
                if (how == Memory::New || how == Memory::PauseFreed) {
                    memory->clear();
                    memory = std::make_shared<SliceMemory>();
                    req.memory = memory.get();
                } else if (how == Memory::PauseReleased) {
                    memory->release();
                }
                if (how == Memory::PauseFreed || how == Memory::PauseReleased)
                    std::this_thread::sleep_for(std::chrono::seconds(pause));
            });
        std::printf("window's %-24s %zu functions: %8.2f ms (median of %d, %.1f-%.1f; the last: slice %.1f, "
                    "profile %.1f, function costs %.1f)\n",
                    what, functions, ms, times ? times : runs, g_fastest, g_slowest, sliceMs, profileMs,
                    functionsMs);
    };
    // (the first slice after the import: its memory is new to the process)
    windowSlice({span / 4, span / 4 + span / 2}, "half, the first", Memory::New, 1);
    // (the same after prepare(), as the window does once the import is shown)
    windowSlice({span / 4, span / 4 + span / 2}, "half, first, prepared", Memory::Prepared, 1);
    // With `reuse`, each slice reuses the memory of the one before (SliceMemory), as the window's slices do
    // while a selection is dragged; without, each maps in new memory.
    auto slice = [&](TimeRange r, std::vector<uint32_t> threads, const char* what, bool details = false,
                     bool reuse = false) {
        SliceMemory memory;
        SliceRequest req;
        req.range = r;
        req.details = details;
        req.threads = std::move(threads);
        req.memory = reuse ? &memory : nullptr;
        std::size_t nodes = 0;
        uint64_t samples = 0;
        // (the slice is freed after the clock stops, as the window frees the one a new range replaces on a
        // pool thread; that is timed apart)
        std::optional<TimeSlice> s;
        double freeMs = 0;
        const double ms = timeMs(
            runs,
            [&] {
                s = sliceSamples(profile, req);
                nodes = s->tree.size();
                samples = s->samples;
            },
            [&] {
                if (reuse)
                    memory.recycle(std::move(*s));
                s.reset();
            },
            &freeMs);
        std::printf("slice %-22s %9llu samples -> %8zu nodes: %8.2f ms (median of %d, %.1f-%.1f; freeing it "
                    "%.2f ms)\n",
                    what, static_cast<unsigned long long>(samples), nodes, ms, runs, g_fastest, g_slowest,
                    freeMs);
    };
    slice({span / 4, span / 4 + span / 2}, {}, "middle half");
    slice({span / 4, span / 4 + span / 2}, {}, "middle half, reusing", false, true);
    slice({span / 2, span / 2 + span / 100}, {}, "1% (middle)");
    slice({0, span}, {}, "everything");
    slice({0, span}, {}, "everything, reusing", false, true);
    if (hasSliceDetails(profile)) {
        slice({span / 4, span / 4 + span / 2}, {}, "middle half + lines", true);
        slice({span / 4, span / 4 + span / 2}, {}, "half + lines, reusing", true, true);
        slice({span / 2, span / 2 + span / 100}, {}, "1% + lines", true);
    }
    windowSlice({span / 4, span / 4 + span / 2}, "middle half");
    windowSlice({span / 4, span / 4 + span / 2}, "half, new memory", Memory::New);
    windowSlice({span / 2, span / 2 + span / 100}, "1% (middle)");
    if (pause > 0) { // (last: the machine may run the queries after a pause slower for a while)
        const int times = std::min(runs, 5);
        windowSlice({span / 4, span / 4 + span / 2}, "half, pause, freed", Memory::PauseFreed, times);
        windowSlice({span / 4, span / 4 + span / 2}, "half, pause, released", Memory::PauseReleased, times);
    }

    std::vector<uint32_t> half;
    for (uint32_t t = 0; t < profile.threads.size(); t += 2)
        half.push_back(t);
    slice({0, span}, half, "every other thread");

    (void)store.threadSamples(0); // the per-thread index is built on first use: not part of the queries
    std::printf("per-thread index built, peak RSS:%s\n", peakRss().c_str());
    auto series = [&](TimeRange r, const char* what) {
        const double ms = timeMs(runs, [&] { (void)activitySeries(store, r, buckets); });
        std::printf("activity %-19s %zu buckets x %zu threads: %8.2f ms\n", what, buckets,
                    store.threadCount(), ms);
    };
    series({0, span}, "whole");
    series({span / 2, span / 2 + span / 100}, "1% (middle)");

    NodeId busiest = kRootNode;
    for (NodeId c = 1; c < profile.tree.size(); ++c)
        if (profile.tree.depth(c) == 2 &&
            (busiest == kRootNode || profile.tree.total(0, c) > profile.tree.total(0, busiest)))
            busiest = c;
    if (busiest != kRootNode) {
        const FrameId f = profile.tree.frame(busiest);
        const double ms = timeMs(runs, [&] { (void)onStackSeries(profile, f, {0, span}, buckets); });
        std::printf("on-stack %-19.19s %zu buckets, whole: %8.2f ms\n",
                    std::string(profile.frameName(f)).c_str(), buckets, ms);
    }
    std::printf("peak RSS:%s\n", peakRss().c_str());
    return 0;
}
