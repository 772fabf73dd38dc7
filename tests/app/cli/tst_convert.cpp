// `scorch convert` and `scorch svg`: help, usage errors, atomic output never over the input, standard input
// and output, and what the written files read back as.
#include "clirunner.h"
#include "testutil.h"

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QXmlStreamReader>

using namespace scorch;

namespace {

QString corpusFile(const char* relative) {
    return test::corpusDir() + QString::fromUtf8(relative);
}

const char* const kVertx = "/perf-script/inputs/flamegraph/test/perf-vertx-stacks-01.txt";

bool wellFormedXml(const QByteArray& bytes) {
    QXmlStreamReader xml(bytes);
    while (!xml.atEnd())
        xml.readNext();
    return !xml.hasError();
}

} // namespace

class TestConvert : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void help() {
        for (const char* command : {"convert", "svg"}) {
            const CliResult r = runScorch({QString::fromUtf8(command), QStringLiteral("--help")});
            QCOMPARE(r.exitCode, 0);
            QVERIFY(r.out.startsWith(QByteArray("Usage: scorch ") + command));
        }
        const CliResult main = runScorch({QStringLiteral("--help")});
        QVERIFY(main.out.contains("convert") && main.out.contains("svg"));
    }

    /// Usage errors exit with 2 and name the problem on the first line of standard error.
    void usageErrors() {
        const QString in = test::testData(QStringLiteral("flame/simple.folded"));
        const std::pair<QStringList, QByteArray> cases[] = {
            {{QStringLiteral("convert"), in}, "--to FORMAT is required"},
            {{QStringLiteral("convert"), QStringLiteral("--to"), QStringLiteral("gif"), in},
             "unknown format \"gif\""},
            {{QStringLiteral("convert"), QStringLiteral("--to"), QStringLiteral("pprof")}, "no FILE given"},
            {{QStringLiteral("convert"), QStringLiteral("--to")}, "--to needs a value"},
            {{QStringLiteral("convert"), QStringLiteral("--bogus"), in}, "unknown option --bogus"},
            {{QStringLiteral("svg"), QStringLiteral("--width"), QStringLiteral("wide"), in},
             "--width must be"},
            {{QStringLiteral("svg"), QStringLiteral("--minwidth"), QStringLiteral("-1"), in},
             "--minwidth must be"},
            {{QStringLiteral("svg"), QStringLiteral("--colors"), QStringLiteral("rainbow"), in},
             "unknown palette"},
            {{QStringLiteral("svg"), in, in}, "one FILE only"},
        };
        for (const auto& [args, message] : cases) {
            const CliResult r = runScorch(args);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.split('\n').first().contains(message), r.err.constData());
            QVERIFY(r.out.isEmpty());
        }
    }

    /// The output may not be the input (also through another spelling of its path); the input is untouched.
    void neverOverTheInput() {
        QTemporaryDir dir;
        const QString in = dir.filePath(QStringLiteral("in.folded"));
        QVERIFY(QFile::copy(test::testData(QStringLiteral("flame/simple.folded")), in));
        const QByteArray before = test::readAll(in);
        for (const QString& out : {in, dir.filePath(QStringLiteral("./in.folded"))}) {
            const CliResult r = runScorch({QStringLiteral("convert"), QStringLiteral("--to"),
                                           QStringLiteral("folded"), in, QStringLiteral("-o"), out});
            QCOMPARE(r.exitCode, 1);
            QVERIFY(r.err.contains("is the input file"));
            QCOMPARE(r.err.count('\n'), 1);
        }
        const CliResult svg = runScorch({QStringLiteral("svg"), in, QStringLiteral("--output=") + in});
        QCOMPARE(svg.exitCode, 1);
        QCOMPARE(test::readAll(in), before);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1); // no temporary left
    }

    /// Unreadable input and unwritable output: one line, exit status 1.
    void ioErrors() {
        const CliResult missing =
            runScorch({QStringLiteral("convert"), QStringLiteral("--to"), QStringLiteral("speedscope"),
                       QStringLiteral("/nonexistent/x.perf")});
        QCOMPARE(missing.exitCode, 1);
        QCOMPARE(missing.err.count('\n'), 1);
        const CliResult unwritable =
            runScorch({QStringLiteral("svg"), test::testData(QStringLiteral("flame/simple.folded")),
                       QStringLiteral("-o"), QStringLiteral("/nonexistent-dir/out.svg")});
        QCOMPARE(unwritable.exitCode, 1);
        QVERIFY(unwritable.err.startsWith("scorch: /nonexistent-dir/out.svg: "));
        QCOMPARE(unwritable.err.count('\n'), 1);
    }

    /// convert --to folded prints what collapse prints; speedscope and pprof files read back (info) with the
    /// same total; pprof is gzip unless --no-gzip.
    void convertCorpusFile() {
        SCORCH_REQUIRE_CORPUS();
        const QString in = corpusFile(kVertx);
        const CliResult collapse = runScorch({QStringLiteral("collapse"), in});
        const CliResult folded = runScorch({QStringLiteral("convert"), QStringLiteral("--to=folded"), in});
        QCOMPARE(folded.exitCode, 0);
        QCOMPARE(folded.out, collapse.out);

        QTemporaryDir dir;
        const QString json = dir.filePath(QStringLiteral("out.speedscope.json"));
        QCOMPARE(runScorch({QStringLiteral("convert"), QStringLiteral("--to"), QStringLiteral("speedscope"),
                            in, QStringLiteral("-o"), json})
                     .exitCode,
                 0);
        const CliResult info = runScorch({QStringLiteral("info"), json});
        const CliResult original = runScorch({QStringLiteral("info"), in});
        auto line = [](const QByteArray& text, const char* prefix) {
            for (const QByteArray& l : text.split('\n'))
                if (l.trimmed().startsWith(prefix))
                    return l.trimmed();
            return QByteArray();
        };
        QCOMPARE(line(info.out, "format:"), QByteArray("format:        speedscope"));
        // a cost type counting samples is written one entry per sample: the sample count survives
        QCOMPARE(line(info.out, "samples:"), line(original.out, "samples:"));
        QCOMPARE(line(info.out, "unique stacks:"), line(original.out, "unique stacks:"));

        const QString pb = dir.filePath(QStringLiteral("out.pb.gz"));
        QCOMPARE(runScorch({QStringLiteral("convert"), QStringLiteral("--to"), QStringLiteral("pprof"), in,
                            QStringLiteral("-o"), pb})
                     .exitCode,
                 0);
        QVERIFY(test::readAll(pb).startsWith("\x1f\x8b"));
        const CliResult plain = runScorch({QStringLiteral("convert"), QStringLiteral("--to"),
                                           QStringLiteral("pprof"), QStringLiteral("--no-gzip"), in});
        QCOMPARE(plain.exitCode, 0);
        QCOMPARE(plain.out.at(0), char(0x0a)); // field 1 (sample_type), length-delimited
    }

    /// `perf script | scorch svg -` writes a well-formed interactive SVG to standard output; options apply.
    void svgFromPipe() {
        SCORCH_REQUIRE_CORPUS();
        const QByteArray perf = test::readAll(corpusFile(kVertx));
        const CliResult r =
            runScorch({QStringLiteral("svg"), QStringLiteral("-"), QStringLiteral("--title"),
                       QStringLiteral("Vert.x"), QStringLiteral("--inverted"), QStringLiteral("--colors"),
                       QStringLiteral("java"), QStringLiteral("--width"), QStringLiteral("800")},
                      perf);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith("<?xml"));
        QVERIFY(wellFormedXml(r.out));
        QVERIFY(r.out.contains(">Vert.x</text>"));
        QVERIFY(r.out.contains("width=\"800\""));
        QVERIFY(r.out.contains("INVERTED = true"));
        QVERIFY(r.out.contains("<script"));
        QVERIFY(r.err.isEmpty());
    }

    /// By default frames narrower than a pixel at the image width merge with their narrow neighbours, as the
    /// window's chart and its export merge them (a deep C++ recording otherwise writes tens of megabytes of
    /// invisible frames); --minwidth 0 keeps every frame.
    void svgMergesSubPixelFramesByDefault() {
        SCORCH_REQUIRE_CORPUS();
        const QString in = corpusFile("/perf-script/inputs/flamegraph/example-perf-stacks.txt.gz");
        const CliResult byDefault = runScorch({QStringLiteral("svg"), in});
        const CliResult onePixel =
            runScorch({QStringLiteral("svg"), QStringLiteral("--minwidth"), QStringLiteral("1"), in});
        const CliResult every =
            runScorch({QStringLiteral("svg"), QStringLiteral("--minwidth"), QStringLiteral("0"), in});
        QCOMPARE(byDefault.exitCode, 0);
        QCOMPARE(byDefault.out, onePixel.out);
        const auto rects = [](const QByteArray& svg) {
            return svg.count("<rect x=");
        };
        const auto merged = [](const QByteArray& svg) {
            return svg.count(" narrow frames merged (");
        };
        QVERIFY2(rects(every.out) > rects(byDefault.out) + 100,
                 qPrintable(QStringLiteral("%1 / %2").arg(rects(every.out)).arg(rects(byDefault.out))));
        QCOMPARE(merged(every.out), qsizetype(0));
        QVERIFY(merged(byDefault.out) > 10);
        // The wide frames are the same: the heaviest frame's title (name, count, share) is in both.
        QString heaviest;
        qlonglong most = 0;
        const QRegularExpression title(QStringLiteral("<title>[^<]* \\((\\d+) samples?, [^<]*</title>"));
        for (const auto& m : title.globalMatch(QString::fromUtf8(every.out)))
            if (m.captured(1).toLongLong() > most) {
                most = m.captured(1).toLongLong();
                heaviest = m.captured(0);
            }
        QVERIFY(most > 0);
        QVERIFY2(byDefault.out.contains(heaviest.toUtf8()), qPrintable(heaviest));
    }

    /// --reverse flips every stack: a leaf function called from two places is one frame at the base.
    void svgReversed() {
        const QString in = test::testData(QStringLiteral("gui/small.folded"));
        const CliResult forward = runScorch({QStringLiteral("svg"), in});
        const CliResult reversed = runScorch({QStringLiteral("svg"), QStringLiteral("--reverse"), in});
        QCOMPARE(forward.exitCode, 0);
        QCOMPARE(reversed.exitCode, 0);
        QVERIFY(wellFormedXml(reversed.out));
        // inner: 20 samples under run;compute, 3 under helper;compute; reversed, one frame of 23 whose
        // callers are compute (23) and then run (20) and helper (3)
        QVERIFY(forward.out.contains("<title>inner (20 samples"));
        QVERIFY(forward.out.contains("<title>inner (3 samples"));
        QVERIFY(!forward.out.contains("<title>inner (23 samples"));
        QVERIFY(reversed.out.contains("<title>inner (23 samples"));
        QVERIFY(reversed.out.contains("<title>compute (23 samples"));
        QVERIFY(!reversed.out.contains("<title>inner (20 samples"));
        QVERIFY(reversed.out.contains("<title>run (20 samples, 35.71%)</title>")); // of all 56
    }

    /// --event picks the cost type; an unknown event lists the ones there are.
    void events() {
        SCORCH_REQUIRE_CORPUS();
        const QString in = corpusFile("/perf-script/inputs/flamegraph/test/perf-cycles-instructions-01.txt");
        const CliResult cycles =
            runScorch({QStringLiteral("svg"), in, QStringLiteral("--event"), QStringLiteral("cycles")});
        QCOMPARE(cycles.exitCode, 0);
        // the root frame `cksum` carries the cycles samples of every stack starting with it, as collapse says
        const CliResult collapse =
            runScorch({QStringLiteral("collapse"), in, QStringLiteral("--event"), QStringLiteral("cycles")});
        int64_t all = 0, cksum = 0;
        for (const auto& [stack, count] : test::foldedLines(collapse.out)) {
            all += std::stoll(count);
            if (stack.starts_with("cksum;") || stack == "cksum")
                cksum += std::stoll(count);
        }
        QVERIFY(cksum > 0 && cksum < all);
        const QString title =
            QStringLiteral("<title>cksum (%1 samples, %2%)</title>")
                .arg(cksum)
                .arg(100.0 * static_cast<double>(cksum) / static_cast<double>(all), 0, 'f', 2);
        QVERIFY2(cycles.out.contains(title.toUtf8()), qPrintable(title));
        const CliResult bad =
            runScorch({QStringLiteral("convert"), QStringLiteral("--to"), QStringLiteral("speedscope"), in,
                       QStringLiteral("--event"), QStringLiteral("nope")});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY(bad.err.contains("no event named \"nope\" (the file has: instructions, cycles)"));
    }
};

QTEST_GUILESS_MAIN(TestConvert)
#include "tst_convert.moc"
