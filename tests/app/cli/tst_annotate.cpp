// `scorch annotate` (issue 16) on a recording of scorch_perfprog made here with `perf record`: the hottest
// instruction is the one `perf annotate` finds, the mnemonics are objdump's at the same addresses, the
// instructions' costs sum to the function's self cost, inlined code is marked; formats without addresses
// say so. Skipped when perf cannot record here.
#include "clirunner.h"
#include "testutil.h"

#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <map>

namespace {

struct Instruction {
    QString mnemonic;
    double percent = 0;
    qlonglong cost = 0;
};

/// The instructions of `scorch annotate` text by address.
std::map<qulonglong, Instruction> scorchInstructions(const QByteArray& text) {
    std::map<qulonglong, Instruction> out;
    static const QRegularExpression line(
        QStringLiteral("^\\s*(?:([0-9.]+)%\\s+(\\d+))?\\s+([0-9a-f]+):  (\\S+)"));
    for (const QByteArray& l : text.split('\n')) {
        const QRegularExpressionMatch m = line.match(QString::fromUtf8(l));
        if (m.hasMatch())
            out[m.captured(3).toULongLong(nullptr, 16)] = {m.captured(4), m.captured(1).toDouble(),
                                                           m.captured(2).toLongLong()};
    }
    return out;
}

QByteArray run(const QString& program, const QStringList& args) {
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(scorch::test::kPatienceMs) || p.exitStatus() != QProcess::NormalExit)
        return {};
    return p.readAllStandardOutput();
}

} // namespace

