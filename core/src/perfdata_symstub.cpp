// TEMPORARY stand-in for the Symbolizer / RawProfileBuilder of branch `symbolizer`, so that the perf.data
// reader builds and is tested before that branch lands. It resolves nothing: every frame is
// `[module+0xoffset]`. Deleted when `symbolizer` is merged.
#include "scorch/symbolizer.h"

#include <cstdio>
#include <map>
#include <tuple>

namespace scorch {

struct Symbolizer::Impl {
    std::vector<std::string> paths;
    std::map<std::pair<std::string, std::string>, uint32_t> index;
    uint32_t add(std::string path, std::string id) {
        auto [it, fresh] = index.try_emplace({path, id}, static_cast<uint32_t>(paths.size()));
        if (fresh)
            paths.push_back(std::move(path));
        return it->second;
    }
};

Symbolizer::Symbolizer(SymbolizerOptions)
    : d(std::make_unique<Impl>()) {}
Symbolizer::~Symbolizer() = default;
ModuleHandle Symbolizer::module(std::string_view path, std::string_view buildId) {
    return {d->add(std::string(path), std::string(buildId))};
}
ModuleHandle Symbolizer::kernel() {
    return {d->add("[kernel.kallsyms]", "\x01")};
}
ModuleHandle Symbolizer::jitMap(int64_t pid) {
    return {d->add("perf-" + std::to_string(pid) + ".map", "\x02")};
}
std::vector<std::vector<SymbolFrame>> Symbolizer::symbolize(std::span<const Request> requests,
                                                            const std::atomic<bool>*) {
    return std::vector<std::vector<SymbolFrame>>(requests.size(), std::vector<SymbolFrame>(1));
}
std::string_view Symbolizer::modulePath(ModuleHandle m) const {
    return m.value < d->paths.size() ? std::string_view(d->paths[m.value]) : std::string_view();
}
std::vector<ModuleReport> Symbolizer::report() const {
    return {};
}

struct RawProfileBuilder::Impl {
    Symbolizer* sym;
    TreeBuilder tree;
    struct Sample {
        uint32_t thread;
        std::vector<std::string> frames;
        std::vector<CostValue> costs;
    };
    std::vector<Sample> samples;
    std::vector<std::pair<std::string, CostUnit>> types;
    std::vector<std::tuple<std::string, int64_t, int64_t>> threads;
};
RawProfileBuilder::RawProfileBuilder(Symbolizer& s)
    : d(std::make_unique<Impl>()) {
    d->sym = &s;
}
RawProfileBuilder::~RawProfileBuilder() = default;
uint32_t RawProfileBuilder::costType(std::string_view name, CostUnit unit) {
    d->types.emplace_back(name, unit);
    return d->tree.costType(name, unit);
}
uint32_t RawProfileBuilder::thread(std::string_view name, int64_t pid, int64_t tid) {
    d->threads.emplace_back(name, pid, tid);
    return d->tree.thread(name, pid, tid);
}
void RawProfileBuilder::addSample(uint32_t thread, std::span<const RawFrame> leafToRoot,
                                  std::span<const CostValue> costs, double timeSeconds) {
    d->samples.push_back({thread, {}, {costs.begin(), costs.end()}});
    std::vector<FrameId> frames;
    for (auto it = leafToRoot.rbegin(); it != leafToRoot.rend(); ++it) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "+0x%llx]", static_cast<unsigned long long>(it->address));
        std::string name = "[" + std::string(d->sym->modulePath(it->module)) + buf;
        frames.push_back(d->tree.frame(name));
        d->samples.back().frames.push_back(name);
    }
    d->tree.addSample(thread, frames, costs);
    if (timeSeconds >= 0)
        d->tree.noteTime(timeSeconds);
}
uint64_t RawProfileBuilder::samples() const {
    return d->tree.samples();
}
Profile RawProfileBuilder::snapshot(ProfileMeta meta, const std::atomic<bool>*) {
    TreeBuilder copy;
    for (auto& [n, u] : d->types)
        copy.costType(n, u);
    for (auto& [n, p, t] : d->threads)
        copy.thread(n, p, t);
    for (const auto& s : d->samples) {
        std::vector<FrameId> f;
        for (const auto& n : s.frames)
            f.push_back(copy.frame(n));
        copy.addSample(s.thread, f, s.costs);
    }
    return copy.finish(std::move(meta));
}
Profile RawProfileBuilder::finish(ProfileMeta meta, const std::atomic<bool>*) {
    return d->tree.finish(std::move(meta));
}

} // namespace scorch
