// speedscope JSON importer (https://www.speedscope.app/file-format-schema.json): shared frames, sampled and
// evented profiles, every unit. The document is walked as a stream (jsonwalker.h); arrays of samples,
// weights and events are parsed with simdjson in batches, so memory stays far below the file size.
#include "jsonwalker.h"
#include "pipeline.h"
#include "scorch/builder.h"

#include <simdjson.h>

#include "hash.h"
#include <cmath>
#include <cstdio>

#include <span>

namespace scorch::detail {

namespace {

struct FrameInfo {
    std::string name, file;
    int64_t line = 0;
};

/// A call tree over frame indices (the names may only come later in the document).
class IndexTree {
public:
    IndexTree()
        : m_parent{0}
        , m_frame{0}
        , m_weight{0.0}
        , m_count{0} {}
    uint32_t child(uint32_t parent, uint32_t frame) {
        bool inserted;
        const uint32_t n = m_children.findOrInsert((static_cast<uint64_t>(parent) << 32) | frame,
                                                   static_cast<uint32_t>(m_parent.size()), inserted);
        if (inserted) {
            m_parent.push_back(parent);
            m_frame.push_back(frame);
            m_weight.push_back(0);
            m_count.push_back(0);
        }
        return n;
    }
    /// The node of a whole stack (root first). Stacks repeat a lot: a cache keyed by the stack's hash
    /// finds a known one without walking it frame by frame (verified against the node's parents).
    uint32_t path(std::span<const uint32_t> stack) {
        const uint64_t h = hashBytes({reinterpret_cast<const char*>(stack.data()), stack.size_bytes()}) | 1;
        bool inserted;
        uint32_t& cached = m_stacks.findOrInsert(h, 0, inserted);
        if (!inserted && cached != 0 && matches(cached, stack))
            return cached;
        uint32_t n = 0;
        for (uint32_t f : stack)
            n = child(n, f);
        cached = n; // a colliding stack just takes the slot over
        return n;
    }
    void add(uint32_t node, double weight, uint64_t count = 1) {
        m_weight[node] += weight;
        m_count[node] += count;
    }
    std::size_t size() const { return m_parent.size(); }
    uint32_t parent(uint32_t n) const { return m_parent[n]; }
    uint32_t frame(uint32_t n) const { return m_frame[n]; }
    double weight(uint32_t n) const { return m_weight[n]; }
    uint64_t count(uint32_t n) const { return m_count[n]; }

private:
    std::vector<uint32_t> m_parent, m_frame;
    std::vector<double> m_weight;
    std::vector<uint64_t> m_count;
    FlatMap64 m_children, m_stacks;

    bool matches(uint32_t n, std::span<const uint32_t> stack) const {
        for (std::size_t k = stack.size(); k-- > 0; n = m_parent[n])
            if (n == 0 || m_frame[n] != stack[k])
                return false;
        return n == 0;
    }
};

struct ProfileState {
    std::string name, type, unit;
    IndexTree tree;
    std::vector<uint32_t> sampleLeaves;
    std::vector<double> weights;
    // evented
    std::vector<uint32_t> openFrames, openNodes;
    double lastAt = 0;
    bool haveAt = false;
    uint64_t events = 0;
};

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
        std::string& batch = m_batch[batchIndex(path[2].key)];
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
        }
    }

    void leave(const JsonPath& path) override {
        if (path.size() == 3 && path[0].key == "profiles")
            flush(batchIndex(path[2].key));
        else if (path.size() == 2 && path[0].key == "profiles")
            finishProfile(path[1].index);
    }

    void build(TreeBuilder& builder, ProfileMeta& meta) {
        if (m_profiles.empty())
            throw ImportError(m_name + ": speedscope file without profiles");
        std::vector<FrameId> frames(m_frames.size());
        for (std::size_t i = 0; i < m_frames.size(); ++i) {
            Frame f;
            f.name = builder.strings().intern(m_frames[i].name);
            f.file = builder.strings().intern(m_frames[i].file);
            f.line = static_cast<uint32_t>(std::clamp<int64_t>(m_frames[i].line, 0, UINT32_MAX));
            frames[i] = builder.frame(f);
        }
        std::vector<FrameId> path;
        for (std::size_t pi = 0; pi < m_profiles.size(); ++pi) {
            ProfileState& p = m_profiles[pi];
            const auto [costName, unit, unitScale] = unitOf(p.unit);
            builder.setPosition(pi);
            const uint32_t type = builder.costType(costName, unit);
            double scale = unitScale;
            if (unit != CostUnit::Nanoseconds) { // fractional counts or bytes keep 3 decimals
                for (uint32_t n = 1; n < p.tree.size(); ++n)
                    if (p.tree.weight(n) != std::floor(p.tree.weight(n))) {
                        builder.ensureDecimals(type, 3);
                        break;
                    }
                scale *= static_cast<double>(pow10(builder.decimals(type)));
            }
            const uint32_t thread = builder.thread(p.name, -1, static_cast<int64_t>(pi));
            for (uint32_t n = 1; n < p.tree.size(); ++n) {
                if (p.tree.count(n) == 0 && p.tree.weight(n) == 0)
                    continue;
                path.clear();
                for (uint32_t m = n; m != 0; m = p.tree.parent(m)) {
                    const uint32_t f = p.tree.frame(m);
                    if (f >= frames.size())
                        throw ImportError(m_name + ": profile " + std::to_string(pi) + " refers to frame " +
                                          std::to_string(f) + ", but shared.frames has " +
                                          std::to_string(frames.size()) + " frames");
                    path.push_back(frames[f]);
                }
                std::reverse(path.begin(), path.end());
                const double v = std::round(p.tree.weight(n) * scale);
                const int64_t value = std::isfinite(v) && std::abs(v) < 9.2e18
                                          ? static_cast<int64_t>(v)
                                          : (v > 0 ? INT64_MAX : INT64_MIN);
                const CostValue cost{type, value};
                builder.addSample(thread, path, {&cost, 1}, p.tree.count(n));
            }
        }
        meta.format = "speedscope";
    }

private:
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
                    p.sampleLeaves.push_back(p.tree.path(m_stack));
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
        if (!p.openNodes.empty() && p.haveAt)
            p.tree.add(p.openNodes.back(), at - p.lastAt, 0);
        p.lastAt = at;
        p.haveAt = true;
        if (type == "O") {
            const uint32_t parent = p.openNodes.empty() ? 0 : p.openNodes.back();
            const uint32_t node = p.tree.child(parent, frame);
            p.tree.add(node, 0, 1);
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
            for (std::size_t i = 0; i < p.sampleLeaves.size(); ++i)
                p.tree.add(p.sampleLeaves[i], p.weights[i]);
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
    std::string m_batch[3];
    uint64_t m_elements[3] = {0, 0, 0}; // elements parsed so far of the current samples/weights/events
    uint64_t m_currentProfile = 0;
    std::vector<uint32_t> m_stack;
};

} // namespace

Profile importSpeedscope(ByteSource& source, std::string head, const std::string& name,
                         const ImportOptions& options, const ImportControl& control) {
    SpeedscopeHandler handler(name);
    JsonWalkOptions walk;
    const uint64_t bytes = walkJson(source, std::move(head), handler, walk, control, name);
    TreeBuilder builder;
    builder.setMaxNodes(options.maxNodes);
    ProfileMeta meta;
    handler.build(builder, meta);
    meta.source = name;
    meta.compression = source.compression();
    meta.inputBytes = bytes;
    return builder.finish(std::move(meta));
}

} // namespace scorch::detail
