// Chrome trace B/E/X duration events and `samples` + `stackFrames` -> one thread per pid/tid. Both are timed:
// a duration's stack is kept in the sample store at each interval between events, the interval as its cost.
#include "import/json/traceevents.h"

#include "scorch/import.h"

#include <algorithm>
#include <map>

namespace scorch::detail {

void TraceEvents::buildDurations(TreeBuilder& builder, ProfileMeta& meta, std::size_t maxDepth) {
    const uint32_t time = builder.costType("time", CostUnit::Nanoseconds);
    // speedscope uses the functions in args when every duration event is a Hermes one
    const bool hermes = m_hermesEvents > 0 && m_hermesEvents == m_durationEvents;
    auto key = [&](const Duration& d) {
        return hermes ? d.hermesKey : d.key;
    };
    std::vector<FrameId> frames(m_keys.size());
    std::vector<bool> haveFrame(m_keys.size(), false);
    auto frameOf = [&](uint32_t k) {
        if (!haveFrame[k]) {
            Frame f;
            f.name = builder.strings().intern(m_keys[k].name);
            f.file = builder.strings().intern(m_keys[k].file);
            f.line = static_cast<uint32_t>(m_keys[k].line);
            frames[k] = builder.frame(f);
            haveFrame[k] = true;
        }
        return frames[k];
    };
    std::vector<std::string> names(m_nameIndex.size());
    for (const auto& [n, i] : m_nameIndex)
        names[i] = n;

    auto byTs = [](const Duration& a, const Duration& b) {
        return a.ts < b.ts;
    };
    for (uint32_t t = 0; t < m_durations.size(); ++t) { // threads in first-seen order
        std::vector<Duration> events = std::move(m_durations[t]);
        if (events.empty())
            continue;
        // B queue: B events in file order, then X events sorted by start and longest first; E queue alike
        std::vector<Duration> begins, ends, xs;
        begins.reserve(events.size());
        ends.reserve(events.size());
        for (const Duration& d : events) {
            if (d.ph == 'B')
                begins.push_back(d);
            else if (d.ph == 'E')
                ends.push_back(d);
            else
                xs.push_back(d);
        }
        std::stable_sort(xs.begin(), xs.end(), [](const Duration& a, const Duration& b) {
            return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur;
        });
        for (Duration x : xs) {
            begins.push_back(x);
            x.ts += x.dur;
            ends.push_back(x);
        }
        events = {};
        std::stable_sort(begins.begin(), begins.end(), byTs);
        std::stable_sort(ends.begin(), ends.end(), byTs);

        const std::string threadLabel = threadName(t);
        builder.setPosition(t);
        uint32_t thread = UINT32_MAX;
        std::vector<const Duration*> open;
        std::vector<FrameId> stack;
        int64_t last = 0;
        // the stack between two events, timed at the first (no sample of its own: samples count begins)
        auto advance = [&](int64_t ts) {
            if (!stack.empty() && ts > last) {
                const CostValue cost{time, ts - last};
                const std::size_t from = stack.size() > maxDepth ? stack.size() - maxDepth : 0;
                builder.addTimedSample(thread, std::span(stack).subspan(from), {&cost, 1}, last, -1, {}, 0);
            }
            last = ts;
        };
        std::size_t bi = 0, ei = 0;
        while (bi < begins.size() || ei < ends.size()) {
            bool takeBegin;
            if (ei == ends.size())
                takeBegin = true;
            else if (bi == begins.size())
                takeBegin = false;
            else if (begins[bi].ts != ends[ei].ts)
                takeBegin = begins[bi].ts < ends[ei].ts;
            else // equal times: a zero-length event opens before it closes, otherwise close first
                takeBegin = key(begins[bi]) == key(ends[ei]);
            if (takeBegin) {
                const Duration& b = begins[bi++];
                if (thread == UINT32_MAX)
                    thread = builder.thread(threadLabel, parseInt64(m_threads[t].pid),
                                            parseInt64(m_threads[t].tid));
                advance(b.ts);
                open.push_back(&b);
                stack.push_back(frameOf(key(b)));
                const std::size_t from = stack.size() > maxDepth ? stack.size() - maxDepth : 0;
                builder.addTimedSample(thread, std::span(stack).subspan(from), {}, b.ts);
                continue;
            }
            // prefer an E event of the same time that matches the open frame by key, then by name
            if (!open.empty()) {
                const Duration& top = *open.back();
                bool swapped = false;
                for (int pass = 0; pass < 2 && !swapped; ++pass)
                    for (std::size_t j = ei + 1; j < ends.size() && ends[j].ts == ends[ei].ts; ++j)
                        if (pass == 0 ? key(ends[j]) == key(top) : ends[j].name == top.name) {
                            std::swap(ends[ei], ends[j]);
                            swapped = true;
                            break;
                        }
            }
            const Duration& e = ends[ei++];
            if (open.empty()) {
                meta.warn(threadLabel + ": an end event of \"" + names[e.name] + "\" at ts " +
                          std::to_string(e.ts / 1000) + " us, but no frame is open; ignored");
                continue;
            }
            if (e.name != open.back()->name) {
                meta.warn(threadLabel + ": an end event of \"" + names[e.name] + "\" at ts " +
                          std::to_string(e.ts / 1000) + " us while \"" + names[open.back()->name] +
                          "\" is open; ignored");
                continue;
            }
            advance(e.ts);
            open.pop_back();
            stack.pop_back();
        }
        if (!open.empty())
            meta.warn(threadLabel + ": " + std::to_string(open.size()) +
                      " frames are still open at the end (the first is \"" + names[open.front()->name] +
                      "\"); closed at the last timestamp");
    }
}

void TraceEvents::buildStackSamples(TreeBuilder& builder, ProfileMeta& meta, std::size_t maxDepth) {
    const uint32_t time = builder.costType("time", CostUnit::Nanoseconds);
    struct StackFrame {
        std::string name, parent;
        FrameId frame;
    };
    std::map<std::string, StackFrame, std::less<>> frames;
    if (!m_stackFrames.empty()) {
        try {
            simdjson::padded_string padded(m_stackFrames);
            auto doc = m_inner.iterate(padded);
            for (auto field : doc.get_object()) {
                StackFrame sf;
                for (auto g : field.value().get_object()) {
                    const std::string_view k = g.unescaped_key();
                    if (k == "name")
                        sf.name = std::string(std::string_view(g.value().get_string()));
                    else if (k == "parent") {
                        simdjson::ondemand::value v = g.value();
                        std::string_view s;
                        double d = 0;
                        if (!v.get_string().get(s))
                            sf.parent = std::string(s);
                        else if (jsonNumber(v, d))
                            sf.parent = std::to_string(static_cast<long long>(d));
                    }
                }
                sf.frame = builder.frame(sf.name);
                frames[std::string(std::string_view(field.unescaped_key()))] = std::move(sf);
            }
        } catch (const simdjson::simdjson_error& e) {
            throw ImportError(m_name + ": stackFrames: " + e.what());
        }
    }
    std::vector<std::vector<const StackSample*>> byThread(m_threads.size());
    for (const StackSample& s : m_stackSamples)
        byThread[s.thread].push_back(&s);
    uint64_t unknown = 0;
    std::vector<FrameId> stack;
    for (uint32_t t = 0; t < byThread.size(); ++t) {
        auto& samples = byThread[t];
        if (samples.empty())
            continue;
        std::stable_sort(samples.begin(), samples.end(),
                         [](const StackSample* a, const StackSample* b) { return a->ts < b->ts; });
        builder.setPosition(m_profiles.size() + t);
        const uint32_t thread =
            builder.thread(threadName(t), parseInt64(m_threads[t].pid), parseInt64(m_threads[t].tid));
        for (std::size_t i = 0; i < samples.size(); ++i) {
            stack.clear();
            std::string id = samples[i]->frame;
            for (std::size_t guard = 0; !id.empty(); ++guard) {
                const auto it = frames.find(id);
                if (it == frames.end()) {
                    ++unknown;
                    break;
                }
                if (guard > frames.size())
                    throw ImportError(m_name + ": the parent links of stack frame " + samples[i]->frame +
                                      " form a cycle");
                stack.push_back(it->second.frame);
                id = it->second.parent;
            }
            std::reverse(stack.begin(), stack.end());
            if (stack.size() > maxDepth)
                stack.erase(stack.begin(), stack.end() - static_cast<std::ptrdiff_t>(maxDepth));
            const int64_t w = i + 1 < samples.size() ? samples[i + 1]->ts - samples[i]->ts : 0;
            const CostValue cost{time, w};
            builder.addTimedSample(thread, stack, {&cost, 1}, samples[i]->ts);
        }
    }
    if (unknown)
        meta.warn(std::to_string(unknown) + " samples name stack frames that do not exist");
}

} // namespace scorch::detail
