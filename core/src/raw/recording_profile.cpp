// Recording -> Profile: maps each recorded IP to (module, file offset) through the recorded module map (as
// it was at the sample's time) and hands the samples to RawProfileBuilder, which symbolizes them.
#include "scorch/recording.h"

#include "io/chunkpipeline.h"
#include "raw/recordingimport.h"
#include "scorch/bytesource.h"
#include "scorch/import.h"
#include "scorch/rawprofile.h"
#include "symbols/symbolizeroptions.h"

#include <algorithm>
#include <map>

namespace scorch {

namespace {

struct Mapping {
    uint64_t start, end, offset, timeNs;
    ModuleHandle handle;
};

} // namespace

struct RecordingFeeder::Impl {
    Symbolizer& symbolizer;
    RawProfileBuilder& builder;
    std::vector<Mapping> mappings; // sorted by start
    std::size_t knownModules = 0;
    std::map<int64_t, uint32_t> threads;
    bool costSet = false;
    uint32_t cost = 0;
    uint64_t startNs = 0;
    std::vector<RawFrame> frames;

    Impl(Symbolizer& s, RawProfileBuilder& b)
        : symbolizer(s)
        , builder(b) {}

    void addModules(const Recording& r) {
        if (r.modules.size() < knownModules)
            knownModules = 0, mappings.clear();
        for (std::size_t i = knownModules; i < r.modules.size(); ++i) {
            const RecordedModule& m = r.modules[i];
            mappings.push_back({m.start, m.end, m.offset, m.timeNs, symbolizer.module(m.path, m.buildId)});
        }
        knownModules = r.modules.size();
        std::stable_sort(mappings.begin(), mappings.end(),
                         [](const Mapping& a, const Mapping& b) { return a.start < b.start; });
    }

    /// The mapping that covered `ip` at `timeNs`: the latest one seen before then, else the earliest one.
    const Mapping* find(uint64_t ip, uint64_t timeNs) const {
        auto it = std::upper_bound(mappings.begin(), mappings.end(), ip,
                                   [](uint64_t a, const Mapping& m) { return a < m.start; });
        const Mapping* best = nullptr;
        int looked = 0;
        while (it != mappings.begin() && looked++ < 16) {
            --it;
            if (ip >= it->end)
                continue;
            const bool before = it->timeNs <= timeNs;
            if (!best || (before && (best->timeNs > timeNs || it->timeNs > best->timeNs)) ||
                (!before && best->timeNs > timeNs && it->timeNs < best->timeNs))
                best = &*it;
        }
        return best;
    }
};

RecordingFeeder::RecordingFeeder(Symbolizer& symbolizer, RawProfileBuilder& builder)
    : d(std::make_unique<Impl>(symbolizer, builder)) {}

RecordingFeeder::~RecordingFeeder() = default;

void RecordingFeeder::feed(const Recording& r, const std::atomic<bool>* cancel) {
    if (!d->costSet) {
        d->cost = d->builder.costType(r.mode == "ptrace" ? "wall-clock" : "cpu-clock", CostUnit::Samples);
        d->costSet = true;
        d->startNs = r.startNs;
    }
    d->addModules(r);
    const CostValue one[] = {{d->cost, 1}};
    std::size_t n = 0;
    for (const RecordedSample& s : r.samples) {
        if (cancel && (++n & 1023) == 0 && cancel->load(std::memory_order_relaxed))
            return;
        auto t = d->threads.find(s.tid);
        if (t == d->threads.end()) {
            std::string name = r.threadName(s.tid);
            if (name.empty())
                name = "thread " + std::to_string(s.tid);
            t = d->threads.emplace(s.tid, d->builder.thread(name, r.pid, s.tid)).first;
        }
        d->frames.clear();
        for (uint32_t i = 0; i < s.count; ++i) {
            const uint64_t ip = r.ips[s.first + i];
            RawFrame f;
            f.returnAddress = i > 0;
            if (const Mapping* m = d->find(ip, s.timeNs)) {
                f.module = m->handle;
                f.address = ip - m->start + m->offset;
            } else {
                f.address = ip;
            }
            d->frames.push_back(f);
        }
        const double time =
            d->startNs && s.timeNs >= d->startNs ? static_cast<double>(s.timeNs - d->startNs) / 1e9 : -1.0;
        d->builder.addSample(t->second, d->frames, one, time);
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
        meta.warn(std::to_string(recording.lost) + " samples were lost while recording");
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
    Profile p =
        profileFromRecording(parseRecording(bytes, name), name, control.cancel, symbolizerOptions(options));
    p.meta.inputBytes = bytes.size();
    p.meta.compression = source.compression();
    if (p.meta.samples == 0)
        throw ImportError(name + ": the recording has no samples");
    return p;
}

} // namespace detail

} // namespace scorch
