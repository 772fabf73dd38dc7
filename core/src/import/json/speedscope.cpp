// speedscope JSON importer (https://www.speedscope.app/file-format-schema.json): shared frames, sampled and
// evented profiles, every unit. The document is walked as a stream (jsonwalker.h); arrays of samples,
// weights and events are parsed with simdjson in batches, so memory stays far below the file size.
#include "import/json/jsonimporters.h"
#include "import/json/jsonwalker.h"
#include "import/json/speedscopescan.h"
#include "import/json/speedscopetree.h"
#include "io/chunkpipeline.h"
#include "scorch/builder.h"
#include "scorch/profile.h"
#include "scorch/samples.h"

#include <simdjson.h>

#include "util/hash.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <span>

namespace scorch::detail {

namespace {

using speedscope::FrameInfo;
using speedscope::IndexTree;
using speedscope::ProfileCosts;
using speedscope::ProfileState;

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    return buf;
}

/// A JSON line number as an integer; absurd values (negative, huge, NaN) become 0, "unknown".
int64_t lineNumber(double v) {
    return v >= 0 && v < 4e9 ? static_cast<int64_t>(v) : 0;
}

std::string_view unquote(std::string_view raw) {
    if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"')
        return raw.substr(1, raw.size() - 2);
    return raw;
}

class SpeedscopeHandler final : public JsonHandler {
public:
    explicit SpeedscopeHandler(const std::string& name)
        : m_name(name) {}

    Take descend(const JsonPath& path, char open) override {
        bool walk = false;
        switch (path.size()) {
        case 0:
            walk = open == '{';
            break;
        case 1:
            walk = (path[0].key == "shared" && open == '{') || (path[0].key == "profiles" && open == '[');
            break;
        case 2:
            walk = path[0].key == "profiles" && open == '{';
            break;
        case 3:
            if (path[0].key == "profiles" && open == '[' &&
                (path[2].key == "samples" || path[2].key == "weights" || path[2].key == "events")) {
                m_currentProfile = path[1].index;
                m_elements[batchIndex(path[2].key)] = 0;
                return Take::Slices;
            }
            break;
        default:
            break;
        }
        return walk ? Take::Walk : Take::Whole;
    }

    void slice(const JsonPath& path, std::string_view elements) override {
        const std::size_t which = batchIndex(path[2].key);
        std::string& batch = m_batch[which];
        // the common shape (stacks of plain integers, plain numbers) is read directly; anything else,
        // including every error, goes the simdjson way
        if (batch.empty() && ((which == 0 && fastSamples(elements)) || (which == 1 && fastWeights(elements))))
            return;
        batch.append(elements);
        batch.push_back(',');
        if (batch.size() > (1u << 20))
            flush(batchIndex(path[2].key));
    }

    void value(const JsonPath& path, std::string_view raw) override {
        if (path.size() == 2 && path[0].key == "shared" && path[1].key == "frames") {
            parseFrames(raw);
        } else if (path.size() == 3 && path[0].key == "profiles") {
            ProfileState& p = profile(path[1].index);
            const std::string_view key = path[2].key;
            if (key == "name")
                p.name = unescape(raw);
            else if (key == "type")
                p.type = std::string(unquote(raw));
            else if (key == "unit")
                p.unit = std::string(unquote(raw));
            else if (key == "startValue")
                p.startValue = std::strtod(std::string(raw).c_str(), nullptr);
        }
    }

    void leave(const JsonPath& path) override {
        if (path.size() == 3 && path[0].key == "profiles")
            flush(batchIndex(path[2].key));
        else if (path.size() == 2 && path[0].key == "profiles")
            finishProfile(path[1].index);
    }

