// Importer tests: perf script details, folded stacks, compression, format detection, parallel parsing,
// progress and cancellation.
#include "testutil.h"

#include "scorch/analysis.h"
#include "scorch/foldedwriter.h"
#include "scorch/samples.h"

#include <QTemporaryDir>

#include <atomic>
#include <sstream>

using namespace scorch;

namespace {

std::string folded(const Profile& p, FoldedOptions o = {}) {
    std::ostringstream s;
    writeFolded(p, o, s);
    return s.str();
}

std::string fixture(const char* name) {
    return test::testData(QString::fromUtf8(name)).toStdString();
}

} // namespace

class TestImport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The software clocks count nanoseconds: their costs are times ("134.3 ms"), not bare periods.
    void clockEventsAreTimes() {
        const Profile p = importProfile(fixture("perf/hot-srcline.perf"));
        QCOMPARE(p.costTypes[0].name, std::string("cpu-clock:pppH"));
        QCOMPARE(p.costTypes[0].unit, CostUnit::Nanoseconds);
        QCOMPARE(formatCost(p.tree.grandTotal(0), p.costTypes[0]), std::string("134.3 ms"));
        QCOMPARE(periodUnit("task-clock"), CostUnit::Nanoseconds);
        QCOMPARE(periodUnit("cpu-clock/period=1000/"), CostUnit::Nanoseconds);
        QCOMPARE(periodUnit("cycles:u"), CostUnit::Period);
        QCOMPARE(periodUnit("cpu-clocks"), CostUnit::Period);
        QCOMPARE(formatCost(14'490'000'000, CostType{"t", CostUnit::Nanoseconds, 0}), std::string("14.49 s"));
        QCOMPARE(formatCost(2'300'000, CostType{"t", CostUnit::Nanoseconds, 0}), std::string("2.3 ms"));
    }

    void perfScriptEventsThreadsAndKinds() {
        const Profile p = importProfile(fixture("perf/two-events.perf"));
        QCOMPARE(p.meta.format, Format::PerfScript);
        QCOMPARE(p.meta.samples, uint64_t(5));
        QCOMPARE(p.costTypes.size(), std::size_t(2));
        QCOMPARE(p.costTypes[0].name, std::string("cycles:u")); // first seen first
        QCOMPARE(p.costTypes[1].name, std::string("instructions:u"));
        QCOMPARE(p.costTypes[0].unit, CostUnit::Period);
        QCOMPARE(p.tree.grandTotal(0), int64_t(500 + 300 + 200 + 100));
        QCOMPARE(p.tree.grandTotal(1), int64_t(700));
        QCOMPARE(p.threads.size(), std::size_t(3));
        QCOMPARE(p.threads[0].name, std::string("demo"));
        QCOMPARE(p.threads[0].pid, int64_t(1000));
        QCOMPARE(p.threads[0].tid, int64_t(1000));
        QCOMPARE(p.threads[0].samples, uint64_t(3));
        // a comm with spaces and digits is read whole (the Perl regex would cut it at "2")
        QCOMPARE(p.threads[2].name, std::string("worker thread 2"));
        QCOMPARE(p.threads[2].tid, int64_t(1002));
        QVERIFY(p.meta.timeStart.has_value());
        QCOMPARE(*p.meta.timeStart, 100.0001);
        QCOMPARE(*p.meta.timeEnd, 100.0005);
        // kinds: process root frames, kernel frames by module
        std::map<std::string_view, FrameKind> kinds;
        for (uint32_t f = 1; f < p.frames.size(); ++f)
            kinds[p.frameName(FrameId{f})] = p.frames[FrameId{f}].kind;
        QCOMPARE(kinds["demo"], FrameKind::Process);
        QCOMPARE(kinds["do_syscall_64"], FrameKind::Kernel);
        QCOMPARE(kinds["leaf_a"], FrameKind::Native);
        QCOMPARE(p.strings.view(p.frames[p.tree.frame(p.tree.path(p.tree.size() - 1).back())].module).empty(),
                 false);
        QCOMPARE(p.meta.warningCount, uint64_t(0));
    }

    void compressedInputsGiveTheSameProfile() {
        const std::string plain = folded(importProfile(fixture("perf/two-events.perf")));
        for (const char* name :
             {"perf/two-events.perf.gz", "perf/two-events.perf.zst", "perf/two-events.perf.xz"}) {
            const Profile p = importProfile(fixture(name));
            QCOMPARE(folded(p), plain);
            QVERIFY(!p.meta.compression.empty());
        }
    }

    void inlinedFramesAndJit() {
        const Profile p = test::fromText("java 4001 10.5: 1 cpu-clock:\n"
                                         "\t7f00 A->B->C+0x4b (/tmp/perf-4001.map)\n"
                                         "\t6f00 Lcom/x/Foo;::run+0x10 (/tmp/perf-4001.map)\n"
                                         "\t5f00 [unknown] (/usr/lib/jvm/libjvm.so)\n\n");
        FoldedOptions o;
        o.annotateJit = true;
        QCOMPARE(folded(p, o), std::string("java;[libjvm.so];com/x/Foo:::run_[j];A_[j];B_[i];C_[i] 1\n"));
    }

    void foldedStacks() {
        const Profile p =
            test::fromFolded("main;do work;[unknown <7f2e>] 3\r\nmain;do work 2\r\n\r\nmain;x_[k] 1.5\r\n");
        QCOMPARE(p.meta.format, Format::Folded);
        QCOMPARE(p.costTypes[0].decimals, 1);
        QCOMPARE(p.tree.grandTotal(0), int64_t(65));
        QCOMPARE(p.meta.warningCount, uint64_t(0));
        std::map<std::string_view, FrameKind> kinds;
        for (uint32_t f = 1; f < p.frames.size(); ++f)
            kinds[p.frameName(FrameId{f})] = p.frames[FrameId{f}].kind;
        QCOMPARE(kinds["x_[k]"], FrameKind::Kernel);
        QCOMPARE(kinds["[unknown <7f2e>]"], FrameKind::Unknown);
        const Profile d = test::fromFolded("a;b 1 2\na;c 3 4\n");
        QCOMPARE(d.meta.format, Format::FoldedDiff);
        QCOMPARE(d.tree.grandTotal(1), int64_t(6));
    }

    // Issue 15: a count with a trailing dot ("20.") is a whole number, as Perl and Rust parse it; a lone "."
    // is still not a count.
    void foldedTrailingDotCount() {
        const Profile p = test::fromFolded("a;b 20.\na;c 3\n");
        QCOMPARE(p.meta.format, Format::Folded);
        QCOMPARE(p.meta.warningCount, uint64_t(0));
        QCOMPARE(p.costTypes[0].decimals, 0);
        QCOMPARE(p.tree.grandTotal(0), int64_t(23));
        QCOMPARE(folded(p), std::string("a;b 20\na;c 3\n"));
        QCOMPARE(detectFormat("a;b 20.\nc 2.\n"), Format::Folded);
        const Profile d = test::fromFolded("a;b 1. 2.\na;c 3 4.\n");
        QCOMPARE(d.meta.format, Format::FoldedDiff);
        QCOMPARE(d.tree.grandTotal(0), int64_t(4));
        QCOMPARE(d.tree.grandTotal(1), int64_t(6));
        const Profile lone = test::fromFolded("a;b 2\na;b 3\na;d 4\na;e 5\na;c .\n");
        QCOMPARE(lone.tree.grandTotal(0), int64_t(14));
        QCOMPARE(lone.meta.warningCount, uint64_t(1));
    }

    void corpusFoldedTotals() {
        SCORCH_REQUIRE_CORPUS();
        // totals computed here from the text, independently of the importer
        for (const char* rel : {"folded/inputs/inferno/flamegraph/base/flames.txt",
                                "folded/inputs/firefox-profiler/upgrades/flamegraph.txt",
                                "folded/inputs/inferno/diff-folded/before.txt"}) {
            const QString path = test::corpusDir() + u'/' + QString::fromUtf8(rel);
            const QByteArray text = test::readAll(path);
            QVERIFY2(!text.isEmpty(), rel);
            long long expected = 0;
            for (const QByteArray& line : text.split('\n'))
                if (!line.trimmed().isEmpty())
                    expected += line.trimmed().mid(line.trimmed().lastIndexOf(' ') + 1).toLongLong();
            const Profile p = importProfile(path.toStdString());
            QCOMPARE(p.tree.grandTotal(0), int64_t(expected));
            // round trip through our own folded output
            std::ostringstream out;
            writeFolded(p, {}, out);
            QCOMPARE(test::fromFolded(out.str()).tree.grandTotal(0), p.tree.grandTotal(0));
        }
    }

    void formatDetection() {
        QCOMPARE(detectFormat(""), Format::Empty);
        QCOMPARE(detectFormat("PERFILE2\x68\x00"), Format::PerfData);
        QCOMPARE(detectFormat("{\"$schema\": \"x\"}"), Format::Json);
        QCOMPARE(detectFormat("a;b 1\nc 2\n"), Format::Folded);
        QCOMPARE(detectFormat("a;b 1 2\nc 2 0\n"), Format::FoldedDiff);
        QCOMPARE(detectFormat("cmd 12 1.0: 1 cycles:\n\t abc f (m)\n"), Format::PerfScript);
        QCOMPARE(detectFormat("java  3244 cpu-clock: \n\t    7f1e SpinPause (/x/libjvm.so)\n"),
                 Format::PerfScript);
        QCOMPARE(detectFormat("this\nis an unknown\nformat\n"), Format::Unknown);
        QCOMPARE(detectFormat(std::string("ab\0cd", 5)), Format::Binary);
    }

    // The frame-line cache first tries the line that followed the previous one last time: callers that
    // change from sample to sample (names of one length, one address) are still told apart.
    void frameLineCacheFollowsChangingCallers() {
        std::string text;
        const char* callers[] = {"callA", "callB", "callA", "callC", "callC", "callB"};
        for (int i = 0; i < 6; ++i)
            text += "prog 1 " + std::to_string(i + 1) + ".0: 1 cycles:\n\t1 leaf (m)\n\t2 " + callers[i] +
                    " (m)\n\t3 main (m)\n\n";
        const Profile p = test::fromText(text, "callers.perf");
        QCOMPARE(folded(p),
                 std::string("prog;main;callA;leaf 2\nprog;main;callB;leaf 2\nprog;main;callC;leaf 2\n"));
    }

    void parallelImportMatchesSingleThreaded() {
        SCORCH_REQUIRE_CORPUS();
        for (const char* rel : {"perf-script/inputs/flamegraph/example-perf-stacks.txt.gz",
                                "perf-script/inputs/flamegraph/test/perf-java-faults-01.txt",
                                "perf-script/inputs/firefox-profiler/upgrades/graphviz.perf.gz"}) {
            const std::string path = (test::corpusDir() + u'/' + QString::fromUtf8(rel)).toStdString();
            ImportOptions one;
            one.threads = 1;
            ImportOptions many;
            many.threads = 2;
            many.chunkBytes = 4096; // hundreds of chunks, merged from two workers
            const Profile a = importProfile(path, one), b = importProfile(path, many);
            QCOMPARE(folded(b), folded(a));
            QCOMPARE(b.tree.size(), a.tree.size());
            QCOMPARE(b.meta.samples, a.meta.samples);
            QCOMPARE(b.threads.size(), a.threads.size());
            for (std::size_t t = 0; t < a.threads.size(); ++t) {
                QCOMPARE(b.threads[t].name, a.threads[t].name);
                QCOMPARE(b.threads[t].samples, a.threads[t].samples);
            }
            QCOMPARE(b.costTypes.size(), a.costTypes.size());
            for (std::size_t t = 0; t < a.costTypes.size(); ++t)
                QCOMPARE(b.costTypes[t].name, a.costTypes[t].name);
        }
    }

    // ImportOptions::sampleStore = false (the command line's commands without --time or --thread): timed perf
    // script input, on one thread and on two workers merging hundreds of chunks, gives the same call tree,
    // costs of every type per thread and stack, source-line costs, sample count and time span as with the
    // store, and no SampleStore; with the store (the default) the same inputs have one. (Compared through
    // their folded stacks: two workers number the tree's nodes in whichever order they made them.)
    void withoutTheSampleStore() {
        SCORCH_REQUIRE_CORPUS();
        std::vector<std::string> paths;
        for (const char* rel : {"perf-script/inputs/flamegraph/example-perf-stacks.txt.gz",
                                "perf-script/inputs/firefox-profiler/upgrades/graphviz.perf.gz"})
            paths.push_back((test::corpusDir() + u'/' + QString::fromUtf8(rel)).toStdString());
        paths.push_back(fixture("perf/hot-srcline.perf")); // with source lines
        for (const std::string& path : paths) {
            for (const unsigned threads : {1u, 2u}) {
                ImportOptions with;
                with.threads = threads;
                with.chunkBytes = 4096;
                ImportOptions without = with;
                without.sampleStore = false;
                const Profile a = importProfile(path, with), b = importProfile(path, without);
                QVERIFY2(a.samples && a.samples->size() == a.meta.samples, path.c_str());
                QVERIFY2(!b.samples, path.c_str());
                QCOMPARE(b.costTypes.size(), a.costTypes.size());
                for (int t = 0; t < static_cast<int>(a.costTypes.size()); ++t) { // each thread's, each type
                    FoldedOptions perThread;
                    perThread.includeTid = true;
                    perThread.costType = t;
                    QCOMPARE(folded(b, perThread), folded(a, perThread));
                }
                QCOMPARE(folded(b), folded(a));
                QCOMPARE(b.tree.size(), a.tree.size());
                QCOMPARE(b.meta.samples, a.meta.samples);
                QVERIFY(a.meta.timeStart && a.meta.timeEnd);
                QCOMPARE(b.meta.timeStart, a.meta.timeStart);
                QCOMPARE(b.meta.timeEnd, a.meta.timeEnd);
                QCOMPARE(b.lineCosts.line, a.lineCosts.line);
                QCOMPARE(b.lineCosts.self, a.lineCosts.self);
                QCOMPARE(b.lineCosts.total, a.lineCosts.total);
            }
        }
        QVERIFY(!importProfile(paths.back()).lineCosts.line.empty()); // (the fixture has source lines)
    }

    // Input that is read (not mapped) is pulled by the workers themselves, one chunk at a time each. With
    // over-long lines (skipped by the reader where they start a record, or inside a chunk by a worker),
    // garbage lines and
    // chunks of 4 KiB, two workers give what one thread does, and what the in-memory (cut in place, pushed)
    // path does: the same stacks, samples and warnings at the same file lines.
    void workersThatReadForThemselvesMatchOneThread() {
        std::string text;
        uint64_t line = 0, samples = 0;
        std::vector<uint64_t> badLines;
        for (int i = 0; text.size() < (3u << 20); ++i) {
            if (i % 211 == 5) { // where a record starts: skipped by the reader, before any chunk holds it
                text += std::string(20000 + i % 5000, 'H') + '\n';
                badLines.push_back(++line);
            }
            text += "prog " + std::to_string(100 + i % 5) + " " + std::to_string(i) + ".000001: 1 cycles:\n";
            ++line;
            ++samples;
            for (int d = 0; d < 2 + i % 13; ++d) {
                if (i % 101 == 7 && d == 1) { // over the 8 KiB limit: skipped, the stack goes on
                    text += "\t    401000 " + std::string(9000 + i % 3000, 'L') + " (/usr/bin/prog)\n";
                    badLines.push_back(++line);
                } else if (i % 149 == 3 && d == 0) {
                    text += "\t\x01\x02 not a frame\n";
                    badLines.push_back(++line);
                }
                text += "\t    " + std::to_string(400000 + d * 16 + i % 7) + " fn_" + std::to_string(d) +
                        "_" + std::to_string(i % (3 + d)) + " (/usr/bin/prog)\n";
                ++line;
            }
            text += '\n';
            ++line;
        }
        ImportOptions o;
        o.chunkBytes = 4096;
        o.maxLineBytes = 8192;
        o.threads = 1;
        const Profile one = importProfile(std::make_unique<test::PipeSource>(text, 3000), "one.perf", o);
        o.threads = 2;
        const Profile two = importProfile(std::make_unique<test::PipeSource>(text, 3000), "two.perf", o);
        const Profile inPlace = test::fromText(text, "inplace.perf", o);
        for (const Profile* p : {&one, &two, &inPlace}) {
            QCOMPARE(p->meta.samples, samples);
            QCOMPARE(p->meta.warningCount, uint64_t(badLines.size()));
            QCOMPARE(p->meta.warnings.size(), std::min(badLines.size(), ProfileMeta::kMaxKeptWarnings));
            for (std::size_t k = 0; k < p->meta.warnings.size(); ++k)
                QCOMPARE(p->meta.warnings[k].line, badLines[k]);
            QCOMPARE(folded(*p), folded(one));
            QCOMPARE(p->threads.size(), one.threads.size());
        }
        QVERIFY(folded(one).find("prog;fn_2_1;fn_1_1;fn_0_1 ") != std::string::npos);

        // cancelled from a progress callback (which now comes from either worker) and a source that fails
        // mid-way: both stop the workers and reach the caller
        std::atomic<bool> cancel{false};
        std::atomic<int> calls{0};
        ImportControl stopper;
        stopper.cancel = &cancel;
        stopper.progress = [&](uint64_t, uint64_t) {
            if (++calls == 50)
                cancel = true;
        };
        QVERIFY_THROWS_EXCEPTION(
            ImportCancelled,
            importProfile(std::make_unique<test::PipeSource>(text, 3000), "cancel.perf", o, stopper));
        QVERIFY(calls < 60);
        class FailingSource : public test::PipeSource {
        public:
            using test::PipeSource::PipeSource;
            std::size_t read(char* buffer, std::size_t n) override {
                if (consumed() > (1u << 20))
                    throw ImportError("fails.perf: read error at byte offset " + std::to_string(consumed()));
                return test::PipeSource::read(buffer, n);
            }
        };
        try {
            importProfile(std::make_unique<FailingSource>(text, 3000), "fails.perf", o);
            QFAIL("a failing source was accepted");
        } catch (const ImportError& e) {
            QVERIFY2(std::string(e.what()).starts_with("fails.perf: read error at byte offset 10"), e.what());
        }
    }

    // An uncompressed file is parsed where it is mapped or read() into buffers (ImportOptions::fileAccess,
    // Auto choosing by a probe of the mapping's pages): the same profile either way, chunk boundaries
    // included.
    void mappedOrReadAlike() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("big.perf"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QByteArray text;
            for (int i = 0; i < 40000; ++i) { // ~20 MB: past the probe's 16 MiB, in many 1 MiB chunks
                text += "prog " + QByteArray::number(100 + i % 7) + " " + QByteArray::number(i) +
                        ".000001: 1 cycles:\n";
                for (int d = 0; d < 2 + i % 11; ++d)
                    text += "\t    " + QByteArray::number(0x400000 + d * 16 + i % 5, 16) + " frame_" +
                            QByteArray::number(d) + "_" + QByteArray::number(i % (3 + d)) +
                            "<std::basic_string<char>, std::allocator<char> >+0x1" + QByteArray::number(d) +
                            " (/usr/bin/prog)\n";
                text += '\n';
                if (text.size() > (1 << 20)) {
                    QCOMPARE(f.write(text), text.size());
                    text.clear();
                }
            }
            QCOMPARE(f.write(text), text.size());
        }
        QVERIFY(QFileInfo(path).size() > (16 << 20));
        std::string first;
        for (const auto access : {ImportOptions::FileAccess::Map, ImportOptions::FileAccess::Read,
                                  ImportOptions::FileAccess::Auto}) {
            ImportOptions o;
            o.threads = 2;
            o.chunkBytes = 1 << 20;
            o.fileAccess = access;
            const Profile p = importProfile(path.toStdString(), o);
            QCOMPARE(p.meta.samples, uint64_t(40000));
            QVERIFY(p.meta.warnings.empty());
            const std::string out = folded(p);
            if (first.empty())
                first = out;
            QCOMPARE(out, first);
        }
        // (leaf first in perf script: the root-most frame_1 before frame_0 in the folded stack)
        QVERIFY(first.find(";frame_1_0<std::basic_string<char>, std::allocator<char> >;frame_0_0<std::basic_"
                           "string<char>, std::allocator<char> > ") != std::string::npos);
    }

    void progressAndCancel() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("big.folded"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QByteArray block;
            for (int i = 0; i < 1000; ++i)
                block += "main;worker;compute_" + QByteArray::number(i % 97) + ";leaf " +
                         QByteArray::number(i + 1) + '\n';
            for (int i = 0; i < 200; ++i) // ~8 MB
                f.write(block);
        }
        std::vector<uint64_t> seen;
        uint64_t total = 0;
        ImportControl control;
        control.progress = [&](uint64_t done, uint64_t all) {
            seen.push_back(done);
            total = all;
        };
        ImportOptions o;
        o.chunkBytes = 256 * 1024;
        o.threads = 1; // callbacks then arrive on this thread
        const Profile p = importProfile(path.toStdString(), o, control);
        QVERIFY(seen.size() > 10);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QCOMPARE(seen.back(), total);
        QCOMPARE(total, uint64_t(QFileInfo(path).size()));
        QCOMPARE(p.meta.samples, uint64_t(200000));

        std::atomic<bool> cancel{false};
        ImportControl stopper;
        stopper.cancel = &cancel;
        int calls = 0;
        stopper.progress = [&](uint64_t, uint64_t) {
            if (++calls == 3)
                cancel = true;
        };
        o.threads = 2;
        QVERIFY_THROWS_EXCEPTION(ImportCancelled, importProfile(path.toStdString(), o, stopper));
        QVERIFY(calls < 10); // stopped promptly, not at the end of the file
    }
};

QTEST_GUILESS_MAIN(TestImport)
#include "tst_import.moc"
