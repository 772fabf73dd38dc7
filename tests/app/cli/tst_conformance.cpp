// Conformance: `scorch collapse [FLAG] INPUT` against every expected folded file in ../shared/corpus
// (perf-script/expected/**/<stem>-collapsed[-<flag>].txt), compared as sorted line sets.
//
// Where FlameGraph's stackcollapse-perf.pl and inferno disagree we follow the Perl script (see
// corpus/MANIFEST.md, "inferno results"). The inferno-only expected files are still checked, after undoing
// exactly the documented inferno behaviour:
//  - Rust legacy symbols: inferno drops the `::h<16 hex>` hash and demangles `$LT$`-style escapes; the Perl
//    script (and Scorch) keep the symbol as perf printed it  -> perf-rust-Yamakaky-dcpu (inferno set),
//    single-event.
//  - JIT detection: inferno also marks perf jitdump modules `/tmp/jitted-<pid>-<n>.so` with `_[j]`; the Perl
//    script only marks `/tmp/perf-<pid>.map`                   -> sourcepawn-jitdump --jit.
//  - The empty input no-events.txt: the expected output is empty; Scorch prints nothing on stdout too, but
//    exits non-zero with "the file is empty" because an empty file is bad input for a viewer.
#include "clirunner.h"
#include "testutil.h"

#include <QDirIterator>
#include <QRegularExpression>

namespace {

QByteArray sortedLines(const QByteArray& text) {
    QList<QByteArray> lines = text.split('\n');
    lines.removeAll(QByteArray());
    std::sort(lines.begin(), lines.end());
    return lines.join('\n');
}

/// inferno's treatment of legacy Rust symbols, applied to our output to compare with inferno's files.
QByteArray rustLegacyTidy(const QByteArray& folded) {
    static const QRegularExpression hash(QStringLiteral("::h[0-9a-f]{16}$"));
    static const std::pair<const char*, const char*> escapes[] = {
        {"$LT$", "<"},  {"$GT$", ">"},  {"$u20$", " "}, {"$RF$", "&"}, {"$u7b$", "{"},
        {"$u7d$", "}"}, {"$C$", ","},   {"$BP$", "*"},  {"$SP$", "@"}, {"$u5b$", "["},
        {"$u5d$", "]"}, {"$u27$", "'"}, {"$LP$", "("},  {"$RP$", ")"}};
    std::map<QByteArray, long long> sums;
    for (const QByteArray& line : folded.split('\n')) {
        if (line.isEmpty())
            continue;
        const qsizetype sp = line.lastIndexOf(' ');
        QList<QByteArray> frames = line.left(sp).split(';');
        for (QByteArray& f : frames) {
            QString s = QString::fromUtf8(f);
            if (!s.contains(hash))
                continue;
            s.remove(hash);
            for (const auto& [from, to] : escapes)
                s.replace(QString::fromUtf8(from), QString::fromUtf8(to));
            s.replace(QStringLiteral(".."), QStringLiteral("::"));
            if (s.startsWith(QStringLiteral("_<"))) // `_$LT$` opening a symbol
                s.remove(0, 1);
            f = s.toUtf8();
        }
        sums[frames.join(';')] += line.mid(sp + 1).toLongLong();
    }
    QByteArray out;
    for (const auto& [stack, count] : sums)
        out += stack + ' ' + QByteArray::number(count) + '\n';
    return out;
}

} // namespace

