// pprof writer: the protobuf wire structure checked with a small independent decoder written here from
// profile.proto's field numbers, and the stacks, values and labels decoded back against the profile.
#include "exporttestutil.h"

#include "scorch/export.h"

#include <map>
#include <optional>
#include <set>

using namespace scorch;

namespace {

/// One decoded field: a varint, or the bytes of a length-delimited field.
struct Field {
    uint32_t number = 0;
    int wireType = 0;
    uint64_t varint = 0;
    std::string_view bytes;
};

/// Decodes one protobuf message level; throws when the bytes are not well-formed.
std::vector<Field> decode(std::string_view in) {
    std::vector<Field> fields;
    std::size_t i = 0;
    auto readVarint = [&](uint64_t& v) {
        v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (i >= in.size())
                return false;
            const auto b = static_cast<unsigned char>(in[i++]);
            v |= static_cast<uint64_t>(b & 0x7f) << shift;
            if (!(b & 0x80))
                return true;
        }
        return false;
    };
    while (i < in.size()) {
        uint64_t key;
        if (!readVarint(key))
            throw std::runtime_error("malformed protobuf");
        Field f;
        f.number = static_cast<uint32_t>(key >> 3);
        f.wireType = static_cast<int>(key & 7);
        if (f.number == 0)
            throw std::runtime_error("malformed protobuf");
        if (f.wireType == 0) {
            if (!readVarint(f.varint))
                throw std::runtime_error("malformed protobuf");
        } else if (f.wireType == 2) {
            uint64_t n;
            if (!readVarint(n) || n > in.size() - i)
                throw std::runtime_error("malformed protobuf");
            f.bytes = in.substr(i, n);
            i += n;
        } else {
            throw std::runtime_error("unexpected wire type"); // profile.proto has no fixed-width fields
        }
        fields.push_back(f);
    }
    return fields;
}

std::vector<uint64_t> packed(std::string_view bytes) {
    std::vector<uint64_t> out;
    std::size_t i = 0;
    while (i < bytes.size()) {
        uint64_t v = 0;
        for (int shift = 0; i < bytes.size(); shift += 7) {
            const auto b = static_cast<unsigned char>(bytes[i++]);
            v |= static_cast<uint64_t>(b & 0x7f) << shift;
            if (!(b & 0x80))
                break;
        }
        out.push_back(v);
    }
    return out;
}

/// The decoded profile: enough of profile.proto to rebuild stacks, values and labels.
struct Decoded {
    std::vector<std::string> strings;
    std::vector<std::pair<uint64_t, uint64_t>> sampleTypes; // (type, unit) string indices
    struct Label {
        uint64_t key = 0, str = 0;
        std::optional<int64_t> num;
    };
    struct Sample {
        std::vector<uint64_t> locations, values;
        std::vector<Label> labels;
        std::map<std::string, std::string> strLabels;
        std::map<std::string, int64_t> numLabels;
    };
    std::vector<Sample> samples;
    struct Location {
        uint64_t mapping = 0;
        std::vector<std::pair<uint64_t, int64_t>> lines; // (function id, line)
    };
    std::map<uint64_t, Location> locations;
    std::map<uint64_t, uint64_t> functionNames; // id -> name index
    std::map<uint64_t, uint64_t> mappingFiles;  // id -> filename index
    uint64_t defaultSampleType = 0;
    uint64_t durationNanos = 0;
};

/// Decodes `bytes` (gzip or not, through Scorch's decompressing byte source) or fails the test.
Decoded decodeProfile(const std::string& bytes) {
    auto source = memoryByteSource(bytes, "out.pb");
    std::string plain;
    char buf[65536];
    while (const std::size_t n = source->read(buf, sizeof buf))
        plain.append(buf, n);
    Decoded d;
    const std::vector<Field> top = decode(plain);
    for (const Field& f : top) {
        if (f.number == 6) {
            d.strings.emplace_back(f.bytes);
            continue;
        }
        if (f.number == 14) {
            d.defaultSampleType = f.varint;
            continue;
        }
        if (f.number == 10) {
            d.durationNanos = f.varint;
            continue;
        }
        if (f.wireType != 2)
            continue;
        const std::vector<Field> sub = decode(f.bytes);
        if (f.number == 1) {
            uint64_t type = 0, unit = 0;
            for (const Field& g : sub)
                (g.number == 1 ? type : unit) = g.varint;
            d.sampleTypes.emplace_back(type, unit);
        } else if (f.number == 2) {
            Decoded::Sample s;
            for (const Field& g : sub) {
                if (g.number == 1)
                    s.locations = packed(g.bytes);
                else if (g.number == 2)
                    s.values = packed(g.bytes);
                else if (g.number == 3) {
                    Decoded::Label label;
                    for (const Field& h : decode(g.bytes)) {
                        if (h.number == 1)
                            label.key = h.varint;
                        else if (h.number == 2)
                            label.str = h.varint;
                        else if (h.number == 3)
                            label.num = static_cast<int64_t>(h.varint);
                    }
                    s.labels.push_back(label);
                }
            }
            d.samples.push_back(std::move(s));
        } else if (f.number == 4) {
            uint64_t id = 0;
            Decoded::Location loc;
            for (const Field& g : sub) {
                if (g.number == 1)
                    id = g.varint;
                else if (g.number == 2)
                    loc.mapping = g.varint;
                else if (g.number == 4) {
                    uint64_t fn = 0, line = 0;
                    for (const Field& h : decode(g.bytes))
                        (h.number == 1 ? fn : line) = h.varint;
                    loc.lines.emplace_back(fn, static_cast<int64_t>(line));
                }
            }
            d.locations[id] = loc;
        } else if (f.number == 5) {
            uint64_t id = 0, name = 0;
            for (const Field& g : sub)
                if (g.number == 1)
                    id = g.varint;
                else if (g.number == 2)
                    name = g.varint;
            d.functionNames[id] = name;
        } else if (f.number == 3) {
            uint64_t id = 0, file = 0;
            for (const Field& g : sub)
                if (g.number == 1)
                    id = g.varint;
                else if (g.number == 5)
                    file = g.varint;
            d.mappingFiles[id] = file;
        }
    }
    for (Decoded::Sample& s : d.samples)
        for (const Decoded::Label& l : s.labels) {
            if (l.num)
                s.numLabels[d.strings.at(l.key)] = *l.num;
            else
                s.strLabels[d.strings.at(l.key)] = d.strings.at(l.str);
        }
    return d;
}