    /// The profile: every profile's index tree is mapped onto one call tree node by node (a parent is mapped
    /// before its children), so each distinct (parent, frame) pair is looked up once, whatever the depth.
    Profile build(const ImportOptions& options) {
        if (m_profiles.empty())
            throw ImportError(m_name + ": speedscope file without profiles");
        Profile out;
        std::vector<FrameId> frames(m_frames.size());
        for (std::size_t i = 0; i < m_frames.size(); ++i) {
            Frame f;
            f.name = out.strings.intern(m_frames[i].name);
            f.file = out.strings.intern(m_frames[i].file);
            f.line = static_cast<uint32_t>(std::clamp<int64_t>(m_frames[i].line, 0, UINT32_MAX));
            frames[i] = out.frames.intern(f);
        }
        // The shared index tree becomes the call tree. Frames that are equal (the file lists one twice) make
        // two index nodes one call tree node: then nodes are mapped through a (parent, frame) table.
        const IndexTree& tree = m_tree;
        for (uint32_t n = 1; n < tree.size(); ++n)
            if (tree.frame(n) >= frames.size())
                badFrame(tree, n, frames.size());
        if (tree.size() > options.maxNodes)
            throw ImportError(m_name + ": the call tree has more than " + std::to_string(options.maxNodes) +
                              " nodes (ImportOptions::maxNodes)");
        std::vector<NodeId> parent(tree.size()), node(tree.size());
        std::vector<FrameId> frame(tree.size());
        const bool distinct = out.frames.size() == frames.size() + 1;
        if (distinct) {
            for (uint32_t n = 1; n < tree.size(); ++n) {
                parent[n] = tree.parent(n);
                frame[n] = frames[tree.frame(n)];
                node[n] = n;
            }
        } else {
            FlatMap64 children;
            parent.resize(1);
            frame.resize(1);
            for (uint32_t n = 1; n < tree.size(); ++n) {
                const NodeId up = node[tree.parent(n)];
                const FrameId f = frames[tree.frame(n)];
                bool inserted;
                node[n] = children.findOrInsert((static_cast<uint64_t>(up) << 32) | f.value,
                                                static_cast<uint32_t>(parent.size()), inserted);
                if (inserted) {
                    parent.push_back(up);
                    frame.push_back(f);
                }
            }
        }
        // cost types in order of first use; fractional counts or bytes keep 3 decimals, or as many as their
        // weights have, up to 9 as folded counts do (a round trip of a folded profile with 7-decimal counts
        // keeps them), as long as the sum of the weights in those units stays below 2^53, so that every
        // weight and every sum is exact as a double and far from int64's limit
        std::vector<uint32_t> typeOf(m_profiles.size());
        std::vector<double> scaleOf(m_profiles.size());
        for (std::size_t pi = 0; pi < m_profiles.size(); ++pi) {
            const auto [costName, unit, unitScale] = unitOf(m_profiles[pi].unit);
            int t = out.costTypeIndex(costName);
            if (t < 0) {
                t = static_cast<int>(out.costTypes.size());
                out.costTypes.push_back({costName, unit, 0});
            }
            typeOf[pi] = static_cast<uint32_t>(t);
            scaleOf[pi] = unitScale;
            const ProfileCosts& costs = m_profiles[pi].costs;
            if (unit != CostUnit::Nanoseconds) {
                int& decimals = out.costTypes[static_cast<std::size_t>(t)].decimals;
                const auto whole = [](double w, int d) {
                    const double x = w * static_cast<double>(pow10(d));
                    // (its rounding error: w is the double nearest to the text, one more rounding in the
                    // product; a looser bound takes a fifth decimal of 88012.19435 for an error of the
                    // fourth)
                    return std::abs(x - std::round(x)) <= 1e-12 * std::max(1.0, std::abs(x));
                };
                constexpr int kMaxDecimals = 9; // as folded counts have at most (text/foldedimport.cpp)
                double sumAbs = 0;
                for (std::size_t e = 0; e < costs.size(); ++e)
                    sumAbs += std::abs(costs.weight(e));
                const auto fits = [sumAbs](int d) {
                    return sumAbs * static_cast<double>(pow10(d)) < 0x1p53;
                };
                for (std::size_t e = 0; e < costs.size(); ++e) {
                    const double w = costs.weight(e);
                    if (!whole(w, decimals))
                        decimals = std::max(decimals, 3);
                    while (decimals < kMaxDecimals && !whole(w, decimals) && fits(decimals + 1))
                        ++decimals;
                }
            }
        }
        std::vector<std::vector<int64_t>> self(out.costTypes.size(), std::vector<int64_t>(parent.size(), 0));
        out.threadCosts.cost.resize(out.costTypes.size());
        SampleLog timed = timeline(typeOf, scaleOf, out);
        for (std::size_t pi = 0; pi < m_profiles.size(); ++pi) {
            ProfileState& p = m_profiles[pi];
            const std::size_t type = typeOf[pi];
            const CostType& costType = out.costTypes[type];
            const double scale = scaleOf[pi] * (costType.unit == CostUnit::Nanoseconds
                                                    ? 1.0
                                                    : static_cast<double>(pow10(costType.decimals)));
            const auto thread = static_cast<uint32_t>(out.threads.size());
            ThreadInfo info;
            info.name = p.name;
            info.tid = static_cast<int64_t>(pi);
            // entries in node order (several index nodes may share a call tree node: summed)
            std::vector<std::pair<NodeId, std::size_t>> order;
            order.reserve(p.costs.size());
            // an empty stack (speedscope's idle time) is cost of the root itself: in the total, in no frame
            for (std::size_t e = 0; e < p.costs.size(); ++e)
                if (p.costs.count(e) != 0 || p.costs.weight(e) != 0)
                    order.emplace_back(node[p.costs.node(e)], e);
            std::sort(order.begin(), order.end());
            for (std::size_t k = 0; k < order.size(); ++k) {
                const std::size_t e = order[k].second;
                const double v = std::round(p.costs.weight(e) * scale);
                const int64_t value = std::isfinite(v) && std::abs(v) < 9.2e18
                                          ? static_cast<int64_t>(v)
                                          : (v > 0 ? INT64_MAX : INT64_MIN);
                if (k == 0 || order[k - 1].first != order[k].first) {
                    out.threadCosts.thread.push_back(thread);
                    out.threadCosts.node.push_back(order[k].first);
                    for (auto& c : out.threadCosts.cost)
                        c.push_back(0);
                }
                addCost(out.threadCosts.cost[type].back(), value);
                addCost(self[type][order[k].first], value);
                info.samples += p.costs.count(e);
            }
            out.meta.samples += info.samples;
            out.threads.push_back(std::move(info));
            p.costs = ProfileCosts(); // memory of this profile is no longer needed
        }
        std::vector<NodeId> remap;
        out.tree = CallTree::fromParentArray(parent, frame, std::move(self), out.frames, out.strings, &remap);
        for (NodeId& n : out.threadCosts.node)
            n = remap[n];
        if (!timed.empty()) {
            std::vector<NodeId> refNode(tree.size());
            for (uint32_t n = 0; n < tree.size(); ++n)
                refNode[n] = remap[node[n]];
            std::vector<uint32_t> types(out.costTypes.size());
            for (uint32_t t = 0; t < types.size(); ++t)
                types[t] = t;
            out.samples = timed.build(timed.size(), refNode, {}, types, out.threads.size(), true);
        }
        out.meta.format = Format::Speedscope;
        return out;
    }

