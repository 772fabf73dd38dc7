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
        if (perfRecord({QStringLiteral("-e"), QStringLiteral("cpu-clock"), QStringLiteral("-e"),
                        QStringLiteral("sched:sched_switch"), QStringLiteral("--switch-events"),
                        QStringLiteral("-g"), QStringLiteral("-o"), out, QStringLiteral("--"),
                        QStringLiteral(SCORCH_OFFCPUPROG), QStringLiteral("sleep")}))
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

    /// Scorch's own sampler: `scorch record --off-cpu -- scorch_offcpuprog sleep` in both mechanisms. perf
    /// records every switch (exact intervals, so at least the 20 x 50 ms); ptrace charges each blocked sample
    /// the time since the thread's previous one (an estimate: at least half of it). Either way the waiting is
    /// under sleepPhase, and wall = on-CPU + off-CPU (perf: about the 1 s the program computes).
    void recordOffCpu_data() {
        QTest::addColumn<QString>("mode");
        QTest::newRow("perf") << QStringLiteral("perf");
        QTest::newRow("ptrace") << QStringLiteral("ptrace");
    }
    void recordOffCpu() {
        QFETCH(QString, mode);
        const QString out = m_dir.filePath(mode + QStringLiteral("-off.rec"));
        const CliResult rec =
            runScorch({QStringLiteral("record"), QStringLiteral("--mode"), mode, QStringLiteral("--off-cpu"),
                       QStringLiteral("-o"), out, QStringLiteral("--"), QStringLiteral(SCORCH_OFFCPUPROG),
                       QStringLiteral("sleep")});
        if (rec.exitCode != 0 &&
            (rec.err.contains("perf_event_paranoid") || rec.err.contains("ptrace_scope")))
            QSKIP(qPrintable(QStringLiteral("the kernel refuses: ") + QString::fromUtf8(rec.err).trimmed()));
        QVERIFY2(rec.exitCode == 0, rec.err.constData());
        QVERIFY(rec.err.contains("off-CPU time too"));
        const CliResult off = runScorch(
            {QStringLiteral("collapse"), QStringLiteral("--event"), QStringLiteral("off-cpu"), out});
        QCOMPARE(off.exitCode, 0);
        const CliResult wall =
            runScorch({QStringLiteral("collapse"), QStringLiteral("--event"), QStringLiteral("wall"), out});
        QCOMPARE(wall.exitCode, 0);
        const int64_t sleeping = foldedSum(off.out, "sleepPhase");
        int64_t blocked = 0;
        for (const QByteArray& line : off.out.split('\n'))
            if (line.contains(";[blocked"))
                blocked += foldedSum(line);
        qInfo("%s: %.3f s off-CPU under sleepPhase, %.3f s blocked in all, %.3f s wall", qPrintable(mode),
              double(sleeping) / 1e9, double(blocked) / 1e9, double(foldedSum(wall.out)) / 1e9);
        QVERIFY(sleeping >= (mode == QStringLiteral("perf") ? 1000000000 : 500000000));
        int64_t sleepingBlocked = 0;
        for (const QByteArray& line : off.out.split('\n'))
            if (line.contains("sleepPhase") && line.contains(";[blocked"))
                sleepingBlocked += foldedSum(line);
        QVERIFY(sleepingBlocked * 10 >= blocked * 7); // the waiting the program chose is in its sleeps
        // wall = on-CPU + off-CPU: more than off-CPU alone wherever the program computes
        QVERIFY(foldedSum(wall.out) > foldedSum(off.out));
        QVERIFY(foldedSum(wall.out, "computePhase") - foldedSum(off.out, "computePhase") >= 500000000);
        // every stretch has its time: the recording has a timeline (threads blocked when the sampler began
        // once took it away)
        const CliResult info = runScorch({QStringLiteral("info"), out});
        QCOMPARE(info.exitCode, 0);
        QVERIFY2(info.out.contains("\ntimeline:") && !info.out.contains("no timeline"), info.out.constData());
        if (mode == QStringLiteral("perf")) { // the switch records time every stretch on the CPU
            QVERIFY2(info.out.contains("\n  off-cpu (ns): "), info.out.constData());
            // the program computes 20 x 50 ms of CPU time: the time between switches, whatever the load
            QVERIFY(foldedSum(wall.out, "computePhase") - foldedSum(off.out, "computePhase") >= 900000000);
        }
    }
};

QTEST_GUILESS_MAIN(TestOffCpuCli)
#include "tst_offcpucli.moc"
