// pprof import: the corpus profile against speedscope's dump of it; profiles written here with a small
// protobuf encoder (several sample types and units, inlined lines, thread labels, raw and gzipped); format
// detection; bad input (truncated, invalid indices, wrong wire types) named with its byte offset.
#include "expectedprofiles.h"

#include "scorch/analysis.h"

#include <QDirIterator>

#include <zlib.h>

using namespace scorch;

namespace {

/// Just enough of a protobuf encoder to write profile.proto messages.
class Pb {
public:
    Pb& varint(uint64_t field, uint64_t v) {
        key(field, 0);
        raw(v);
        return *this;
    }
    Pb& bytes(uint64_t field, const std::string& b) {
        key(field, 2);
        raw(b.size());
        m_out += b;
        return *this;
    }
    Pb& message(uint64_t field, const Pb& m) { return bytes(field, m.m_out); }
    Pb& packed(uint64_t field, std::initializer_list<uint64_t> values) {
        Pb run;
        for (uint64_t v : values)
            run.raw(v);
        return bytes(field, run.m_out);
    }
    const std::string& str() const { return m_out; }

private:
    void key(uint64_t field, int type) { raw(field << 3 | uint64_t(type)); }
    void raw(uint64_t v) {
        while (v >= 0x80) {
            m_out.push_back(char(v | 0x80));
            v >>= 7;
        }
        m_out.push_back(char(v));
    }
    std::string m_out;
};

/// Strings: 0 "", 1 samples, 2 count, 3 cpu, 4 nanoseconds, 5 main, 6 work, 7 inl, 8 /bin/app, 9 app.c,
/// 10 thread, 11 worker, 12 tid, 13 alloc, 14 bytes
Pb sampleProfile(bool withLabels) {
    Pb p;
    p.message(1, Pb().varint(1, 1).varint(2, 2)); // samples/count
    p.message(1, Pb().varint(1, 3).varint(2, 4)); // cpu/nanoseconds
    p.message(1, Pb().varint(1, 13).varint(2, 14));
    p.message(3, Pb().varint(1, 1).varint(5, 8));                            // mapping 1: /bin/app
    p.message(5, Pb().varint(1, 1).varint(2, 5).varint(4, 9).varint(5, 10)); // main, app.c:10
    p.message(5, Pb().varint(1, 2).varint(2, 6).varint(4, 9).varint(5, 20)); // work
    p.message(5, Pb().varint(1, 3).varint(2, 7).varint(4, 9).varint(5, 30)); // inl
    p.message(4,
              Pb().varint(1, 1).varint(2, 1).varint(3, 0x1000).message(4, Pb().varint(1, 1).varint(2, 12)));
    // location 2: `inl` inlined into `work`: line[0] is the innermost
    p.message(4, Pb().varint(1, 2)
                     .varint(2, 1)
                     .varint(3, 0x2000)
                     .message(4, Pb().varint(1, 3).varint(2, 33))
                     .message(4, Pb().varint(1, 2).varint(2, 22)));
    p.message(4, Pb().varint(1, 3).varint(2, 1).varint(3, 0x3000)); // no line: an address
    Pb s1;
    s1.packed(1, {2, 1}).packed(2, {3, 30000000, 100});
    if (withLabels)
        s1.message(3, Pb().varint(1, 10).varint(2, 11)).message(3, Pb().varint(1, 12).varint(3, 42));
    p.message(2, s1);
    p.message(2, Pb().varint(1, 3).varint(1, 1).varint(2, 1).varint(2, 10000000).varint(2, 7)); // unpacked
    p.varint(14, 3); // default_sample_type = cpu
    for (const char* s : {"", "samples", "count", "cpu", "nanoseconds", "main", "work", "inl", "/bin/app",
                          "app.c", "thread", "worker", "tid", "alloc", "bytes"})
        p.bytes(6, s);
    return p;
}

std::string gzip(const std::string& data) {
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, data.size()) + 32, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = uInt(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

QString importError(const std::string& bytes) {
    try {
        test::fromText(bytes, "bad.prof");
    } catch (const ImportError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace

class TestPprof : public QObject {
    Q_OBJECT
private Q_SLOTS:
    /// speedscope imports the `cpu` sample type (nanoseconds): per-function self time, total and the
    /// heaviest stacks must equal its dump. speedscope shows one profile; we keep both sample types.
    void corpus() {
        SCORCH_REQUIRE_CORPUS();
        const QString input =
            test::corpusDir() + QStringLiteral("/other/pprof/inputs/speedscope/pprof/simple.prof");
        const auto expected = test::expectedSpeedscopeDump(
            test::corpusDir() +
            QStringLiteral("/other/pprof/expected/speedscope/pprof/simple.prof.speedscope-dump.json"));
        QCOMPARE(expected.size(), std::size_t(1));
        const Profile p = importProfile(input.toStdString());
        QCOMPARE(p.meta.format, Format::Pprof);
        QCOMPARE(p.meta.compression, std::string("gzip"));
        QCOMPARE(p.costTypes.size(), std::size_t(2));
        QCOMPARE(p.costTypes[0].name, std::string("cpu")); // the default (last) sample type comes first
        QCOMPARE(p.costTypes[0].unit, CostUnit::Nanoseconds);
        QCOMPARE(p.costTypes[1].name, std::string("samples"));
        auto all = [](uint32_t) {
            return true;
        };
        QCOMPARE(double(p.tree.grandTotal(0)), expected[0].total);
        const auto self = test::selfByNameOf(p, 0, all);
        for (const auto& [name, weight] : expected[0].selfByName) {
            const auto it = self.find(name);
            QCOMPARE(it == self.end() ? 0.0 : it->second, weight);
        }
        const auto ours = test::heaviest(test::stacksOf(p, 0, all), 5);
        const auto theirs = test::heaviest(expected[0].stacks, 5);
        QCOMPARE(ours.size(), theirs.size());
        for (std::size_t i = 0; i < ours.size(); ++i) {
            QCOMPARE(ours[i].first, theirs[i].first);
            QCOMPARE(ours[i].second, theirs[i].second);
        }
        // 10 ms per sample: the sample counts agree with the time
        QCOMPARE(p.tree.grandTotal(1) * 10'000'000, p.tree.grandTotal(0));
        // frames carry the function's file (Go 1.10 wrote no start lines)
        bool located = false;
        for (uint32_t f = 1; f < p.frames.size(); ++f)
            located = located || (p.frameName(FrameId{f}) == "main.alpha" &&
                                  p.strings.view(p.frames[FrameId{f}].file).ends_with("simple.go"));
        QVERIFY(located);
    }

    void sampleTypesInlinesAndThreads() {
        for (bool compressed : {false, true}) {
            const std::string raw = sampleProfile(true).str();
            QCOMPARE(detectFormat(raw), Format::Pprof);
            const Profile p = test::fromText(compressed ? gzip(raw) : raw, "x.prof");
            QCOMPARE(p.meta.format, Format::Pprof);
            QCOMPARE(p.costTypes.size(), std::size_t(3));
            QCOMPARE(p.costTypes[0].name, std::string("cpu"));
            QCOMPARE(p.costTypes[0].unit, CostUnit::Nanoseconds);
            QCOMPARE(p.costTypes[1].name, std::string("samples"));
            QCOMPARE(p.costTypes[1].unit, CostUnit::Samples);
            QCOMPARE(p.costTypes[2].name, std::string("alloc"));
            QCOMPARE(p.costTypes[2].unit, CostUnit::Bytes);
            QCOMPARE(p.tree.grandTotal(0), int64_t(40000000));
            QCOMPARE(p.tree.grandTotal(1), int64_t(4));
            QCOMPARE(p.tree.grandTotal(2), int64_t(107));
            // sample 1: locations [2, 1] leaf first -> main;work;inl with inl inlined into work
            const NodeId inl = test::nodeByPath(p, p.tree, {"main", "work", "inl"});
            QVERIFY(inl != kRootNode);
            QCOMPARE(p.frames[p.tree.frame(inl)].kind, FrameKind::Inlined);
            const NodeId work = p.tree.parent(inl);
            QCOMPARE(p.frames[p.tree.frame(work)].kind, FrameKind::Native);
            QCOMPARE(p.strings.view(p.frames[p.tree.frame(work)].module), std::string_view("/bin/app"));
            QCOMPARE(p.frames[p.tree.frame(work)].line, 20u);
            QCOMPARE(p.tree.self(0, inl), int64_t(30000000));
            // sample 2: an address-only location under main
            const NodeId addr = test::nodeByPath(p, p.tree, {"main", "0x3000"});
            QVERIFY(addr != kRootNode);
            QCOMPARE(p.tree.self(2, addr), int64_t(7));
            // the labelled sample is on thread "worker" (tid 42), the other on the file's default thread
            QCOMPARE(p.threads.size(), std::size_t(2));
            bool worker = false;
            for (const ThreadInfo& t : p.threads)
                worker = worker || (t.name == "worker" && t.tid == 42 && t.samples == 1);
            QVERIFY(worker);
        }
    }

    void detection() {
        QCOMPARE(detectFormat(sampleProfile(false).str()), Format::Pprof);
        // text and other binaries are not mistaken for protobuf
        QVERIFY(detectFormat("main;a;b 3\n") != Format::Pprof);
        QVERIFY(detectFormat(std::string("\x0a\x02\x08\x01garbage", 11)) != Format::Pprof);
        QVERIFY(detectFormat(std::string(64, '\0')) != Format::Pprof);
        QVERIFY(detectFormat("{\"name\":\"x\"}") != Format::Pprof);
    }

    /// No other input of the corpus (text, JSON, perf.data) passes for raw protobuf.
    void noFalseDetection() {
        SCORCH_REQUIRE_CORPUS();
        int checked = 0;
        for (QDirIterator it(test::corpusDir(), QDir::Files, QDirIterator::Subdirectories); it.hasNext();) {
            const QString path = it.next();
            if (path.endsWith(QStringLiteral(".gz")) || path.contains(QStringLiteral("/pprof/")))
                continue;
            const QByteArray head = test::readAll(path).left(64 * 1024);
            QVERIFY2(detectFormat(std::string_view(head.constData(), std::size_t(head.size()))) !=
                         Format::Pprof,
                     qPrintable(path));
            ++checked;
        }
        QVERIFY(checked > 100);
    }

    void badInput() {
        const std::string good = sampleProfile(false).str();
        struct Case {
            std::string bytes;
            const char* mustMention;
        } cases[] = {
            {good.substr(0, good.size() - 3), "byte offset"},
            {Pb(sampleProfile(false)).message(2, Pb().varint(1, 99).varint(2, 1)).str(), "location 99"},
            {Pb(sampleProfile(false))
                 .message(4, Pb().varint(1, 9).message(4, Pb().varint(1, 77)))
                 .message(2, Pb().varint(1, 9))
                 .str(),
             "function 77"},
            {Pb(sampleProfile(false))
                 .message(5, Pb().varint(1, 9).varint(2, 1000))
                 .message(4, Pb().varint(1, 9).message(4, Pb().varint(1, 9)))
                 .message(2, Pb().varint(1, 9))
                 .str(),
             "string index 1000"},
            {Pb().message(1, Pb().varint(1, 0)).message(2, Pb().varint(1, 1)).bytes(6, "x").str(),
             "empty string"},
        };
        for (const Case& c : cases) {
            const QString e = importError(c.bytes);
            QVERIFY2(e.contains(QStringLiteral("bad.prof")) && e.contains(QString::fromUtf8(c.mustMention)),
                     qPrintable(QString::fromUtf8(c.mustMention) + QStringLiteral(" / ") + e));
        }
        // forced format: garbage is an error with an offset, not a crash
        ImportOptions forced;
        forced.format = Format::Pprof;
        try {
            importProfile(memoryByteSource(std::string("\xff\xff\xff", 3)), "junk", forced);
            QFAIL("junk imported");
        } catch (const ImportError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("byte offset 0")), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestPprof)
#include "tst_pprof.moc"