    /// The timed samples of every profile (threads are profiles) when all are in units of time: sampled
    /// profiles' samples at startValue + the weights before them, evented profiles' intervals between events.
    SampleLog timeline(std::span<const uint32_t> typeOf, std::span<const double> scaleOf,
                       const Profile& out) {
        SampleLog log;
        bool timed = true;
        for (std::size_t pi = 0; pi < m_profiles.size(); ++pi)
            timed = timed && out.costTypes[typeOf[pi]].unit == CostUnit::Nanoseconds;
        for (std::size_t pi = 0; pi < m_profiles.size() && timed; ++pi) {
            ProfileState& p = m_profiles[pi];
            for (std::size_t k = 0; k < p.timedAt.size(); ++k) {
                const double at = std::round(p.timedAt[k] * scaleOf[pi]);
                const double w = std::round(p.timedWeight[k] * scaleOf[pi]);
                if (!std::isfinite(at) || !std::isfinite(w) || std::abs(at) > 9e18 || std::abs(w) > 9e18)
                    return SampleLog();
                const CostValue cost{typeOf[pi], static_cast<int64_t>(w)};
                log.add(static_cast<int64_t>(at), static_cast<uint32_t>(pi), p.timedNode[k], -1, {&cost, 1});
            }
        }
        for (ProfileState& p : m_profiles) {
            std::vector<double>().swap(p.timedAt);
            std::vector<double>().swap(p.timedWeight);
            std::vector<uint32_t>().swap(p.timedNode);
        }
        return timed ? std::move(log) : SampleLog();
    }

private:
    /// Index node n refers to a frame beyond shared.frames: names the first profile that uses it.
    [[noreturn]] void badFrame(const IndexTree& tree, uint32_t n, std::size_t frameCount) const {
        std::size_t which = 0;
        for (std::size_t pi = 0; pi < m_profiles.size() && which == 0; ++pi)
            for (std::size_t e = 0; e < m_profiles[pi].costs.size() && which == 0; ++e)
                for (uint32_t m = m_profiles[pi].costs.node(e); m != 0 && which == 0; m = tree.parent(m))
                    if (m == n)
                        which = pi + 1;
        throw ImportError(m_name + ": profile " + std::to_string(which ? which - 1 : 0) +
                          " refers to frame " + std::to_string(tree.frame(n)) + ", but shared.frames has " +
                          std::to_string(frameCount) + " frames");
    }

    static std::size_t batchIndex(std::string_view key) {
        return key == "samples" ? 0 : key == "weights" ? 1 : 2;
    }