class TestConformance : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void collapse_data() {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("expected");
        if (!scorch::test::haveCorpus())
            return;
        const QString root = scorch::test::corpusDir() + QStringLiteral("/perf-script");
        std::map<QString, QString> inputByStem; // input basename without .gz and .txt
        for (QDirIterator it(root + QStringLiteral("/inputs"), QDir::Files, QDirIterator::Subdirectories);
             it.hasNext();) {
            const QString path = it.next();
            QString stem = QFileInfo(path).fileName();
            stem.remove(QRegularExpression(QStringLiteral("(\\.gz)$")))
                .remove(QRegularExpression(QStringLiteral("\\.txt$")));
            inputByStem[stem] = path;
        }
        static const QRegularExpression name(QStringLiteral("^(.*)-collapsed(?:-(\\w+))?\\.txt$"));
        QStringList expectedFiles;
        for (QDirIterator it(root + QStringLiteral("/expected"), QDir::Files, QDirIterator::Subdirectories);
             it.hasNext();)
            expectedFiles << it.next();
        expectedFiles.sort();
        for (const QString& exp : expectedFiles) {
            const auto m = name.match(QFileInfo(exp).fileName());
            if (!m.hasMatch())
                continue;
            const auto input = inputByStem.find(m.captured(1));
            QVERIFY2(input != inputByStem.end(), qPrintable(QStringLiteral("no input for ") + exp));
            const QString opt = m.captured(2);
            const QString flag =
                opt.isEmpty() || opt == QStringLiteral("default") ? QString() : QStringLiteral("--") + opt;
            QTest::newRow(qPrintable(exp.mid(root.size() + 10))) << input->second << flag << exp;
        }
        QVERIFY2(expectedFiles.size() >= 100, "the corpus should hold over 100 expected collapse files");
    }

    void collapse() {
        SCORCH_REQUIRE_CORPUS();
        QFETCH(QString, input);
        QFETCH(QString, flag);
        QFETCH(QString, expected);
        QStringList args{QStringLiteral("collapse")};
        if (!flag.isEmpty())
            args << flag;
        args << input;
        const CliResult r = runScorch(args);
        QByteArray want = scorch::test::readAll(expected);
        QByteArray got = r.out;
        const bool inferno = expected.contains(QStringLiteral("/expected/inferno/"));
        if (want.isEmpty()) { // no-events.txt: empty input
            QVERIFY2(r.exitCode == 1 && r.err.contains("empty"), r.err.constData());
            QCOMPARE(got, QByteArray());
            return;
        }
        QVERIFY2(r.exitCode == 0, r.err.constData());
        if (inferno &&
            (input.contains(QStringLiteral("Yamakaky")) || input.contains(QStringLiteral("single-event"))))
            got = rustLegacyTidy(got);
        if (inferno && input.contains(QStringLiteral("sourcepawn-jitdump")))
            want.replace("_[j]", "");
        const QByteArray a = sortedLines(got), b = sortedLines(want);
        if (a != b) {
            QFile actual(QFileInfo(expected).fileName() + QStringLiteral(".actual"));
            if (actual.open(QIODevice::WriteOnly))
                actual.write(got);
            QFAIL(qPrintable(QStringLiteral("output differs from %1; ours written to %2 (diff -u them)")
                                 .arg(expected, QFileInfo(actual).absoluteFilePath())));
        }
    }

    // `scorch diff` against inferno-diff-folded's expected files (line order is not significant).
    void diff_data() {
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("expected");
        QTest::newRow("default") << QString() << QStringLiteral("default.txt");
        QTest::newRow("normalize") << QStringLiteral("--normalize") << QStringLiteral("normalize.txt");
        QTest::newRow("strip-hex") << QStringLiteral("--strip-hex") << QStringLiteral("strip_hex.txt");
    }

    void diff() {
        SCORCH_REQUIRE_CORPUS();
        QFETCH(QString, flag);
        QFETCH(QString, expected);
        const QString in = scorch::test::corpusDir() + QStringLiteral("/folded/inputs/inferno/diff-folded/");
        QStringList args{QStringLiteral("diff")};
        if (!flag.isEmpty())
            args << flag;
        args << in + QStringLiteral("before.txt") << in + QStringLiteral("after.txt");
        const CliResult r = runScorch(args);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QByteArray want =
            scorch::test::readAll(scorch::test::corpusDir() +
                                  QStringLiteral("/folded/expected/inferno/diff-folded/results/") + expected);
        QCOMPARE(sortedLines(r.out), sortedLines(want));
    }

    void diffWithABadLine() {
        // inferno warns once and skips the line without a count; so do we (one warning line on stderr)
        SCORCH_REQUIRE_CORPUS();
        const QString in = scorch::test::corpusDir() + QStringLiteral("/folded/inputs/inferno/diff-folded/");
        const CliResult r = runScorch({QStringLiteral("diff"), in + QStringLiteral("bad_before.txt"),
                                       in + QStringLiteral("after.txt")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("warning") && r.err.contains("line 3"), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(r.out.contains("dd;[unknown];read;system_call_[k];__fdget_pos_[k] 0 15\n"));
    }
};

QTEST_GUILESS_MAIN(TestConformance)
#include "tst_conformance.moc"
