// `scorch collapse --event off-cpu|wall` and `scorch info` on a recording of scorch_offcpuprog made here with
// `perf record -e cpu-clock -e sched:sched_switch --switch-events -g` (issue 14); skipped when perf cannot.
#include "clirunner.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

/// Sum of the counts of folded lines (those containing `frame` when given).
int64_t foldedSum(const QByteArray& folded, const QByteArray& frame = {}) {
    int64_t sum = 0;
    for (const QByteArray& line : folded.split('\n')) {
        const qsizetype space = line.lastIndexOf(' ');
        if (space < 0 || (!frame.isEmpty() && !line.left(space).contains(frame)))
            continue;
        sum += line.mid(space + 1).toLongLong();
    }
    return sum;
}

} // namespace

class TestOffCpuCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_data;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const QString out = m_dir.filePath(QStringLiteral("both.data"));
        QProcess p;
        p.start(QStringLiteral("perf"),
                {QStringLiteral("record"), QStringLiteral("-q"), QStringLiteral("-e"),
                 QStringLiteral("cpu-clock"), QStringLiteral("-e"), QStringLiteral("sched:sched_switch"),
                 QStringLiteral("--switch-events"), QStringLiteral("-g"), QStringLiteral("-o"), out,
                 QStringLiteral("--"), QStringLiteral(SCORCH_OFFCPUPROG), QStringLiteral("sleep")});
        if (p.waitForFinished(scorch::test::kPatienceMs) && p.exitStatus() == QProcess::NormalExit &&
            p.exitCode() == 0)
            m_data = out;
        else
            qWarning("perf record -e sched:sched_switch --switch-events does not work here: skipped");
    }

    void collapseOffCpuAndWall() {
        if (m_data.isEmpty())
            QSKIP("perf cannot record sched_switch here");
        const CliResult off = runScorch(
            {QStringLiteral("collapse"), QStringLiteral("--event"), QStringLiteral("off-cpu"), m_data});
        QCOMPARE(off.exitCode, 0);
        const CliResult wall = runScorch(
            {QStringLiteral("collapse"), QStringLiteral("--event"), QStringLiteral("wall"), m_data});
        QCOMPARE(wall.exitCode, 0);
        const CliResult cpu = runScorch(
            {QStringLiteral("collapse"), QStringLiteral("--event"), QStringLiteral("cpu-clock"), m_data});
        QCOMPARE(cpu.exitCode, 0);
        // nanoseconds: at least the 20 sleeps of 50 ms under sleepPhase, in blocked (S) leaves
        const int64_t sleeping = foldedSum(off.out, "sleepPhase");
        QVERIFY(sleeping >= 1000000000);
        for (const QByteArray& line : off.out.split('\n'))
            if (line.contains("sleepPhase"))
                QVERIFY2(line.contains(";[blocked: S] ") || line.contains(";[preempted] "), line.constData());
        // wall = on-CPU (cpu-clock ns) + off-CPU, in total and under each function
        QCOMPARE(foldedSum(wall.out), foldedSum(cpu.out) + foldedSum(off.out));
        QCOMPARE(foldedSum(wall.out, "computePhase"),
                 foldedSum(cpu.out, "computePhase") + foldedSum(off.out, "computePhase"));
        QCOMPARE(foldedSum(wall.out, "sleepPhase"), foldedSum(cpu.out, "sleepPhase") + sleeping);
    }

    void infoListsThem() {
        if (m_data.isEmpty())
            QSKIP("perf cannot record sched_switch here");
        const CliResult r = runScorch({QStringLiteral("info"), m_data});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("\n  off-cpu (ns): "), r.out.constData());
        QVERIFY(r.out.contains("\n  wall (ns): "));
        QVERIFY(r.out.contains("context switches:"));
        // an unknown event names the ones there are
        const CliResult bad = runScorch(
            {QStringLiteral("collapse"), QStringLiteral("--event"), QStringLiteral("offcpu"), m_data});
        QVERIFY(bad.exitCode != 0);
        QVERIFY(bad.err.contains("off-cpu, wall"));
    }
};

QTEST_GUILESS_MAIN(TestOffCpuCli)
#include "tst_offcpucli.moc"
