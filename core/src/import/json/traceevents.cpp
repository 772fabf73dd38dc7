// Chrome trace events -> threads: CPU profile events, sampled stacks, or B/E/X duration events.
#include "import/json/traceevents.h"

#include "scorch/import.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace scorch::detail {

namespace {

using simdjson::ondemand::json_type;

/// A pid/tid/id as text: strings as they are, integral numbers without a fraction.
std::string idText(simdjson::ondemand::value v) {
    json_type type;
    if (v.type().get(type))
        return {};
    if (type == json_type::string)
        return std::string(std::string_view(v.get_string()));
    double d = 0;
    if (type == json_type::number && !v.get_double().get(d)) {
        char buf[40];
        if (d == std::floor(d) && std::abs(d) < 9e15)
            return std::string(buf, std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(d)).ptr);
        std::snprintf(buf, sizeof buf, "%.17g", d);
        return buf;
    }
    return {};
}

/// JSON text without insignificant whitespace (JSON.stringify of the same value, for the usual inputs).
std::string minified(std::string_view raw) {
    std::string out;
    out.reserve(raw.size());
    bool inString = false, escape = false;
    for (char c : raw) {
        if (inString) {
            out.push_back(c);
            if (escape)
                escape = false;
            else if (c == '\\')
                escape = true;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
            out.push_back(c);
        } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
            out.push_back(c);
        }
    }
    return out;
}

constexpr double kMaxMicroseconds = 4e15; // keeps nanosecond sums and differences inside int64

} // namespace

void TraceEvents::fail(uint64_t index, const std::string& what) const {
    throw ImportError(m_name + ": event " + std::to_string(index) + ": " + what);
}

uint32_t TraceEvents::thread(const std::string& pid, const std::string& tid) {
    auto [it, inserted] = m_threadIndex.try_emplace({pid, tid}, static_cast<uint32_t>(m_threads.size()));
    if (inserted)
        m_threads.push_back({pid, tid});
    return it->second;
}

std::string TraceEvents::threadName(uint32_t t) const {
    const Thread& th = m_threads[t];
    const auto process = m_processNames.find(th.pid);
    const auto named = m_threadNames.find(t);
    if (process != m_processNames.end() && named != m_threadNames.end())
        return process->second + " (pid " + th.pid + "), " + named->second + " (tid " + th.tid + ")";
    if (process != m_processNames.end())
        return process->second + " (pid " + th.pid + ", tid " + th.tid + ")";
    if (named != m_threadNames.end())
        return named->second + " (pid " + th.pid + ", tid " + th.tid + ")";
    return "pid " + th.pid + ", tid " + th.tid;
}

uint32_t TraceEvents::intern(std::unordered_map<std::string, uint32_t>& map, std::string key) {
    const auto [it, inserted] = map.try_emplace(std::move(key), static_cast<uint32_t>(map.size()));
    return it->second;
}

void TraceEvents::addEvent(simdjson::ondemand::value event, uint64_t index) {
    // (in parts: one function of all of them took most of this file's build time, optimised with sanitizers)
    const Fields e = readFields(event, index);
    if (e.ph.size() != 1)
        return; // not an event we know
    const char phase = e.ph[0];
    if (phase == 'M')
        addMetadata(e);
    else if (e.name == "CpuProfile" || e.name == "Profile" || e.name == "ProfileChunk")
        addProfileEvent(e, index);
    else if (phase == 'B' || phase == 'E' || phase == 'X')
        addDuration(e, index);
}

TraceEvents::Fields TraceEvents::readFields(simdjson::ondemand::value event, uint64_t index) {
    Fields e;
    for (auto field : event.get_object()) {
        const std::string_view key = field.unescaped_key();
        simdjson::ondemand::value v = field.value();
        if (key == "ph")
            e.ph = std::string(std::string_view(v.get_string()));
        else if (key == "name")
            e.name = std::string(std::string_view(v.get_string()));
        else if (key == "pid")
            e.pid = idText(v);
        else if (key == "tid")
            e.tid = idText(v);
        else if (key == "id")
            e.id = idText(v);
        else if (key == "ts") {
            if (!jsonNumber(v, e.ts) || std::abs(e.ts) > kMaxMicroseconds)
                fail(index, "\"ts\" is not a timestamp in range");
            e.haveTs = true;
        } else if (key == "dur" || (key == "tdur" && !e.haveDur)) {
            if (!jsonNumber(v, e.dur) || e.dur < 0 || e.dur > kMaxMicroseconds)
                fail(index, "\"" + std::string(key) + "\" is not a duration in range");
            e.haveDur = key == "dur";
        } else if (key == "args") {
            json_type type;
            if (!v.type().get(type) && type == json_type::object) {
                simdjson::ondemand::object o = v.get_object();
                e.args = o.raw_json();
                e.haveArgs = true;
            } else if (type == json_type::array) {
                simdjson::ondemand::array a = v.get_array();
                e.args = a.raw_json();
                e.haveArgs = true;
            } else if (type != json_type::null) {
                e.args = v.raw_json_token();
                e.haveArgs = true;
            }
        }
    }
    return e;
}

