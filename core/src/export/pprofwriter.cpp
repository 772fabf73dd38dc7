// pprof writer: profile.proto (github.com/google/pprof/proto/profile.proto) encoded by hand, optionally
// gzip-compressed with zlib. Samples are streamed out first; the tables they refer to (locations, functions,
// mappings, strings) follow, which protobuf allows (fields may come in any order).
#include "export/exportutil.h"
#include "scorch/export.h"

#include <zlib.h>

#include <cmath>
#include <map>
#include <ostream>
#include <unordered_map>

namespace scorch {

namespace {

// profile.proto field numbers
enum ProfileField : uint32_t {
    kSampleType = 1,
    kSample = 2,
    kMapping = 3,
    kLocation = 4,
    kFunction = 5,
    kStringTable = 6,
    kDurationNanos = 10,
    kComment = 13,
    kDefaultSampleType = 14,
};

void varint(std::string& out, uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}
void tag(std::string& out, uint32_t field, uint32_t wireType) {
    varint(out, (static_cast<uint64_t>(field) << 3) | wireType);
}
void intField(std::string& out, uint32_t field, uint64_t v) {
    if (v == 0)
        return; // proto3 default
    tag(out, field, 0);
    varint(out, v);
}
void bytesField(std::string& out, uint32_t field, std::string_view bytes) {
    tag(out, field, 2);
    varint(out, bytes.size());
    out.append(bytes);
}
void packedField(std::string& out, uint32_t field, const std::vector<uint64_t>& values) {
    if (values.empty())
        return;
    std::string packed;
    for (uint64_t v : values)
        varint(packed, v);
    bytesField(out, field, packed);
}

/// Raw or gzip output in ~1 MiB pieces.
class Sink {
public:
    Sink(std::ostream& out, bool gzip)
        : m_out(out)
        , m_gzip(gzip) {
        if (m_gzip && deflateInit2(&m_z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            throw ExportError("pprof: cannot start gzip compression");
    }
    ~Sink() {
        if (m_gzip)
            deflateEnd(&m_z);
    }
    Sink(const Sink&) = delete;
    Sink& operator=(const Sink&) = delete;

    std::string& buffer() { return m_buffer; }
    void maybeFlush() {
        if (m_buffer.size() >= (1u << 20))
            flush(false);
    }
    void finish() { flush(true); }

private:
    void flush(bool last) {
        if (!m_gzip) {
            m_out.write(m_buffer.data(), static_cast<std::streamsize>(m_buffer.size()));
            m_buffer.clear();
            return;
        }
        m_z.next_in = reinterpret_cast<Bytef*>(m_buffer.data());
        m_z.avail_in = static_cast<uInt>(m_buffer.size());
        char chunk[1 << 16];
        int status;
        do {
            m_z.next_out = reinterpret_cast<Bytef*>(chunk);
            m_z.avail_out = sizeof chunk;
            status = deflate(&m_z, last ? Z_FINISH : Z_NO_FLUSH);
            if (status == Z_STREAM_ERROR)
                throw ExportError("pprof: gzip compression failed");
            m_out.write(chunk, static_cast<std::streamsize>(sizeof chunk - m_z.avail_out));
        } while (m_z.avail_out == 0 || (last && status != Z_STREAM_END));
        m_buffer.clear();
    }

    std::ostream& m_out;
    bool m_gzip;
    z_stream m_z{};
    std::string m_buffer;
};

class Strings {
public:
    Strings() { id(""); }
    uint64_t id(std::string_view s) {
        auto [it, inserted] = m_index.try_emplace(std::string(s), m_list.size());
        if (inserted)
            m_list.push_back(&it->first);
        return it->second;
    }
    const std::vector<const std::string*>& list() const { return m_list; }

private:
    std::unordered_map<std::string, uint64_t> m_index;
    std::vector<const std::string*> m_list;
};

std::string_view unitName(const CostType& t) {
    switch (t.unit) {
    case CostUnit::Nanoseconds:
        return "nanoseconds";
    case CostUnit::Bytes:
        return "bytes";
    default:
        return "count";
    }
}

struct Location {
    uint64_t mapping;
    std::vector<FrameId> frames; // innermost (inlined) first, the physical frame last
};

} // namespace

void writePprof(const Profile& p, const PprofOptions& o, std::ostream& out) {
    Sink sink(out, o.gzip);
    std::string& b = sink.buffer();
    Strings strings;
    const std::size_t types = p.costTypes.size();

    bool fixedPoint = false;
    for (const CostType& t : p.costTypes) {
        std::string vt;
        intField(vt, 1, strings.id(t.name));
        intField(vt, 2, strings.id(unitName(t)));
        bytesField(b, kSampleType, vt);
        fixedPoint = fixedPoint || t.decimals > 0;
    }

    std::unordered_map<std::string_view, uint64_t> mappingIds; // module -> id
    std::vector<StringId> mappings;
    std::unordered_map<uint32_t, uint64_t> functionIds; // frame -> id (frames are unique by content)
    std::vector<FrameId> functions;
    std::map<std::vector<uint32_t>, uint64_t> locationIds; // frame ids, innermost first -> id
    std::vector<Location> locations;

    auto functionId = [&](FrameId f) {
        auto [it, inserted] = functionIds.try_emplace(f.value, functions.size() + 1);
        if (inserted)
            functions.push_back(f);
        return it->second;
    };
    auto mappingId = [&](StringId module) -> uint64_t {
        if (!module)
            return 0;
        auto [it, inserted] = mappingIds.try_emplace(p.strings.view(module), mappings.size() + 1);
        if (inserted)
            mappings.push_back(module);
        return it->second;
    };

    const detail::CostRows rows = detail::costRows(p);
    std::vector<FrameId> path;
    std::vector<uint64_t> locs, values;
    std::vector<uint32_t> key;
    std::string sample, label;
    const uint64_t threadKey = strings.id("thread"), pidKey = strings.id("pid"), tidKey = strings.id("tid");
    for (std::size_t r = 0; r < rows.node.size(); ++r) {
        detail::framePath(p.tree, rows.node[r], path);
        locs.clear();
        // leaf to root: a location is a run of inlined frames plus the physical frame they were inlined into
        for (std::size_t k = path.size(); k > 0;) {
            key.clear();
            while (k > 0) {
                const FrameId f = path[--k];
                key.push_back(f.value);
                if (p.frames[f].kind != FrameKind::Inlined)
                    break;
            }
            auto [it, inserted] = locationIds.try_emplace(key, locations.size() + 1);
            if (inserted) {
                Location loc;
                for (uint32_t f : key)
                    loc.frames.push_back(FrameId{f});
                loc.mapping = mappingId(p.frames[loc.frames.back()].module);
                for (FrameId f : loc.frames)
                    functionId(f);
                locations.push_back(std::move(loc));
            }
            locs.push_back(it->second);
        }
        values.clear();
        for (std::size_t t = 0; t < types; ++t)
            values.push_back(static_cast<uint64_t>(rows.cost[t][r]));
        sample.clear();
        packedField(sample, 1, locs);
        packedField(sample, 2, values);
        const uint32_t th = rows.thread[r];
        if (th < p.threads.size()) {
            const ThreadInfo& info = p.threads[th];
            if (!info.name.empty()) {
                label.clear();
                intField(label, 1, threadKey);
                intField(label, 2, strings.id(info.name));
                bytesField(sample, 3, label);
            }
            for (auto [key2, value] : {std::pair{pidKey, info.pid}, std::pair{tidKey, info.tid}}) {
                if (value < 0)
                    continue;
                label.clear();
                intField(label, 1, key2);
                tag(label, 3, 0);
                varint(label, static_cast<uint64_t>(value));
                bytesField(sample, 3, label);
            }
        }
        bytesField(b, kSample, sample);
        sink.maybeFlush();
    }

    std::string m;
    for (std::size_t i = 0; i < mappings.size(); ++i) {
        m.clear();
        intField(m, 1, i + 1);
        intField(m, 5, strings.id(p.strings.view(mappings[i])));
        intField(m, 7, 1);  // has_functions
        intField(m, 8, 1);  // has_filenames
        intField(m, 9, 1);  // has_line_numbers
        intField(m, 10, 1); // has_inline_frames
        bytesField(b, kMapping, m);
    }
    std::string line;
    for (std::size_t i = 0; i < locations.size(); ++i) {
        m.clear();
        intField(m, 1, i + 1);
        intField(m, 2, locations[i].mapping);
        for (FrameId f : locations[i].frames) {
            line.clear();
            intField(line, 1, functionIds[f.value]);
            intField(line, 2, p.frames[f].line);
            bytesField(m, 4, line);
        }
        bytesField(b, kLocation, m);
        sink.maybeFlush();
    }
    for (std::size_t i = 0; i < functions.size(); ++i) {
        const Frame& f = p.frames[functions[i]];
        m.clear();
        intField(m, 1, i + 1);
        intField(m, 2, strings.id(p.strings.view(f.name)));
        intField(m, 3, strings.id(p.strings.view(f.name)));
        intField(m, 4, strings.id(p.strings.view(f.file)));
        bytesField(b, kFunction, m);
        sink.maybeFlush();
    }
    if (fixedPoint) {
        std::string note = "scorch: values of";
        for (const CostType& t : p.costTypes)
            if (t.decimals > 0)
                note += " " + t.name + " (x10^" + std::to_string(t.decimals) + ")";
        note += " are fixed-point";
        tag(b, kComment, 0);
        varint(b, strings.id(note));
    }
    if (types > 0)
        intField(b, kDefaultSampleType, strings.id(p.costTypes[0].name));
    // time_nanos would need wall-clock time; perf's timestamps count from boot: only the duration is written
    if (p.meta.timeStart && p.meta.timeEnd && *p.meta.timeEnd > *p.meta.timeStart &&
        *p.meta.timeEnd - *p.meta.timeStart < 1e9)
        intField(b, kDurationNanos,
                 static_cast<uint64_t>(std::llround((*p.meta.timeEnd - *p.meta.timeStart) * 1e9)));
    for (const std::string* s : strings.list()) {
        bytesField(b, kStringTable, *s);
        sink.maybeFlush();
    }
    sink.finish();
    if (!out)
        throw ExportError("pprof: write error");
}

} // namespace scorch