    std::tuple<std::string, CostUnit, double> unitOf(std::string_view unit) const {
        if (unit == "nanoseconds")
            return {"time", CostUnit::Nanoseconds, 1};
        if (unit == "microseconds")
            return {"time", CostUnit::Nanoseconds, 1e3};
        if (unit == "milliseconds")
            return {"time", CostUnit::Nanoseconds, 1e6};
        if (unit == "seconds")
            return {"time", CostUnit::Nanoseconds, 1e9};
        if (unit == "bytes")
            return {"bytes", CostUnit::Bytes, 1};
        return {"weight", CostUnit::Count, 1};
    }

    [[noreturn]] void fail(const std::string& what) const { throw ImportError(m_name + ": " + what); }

    ProfileState& profile(uint64_t index) {
        if (index >= m_profiles.size())
            m_profiles.resize(index + 1);
        return m_profiles[index];
    }

    std::string unescape(std::string_view raw) {
        simdjson::padded_string json(raw);
        auto doc = m_parser.iterate(json);
        std::string_view s;
        if (doc.get_string().get(s))
            return std::string(unquote(raw));
        return std::string(s);
    }

    void parseFrames(std::string_view raw) {
        try {
            simdjson::padded_string json(raw);
            auto doc = m_parser.iterate(json);
            for (auto f : doc.get_array()) {
                FrameInfo info;
                auto obj = f.get_object();
                for (auto field : obj) {
                    const std::string_view key = field.unescaped_key();
                    if (key == "name")
                        info.name = std::string(std::string_view(field.value().get_string()));
                    else if (key == "file")
                        info.file = std::string(std::string_view(field.value().get_string()));
                    else if (key == "line")
                        info.line = lineNumber(double(field.value().get_double()));
                }
                m_frames.push_back(std::move(info));
            }
        } catch (const simdjson::simdjson_error& e) {
            fail(std::string("shared.frames: ") + e.what());
        }
    }

    void flush(std::size_t which) {
        std::string& batch = m_batch[which];
        if (batch.empty())
            return;
        batch.back() = ']';
        batch.insert(batch.begin(), '[');
        ProfileState& p = profile(m_currentProfile);
        const char* what[] = {"samples", "weights", "events"};
        uint64_t& index = m_elements[which];
        try {
            simdjson::padded_string json(batch);
            auto doc = m_parser.iterate(json);
            for (auto element : doc.get_array()) {
                if (which == 0) {
                    m_stack.clear();
                    for (auto v : element.get_array())
                        m_stack.push_back(frameIndex(uint64_t(v.get_uint64()), index));
                    p.sampleLeaves.push_back(m_tree.path(m_stack));
                } else if (which == 1) {
                    p.weights.push_back(double(element.get_double()));
                } else {
                    event(p, element.value());
                }
                ++index;
            }
        } catch (const simdjson::simdjson_error& e) {
            fail("profile " + std::to_string(m_currentProfile) + ", " + what[which] + "[" +
                 std::to_string(index) + "]: " + e.what());
        }
        batch.clear();
    }

    /// The stacks of a slice of `samples` read directly when they have the common shape.
    bool fastSamples(std::string_view text) {
        if (!scanIndexStacks(text, m_flat, m_ends))
            return false;
        ProfileState& prof = profile(m_currentProfile);
        prof.sampleLeaves.reserve(prof.sampleLeaves.size() + m_ends.size());
        std::size_t begin = 0;
        for (std::size_t stackEnd : m_ends) {
            prof.sampleLeaves.push_back(m_tree.path({m_flat.data() + begin, stackEnd - begin}));
            begin = stackEnd;
        }
        m_elements[0] += m_ends.size();
        return true;
    }

    /// The numbers of a slice of `weights` read directly when they are plain numbers.
    bool fastWeights(std::string_view text) {
        if (!scanNumbers(text, m_numbers))
            return false;
        std::vector<double>& weights = profile(m_currentProfile).weights;
        weights.insert(weights.end(), m_numbers.begin(), m_numbers.end());
        m_elements[1] += m_numbers.size();
        return true;
    }

    uint32_t frameIndex(uint64_t v, uint64_t where) {
        if (v >= UINT32_MAX - 1)
            fail("profile " + std::to_string(m_currentProfile) + " [" + std::to_string(where) +
                 "]: frame index " + std::to_string(v) + " is out of range");
        return static_cast<uint32_t>(v);
    }

    std::string frameLabel(uint32_t f) const {
        return f < m_frames.size() ? "\"" + m_frames[f].name + "\"" : "#" + std::to_string(f);
    }