/// Stacks (names root first, joined by '\x1f') and summed values of cost type `type`, decoded from pprof:
/// a location's lines are innermost first.
std::map<std::string, int64_t> decodedStacks(const Decoded& d, std::size_t type) {
    std::map<std::string, int64_t> out;
    for (const Decoded::Sample& s : d.samples) {
        std::vector<std::string> names;
        for (uint64_t loc : s.locations)
            for (const auto& line : d.locations.at(loc).lines)
                names.push_back(d.strings.at(d.functionNames.at(line.first)));
        std::string key;
        for (auto it = names.rbegin(); it != names.rend(); ++it)
            key += (key.empty() ? "" : "\x1f") + *it;
        out[key] += static_cast<int64_t>(s.values.at(type));
    }
    std::erase_if(out, [](const auto& kv) { return kv.second == 0; });
    return out;
}

} // namespace

class TestExportPprof : public QObject {
    Q_OBJECT
private Q_SLOTS:
    /// Every importable corpus input: well-formed protobuf (gzip and plain), consistent ids, one sample type
    /// per cost type, and the stacks and totals of every cost type decoded back equal to the profile's.
    void corpusWireStructure() {
        SCORCH_REQUIRE_CORPUS();
        const QStringList inputs = test::importableCorpusInputs();
        QVERIFY(inputs.size() >= 30);
        for (const QString& input : inputs) {
            const Profile p = importProfile(input.toStdString());
            for (bool gzip : {true, false}) {
                PprofOptions o;
                o.gzip = gzip;
                const std::string bytes = test::written([&](std::ostream& out) { writePprof(p, o, out); });
                QCOMPARE(bytes.size() >= 2 && bytes[0] == '\x1f' && bytes[1] == '\x8b', gzip);
                const Decoded d = decodeProfile(bytes);
                QVERIFY(!d.strings.empty());
                QCOMPARE(d.strings[0], std::string());
                QCOMPARE(d.sampleTypes.size(), p.costTypes.size());
                for (std::size_t t = 0; t < p.costTypes.size(); ++t)
                    QCOMPARE(d.strings.at(d.sampleTypes[t].first), p.costTypes[t].name);
                QCOMPARE(d.strings.at(d.defaultSampleType), p.costTypes[0].name);
                for (const auto& s : d.samples) {
                    QCOMPARE(s.values.size(), p.costTypes.size());
                    QVERIFY(!s.locations.empty());
                    for (uint64_t l : s.locations)
                        QVERIFY2(d.locations.count(l), qPrintable(input));
                }
                std::set<uint64_t> ids;
                for (const auto& [id, loc] : d.locations) {
                    QVERIFY(id > 0 && !loc.lines.empty());
                    QVERIFY(loc.mapping == 0 || d.mappingFiles.count(loc.mapping));
                    for (const auto& line : loc.lines)
                        QVERIFY(d.functionNames.count(line.first));
                }
                if (!gzip)
                    continue;
                for (std::size_t t = 0; t < p.costTypes.size(); ++t) {
                    QVERIFY2(decodedStacks(d, t) == test::stacksByName(p, t, p.costTypes[t].decimals),
                             qPrintable(input + QStringLiteral(" type ") + QString::number(t)));
                }
            }
        }
    }

