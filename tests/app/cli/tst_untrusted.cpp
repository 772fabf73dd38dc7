// Profile text is untrusted: names with ESC sequences, CR, LF, NUL, BEL, C1 controls, invalid UTF-8 and bidi
// overrides (U+202E; U+2066 and TAB in tst_safetext) reach the terminal escaped (`info`, warnings, errors),
// one warning is one line, and the folded output (`collapse`, `convert --to folded`, `diff`) stays folded: it
// reads back as the same stacks, for these names and for every input of the shared corpus.
#include "clirunner.h"
#include "testutil.h"

#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <set>
#include <string>

namespace {

/// The adversarial names, as JSON string literals (escaped) and as they must show on a terminal.
struct Name {
    const char* json;
    const char* shown;
};
const Name kNames[] = {
    {"title\\u001b]0;pwned\\u0007set", "title\\x1b]0;pwned\\x07set"},
    {"clear\\u001b[2J\\u001b[Hscreen", "clear\\x1b[2J\\x1b[Hscreen"},
    {"line one\\nscorch: forged line", "line one\\x0ascorch: forged line"},
    {"carriage\\rreturn", "carriage\\x0dreturn"},
    {"nul\\u0000byte", "nul\\x00byte"},
    {"bell\\u0007ring", "bell\\x07ring"},
    {"rtl\\u202eexe.txt", "rtl\\u202eexe.txt"},
    {"csi\\u009b31m", "csi\\xc2\\x9b31m"},
    {"del\\u007f", "del\\x7f"},
    {"semi;colon", "semi;colon"},
};

/// A speedscope file: one sampled profile (thread) named with control characters, one sample (weight 1) per
/// name under a common root.
QByteArray adversarialSpeedscope() {
    QByteArray frames = "{\"name\":\"root\"}";
    QByteArray samples, weights;
    int i = 1;
    for (const Name& n : kNames) {
        frames += QByteArray(",{\"name\":\"") + n.json + "\"}";
        samples += QByteArray(samples.isEmpty() ? "" : ",") + "[0," + QByteArray::number(i) + "]";
        weights += QByteArray(weights.isEmpty() ? "" : ",") + "1";
        ++i;
    }
    return "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[" +
           frames +
           "]},\"profiles\":[{\"type\":\"sampled\",\"name\":\"thread\\u001b[31mred\\nforged\",\"unit\":"
           "\"none\",\"startValue\":0,\"endValue\":100,\"samples\":[" +
           samples + "],\"weights\":[" + weights + "]}]}";
}

/// Bytes a terminal would act on: C0 controls but the line feed, DEL, C1 controls (UTF-8 C2 80..9F) and the
/// bidi overrides and isolates (E2 80 AA..AE, E2 81 A6..A9). Empty when there is none.
QString terminalHazard(const QByteArray& text) {
    for (qsizetype i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
        const auto third = i + 2 < text.size() ? static_cast<unsigned char>(text[i + 2]) : 0;
        if ((c < 0x20 && c != '\n') || c == 0x7F || (c == 0xC2 && next >= 0x80 && next <= 0x9F) ||
            (c == 0xE2 && next == 0x80 && third >= 0xAA && third <= 0xAE) ||
            (c == 0xE2 && next == 0x81 && third >= 0xA6 && third <= 0xA9))
            return QStringLiteral("byte 0x%1 at offset %2").arg(c, 2, 16, QLatin1Char('0')).arg(i);
    }
    return {};
}

/// Every line of folded text is `stack COUNT` (or `stack BEFORE AFTER`).
bool allFolded(const QByteArray& text, bool differential = false) {
    static const QRegularExpression line(QStringLiteral("^[^\\n]+ \\d+$"));
    static const QRegularExpression diffLine(QStringLiteral("^[^\\n]+ \\d+ \\d+$"));
    for (const QByteArray& l : text.split('\n'))
        if (!l.isEmpty() && !(differential ? diffLine : line).match(QString::fromUtf8(l)).hasMatch())
            return false;
    return true;
}

} // namespace