    void event(ProfileState& p, simdjson::ondemand::value element) {
        auto obj = element.get_object();
        const std::string_view type = obj.find_field_unordered("type").get_string();
        const uint32_t frame = frameIndex(uint64_t(obj.find_field_unordered("frame").get_uint64()), p.events);
        const double at = double(obj.find_field_unordered("at").get_double());
        if (p.haveAt && at < p.lastAt)
            fail("profile " + std::to_string(m_currentProfile) + ": event " + std::to_string(p.events) +
                 " goes back in time (at " + number(at) + " after " + number(p.lastAt) + ")");
        if (!p.openNodes.empty() && p.haveAt) {
            p.costs.add(p.openNodes.back(), at - p.lastAt, 0);
            if (at > p.lastAt) {
                p.timedAt.push_back(p.lastAt);
                p.timedWeight.push_back(at - p.lastAt);
                p.timedNode.push_back(p.openNodes.back());
            }
        }
        p.lastAt = at;
        p.haveAt = true;
        if (type == "O") {
            const uint32_t parent = p.openNodes.empty() ? 0 : p.openNodes.back();
            const uint32_t node = m_tree.child(parent, frame);
            p.costs.add(node, 0, 1);
            p.openFrames.push_back(frame);
            p.openNodes.push_back(node);
        } else if (type == "C") {
            if (p.openFrames.empty())
                fail("profile " + std::to_string(m_currentProfile) + ": event " + std::to_string(p.events) +
                     " closes frame " + frameLabel(frame) + " but no frame is open");
            if (p.openFrames.back() != frame)
                fail("profile " + std::to_string(m_currentProfile) + ": tried to leave frame " +
                     frameLabel(frame) + " while frame " + frameLabel(p.openFrames.back()) +
                     " was at the top at " + number(at));
            p.openFrames.pop_back();
            p.openNodes.pop_back();
        } else {
            fail("profile " + std::to_string(m_currentProfile) + ": event " + std::to_string(p.events) +
                 " has type \"" + std::string(type) + "\" (expected \"O\" or \"C\")");
        }
        ++p.events;
    }

    void finishProfile(uint64_t index) {
        ProfileState& p = profile(index);
        const std::string which = "profile " + std::to_string(index) + " (\"" + p.name + "\")";
        if (p.type == "sampled") {
            if (p.sampleLeaves.size() != p.weights.size())
                fail(which + " has " + std::to_string(p.sampleLeaves.size()) + " samples but " +
                     std::to_string(p.weights.size()) + " weights");
            // runs of one stack (usual: samples are in time order, or written grouped) are added at once
            for (std::size_t i = 0; i < p.sampleLeaves.size();) {
                const uint32_t leaf = p.sampleLeaves[i];
                double weight = 0;
                const std::size_t first = i;
                for (; i < p.sampleLeaves.size() && p.sampleLeaves[i] == leaf; ++i)
                    weight += p.weights[i];
                p.costs.add(leaf, weight, i - first);
            }
            double at = p.startValue;
            for (std::size_t k = 0; k < p.sampleLeaves.size(); ++k) {
                p.timedAt.push_back(at);
                at += p.weights[k];
            }
            p.timedNode = std::move(p.sampleLeaves);
            p.timedWeight = std::move(p.weights);
            p.sampleLeaves = {};
            p.weights = {};
        } else if (p.type == "evented") {
            if (!p.openFrames.empty())
                fail(which + ": frame " + frameLabel(p.openFrames.back()) + " is opened but never closed");
        } else {
            fail(which + " has type \"" + p.type + "\" (expected \"sampled\" or \"evented\")");
        }
    }

    const std::string& m_name;
    simdjson::ondemand::parser m_parser;
    std::vector<FrameInfo> m_frames;
    std::vector<ProfileState> m_profiles;
    IndexTree m_tree;
    std::string m_batch[3];
    uint64_t m_elements[3] = {0, 0, 0}; // elements parsed so far of the current samples/weights/events
    uint64_t m_currentProfile = 0;
    std::vector<uint32_t> m_stack;
    std::vector<uint32_t> m_flat; // fastSamples: the frame indices of a slice's stacks, one after the other
    std::vector<std::size_t> m_ends; // ... and where each stack ends in m_flat
    std::vector<double> m_numbers;
};

} // namespace

Profile importSpeedscope(ByteSource& source, std::string head, const std::string& name,
                         const ImportOptions& options, const ImportControl& control) {
    SpeedscopeHandler handler(name);
    JsonWalkOptions walk;
    const uint64_t bytes = walkJson(source, std::move(head), handler, walk, control, name);
    Profile profile = handler.build(options);
    profile.meta.source = name;
    profile.meta.compression = source.compression();
    profile.meta.inputBytes = bytes;
    return profile;
}

} // namespace scorch::detail