void TraceEvents::addMetadata(const Fields& e) {
    if ((e.name != "process_name" && e.name != "thread_name") || !e.haveArgs)
        return;
    simdjson::padded_string padded(e.args);
    auto doc = m_inner.iterate(padded);
    std::string_view value;
    if (!doc.find_field_unordered("name").get_string().get(value)) {
        if (e.name == "process_name")
            m_processNames[e.pid] = std::string(value);
        else
            m_threadNames[thread(e.pid, e.tid)] = std::string(value);
    }
}

void TraceEvents::addProfileEvent(const Fields& e, uint64_t index) {
    if (!e.haveArgs)
        return;
    std::size_t profile = 0;
    if (e.name == "ProfileChunk" || e.name == "Profile") {
        const auto it = m_profileById.find(e.pid + ':' + e.id);
        if (it != m_profileById.end()) {
            profile = it->second;
        } else {
            profile = m_profiles.size();
            m_profiles.emplace_back(thread(e.pid, e.tid), CpuProfileData{});
            m_profileById.emplace(e.pid + ':' + e.id, profile);
        }
    } else {
        profile = m_profiles.size();
        m_profiles.emplace_back(thread(e.pid, e.tid), CpuProfileData{});
    }
    CpuProfileData& data = m_profiles[profile].second;
    if (e.name != "CpuProfile")
        data.setChunked();
    const std::string where = m_name + ": event " + std::to_string(index) + " (" + e.name + ")";
    simdjson::padded_string padded(e.args);
    auto doc = m_inner.iterate(padded);
    simdjson::ondemand::object dataObject;
    if (doc.find_field_unordered("data").get_object().get(dataObject))
        return;
    const auto addTimeDeltas = [&](simdjson::ondemand::array deltas) {
        for (auto s : deltas) {
            double d = 0;
            if (!jsonNumber(s.value(), d) || std::abs(d) > kMaxMicroseconds)
                fail(index, "a time delta is not a number in range");
            data.addTimeDelta(d);
        }
    };
    for (auto f : dataObject) {
        const std::string_view k = f.unescaped_key();
        if (k == "cpuProfile") {
            for (auto g : f.value().get_object()) {
                const std::string_view gk = g.unescaped_key();
                if (gk == "nodes") {
                    for (auto n : g.value().get_array())
                        data.addNode(n.value(), where);
                } else if (gk == "samples") {
                    for (auto s : g.value().get_array()) {
                        double d = 0;
                        if (!jsonNumber(s.value(), d) || std::abs(d) > 9e15)
                            fail(index, "a sample is not a node id");
                        data.addSample(static_cast<int64_t>(d));
                    }
                } else if (gk == "timeDeltas") {
                    addTimeDeltas(g.value().get_array());
                }
            }
        } else if (k == "startTime") {
            double d = 0;
            if (jsonNumber(f.value(), d) && std::abs(d) <= kMaxMicroseconds)
                data.setStartTime(d);
        } else if (k == "timeDeltas") {
            addTimeDeltas(f.value().get_array());
        }
    }
    if (e.name == "Profile")
        m_profiles[profile].first = thread(e.pid, e.tid); // the Profile event names the profiled thread
}

