// Chrome Trace Event Format importer (a JSON array of events, or {traceEvents: [...]}, possibly truncated as
// Chrome writes it). When the trace holds CPU profiles (`CpuProfile`, or `Profile` + `ProfileChunk` events,
// or `samples` + `stackFrames`), those are imported, one thread each; otherwise its B/E/X duration events
// become an evented profile per pid/tid, durations as the cost. Ordering follows speedscope: events are
// sorted by timestamp keeping file order for ties, X events become B/E pairs, E events are matched to the
// open frame by key, then name; E events that match nothing are ignored with a warning, frames still open at
// the end are closed at the last timestamp.
#include "import/json/chromecpu.h"
#include "import/json/jsonimporters.h"
#include "import/json/jsonwalker.h"
#include "import/json/traceevents.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace scorch::detail {

namespace {

class TraceHandler final : public JsonHandler {
public:
    explicit TraceHandler(const std::string& name)
        : m_name(name)
        , m_events(name) {}

    Take descend(const JsonPath& path, char open) override {
        if (path.empty())
            return open == '[' ? Take::Slices : Take::Walk;
        if (path.size() == 1 && open == '[' && (path[0].key == "traceEvents" || path[0].key == "samples"))
            return Take::Slices;
        return Take::Whole;
    }

    void slice(const JsonPath& path, std::string_view elements) override {
        const bool samples = !path.empty() && path[0].key == "samples";
        simdjson::padded_string padded(elements.size() + 2); // "[elements]", copied once
        padded.data()[0] = '[';
        std::memcpy(padded.data() + 1, elements.data(), elements.size());
        padded.data()[elements.size() + 1] = ']';
        uint64_t& index = samples ? m_sampleIndex : m_eventIndex;
        try {
            auto doc = m_parser.iterate(padded);
            for (auto element : doc.get_array()) {
                if (samples)
                    m_events.addStackSample(element.value(), index);
                else
                    m_events.addEvent(element.value(), index);
                ++index;
            }
        } catch (const simdjson::simdjson_error& e) {
            throw ImportError(m_name + ": " + (samples ? "samples[" : "event ") + std::to_string(index) +
                              (samples ? "]: " : ": ") + e.what());
        }
    }

    void value(const JsonPath& path, std::string_view raw) override {
        if (path.size() == 1 && path[0].key == "stackFrames")
            m_events.setStackFrames(raw);
    }

    void truncated(uint64_t offset) override {
        m_meta.warn("the trace ends at byte offset " + std::to_string(offset) +
                    " without closing its event array (a truncated trace); the complete events were read");
    }

    TraceEvents& events() { return m_events; }
    ProfileMeta& meta() { return m_meta; }

private:
    const std::string& m_name;
    simdjson::ondemand::parser m_parser;
    TraceEvents m_events;
    ProfileMeta m_meta; ///< the warnings so far
    uint64_t m_eventIndex = 0, m_sampleIndex = 0;
};

} // namespace

Profile importChromeTrace(ByteSource& source, std::string head, const std::string& name,
                          const ImportOptions& options, const ImportControl& control) {
    TraceHandler handler(name);
    JsonWalkOptions walk;
    walk.allowTruncated = true;
    const uint64_t bytes = walkJson(source, std::move(head), handler, walk, control, name);
    TreeBuilder builder;
    builder.setMaxNodes(options.maxNodes);
    handler.events().build(builder, handler.meta(), options.maxStackDepth);
    Profile p = finishJson(builder, std::move(handler.meta()), Format::ChromeTrace, name, source, bytes);
    if (p.meta.samples == 0)
        throw ImportError(name + ": no samples found in this Chrome trace: the JSON has no CPU profile "
                                 "(CpuProfile, Profile/ProfileChunk, samples) and no B/E/X duration events");
    return p;
}

} // namespace scorch::detail
