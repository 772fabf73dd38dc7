// Internal: the events of a Chrome trace as they stream in, and how they become threads of a TreeBuilder.
#pragma once

#include "import/json/chromecpu.h"

#include <simdjson.h>

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace scorch::detail {

/// A pid or tid written as text, as a number; -1 when it is not an integer.
inline int64_t parseInt64(const std::string& s) {
    int64_t v = 0;
    bool neg = false;
    std::size_t i = 0;
    if (!s.empty() && s[0] == '-') {
        neg = true;
        i = 1;
    }
    if (i >= s.size() || s.size() - i > 18)
        return -1;
    for (; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return neg ? -v : v;
}

class TraceEvents {
public:
    explicit TraceEvents(const std::string& name)
        : m_name(name) {}

    /// One element of the event array. Throws simdjson_error or ImportError (naming `index`).
    void addEvent(simdjson::ondemand::value event, uint64_t index);
    /// One element of a top-level `samples` array ({ts, pid, tid, sf}).
    void addStackSample(simdjson::ondemand::value sample, uint64_t index);
    /// The top-level `stackFrames` object ({id: {name, parent}}), raw.
    void setStackFrames(std::string_view raw) { m_stackFrames.assign(raw); }

    /// CPU profiles when the trace has any, else the duration events.
    void build(TreeBuilder& builder, ProfileMeta& meta, std::size_t maxDepth);

private:
    struct Thread {
        std::string pid, tid; // as written (numbers or strings)
    };
    struct Duration {
        int64_t ts;         // ns
        int64_t dur;        // ns, X events
        uint32_t key;       // frame index: name + args
        uint32_t hermesKey; // frame index in a Hermes trace: the function in args (name, url, line)
        uint32_t name;
        char ph; // 'B', 'E' or 'X'
    };
    struct FrameKey {
        std::string name, file;
        int64_t line = 0;
    };
    struct StackSample {
        uint32_t thread;
        int64_t ts;
        std::string frame;
    };

    /// An event's fields (those read; args kept as raw JSON).
    struct Fields {
        std::string ph, name, pid, tid, id;
        std::string_view args;
        double ts = 0, dur = 0;
        bool haveTs = false, haveDur = false, haveArgs = false;
    };

    Fields readFields(simdjson::ondemand::value event, uint64_t index);
    /// The kinds of events, each from its fields: metadata (process and thread names), a CPU profile or
    /// a chunk of one, a B/E/X duration event.
    void addMetadata(const Fields& e);
    void addProfileEvent(const Fields& e, uint64_t index);
    void addDuration(const Fields& e, uint64_t index);
    /// The frame of a Hermes (React Native) event: its function in args (name, url, line, ...); `key`
    /// when args does not have all of Hermes' fields.
    uint32_t hermesFrame(const Fields& e, uint32_t key);
    uint32_t thread(const std::string& pid, const std::string& tid);
    std::string threadName(uint32_t thread) const;
    uint32_t intern(std::unordered_map<std::string, uint32_t>& map, std::string key);
    void buildDurations(TreeBuilder& builder, ProfileMeta& meta, std::size_t maxDepth);
    void buildStackSamples(TreeBuilder& builder, ProfileMeta& meta, std::size_t maxDepth);
    [[noreturn]] void fail(uint64_t index, const std::string& what) const;

    const std::string& m_name;
    simdjson::ondemand::parser m_inner; // for the args of profile events, parsed inside an event
    std::vector<Thread> m_threads;
    std::map<std::pair<std::string, std::string>, uint32_t> m_threadIndex;
    std::map<std::string, std::string> m_processNames;
    std::map<uint32_t, std::string> m_threadNames;
    // duration events
    std::vector<std::vector<Duration>> m_durations; // per thread, in file order
    std::vector<FrameKey> m_keys;
    std::unordered_map<std::string, uint32_t> m_keyIndex, m_nameIndex;
    uint64_t m_hermesEvents = 0, m_durationEvents = 0;
    // CPU profiles: (thread, data) in order of appearance; Profile/ProfileChunk by id
    std::vector<std::pair<uint32_t, CpuProfileData>> m_profiles;
    std::map<std::string, std::size_t> m_profileById;
    // samples + stackFrames
    std::vector<StackSample> m_stackSamples;
    std::string m_stackFrames;
};

} // namespace scorch::detail