class TestAnnotate : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_data;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const QString out = m_dir.filePath(QStringLiteral("perfprog.data"));
        // 400 thousand iterations: about 2 s of CPU time, hotLeaf three quarters of it
        if (perfRecord({QStringLiteral("-e"), QStringLiteral("cpu-clock"), QStringLiteral("-F"),
                        QStringLiteral("999"), QStringLiteral("-o"), out, QStringLiteral("--"),
                        QStringLiteral(SCORCH_PERFPROG), QStringLiteral("400")}))
            m_data = out;
        else
            qWarning("perf record does not work here: the annotate tests are skipped");
    }

    /// The hottest instruction of hotLeaf is perf annotate's, and scorch's mnemonics are objdump's.
    void hottestAndMnemonicsMatchPerfAndObjdump() {
        if (m_data.isEmpty())
            QSKIP("perf cannot record here");
        const CliResult r = runScorch({QStringLiteral("annotate"), m_data, QStringLiteral("^hotLeaf")});
        QCOMPARE(r.exitCode, 0);
        const std::map<qulonglong, Instruction> ours = scorchInstructions(r.out);
        QVERIFY2(ours.size() >= 5, r.out.constData());
        qulonglong hottest = 0;
        double most = -1;
        for (const auto& [address, i] : ours)
            if (i.percent > most)
                most = i.percent, hottest = address;
        QVERIFY(most > 50); // the multiply-add loop
        QVERIFY2(r.out.contains("x = x * 6364136223846793005ul"),
                 r.out.constData()); // its source line's text

        const QByteArray perf =
            run(QStringLiteral("perf"), {QStringLiteral("annotate"), QStringLiteral("--stdio"),
                                         QStringLiteral("-i"), m_data, QStringLiteral("hotLeaf")});
        if (perf.isEmpty())
            QSKIP("perf annotate gave nothing here");
        static const QRegularExpression perfLine(QStringLiteral("^\\s*([0-9.]+)\\s*:\\s+([0-9a-f]+):"));
        qulonglong perfHottest = 0;
        double perfMost = -1;
        for (const QByteArray& l : perf.split('\n'))
            if (const QRegularExpressionMatch m = perfLine.match(QString::fromUtf8(l)); m.hasMatch())
                if (m.captured(1).toDouble() > perfMost)
                    perfMost = m.captured(1).toDouble(), perfHottest = m.captured(2).toULongLong(nullptr, 16);
        QCOMPARE(QString::number(hottest, 16), QString::number(perfHottest, 16));

        const QString objdump = QStandardPaths::findExecutable(QStringLiteral("objdump"));
        if (objdump.isEmpty())
            QSKIP("objdump (binutils) not installed");
        const QByteArray dump =
            run(objdump, {QStringLiteral("-d"), QStringLiteral("-M"), QStringLiteral("intel"),
                          QStringLiteral("--no-show-raw-insn"),
                          QStringLiteral("--start-address=0x%1").arg(ours.begin()->first, 0, 16),
                          QStringLiteral("--stop-address=0x%1").arg(ours.rbegin()->first + 1, 0, 16),
                          QStringLiteral(SCORCH_PERFPROG)});
        static const QRegularExpression dumpLine(QStringLiteral("^\\s*([0-9a-f]+):\\s+(\\S+)"));
        int compared = 0;
        for (const QByteArray& l : dump.split('\n')) {
            const QRegularExpressionMatch m = dumpLine.match(QString::fromUtf8(l));
            if (!m.hasMatch())
                continue;
            const auto it = ours.find(m.captured(1).toULongLong(nullptr, 16));
            QVERIFY2(it != ours.end(), qPrintable(QString::fromUtf8(l)));
            QCOMPARE(it->second.mnemonic, m.captured(2));
            ++compared;
        }
        QCOMPARE(compared, int(ours.size()));
    }

    /// `annotate --time A-B` counts only the range's samples: per instruction of hotLeaf, the samples that
    /// `perf script` lists at that address with a time in the range (the recording cut between two samples
    /// near the middle; the first half, then the rest).
    void timeRangeMatchesPerfScriptCut() {
        if (m_data.isEmpty())
            QSKIP("perf cannot record here");
        const QByteArray script =
            run(QStringLiteral("perf"), {QStringLiteral("script"), QStringLiteral("-i"), m_data,
                                         QStringLiteral("-F"), QStringLiteral("time,ip,sym,symoff")});
        static const QRegularExpression sample(
            QStringLiteral("^\\s*(\\d+)\\.(\\d{6}):\\s+[0-9a-f]+\\s+(\\S+)"));
        std::vector<std::pair<qlonglong, QString>> samples; // (µs, sym+off)
        for (const QByteArray& l : script.split('\n'))
            if (const QRegularExpressionMatch m = sample.match(QString::fromUtf8(l)); m.hasMatch())
                samples.emplace_back(m.captured(1).toLongLong() * 1000000 + m.captured(2).toLongLong(),
                                     m.captured(3));
        if (samples.size() < 100)
            QSKIP("perf script lists too few samples here");
        std::sort(samples.begin(), samples.end());
        std::size_t mid = samples.size() / 2;
        while (mid + 1 < samples.size() && samples[mid - 1].first == samples[mid].first)
            ++mid;
        // the cut lies half a microsecond or more from every sample: µs rounding cannot move one across
        const double cutNs = double(samples[mid - 1].first + samples[mid].first) * 500.0;
        const double fromFirst = (cutNs - double(samples.front().first) * 1000.0) / 1e9;
        const QString at = QString::number(fromFirst, 'f', 9);
        const CliResult whole = runScorch({QStringLiteral("annotate"), m_data, QStringLiteral("^hotLeaf")});
        QCOMPARE(whole.exitCode, 0);
        const qulonglong start = scorchInstructions(whole.out).begin()->first;
        for (const bool firstHalf : {true, false}) {
            std::map<qulonglong, qlonglong> expected;
            for (std::size_t i = firstHalf ? 0 : mid; i < (firstHalf ? mid : samples.size()); ++i)
                if (samples[i].second.startsWith(QStringLiteral("hotLeaf+0x")))
                    ++expected[start + samples[i].second.mid(10).toULongLong(nullptr, 16)];
            const QString range = firstHalf ? QStringLiteral("0-") + at : at + QStringLiteral("-");
            const CliResult r = runScorch({QStringLiteral("annotate"), QStringLiteral("--event"),
                                           QStringLiteral("cpu-clock samples"), QStringLiteral("--time"),
                                           range, m_data, QStringLiteral("^hotLeaf")});
            QVERIFY2(r.exitCode == 0, r.err.constData());
            std::map<qulonglong, qlonglong> ours;
            for (const auto& [address, i] : scorchInstructions(r.out))
                if (i.cost > 0)
                    ours[address] = i.cost;
            QVERIFY(!expected.empty());
            QCOMPARE(ours, expected);
        }
    }

    /// The instructions' costs sum to the function's self cost (hotLeaf inlines nothing), every event.
    void costsSumToSelfCost() {
        if (m_data.isEmpty())
            QSKIP("perf cannot record here");
        const CliResult r = runScorch({QStringLiteral("annotate"), m_data, QStringLiteral("^hotLeaf")});
        QCOMPARE(r.exitCode, 0);
        const QRegularExpressionMatch header =
            QRegularExpression(QStringLiteral("\\): (\\d+) \\S+ at its instructions"))
                .match(QString::fromUtf8(r.out));
        QVERIFY2(header.hasMatch(), r.out.constData());
        const CliResult folded = runScorch({QStringLiteral("collapse"), m_data});
        QCOMPARE(folded.exitCode, 0);
        qlonglong self = 0;
        for (const QByteArray& line : folded.out.split('\n')) {
            const qsizetype space = line.lastIndexOf(' ');
            if (space > 0 && line.left(space).endsWith("hotLeaf(unsigned long)"))
                self += line.mid(space + 1).toLongLong();
        }
        QVERIFY(self > 0);
        QCOMPARE(header.captured(1).toLongLong(), self);
    }

    /// warmLeaf's loop is inlinedMix, inlined: its lines say so.
    void inlinedCodeIsMarked() {
        if (m_data.isEmpty())
            QSKIP("perf cannot record here");
        const CliResult r = runScorch({QStringLiteral("annotate"), m_data, QStringLiteral("^warmLeaf")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("(inlined inlinedMix"), r.out.constData());
    }

    /// A Scorch recording keeps its samples' addresses too: the same hottest instruction as perf's recording
    /// of the same program.
    void scorchRecording() {
        if (m_data.isEmpty())
            QSKIP("perf cannot record here");
        const QString rec = m_dir.filePath(QStringLiteral("perfprog.rec"));
        const CliResult recorded =
            runScorch({QStringLiteral("record"), QStringLiteral("-o"), rec, QStringLiteral("--"),
                       QStringLiteral(SCORCH_PERFPROG), QStringLiteral("300")});
        if (recorded.err.contains("was refused"))
            QSKIP("the sampler is refused here");
        QVERIFY2(recorded.exitCode == 0, recorded.err.constData());
        const auto hottestOf = [](const QString& file) {
            const CliResult r = runScorch({QStringLiteral("annotate"), file, QStringLiteral("^hotLeaf")});
            qulonglong hottest = 0;
            double most = -1;
            for (const auto& [address, i] : scorchInstructions(r.out))
                if (i.percent > most)
                    most = i.percent, hottest = address;
            return hottest;
        };
        const qulonglong fromRecording = hottestOf(rec);
        QVERIFY(fromRecording != 0);
        QCOMPARE(QString::number(fromRecording, 16), QString::number(hottestOf(m_data), 16));
    }

    /// A format without instruction addresses: a one-line error naming the file.
    void foldedHasNoAddresses() {
        const QString folded = scorch::test::testData(QStringLiteral("gui/small.folded"));
        const CliResult r = runScorch({QStringLiteral("annotate"), folded, QStringLiteral("^main$")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("no instruction costs") && r.err.contains("small.folded"), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
    }
};

QTEST_GUILESS_MAIN(TestAnnotate)
#include "tst_annotate.moc"