void TraceEvents::addDuration(const Fields& e, uint64_t index) {
    if (!e.haveTs)
        fail(index, "a '" + e.ph + "' event without \"ts\"");
    ++m_durationEvents;
    const uint32_t t = thread(e.pid, e.tid);
    std::string keyName = e.name.empty() ? "(unnamed)" : e.name;
    if (e.haveArgs)
        keyName += " " + minified(e.args);
    FrameKey frame{keyName, {}, 0};
    const uint32_t key = intern(m_keyIndex, keyName);
    if (key == m_keys.size())
        m_keys.push_back(frame);
    const uint32_t hermesKey = e.haveArgs ? hermesFrame(e, key) : key;
    const uint32_t nameId = intern(m_nameIndex, e.name);
    const auto ns = static_cast<int64_t>(std::llround(e.ts * 1000));
    const char phase = e.ph[0];
    const auto d = phase == 'X' ? static_cast<int64_t>(std::llround(e.dur * 1000)) : 0;
    if (m_durations.size() <= t)
        m_durations.resize(t + 1);
    m_durations[t].push_back({ns, d, key, hermesKey, nameId, phase});
}

uint32_t TraceEvents::hermesFrame(const Fields& e, uint32_t key) {
    if (e.args.find("allocatedName") == std::string_view::npos)
        return key;
    simdjson::padded_string padded(e.args);
    auto doc = m_inner.iterate(padded);
    simdjson::ondemand::object obj;
    int found = 0;
    FrameKey hermes;
    if (!doc.get_object().get(obj)) {
        for (auto f : obj) {
            const std::string_view k = f.unescaped_key();
            for (const char* want : {"line", "column", "name", "category", "url", "params",
                                     "allocatedCategory", "allocatedName"})
                if (k == want)
                    ++found;
            std::string_view s;
            double d = 0;
            if (k == "name" && !f.value().get_string().get(s))
                hermes.name = std::string(s);
            else if (k == "url" && !f.value().get_string().get(s))
                hermes.file = std::string(s);
            else if (k == "line" && jsonNumber(f.value(), d) && d >= 0 && d < 4e9)
                hermes.line = static_cast<int64_t>(d);
        }
    }
    if (found != 8)
        return key;
    ++m_hermesEvents;
    if (hermes.name.empty())
        hermes.name = e.name.empty() ? "(unnamed)" : e.name;
    std::string k = hermes.name + '\0' + hermes.file + '\0' + std::to_string(hermes.line);
    const uint32_t hermesKey = intern(m_keyIndex, std::move(k));
    if (hermesKey == m_keys.size())
        m_keys.push_back(std::move(hermes));
    return hermesKey;
}

void TraceEvents::addStackSample(simdjson::ondemand::value sample, uint64_t index) {
    std::string pid, tid, sf;
    double ts = 0;
    for (auto field : sample.get_object()) {
        const std::string_view key = field.unescaped_key();
        if (key == "pid")
            pid = idText(field.value());
        else if (key == "tid")
            tid = idText(field.value());
        else if (key == "sf")
            sf = idText(field.value());
        else if (key == "ts" && (!jsonNumber(field.value(), ts) || std::abs(ts) > kMaxMicroseconds))
            throw ImportError(m_name + ": samples[" + std::to_string(index) +
                              "]: \"ts\" is not a timestamp in range");
    }
    m_stackSamples.push_back(
        {thread(pid, tid), static_cast<int64_t>(std::llround(ts * 1000)), std::move(sf)});
}

void TraceEvents::build(TreeBuilder& builder, ProfileMeta& meta, std::size_t maxDepth) {
    const uint32_t time = builder.costType("time", CostUnit::Nanoseconds);
    bool any = false;
    for (std::size_t i = 0; i < m_profiles.size(); ++i) {
        const auto& [t, data] = m_profiles[i];
        if (data.empty())
            continue;
        any = true;
        const Thread& th = m_threads[t];
        const auto named = m_threadNames.find(t);
        const std::string name = named != m_threadNames.end() ? named->second : threadName(t);
        builder.setPosition(i);
        const uint32_t thread = builder.thread(name, parseInt64(th.pid), parseInt64(th.tid));
        data.build(builder, thread, time, meta, m_name + ": CPU profile of " + threadName(t), maxDepth);
    }
    if (!m_stackSamples.empty()) {
        any = true;
        buildStackSamples(builder, meta, maxDepth);
    }
    if (any) {
        if (m_durationEvents)
            meta.warn("the trace holds CPU profiles: its " + std::to_string(m_durationEvents) +
                      " B/E/X duration events are not imported");
        return;
    }
    buildDurations(builder, meta, maxDepth);
}

} // namespace scorch::detail
