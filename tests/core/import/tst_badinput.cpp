// Bad input never crashes or hangs: it gives an ImportError naming the file and the line or byte offset, or
// a profile with counted warnings when only some lines are bad.
#include "testutil.h"

#include <QTemporaryDir>

#include <random>

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
        const QString e = importError(path.toStdString());
        QVERIFY2(e.contains(path) && e.contains(QStringLiteral("empty")), qPrintable(e));
    }

    void binaryGarbage() {
        QTemporaryDir dir;
        QByteArray junk(64 * 1024, '\0');
        std::mt19937 rng(7);
        for (char& c : junk)
            c = static_cast<char>(rng());
        const QString path = writeFile(dir, "junk.bin", junk);
        const QString e = importError(path.toStdString());
        QVERIFY2(e.contains(path) && e.contains(QStringLiteral("binary data")) &&
                     e.contains(QStringLiteral("offset")),
                 qPrintable(e));
    }

    void wrongFormats() {
        QTemporaryDir dir;
        QString e = importError(writeFile(dir, "x.json", "{\"traceEvents\": []}").toStdString());
        QVERIFY2(e.contains(QStringLiteral("JSON")), qPrintable(e));
        e = importError(writeFile(dir, "notes.txt", "this\nis an unknown\nformat\n").toStdString());
        QVERIFY2(e.contains(QStringLiteral("not a recognised profile format")) &&
                     e.contains(QStringLiteral("notes.txt")),
                 qPrintable(e));
    }

    void truncatedCompressedStreams() {
        QTemporaryDir dir;
        for (const char* name : {"two-events.perf.gz", "two-events.perf.zst", "two-events.perf.xz"}) {
            const QByteArray whole =
                test::readAll(test::testData(QStringLiteral("perf/") + QString::fromUtf8(name)));
            QVERIFY(whole.size() > 100);
            const QString path = writeFile(dir, name, whole.left(whole.size() / 2));
            const QString e = importError(path.toStdString());
            QVERIFY2(e.contains(path) && e.contains(QStringLiteral("truncated")) &&
                         e.contains(QStringLiteral("offset")),
                     qPrintable(e));
        }
        // a corrupt body (not just short) is named as such
        QByteArray gz = test::readAll(test::testData(QStringLiteral("perf/two-events.perf.gz")));
        for (qsizetype i = 20; i < gz.size() - 10; ++i)
            gz[i] = static_cast<char>(gz[i] ^ 0x5a);
        const QString e = importError(writeFile(dir, "corrupt.gz", gz).toStdString());
        QVERIFY2(e.contains(QStringLiteral("gzip")), qPrintable(e));
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

    void unreadablePaths() {
        QString e = importError("/nonexistent/dir/profile.perf");
        QVERIFY2(e.contains(QStringLiteral("/nonexistent/dir/profile.perf")) &&
                     e.contains(QStringLiteral("cannot open")),
                 qPrintable(e));
        QTemporaryDir dir;
        e = importError(dir.path().toStdString());
        QVERIFY2(e.contains(QStringLiteral("directory")), qPrintable(e));
    }

    void hugeCountsSaturate() {
        std::string text;
        for (int i = 0; i < 20; ++i)
            text += "a;b 900000000000000000\n"; // 20 x 9e17 does not fit in 64 bits
        text += "a;c -900000000000000000\n";
        const Profile p = test::fromText(text, "huge-counts.folded");
        QCOMPARE(p.tree.total(0, 2), INT64_MAX); // a;b, clamped instead of wrapping around
        QVERIFY(p.tree.grandTotal(0) > 0);
    }

    /// Inputs that once crashed or misbehaved under the fuzzer (tests/fuzz/regressions) import cleanly or
    /// fail with an ImportError, in the ordinary test run too.
    void fuzzRegressions() {
        const QDir dir(test::testData(QStringLiteral("../fuzz/regressions")));
        const QStringList files = dir.entryList(QDir::Files);
        QVERIFY(!files.isEmpty());
        for (const QString& f : files) {
            try {
                const Profile p = importProfile(dir.filePath(f).toStdString());
                QVERIFY(p.tree.size() > 0);
            } catch (const ImportError&) {
            }
        }
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
