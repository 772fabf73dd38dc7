#include "scorch/sourcecost.h"

#include <algorithm>
#include <map>
#include <utility>

namespace scorch {

namespace {

/// Frames that stand for the function of `frame`.
std::vector<FrameId> functionFrames(const Profile& profile, FrameId frame, FunctionScope scope) {
    if (scope == FunctionScope::Frame || frame.value == 0 || frame.value >= profile.frames.size())
        return {frame};
    const Frame& f = profile.frames[frame];
    std::vector<FrameId> out;
    for (uint32_t id = 1; id < profile.frames.size(); ++id) {
        const Frame& g = profile.frames[FrameId{id}];
        if (g.name == f.name && g.module == f.module && g.kind != FrameKind::Process)
            out.push_back(FrameId{id});
    }
    if (out.empty())
        out.push_back(frame);
    return out;
}

} // namespace

FunctionSource functionSource(const Profile& profile, FrameId frame, std::size_t costType,
                              FunctionScope scope) {
    FunctionSource out;
    const LineCosts& lc = profile.lineCosts;
    const std::size_t types = profile.costTypes.size();
    out.costType = types == 0 ? 0 : std::min(costType, types - 1);
    out.frames = functionFrames(profile, frame, scope);
    for (FrameId f : out.frames) {
        if (f.value >= profile.frames.size())
            continue;
        const Frame& def = profile.frames[f];
        if (def.file && !out.definitionFile) { // the first frame that knows it
            out.definitionFile = def.file;
            out.definitionLine = def.line;
        }
    }

    // Entries are sorted by (frame, file, line): each frame's entries are one contiguous range.
    std::map<std::pair<uint32_t, uint32_t>, std::size_t> index; // (file, line) -> entry of out.lines
    for (FrameId f : out.frames) {
        auto lo = std::lower_bound(lc.frame.begin(), lc.frame.end(), f.value,
                                   [](FrameId a, uint32_t v) { return a.value < v; });
        for (auto e = static_cast<std::size_t>(lo - lc.frame.begin()); e < lc.size() && lc.frame[e] == f;
             ++e) {
            auto [it, fresh] = index.try_emplace({lc.file[e].value, lc.line[e]}, out.lines.size());
            if (fresh)
                out.lines.push_back(
                    {lc.file[e], lc.line[e], std::vector<int64_t>(types, 0), std::vector<int64_t>(types, 0)});
            FunctionLine& l = out.lines[it->second];
            for (std::size_t t = 0; t < types && t < lc.self.size(); ++t) {
                addCost(l.self[t], lc.self[t][e]);
                addCost(l.total[t], lc.total[t][e]);
            }
        }
    }
    if (types == 0)
        return out;

    const std::size_t ct = out.costType;
    std::sort(out.lines.begin(), out.lines.end(), [ct](const FunctionLine& a, const FunctionLine& b) {
        if (a.self[ct] != b.self[ct])
            return a.self[ct] > b.self[ct];
        if (a.total[ct] != b.total[ct])
            return a.total[ct] > b.total[ct];
        if (a.file.value != b.file.value)
            return a.file.value < b.file.value;
        return a.line < b.line;
    });

    for (const FunctionLine& l : out.lines) {
        auto it = std::find_if(out.files.begin(), out.files.end(),
                               [&](const FunctionFile& f) { return f.file == l.file; });
        if (it == out.files.end()) {
            out.files.push_back({l.file, 0, 0});
            it = out.files.end() - 1;
        }
        addCost(it->self, l.self[ct]);
        it->total = std::max(it->total, l.total[ct]);
    }
    std::stable_sort(out.files.begin(), out.files.end(), [](const FunctionFile& a, const FunctionFile& b) {
        return a.self != b.self ? a.self > b.self : a.total > b.total;
    });
    return out;
}

std::vector<const FunctionLine*> linesInFile(const FunctionSource& source, StringId file) {
    std::vector<const FunctionLine*> out;
    for (const FunctionLine& l : source.lines)
        if (l.file == file)
            out.push_back(&l);
    std::sort(out.begin(), out.end(),
              [](const FunctionLine* a, const FunctionLine* b) { return a->line < b->line; });
    return out;
}

} // namespace scorch
