// Bad input never crashes or hangs: it gives an ImportError naming the file and the line or byte offset, or
// a profile with counted warnings when only some lines are bad.
#include "testutil.h"

#include "scorch/export.h"
#include "scorch/samples.h"

#include <QTemporaryDir>

#include <algorithm>
#include <cstring>
#include <random>
#include <sstream>

using namespace scorch;

namespace {

/// The ImportError message for importing `path`, or an empty string when the import succeeded.
QString importError(const std::string& path) {
    try {
        importProfile(path);
    } catch (const ImportError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

/// Where text stops: the first control character other than a line break or tab (what makes input binary).
qsizetype firstControlByte(const QByteArray& bytes) {
    qsizetype i = 0;
    while (i < bytes.size() && (static_cast<unsigned char>(bytes[i]) >= 0x20 || bytes[i] == '\n' ||
                                bytes[i] == '\t' || bytes[i] == '\r'))
        ++i;
    return i;
}

QString writeFile(QTemporaryDir& dir, const char* name, const QByteArray& bytes) {
    const QString path = dir.filePath(QString::fromUtf8(name));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(bytes);
    return path;
}

} // namespace

class TestBadInput : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void emptyFile() {
        QTemporaryDir dir;
        const QString path = writeFile(dir, "empty.perf", {});
        QCOMPARE(importError(path.toStdString()), path + QStringLiteral(": the file is empty"));
    }

    void binaryGarbage() {
        QTemporaryDir dir;
        QByteArray junk(64 * 1024, '\0');
        std::mt19937 rng(7);
        for (char& c : junk)
            c = static_cast<char>(rng());
        const QString path = writeFile(dir, "junk.bin", junk);
        // the offset named is the first control character that text does not have
        const qsizetype first = firstControlByte(junk);
        const QString e = importError(path.toStdString());
        QVERIFY2(e.startsWith(path + QStringLiteral(": binary data (byte offset %1), ").arg(first)),
                 qPrintable(e));
    }

    void wrongFormats() {
        QTemporaryDir dir;
        // a Chrome trace (by its member name) without events
        QString path = writeFile(dir, "x.json", "{\"traceEvents\": []}");
        QString e = importError(path.toStdString());
        QVERIFY2(e.startsWith(path + QStringLiteral(": no samples found in this Chrome trace")),
                 qPrintable(e));
        // JSON of no known kind names the kinds it could have been
        path = writeFile(dir, "other.json", "{\"hello\": [1, 2]}");
        e = importError(path.toStdString());
        QVERIFY2(e.startsWith(path + QStringLiteral(": this JSON is none of the JSON formats Scorch reads")),
                 qPrintable(e));
        // text of no known format quotes how it starts
        path = writeFile(dir, "notes.txt", "this\nis an unknown\nformat\n");
        e = importError(path.toStdString());
        QVERIFY2(e.startsWith(path + QStringLiteral(": not a recognised profile format")) &&
                     e.endsWith(QStringLiteral("it starts with \"this\"")),
                 qPrintable(e));
    }

    void truncatedCompressedStreams() {
        QTemporaryDir dir;
        for (const char* name : {"two-events.perf.gz", "two-events.perf.zst", "two-events.perf.xz"}) {
            const QByteArray whole =
                test::readAll(test::testData(QStringLiteral("perf/") + QString::fromUtf8(name)));
            QVERIFY(whole.size() > 100);
            const QString path = writeFile(dir, name, whole.left(whole.size() / 2));
            const QString format =
                QString::fromUtf8(name).endsWith(QStringLiteral(".gz"))    ? QStringLiteral("gzip")
                : QString::fromUtf8(name).endsWith(QStringLiteral(".zst")) ? QStringLiteral("zstd")
                                                                           : QStringLiteral("xz");
            // the stream ends where the file does
            QCOMPARE(importError(path.toStdString()),
                     path + QStringLiteral(": truncated %1 stream: compressed data ends at byte offset %2")
                                .arg(format)
                                .arg(whole.size() / 2));
        }
        // a corrupt body (not just short) is named as such
        QByteArray gz = test::readAll(test::testData(QStringLiteral("perf/two-events.perf.gz")));
        for (qsizetype i = 20; i < gz.size() - 10; ++i)
            gz[i] = static_cast<char>(gz[i] ^ 0x5a);
        const QString path = writeFile(dir, "corrupt.gz", gz);
        const QString e = importError(path.toStdString());
        QVERIFY2(e.startsWith(path + QStringLiteral(": corrupt gzip data near compressed byte offset ")),
                 qPrintable(e));
    }

    /// A first line over the 16 MiB line limit does not hide the format: the lines after it are looked at,
    /// and the long line is skipped with the usual warning. From a file (memory-mapped) and from a pipe.
    void hugeFirstLineDoesNotHideTheFormat() {
        std::string text(17u << 20, 'x'); // a 17 MiB first line
        text += " 5\nmain;a 1\nmain;b 2\nmain;c 3\n";
        for (const bool pipe : {false, true}) {
            const Profile p = pipe ? importProfile(std::make_unique<test::PipeSource>(text), "pipe.folded")
                                   : test::fromText(text, "longfirst.folded");
            QCOMPARE(p.meta.format, Format::Folded);
            QCOMPARE(p.tree.grandTotal(0), int64_t(6));
            QCOMPARE(p.meta.warningCount, uint64_t(1));
            QCOMPARE(p.meta.warnings.at(0).line, uint64_t(1));
            QVERIFY2(p.meta.warnings.at(0).message.find("line is " + std::to_string((17u << 20) + 2) +
                                                        " bytes long, over the limit") != std::string::npos,
                     p.meta.warnings.at(0).message.c_str());
        }
    }

    void hugeLineIsSkippedWithItsLineNumber() {
        std::string text = "main;a 1\nmain;b 2\n";
        text += std::string(100u << 20, 'x'); // a 100 MB line
        text += " 5\nmain;c 3\n";
        const Profile p = test::fromText(text, "huge.folded");
        QCOMPARE(p.tree.grandTotal(0), int64_t(6));
        QCOMPARE(p.meta.warningCount, uint64_t(1));
        QCOMPARE(p.meta.warnings.at(0).line, uint64_t(3));
        QVERIFY(p.meta.warnings.at(0).message.find("over the limit") != std::string::npos);
        // a file that is nothing but one huge line is an error, and says why
        try {
            test::fromText(std::string(100u << 20, 'y'), "oneline.txt");
            QFAIL("expected an ImportError");
        } catch (const ImportError& e) {
            const QString m = QString::fromUtf8(e.what());
            QVERIFY2(m.contains(QStringLiteral("oneline.txt")), qPrintable(m));
        }
    }

    void invalidUtf8IsAWarning() {
        const Profile p = test::fromText("main;caf\xe9;x 2\nmain;ok 1\n", "latin1.folded");
        QCOMPARE(p.tree.grandTotal(0), int64_t(3));
        QCOMPARE(p.meta.warningCount, uint64_t(1));
        QCOMPARE(p.meta.warnings.at(0).line, uint64_t(1));
    }

    void garbageLinesInPerfScriptAreCounted() {
        const Profile p = test::fromText("prog 1 1.0: 1 cycles:\n\t1 f (m)\n\x01\x02 junk here\n\t2 g (m)\n\n"
                                         "prog 1 2.0: 1 cycles:\n\tTHIS_IS_NOT_A_FRAME\n\n",
                                         "mixed.perf");
        QCOMPARE(p.meta.samples, uint64_t(2));
        QCOMPARE(p.meta.warningCount, uint64_t(2));
        QCOMPARE(p.meta.warnings.at(0).line, uint64_t(3));
        QCOMPARE(p.meta.warnings.at(1).line, uint64_t(7));
    }

    /// A file is parsed from its memory mapping: cut short while that happens (written again, as by a second
    /// `perf script > file`), it is an error naming the file and where its bytes went missing, not the
    /// SIGBUS that reading the lost pages raises. The cut is made on the first progress step, before any
    /// chunk is parsed; small chunks spread the lost pages over both workers.
    void fileShrinkingWhileReadIsAnError() {
        QTemporaryDir dir;
        std::string text;
        for (int i = 0; text.size() < (3u << 20); ++i)
            text += "main;work;step" + std::to_string(i % 997) + ";leaf" + std::to_string(i % 13) + " 1\n";
        const QString path = writeFile(dir, "shrinking.folded", QByteArray::fromStdString(text));
        const std::string file = path.toStdString();
        ImportOptions options;
        options.chunkBytes = 64 << 10;
        options.threads = 2;
        // intact, the same file reads whole
        const Profile whole = importProfile(file, options);
        QCOMPARE(whole.tree.grandTotal(0), int64_t(std::count(text.begin(), text.end(), '\n')));

        constexpr qint64 kept = 100000;
        bool cut = false;
        ImportControl control;
        control.progress = [&](uint64_t, uint64_t) {
            if (!cut)
                cut = QFile::resize(path, kept);
        };
        try {
            importProfile(file, options, control);
            QFAIL("a file cut short while read was accepted");
        } catch (const ImportError& e) {
            const std::string what = e.what();
            const std::string head = file + ": the file shrank while it was read (its bytes from offset ";
            QVERIFY2(what.starts_with(head), e.what());
            const uint64_t lost = std::stoull(what.substr(head.size()));
            // the first page wholly past the new end, or a later one
            QVERIFY2(lost % 4096 == 0 && lost >= kept && lost < text.size(), e.what());
        }
        QVERIFY(cut);
    }

    void unreadablePaths() {
        QString e = importError("/nonexistent/dir/profile.perf");
        QVERIFY2(e.contains(QStringLiteral("/nonexistent/dir/profile.perf")) &&
                     e.contains(QStringLiteral("cannot open")),
                 qPrintable(e));
        QTemporaryDir dir;
        QCOMPARE(importError(dir.path().toStdString()),
                 dir.path() + QStringLiteral(": is a directory, not a profile file"));
    }

    void hugeCountsSaturate() {
        std::string text;
        for (int i = 0; i < 20; ++i)
            text += "a;b 900000000000000000\n"; // 20 x 9e17 does not fit in 64 bits
        text += "a;c -900000000000000000\n";
        const Profile p = test::fromText(text, "huge-counts.folded");
        const NodeId ab = test::nodeByPath(p, p.tree, {"a", "b"});
        QCOMPARE(p.tree.self(0, ab), INT64_MAX); // clamped instead of wrapping around
        QCOMPARE(p.tree.self(0, test::nodeByPath(p, p.tree, {"a", "c"})), int64_t(-900000000000000000));
        QCOMPARE(p.tree.grandTotal(0), INT64_MAX - 900000000000000000);
    }

    /// Inputs that once crashed or misbehaved under the fuzzer (tests/fuzz/regressions), in the ordinary test
    /// run too: each with what it imports as, or the error it gives. A new regression input needs a case.
    void fuzzRegressions() {
        const QDir dir(test::testData(QStringLiteral("../fuzz/regressions")));
        auto path = [&](const char* name) {
            return dir.filePath(QString::fromUtf8(name)).toStdString();
        };
        QStringList covered;

        // samples [2, 2, 0]: node 0 does not exist; g weighs the 5 + 5 us up to that sample
        covered << QStringLiteral("chrome-unknown-sample-node.json");
        const Profile chrome = importProfile(path("chrome-unknown-sample-node.json"));
        QCOMPARE(chrome.meta.format, Format::ChromeTrace);
        QCOMPARE(chrome.tree.grandTotal(0), int64_t(10000));
        QCOMPARE(chrome.tree.self(0, test::nodeByPath(chrome, chrome.tree, {"g"})), int64_t(10000));
        QCOMPARE(chrome.meta.warningCount, uint64_t(1));
        QVERIFY2(
            chrome.meta.warnings[0].message.ends_with("1 samples name node ids that do not exist; skipped"),
            chrome.meta.warnings[0].message.c_str());

        // 20 x 9e17 overflows int64: a;b saturates
        covered << QStringLiteral("int64-overflow.folded");
        const Profile overflow = importProfile(path("int64-overflow.folded"));
        QCOMPARE(overflow.meta.samples, uint64_t(20));
        QCOMPARE(overflow.tree.size(), std::size_t(3));
        QCOMPARE(overflow.tree.self(0, test::nodeByPath(overflow, overflow.tree, {"a", "b"})), INT64_MAX);
        QCOMPARE(overflow.tree.grandTotal(0), INT64_MAX);
        QCOMPARE(overflow.meta.warningCount, uint64_t(0));

        // the same with one `a!;b` line and one line whose count is followed by junk bytes (line 18)
        covered << QStringLiteral("export-svg-overflow");
        const Profile svg = importProfile(path("export-svg-overflow"));
        QCOMPARE(svg.meta.format, Format::Folded);
        QCOMPARE(svg.tree.self(0, test::nodeByPath(svg, svg.tree, {"a", "b"})), INT64_MAX);
        QCOMPARE(svg.tree.self(0, test::nodeByPath(svg, svg.tree, {"a!", "b"})), int64_t(900000000000000000));
        QCOMPARE(svg.tree.grandTotal(0), INT64_MAX);
        QCOMPARE(svg.meta.warningCount, uint64_t(1));
        QCOMPARE(svg.meta.warnings[0].line, uint64_t(18));

        // a speedscope file whose bytes were mangled into control characters is not JSON but binary data
        covered << QStringLiteral("speedscope-huge-line-number.json");
        const QString mangled = QString::fromStdString(path("speedscope-huge-line-number.json"));
        const QString e = importError(mangled.toStdString());
        QVERIFY2(e.startsWith(mangled + QStringLiteral(": binary data (byte offset %1), ")
                                            .arg(firstControlByte(test::readAll(mangled)))),
                 qPrintable(e));

        // a truncated Chrome trace whose samples name stack frames it does not have: all 64.71 ms on the root
        // (fuzz_export: its speedscope output had no samples; see tst_export's emptyStacks)
        covered << QStringLiteral("export-root-only-cost.json");
        const Profile rootOnly = importProfile(path("export-root-only-cost.json"));
        QCOMPARE(rootOnly.meta.format, Format::ChromeTrace);
        QCOMPARE(rootOnly.meta.samples, uint64_t(7));
        QCOMPARE(rootOnly.tree.grandTotal(0), int64_t(64710000));
        QCOMPARE(rootOnly.tree.self(0, kRootNode), rootOnly.tree.grandTotal(0));
        QCOMPARE(rootOnly.meta.warningCount, uint64_t(2));

        // a perf.data whose last sample's time is near 2^64 ns: the span from the first saturates (UBSan
        // found the signed overflow); the times stay in order
        covered << QStringLiteral("perfdata-time-span-overflow.data");
        const Profile span = importProfile(path("perfdata-time-span-overflow.data"));
        QCOMPARE(span.meta.format, Format::PerfData);
        QCOMPARE(span.meta.samples, uint64_t(14));
        QVERIFY(span.samples);
        for (std::size_t i = 0; i < span.samples->size(); ++i)
            QVERIFY(span.samples->time(i) >= 0 &&
                    (i == 0 || span.samples->time(i) >= span.samples->time(i - 1)));

        // a perf.data whose two stacks end at one address, with periods near INT64_MAX: the address's self
        // cost, summed over both stacks, saturates (UBSan found the signed overflow; the sanitized build of
        // this test fails on it)
        covered << QStringLiteral("perfdata-leaf-cost-overflow.data");
        const Profile leaf = importProfile(path("perfdata-leaf-cost-overflow.data"));
        QCOMPARE(leaf.meta.format, Format::PerfData);
        QCOMPARE(leaf.meta.samples, uint64_t(14));
        QCOMPARE(leaf.tree.grandTotal(0), INT64_MAX);
        QCOMPARE(leaf.tree.self(0, NodeId(leaf.tree.size() - 1)), INT64_MAX); // the one leaf

        // a perf.data whose PERF_RECORD_COMPRESSED2 record is 8 bytes long, shorter than its own header (the
        // size of the compressed data is missing): one line naming the file and the record's offset
        // (fuzz_perfdata: std::out_of_range from a substring past the record's end, the program aborted)
        covered << QStringLiteral("perfdata-short-compressed-record.data");
        const std::string shortRecord = path("perfdata-short-compressed-record.data");
        QCOMPARE(
            importError(shortRecord),
            QString::fromStdString(shortRecord) +
                QStringLiteral(": corrupt compressed record at byte offset 624: 8 bytes, shorter than its "
                               "16-byte header"));

        // folded counts with decimals, written as speedscope and read back: the total keeps them
        const auto roundTrip = [&](const char* file, int64_t total, int decimals = 5) {
            covered << QString::fromLatin1(file);
            const Profile folded = importProfile(path(file));
            QCOMPARE(folded.meta.format, Format::Folded);
            QCOMPARE(folded.costTypes[0].decimals, decimals);
            QCOMPARE(folded.tree.grandTotal(0), total);
            std::ostringstream json;
            writeSpeedscope(folded, SpeedscopeOptions{}, json);
            const Profile back =
                importProfile(memoryByteSource(json.str(), "back.speedscope.json"), "back.speedscope.json");
            QCOMPARE(back.meta.format, Format::Speedscope);
            QCOMPARE(back.costTypes[0].decimals, decimals);
            QCOMPARE(back.tree.grandTotal(0), total);
        };
        // 8801.19435 (fuzz_export: the speedscope importer kept 3 decimals, 8856.194)
        roundTrip("export-speedscope-fraction-decimals.folded", 885619435);
        if (QTest::currentTestFailed())
            return;
        // 88012.19435: the fifth decimal of the speedscope weight was taken for a rounding error of the
        // fourth (fuzz_export: the total came back as 88069.1944)
        roundTrip("export-speedscope-fifth-decimal.folded", 8806919435);
        if (QTest::currentTestFailed())
            return;
        // 88.1109435: the speedscope importer kept 6 decimals at most (fuzz_export: 141.110944 came back for
        // 141.1109435)
        roundTrip("export-speedscope-seventh-decimal.folded", 1411109435, 7);
        if (QTest::currentTestFailed())
            return;

        QStringList files = dir.entryList(QDir::Files);
        files.sort();
        covered.sort();
        QCOMPARE(files, covered);
    }

    void deepStacksDoNotOverflow() {
        std::string line;
        for (int i = 0; i < 100000; ++i)
            line += (i ? ";f" : "f") + std::to_string(i % 7);
        ImportOptions deep;
        deep.maxStackDepth = 200000;
        const Profile p = test::fromText(line + " 1\n", "deep.folded", deep);
        QCOMPARE(p.tree.maxDepth(), 100000u); // built and walked without recursion
        QCOMPARE(p.tree.grandTotal(0), int64_t(1));
        // the default limit keeps the innermost 65536 frames and says so
        const Profile cut = test::fromText(line + " 1\n", "deep.folded");
        QCOMPARE(cut.tree.maxDepth(), 65536u);
        QCOMPARE(cut.meta.warningCount, uint64_t(1));
        QVERIFY(cut.meta.warnings.at(0).message.find("outermost callers were dropped") != std::string::npos);
    }

    void nodeLimit() {
        SCORCH_REQUIRE_CORPUS();
        ImportOptions small;
        small.maxNodes = 100;
        const std::string path =
            (test::corpusDir() +
             QStringLiteral("/perf-script/inputs/flamegraph/test/perf-vertx-stacks-01.txt"))
                .toStdString();
        try {
            importProfile(path, small);
            QFAIL("expected the node limit to stop the import");
        } catch (const ImportError& e) {
            const QString m = QString::fromUtf8(e.what());
            QVERIFY2(m.contains(QStringLiteral("perf-vertx-stacks-01.txt")) &&
                         m.contains(QStringLiteral("more than 100 nodes")),
                     qPrintable(m));
        }
        QVERIFY(importProfile(path).tree.size() > 100);
    }

    void forcedFormat() {
        ImportOptions asFolded;
        asFolded.format = Format::Folded; // detection would read two counts (differential form)
        const Profile p = test::fromText("a;b 1 2\n", "forced", asFolded);
        QCOMPARE(p.meta.format, Format::Folded);
        QCOMPARE(p.costTypes.size(), std::size_t(1));
        QCOMPARE(test::nodeByPath(p, p.tree, {"a", "b 1"}) != kRootNode, true);
        QCOMPARE(p.tree.grandTotal(0), int64_t(2));
    }
};

QTEST_GUILESS_MAIN(TestBadInput)
#include "tst_badinput.moc"