class TestUntrusted : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_evil;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_evil = m_dir.filePath(QStringLiteral("evil.speedscope.json"));
        QFile f(m_evil);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(adversarialSpeedscope());
    }

    /// `scorch info` shows every name escaped: nothing a terminal acts on, no forged line.
    void infoEscapesNames() {
        const CliResult r = runScorch({QStringLiteral("info"), m_evil});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(terminalHazard(r.out).isEmpty(), qPrintable(terminalHazard(r.out)));
        for (const Name& n : kNames)
            QVERIFY2(r.out.contains(n.shown), n.shown);
        QVERIFY(r.out.contains("thread\\x1b[31mred\\x0aforged"));
        for (const QByteArray& line : r.out.split('\n'))
            QVERIFY2(!line.startsWith("scorch: forged") && !line.startsWith("forged"), line.constData());
    }

    /// Warnings on standard error echo skipped lines escaped, one warning one line; so do errors.
    void warningsAndErrorsAreOneSafeLine() {
        const QString bad = m_dir.filePath(QStringLiteral("bad.folded"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("main;work 5\nmain;idle 3\nmain;other 2\nmain;more 1\n"
                "\x1b]0;pwned\x07\x1b[2J\xe2\x80\xae\xc2\x9b\x7fno count here\r\n");
        f.close();
        const CliResult r = runScorch({QStringLiteral("info"), bad});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.err.count('\n'), 1); // one warning, one line
        QVERIFY2(r.err.startsWith("scorch: warning: "), r.err.constData());
        QVERIFY2(terminalHazard(r.err.chopped(1)).isEmpty(), qPrintable(terminalHazard(r.err)));
        QVERIFY2(r.err.contains("\\x1b]0;pwned\\x07"), r.err.constData());
        QVERIFY2(terminalHazard(r.out).isEmpty(), qPrintable(terminalHazard(r.out)));

        // An error quoting the input (not a profile) and one naming the file's events.
        const QString junk = m_dir.filePath(QStringLiteral("junk\x1b[2J.txt"));
        QFile j(junk);
        QVERIFY(j.open(QIODevice::WriteOnly));
        j.write("\xe2\x80\xae\x1b[31mhello\x9b world\x07\n");
        j.close();
        const CliResult e = runScorch({QStringLiteral("info"), junk});
        QCOMPARE(e.exitCode, 1);
        QCOMPARE(e.err.count('\n'), 1);
        QVERIFY2(terminalHazard(e.err.chopped(1)).isEmpty(), qPrintable(terminalHazard(e.err)));
        QVERIFY2(e.err.contains("junk\\x1b[2J.txt"), e.err.constData());
        const CliResult ev = runScorch({QStringLiteral("info"), QStringLiteral("--event"),
                                        QStringLiteral("no\x1b]0;x\x07such"), m_evil});
        QCOMPARE(ev.exitCode, 1);
        QCOMPARE(ev.err.count('\n'), 1);
        QVERIFY2(terminalHazard(ev.err.chopped(1)).isEmpty(), qPrintable(terminalHazard(ev.err)));
    }

    /// collapse, convert --to folded and diff write every name on its stack's one line (control characters
    /// as \xHH, `;` as `:`), and the folded output reads back as the same stacks.
    void foldedOutputStaysFolded() {
        const CliResult c = runScorch({QStringLiteral("collapse"), m_evil});
        QVERIFY2(c.exitCode == 0, c.err.constData());
        QVERIFY2(allFolded(c.out), c.out.constData());
        QCOMPARE(c.out.count('\n'), qsizetype(std::size(kNames)));
        QVERIFY2(c.out.contains("root;line one\\x0ascorch: forged line 1\n"), c.out.constData());
        QVERIFY(c.out.contains("root;carriage\\x0dreturn 1\n"));
        QVERIFY(c.out.contains("root;nul\\x00byte 1\n"));
        QVERIFY(c.out.contains("root;title\\x1b]0:pwned\\x07set 1\n")); // `;` as `:` as ever
        QVERIFY(c.out.contains("root;semi:colon 1\n"));
        QVERIFY(c.out.contains("root;rtl\xe2\x80\xae"
                               "exe.txt 1\n")); // one line: a bidi override stays text
        const QString folded = m_dir.filePath(QStringLiteral("evil.folded"));
        const CliResult conv = runScorch({QStringLiteral("convert"), QStringLiteral("--to"),
                                          QStringLiteral("folded"), m_evil, QStringLiteral("-o"), folded});
        QVERIFY2(conv.exitCode == 0, conv.err.constData());
        QCOMPARE(scorch::test::readAll(folded), c.out);
        const CliResult info = runScorch({QStringLiteral("info"), folded});
        QVERIFY2(info.exitCode == 0, info.err.constData());
        QVERIFY(info.out.contains("format:        folded"));
        QVERIFY(
            info.out.contains("samples:       " + QByteArray::number(qsizetype(std::size(kNames))) + '\n'));
        QVERIFY(info.out.contains("warnings:      0"));
        const CliResult again = runScorch({QStringLiteral("collapse"), folded});
        QCOMPARE(again.out, c.out);
        const CliResult d = runScorch({QStringLiteral("diff"), m_evil, folded});
        QVERIFY2(d.exitCode == 0, d.err.constData());
        QVERIFY2(allFolded(d.out, true), d.out.constData());
        QVERIFY(d.out.count('\n') >= qsizetype(std::size(kNames)));
    }

    /// Every corpus input that Scorch reads: `convert --to folded`, then `info` reads the output without a
    /// warning and `collapse` of it gives the same stacks.
    void corpusRoundTrips() {
        SCORCH_REQUIRE_CORPUS();
        int tried = 0, roundTripped = 0;
        QStringList failures;
        QDirIterator it(scorch::test::corpusDir(), QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString in = it.next();
            if (!in.contains(QStringLiteral("/inputs/")))
                continue;
            ++tried;
            const QString out = m_dir.filePath(QStringLiteral("corpus-%1.folded").arg(tried));
            const CliResult conv = runScorch({QStringLiteral("convert"), QStringLiteral("--to"),
                                              QStringLiteral("folded"), in, QStringLiteral("-o"), out});
            if (conv.exitCode != 0)
                continue; // not a profile Scorch reads (the corpus has some on purpose)
            const QByteArray folded = scorch::test::readAll(out);
            if (folded.isEmpty())
                continue; // nothing with a count
            const CliResult info = runScorch({QStringLiteral("info"), out});
            const CliResult again = runScorch({QStringLiteral("collapse"), out});
            if (info.exitCode != 0 || !info.out.contains("warnings:      0") || again.out != folded)
                failures << in + QStringLiteral(": ") + QString::fromUtf8(info.err);
            else
                ++roundTripped;
        }
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join(u'\n')));
        QVERIFY2(roundTripped >= 40, qPrintable(QStringLiteral("%1 of %2").arg(roundTripped).arg(tried)));
    }
};

QTEST_GUILESS_MAIN(TestUntrusted)
#include "tst_untrusted.moc"
