// Recording -> Profile: maps each recorded IP to (module, file offset) through the recorded module map (as
// it was at the sample's time) and hands the samples to RawProfileBuilder, which symbolizes them.
#include "scorch/recording.h"

#include "io/chunkpipeline.h"
#include "model/offcpu.h"
#include "raw/recordingimport.h"
#include "scorch/bytesource.h"
#include "scorch/cancel.h"
#include "scorch/import.h"
#include "scorch/rawprofile.h"
#include "scorch/warningkind.h"
#include "symbols/addressspace.h"
#include "symbols/symbolizeroptions.h"

#include <algorithm>
#include <map>
#include <span>

namespace scorch {

struct RecordingFeeder::Impl {
    Symbolizer& symbolizer;
    RawProfileBuilder& builder;
    detail::AddressSpace mappings; ///< every module the recording saw, with the time it appeared
    std::size_t knownModules = 0;
    std::map<int64_t, uint32_t> threads;
    bool costSet = false;
    uint32_t cost = 0;
    uint32_t offCost = UINT32_MAX, wallCost = UINT32_MAX; ///< off-CPU recordings
    bool wallClock = false;                               ///< ptrace: its sample count has blocked samples
    uint64_t startNs = 0;
    std::vector<RawFrame> frames;
    std::vector<detail::Mapping> added;

    Impl(Symbolizer& s, RawProfileBuilder& b)
        : symbolizer(s)
        , builder(b) {}

    void addModules(const Recording& r) {
        if (r.modules.size() < knownModules)
            knownModules = 0, mappings.clear();
        added.clear();
        for (std::size_t i = knownModules; i < r.modules.size(); ++i) {
            const RecordedModule& m = r.modules[i];
            detail::Mapping mapping;
            mapping.start = m.start;
            mapping.end = m.end;
            mapping.pgoff = m.offset;
            mapping.timeNs = m.timeNs;
            mapping.module = symbolizer.module(m.path, m.buildId);
            added.push_back(mapping);
        }
        knownModules = r.modules.size();
        mappings.add(added);
    }
};

RecordingFeeder::RecordingFeeder(Symbolizer& symbolizer, RawProfileBuilder& builder)
    : d(std::make_unique<Impl>(symbolizer, builder)) {}

RecordingFeeder::~RecordingFeeder() = default;

void RecordingFeeder::feed(const Recording& r, const std::atomic<bool>* cancel) {
    if (!d->costSet) {
        d->wallClock = r.mode == "ptrace";
        d->cost = d->builder.costType(d->wallClock ? "wall-clock" : "cpu-clock", CostUnit::Samples);
        if (r.offCpu) {
            d->offCost = d->builder.costType(detail::kOffCpuCost, CostUnit::Nanoseconds);
            d->wallCost = d->builder.costType(detail::kWallCost, CostUnit::Nanoseconds);
        }
        d->costSet = true;
        d->startNs = r.startNs;
    }
    d->addModules(r);
    const CostValue one[] = {{d->cost, 1}};
    std::size_t n = 0;
    for (const RecordedSample& s : r.samples) {
        if ((++n & 1023) == 0 && cancelRequested(cancel))
            return;
        auto t = d->threads.find(s.tid);
        if (t == d->threads.end()) {
            std::string name = r.threadName(s.tid);
            if (name.empty())
                name = "thread " + std::to_string(s.tid);
            t = d->threads.emplace(s.tid, d->builder.thread(name, r.pid, s.tid)).first;
        }
        d->frames.clear();
        const bool off = s.state != 0;
        if (off) // why it waited, as the leaf: [preempted], [blocked: S], ...
            d->frames.push_back(d->builder.pseudoFrame(detail::offCpuLeaf(s.state)));
        if (off && s.count == 0)
            d->frames.push_back(d->builder.pseudoFrame("[no stack]"));
        for (uint32_t i = 0; i < s.count; ++i) {
            const uint64_t ip = r.ips[s.first + i];
            if (const detail::Mapping* m = d->mappings.findAt(ip, s.timeNs)) {
                d->frames.push_back(m->frame(ip, i > 0));
            } else {
                RawFrame f;
                f.address = ip;
                f.returnAddress = i > 0;
                d->frames.push_back(f);
            }
        }
        // Seconds since the recording started. A stretch of waiting can begin a little before the sampler
        // took its start time (a thread already blocked when it attached, the first switches after exec):
        // it starts at 0 rather than dropping the profile's timeline, which needs every sample's time.
        const double time = !d->startNs || !s.timeNs ? -1.0
                            : s.timeNs <= d->startNs ? 0.0
                                                     : static_cast<double>(s.timeNs - d->startNs) / 1e9;
        if (d->wallCost == UINT32_MAX || s.durationNs == 0) {
            d->builder.addSample(t->second, d->frames, one, time);
            continue;
        }
        const auto ns = static_cast<int64_t>(std::min<uint64_t>(s.durationNs, INT64_MAX));
        CostValue costs[3] = {{d->wallCost, ns}, {d->offCost, ns}, {d->cost, 1}};
        std::size_t k = 1;
        if (off)
            costs[k++] = {d->offCost, ns};
        if (!off || d->wallClock)
            costs[k++] = {d->cost, 1};
        d->builder.addSample(t->second, d->frames, std::span<const CostValue>(costs, k), time);
    }
}

Profile profileFromRecording(const Recording& recording, const std::string& name,
                             const std::atomic<bool>* cancel, bool symbolize) {
    return profileFromRecording(recording, name, cancel,
                                symbolize ? SymbolizerOptions{} : SymbolizerOptions::offline());
}

Profile profileFromRecording(const Recording& recording, const std::string& name,
                             const std::atomic<bool>* cancel, const SymbolizerOptions& symbols) {
    Symbolizer symbolizer(symbols);
    RawProfileBuilder builder(symbolizer);
    RecordingFeeder feeder(symbolizer, builder);
    feeder.feed(recording, cancel);
    ProfileMeta meta;
    meta.source = name;
    meta.format = Format::ScorchRecording;
    for (const std::string& note : recording.notes)
        meta.warn(note);
    if (recording.lost)
        warnSerious(meta,
                    std::to_string(recording.lost) + " samples were lost while recording"); // serious: kept
    return builder.finish(std::move(meta), cancel);
}

namespace detail {

bool sniffRecording(std::string_view head) {
    return head.starts_with(kRecordingMagic);
}

Profile importRecording(ByteSource& source, std::string head, const std::string& name,
                        const ImportOptions& options, const ImportControl& control) {
    std::string bytes = std::move(head);
    readRest(source, control, [&](std::string_view block) { bytes.append(block); });
    Profile p = profileFromRecording(parseRecording(bytes, name), name, control.cancel,
                                     symbolizerOptions(options, control));
    p.meta.inputBytes = bytes.size();
    p.meta.compression = source.compression();
    if (p.meta.samples == 0)
        throw ImportError(name + ": the recording has no samples");
    return p;
}

} // namespace detail

} // namespace scorch