    /// Every importable corpus input read back through Scorch's pprof importer: the same cost types, totals
    /// and stacks (fixed-point costs come back as their scaled integers), threads by name.
    void corpusImportRoundTrip() {
        SCORCH_REQUIRE_CORPUS();
        for (const QString& input : test::importableCorpusInputs()) {
            const Profile p = importProfile(input.toStdString());
            const std::string bytes = test::written([&](std::ostream& out) { writePprof(p, {}, out); });
            bool empty = true;
            for (std::size_t t = 0; t < p.costTypes.size(); ++t)
                empty = empty && test::stacksByName(p, t, 0).empty();
            if (empty) // a pprof file without samples is refused by the importer ("no samples found")
                continue;
            const Profile q = importProfile(memoryByteSource(bytes, "out.pb.gz"), "out.pb.gz");
            QCOMPARE(q.meta.format, Format::Pprof);
            QCOMPARE(q.costTypes.size(), p.costTypes.size());
            for (std::size_t t = 0; t < p.costTypes.size(); ++t) {
                QCOMPARE(q.costTypes[t].name, p.costTypes[t].name);
                // an empty function name is pprof's "no name", which the importer shows as [unknown]
                QVERIFY2(test::stacksByName(q, t, q.costTypes[t].decimals) ==
                             test::stacksByName(p, t, p.costTypes[t].decimals, "[unknown]"),
                         qPrintable(input));
            }
            std::set<std::string> names, back;
            for (uint32_t th : p.threadCosts.thread)
                names.insert(p.threads[th].name);
            for (const ThreadInfo& th : q.threads)
                if (th.samples > 0)
                    back.insert(th.name);
            if (p.threads.size() > 1)
                QVERIFY2(back == names, qPrintable(input));
        }
    }

    /// Inlined frames become extra lines of their caller's location (innermost first); modules become
    /// mappings; threads become labels.
    void inlineMappingsLabels() {
        // `perf script` prints a frame with inlined callees as `outer->middle`
        const std::string text = "prog 100/101 1.000: 1 cycles:\n"
                                 "\t1000 inner+0x1 (/usr/bin/prog)\n"
                                 "\t2000 outer->middle+0x8 (/usr/bin/prog)\n"
                                 "\t3000 main+0x2 (/lib/libc.so)\n\n";
        const Profile q = test::fromText(text, "inline.perf");
        QVERIFY(test::nodeByPath(q, q.tree, {"prog", "main", "outer", "middle", "inner"}) != kRootNode);
        const Decoded d = decodeProfile(test::written([&](std::ostream& out) { writePprof(q, {}, out); }));
        QCOMPARE(d.samples.size(), std::size_t{1});
        const auto& s = d.samples[0];
        std::vector<std::vector<std::string>> locs;
        for (uint64_t l : s.locations) {
            locs.emplace_back();
            for (const auto& line : d.locations.at(l).lines)
                locs.back().push_back(d.strings.at(d.functionNames.at(line.first)));
        }
        // leaf first; the inlined `middle` is a line of the location of `outer`, innermost first
        QCOMPARE(locs.size(), std::size_t{4});
        QCOMPARE(locs[0], std::vector<std::string>{"inner"});
        QCOMPARE(locs[1], (std::vector<std::string>{"middle", "outer"}));
        QCOMPARE(locs[2], std::vector<std::string>{"main"});
        QCOMPARE(locs[3], std::vector<std::string>{"prog"});
        std::set<std::string> files;
        for (const auto& [id, file] : d.mappingFiles)
            files.insert(d.strings.at(file));
        QCOMPARE(files, (std::set<std::string>{"/usr/bin/prog", "/lib/libc.so"}));
        QCOMPARE(s.strLabels.at("thread"), std::string("prog"));
        QCOMPARE(s.numLabels.at("pid"), 100);
        QCOMPARE(s.numLabels.at("tid"), 101);
        QCOMPARE(d.durationNanos, uint64_t{0}); // one timestamp: no duration

        // the duration of a recording spans its first to its last sample
        const Profile timed = test::fromText(
            "p 1/1 1.5: 1 cycles:\n\t1 f (/x)\n\np 1/1 3.75: 1 cycles:\n\t1 g (/x)\n\n", "timed.perf");
        QCOMPARE(decodeProfile(test::written([&](std::ostream& out) {
                     writePprof(timed, {}, out);
                 })).durationNanos,
                 uint64_t{2'250'000'000});
    }

    /// Fixed-point (fractional) costs are written scaled, with a comment saying so; negative values of a
    /// differential profile are encoded as two's complement varints and decode back.
    void fixedPointAndNegative() {
        const Profile p = test::fromFolded("a;b 0.25\na;c 1.5\n");
        const std::string bytes = test::written([&](std::ostream& out) { writePprof(p, {}, out); });
        const Decoded d = decodeProfile(bytes);
        QCOMPARE(decodedStacks(d, 0), test::stacksByName(p, 0, p.costTypes[0].decimals));
        bool comment = false;
        for (const std::string& s : d.strings)
            comment = comment || s.find("fixed-point") != std::string::npos;
        QVERIFY(comment);
    }
};

QTEST_GUILESS_MAIN(TestExportPprof)
#include "tst_exportpprof.moc"
