// pprof importer: profile.proto (github.com/google/pprof/proto/profile.proto) decoded with our own wire
// reader. Every sample type becomes a cost type (the default one first); a location's `line` entries become
// one frame each, the inner ones FrameKind::Inlined; labels `thread`, `pid` and `tid` select the thread.
#include "import/pprof/pprofimport.h"
#include "import/pprof/protowire.h"
#include "io/chunkpipeline.h"
#include "scorch/builder.h"
#include "util/textutil.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <vector>

namespace scorch::detail {

using proto::ProtoError;
using proto::Reader;

namespace {

// profile.proto field numbers
namespace Profile_ {
constexpr uint64_t SampleType = 1, Sample = 2, Mapping = 3, Location = 4, Function = 5, StringTable = 6,
                   DropFrames = 7, KeepFrames = 8, TimeNanos = 9, DurationNanos = 10, PeriodType = 11,
                   Period = 12, Comment = 13, DefaultSampleType = 14, DocUrl = 15;
}

struct Message {
    std::string_view data;
    uint64_t base = 0;
};

struct ValueType {
    uint64_t type = 0, unit = 0;
};
struct Function {
    uint64_t name = 0, systemName = 0, file = 0;
    int64_t startLine = 0;
};
struct Line {
    uint64_t function = 0;
    int64_t line = 0;
};
struct Location {
    uint64_t mapping = 0, address = 0;
    std::vector<Line> lines;
    uint64_t offset = 0;
};

std::string hex(uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

class PprofReader {
    struct MappingInfo {
        uint64_t file = 0, offset = 0;
    };
    struct FunctionInfo {
        Function function;
        uint64_t offset = 0;
    };
    struct LocationFrames {
        Location location;
        std::vector<FrameId> frames;
        bool resolved = false;
    };

public:
    PprofReader(std::string_view data, const std::string& name, const ImportOptions& options)
        : m_data(data)
        , m_name(name)
        , m_options(options) {}

    Profile read(ProfileMeta meta) {
        Reader r(m_data);
        std::vector<Message> samples;
        std::vector<ValueType> sampleTypes;
        uint64_t defaultType = 0;
        int64_t timeNanos = 0, durationNanos = 0;
        while (r.next()) {
            uint64_t base = 0;
            switch (r.field()) {
            case Profile_::SampleType:
                sampleTypes.push_back(valueType(r));
                break;
            case Profile_::Sample: {
                const std::string_view d = r.message(base);
                samples.push_back({d, base});
                break;
            }
            case Profile_::Mapping:
                mapping(r);
                break;
            case Profile_::Location:
                location(r);
                break;
            case Profile_::Function:
                function(r);
                break;
            case Profile_::StringTable: {
                m_strings.push_back(r.bytes());
                break;
            }
            case Profile_::DefaultSampleType:
                defaultType = r.integer();
                break;
            case Profile_::TimeNanos:
                timeNanos = static_cast<int64_t>(r.integer());
                break;
            case Profile_::DurationNanos:
                durationNanos = static_cast<int64_t>(r.integer());
                break;
            default:
                r.skip(); // drop/keep frames, period, comments, doc url, unknown fields
                break;
            }
        }
        if (m_strings.empty() || !m_strings[0].empty())
            throw ProtoError("the string table must start with an empty string", 0);
        if (sampleTypes.empty())
            throw ProtoError("the profile declares no sample_type", 0);

        // cost types: the default sample type first (pprof's default is the last one)
        std::vector<std::size_t> order;
        std::size_t first = sampleTypes.size() - 1;
        for (std::size_t i = 0; i < sampleTypes.size(); ++i)
            if (defaultType && sampleTypes[i].type == defaultType)
                first = i;
        order.push_back(first);
        for (std::size_t i = 0; i < sampleTypes.size(); ++i)
            if (i != first)
                order.push_back(i);
        std::vector<uint32_t> typeIndex(sampleTypes.size());
        std::vector<int64_t> scale(sampleTypes.size(), 1);
        for (std::size_t i : order) {
            const std::string_view unit = string(sampleTypes[i].unit, 0);
            std::string typeName(string(sampleTypes[i].type, 0));
            if (typeName.empty())
                typeName = "value " + std::to_string(i + 1);
            CostUnit u = typeName == "samples" ? CostUnit::Samples : CostUnit::Count;
            if (unit == "nanoseconds" || unit == "ns") {
                u = CostUnit::Nanoseconds;
            } else if (unit == "microseconds" || unit == "us") {
                u = CostUnit::Nanoseconds;
                scale[i] = 1000;
            } else if (unit == "milliseconds" || unit == "ms") {
                u = CostUnit::Nanoseconds;
                scale[i] = 1'000'000;
            } else if (unit == "seconds" || unit == "s") {
                u = CostUnit::Nanoseconds;
                scale[i] = 1'000'000'000;
            } else if (unit == "bytes" || unit == "B") {
                u = CostUnit::Bytes;
            } else if (unit == "kilobytes" || unit == "KB") {
                u = CostUnit::Bytes;
                scale[i] = 1024;
            } else if (unit == "megabytes" || unit == "MB") {
                u = CostUnit::Bytes;
                scale[i] = 1 << 20;
            }
            typeIndex[i] = m_builder.costType(typeName, u);
        }

        uint32_t defaultThread = UINT32_MAX; // created when a sample without thread labels comes
        std::vector<FrameId> stack;
        std::vector<CostValue> costs;
        for (const Message& s : samples) {
            stack.clear();
            costs.clear();
            std::string threadName;
            int64_t pid = -1, tid = -1;
            bool labelled = false;
            std::size_t valueIndex = 0;
            Reader sr(s.data, s.base);
            while (sr.next()) {
                if (sr.field() == 1) { // location_id, leaf first
                    sr.repeated([&](uint64_t id) { appendLocation(id, stack, sr.offset()); });
                } else if (sr.field() == 2) { // value
                    sr.repeated([&](uint64_t v) {
                        if (valueIndex < sampleTypes.size())
                            costs.push_back(
                                {typeIndex[valueIndex], mulCost(static_cast<int64_t>(v), scale[valueIndex])});
                        ++valueIndex;
                    });
                } else if (sr.field() == 3) { // label
                    uint64_t base = 0;
                    Reader lr(sr.message(base), base);
                    uint64_t key = 0, str = 0;
                    int64_t num = 0;
                    bool hasNum = false;
                    while (lr.next()) {
                        if (lr.field() == 1)
                            key = lr.integer();
                        else if (lr.field() == 2)
                            str = lr.integer();
                        else if (lr.field() == 3) {
                            num = static_cast<int64_t>(lr.integer());
                            hasNum = true;
                        } else
                            lr.skip();
                    }
                    const std::string_view k = string(key, base);
                    const std::string_view v = string(str, base);
                    const int64_t n = hasNum ? num : numberIn(v);
                    if (k == "thread" || k == "thread_name") {
                        threadName = v.empty() && hasNum ? std::to_string(num) : std::string(v);
                        labelled = true;
                    } else if (k == "tid" || k == "thread_id") {
                        tid = n;
                        labelled = true;
                    } else if (k == "pid" || k == "process_id") {
                        pid = n;
                        labelled = true;
                    }
                } else {
                    sr.skip();
                }
            }
            if (valueIndex != sampleTypes.size())
                meta.warn("a sample at byte offset " + std::to_string(s.base) + " has " +
                          std::to_string(valueIndex) + " values for " + std::to_string(sampleTypes.size()) +
                          " sample types");
            std::reverse(stack.begin(), stack.end()); // root first
            if (stack.size() > m_options.maxStackDepth) {
                meta.warn("a sample deeper than " + std::to_string(m_options.maxStackDepth) +
                          " frames lost its outermost callers");
                stack.erase(stack.begin(),
                            stack.end() - static_cast<std::ptrdiff_t>(m_options.maxStackDepth));
            }
            if (!labelled && defaultThread == UINT32_MAX)
                defaultThread = m_builder.thread(baseName(m_name), -1, -1);
            uint32_t thread = defaultThread;
            if (labelled) {
                if (threadName.empty())
                    threadName = tid >= 0 ? "tid " + std::to_string(tid) : "pid " + std::to_string(pid);
                thread = m_builder.thread(threadName, pid, tid);
            }
            m_builder.addSample(thread, stack, costs);
        }
        if (timeNanos > 0) {
            m_builder.noteTime(static_cast<double>(timeNanos) * 1e-9);
            if (durationNanos > 0)
                m_builder.noteTime(static_cast<double>(timeNanos) * 1e-9 +
                                   static_cast<double>(durationNanos) * 1e-9);
        }
        return m_builder.finish(std::move(meta));
    }

    TreeBuilder& builder() { return m_builder; }

private:
    ValueType valueType(Reader& r) {
        uint64_t base = 0;
        Reader vr(r.message(base), base);
        ValueType v;
        while (vr.next()) {
            if (vr.field() == 1)
                v.type = vr.integer();
            else if (vr.field() == 2)
                v.unit = vr.integer();
            else
                vr.skip();
        }
        return v;
    }

    void mapping(Reader& r) {
        uint64_t base = 0;
        Reader mr(r.message(base), base);
        uint64_t id = 0, file = 0;
        while (mr.next()) {
            if (mr.field() == 1)
                id = mr.integer();
            else if (mr.field() == 5)
                file = mr.integer();
            else
                mr.skip();
        }
        m_mappings[id] = {file, base};
    }

    void function(Reader& r) {
        uint64_t base = 0;
        Reader fr(r.message(base), base);
        uint64_t id = 0;
        Function f;
        while (fr.next()) {
            switch (fr.field()) {
            case 1:
                id = fr.integer();
                break;
            case 2:
                f.name = fr.integer();
                break;
            case 3:
                f.systemName = fr.integer();
                break;
            case 4:
                f.file = fr.integer();
                break;
            case 5:
                f.startLine = static_cast<int64_t>(fr.integer());
                break;
            default:
                fr.skip();
            }
        }
        m_functions[id] = {f, base};
    }

    void location(Reader& r) {
        uint64_t base = 0;
        Reader lr(r.message(base), base);
        uint64_t id = 0;
        Location loc;
        loc.offset = base;
        while (lr.next()) {
            switch (lr.field()) {
            case 1:
                id = lr.integer();
                break;
            case 2:
                loc.mapping = lr.integer();
                break;
            case 3:
                loc.address = lr.integer();
                break;
            case 4: {
                uint64_t lineBase = 0;
                Reader li(lr.message(lineBase), lineBase);
                Line line;
                while (li.next()) {
                    if (li.field() == 1)
                        line.function = li.integer();
                    else if (li.field() == 2)
                        line.line = static_cast<int64_t>(li.integer());
                    else
                        li.skip();
                }
                loc.lines.push_back(line);
                break;
            }
            default:
                lr.skip();
            }
        }
        m_locations[id] = {std::move(loc), {}, false};
    }

    std::string_view string(uint64_t index, uint64_t offset) const {
        if (index >= m_strings.size())
            throw ProtoError("string index " + std::to_string(index) +
                                 " is out of range (the string table has " +
                                 std::to_string(m_strings.size()) + " entries)",
                             offset);
        return m_strings[index];
    }

    static int64_t numberIn(std::string_view s) {
        int64_t v = 0;
        for (char c : s) {
            if (c < '0' || c > '9' || v > INT64_MAX / 10 - 10)
                return -1;
            v = v * 10 + (c - '0');
        }
        return s.empty() ? -1 : v;
    }

    /// Appends the frames of location `id`, leaf first (the stack is reversed at the end).
    void appendLocation(uint64_t id, std::vector<FrameId>& stack, uint64_t offset) {
        auto it = m_locations.find(id);
        if (it == m_locations.end())
            throw ProtoError("a sample refers to location " + std::to_string(id) + ", which does not exist",
                             offset);
        LocationFrames& lf = it->second;
        if (!lf.resolved) {
            resolve(lf);
            lf.resolved = true;
        }
        stack.insert(stack.end(), lf.frames.begin(), lf.frames.end());
    }

    /// A location's frames, leaf (innermost inlined) first: line[0] is the innermost, the last line the
    /// function the code was inlined into.
    void resolve(LocationFrames& lf) {
        const Location& loc = lf.location;
        StringId module;
        if (loc.mapping) {
            auto m = m_mappings.find(loc.mapping);
            if (m == m_mappings.end())
                throw ProtoError("location refers to mapping " + std::to_string(loc.mapping) +
                                     ", which does not exist",
                                 loc.offset);
            module = m_builder.strings().intern(string(m->second.file, m->second.offset));
        }
        if (loc.lines.empty()) {
            Frame f;
            f.name = m_builder.strings().intern(hex(loc.address));
            f.module = module;
            f.kind = FrameKind::Unknown;
            lf.frames.push_back(m_builder.frame(f));
            return;
        }
        for (std::size_t i = 0; i < loc.lines.size(); ++i) {
            const Line& line = loc.lines[i];
            auto fn = m_functions.find(line.function);
            if (fn == m_functions.end())
                throw ProtoError("location refers to function " + std::to_string(line.function) +
                                     ", which does not exist",
                                 loc.offset);
            const Function& func = fn->second.function;
            std::string_view name = string(func.name, fn->second.offset);
            if (name.empty())
                name = string(func.systemName, fn->second.offset);
            Frame f;
            f.name = m_builder.strings().intern(name.empty() ? std::string_view("[unknown]") : name);
            f.file = m_builder.strings().intern(string(func.file, fn->second.offset));
            f.line = static_cast<uint32_t>(std::clamp<int64_t>(func.startLine, 0, UINT32_MAX));
            f.module = module;
            f.kind = i + 1 < loc.lines.size() ? FrameKind::Inlined : FrameKind::Native;
            lf.frames.push_back(m_builder.frame(f));
        }
    }

    std::string_view m_data;
    const std::string& m_name;
    const ImportOptions& m_options;
    TreeBuilder m_builder;
    std::vector<std::string_view> m_strings;
    std::unordered_map<uint64_t, MappingInfo> m_mappings;
    std::unordered_map<uint64_t, FunctionInfo> m_functions;
    std::unordered_map<uint64_t, LocationFrames> m_locations;
};

/// Expected wire type of each profile.proto field (0 = unknown field number).
int expectedType(uint64_t field) {
    switch (field) {
    case Profile_::SampleType:
    case Profile_::Sample:
    case Profile_::Mapping:
    case Profile_::Location:
    case Profile_::Function:
    case Profile_::StringTable:
    case Profile_::PeriodType:
        return proto::Bytes + 1;
    case Profile_::DropFrames:
    case Profile_::KeepFrames:
    case Profile_::TimeNanos:
    case Profile_::DurationNanos:
    case Profile_::Period:
    case Profile_::DefaultSampleType:
    case Profile_::DocUrl:
        return proto::Varint + 1;
    case Profile_::Comment:
        return -1; // varint or packed
    default:
        return 0;
    }
}

/// Checks that an embedded message parses as fields with small numbers and sane wire types.
bool plausibleMessage(std::string_view data) {
    try {
        Reader r(data);
        while (r.next()) {
            if (r.field() > 16)
                return false;
            r.skip();
        }
        return true;
    } catch (const ProtoError&) {
        return false;
    }
}

} // namespace

bool sniffPprof(std::string_view head) {
    Reader r(head);
    int fields = 0, messages = 0;
    bool sampleType = false; // every profile declares one, and encoders write it among the first fields
    try {
        while (r.next()) {
            sampleType = sampleType || r.field() == Profile_::SampleType;
            const int want = expectedType(r.field());
            if (want == 0)
                return false;
            if (want > 0 && r.type() != want - 1)
                return false;
            if (r.type() == proto::Bytes) {
                const std::string_view d = r.bytes();
                if (r.field() != Profile_::StringTable && r.field() != Profile_::Comment) {
                    if (!plausibleMessage(d))
                        return false;
                    ++messages;
                }
            } else {
                r.skip();
            }
            ++fields;
        }
    } catch (const ProtoError&) {
        // the head may end inside a field: what was seen so far must be convincing on its own
        return sampleType && fields >= 4 && messages >= 2;
    }
    return sampleType && fields >= 2 && messages >= 1;
}

Profile importPprof(ByteSource& source, std::string head, const std::string& name,
                    const ImportOptions& options, const ImportControl& control) {
    std::string data = std::move(head);
    readRest(source, control, [&](std::string_view block) { data.append(block); });
    ProfileMeta meta;
    meta.source = name;
    meta.format = Format::Pprof;
    meta.compression = source.compression();
    meta.inputBytes = data.size();
    const bool compressed = !meta.compression.empty();
    PprofReader reader(data, name, options);
    reader.builder().setMaxNodes(options.maxNodes);
    try {
        return reader.read(std::move(meta));
    } catch (const ProtoError& e) {
        throw ImportError(name + ": invalid pprof data at byte offset " + std::to_string(e.offset()) +
                          (compressed ? " (after decompression)" : "") + ": " + e.what());
    }
}

} // namespace scorch::detail
