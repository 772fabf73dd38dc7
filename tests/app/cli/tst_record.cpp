// `scorch record` end to end: launch and attach, Ctrl+C (SIGINT) of the recorder leaves the target running
// untraced, the recording opens with `scorch info`, usage errors.
#include "clirunner.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <fstream>
#include <string>
#include <thread>

namespace {

constexpr const char* kTarget = SCORCH_SAMPLER_TARGET;

bool refused(const CliResult& r) {
    return r.exitCode == 1 && (r.err.contains("was refused") || r.err.contains("not available"));
}

/// TracerPid and State lines of /proc/PID/status.
std::pair<QString, QString> traceState(qint64 pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    QString tracer, state;
    while (std::getline(in, line)) {
        if (line.starts_with("TracerPid:"))
            tracer = QString::fromStdString(line).simplified();
        if (line.starts_with("State:"))
            state = QString::fromStdString(line).simplified();
    }
    return {tracer, state};
}

} // namespace

class TestRecord : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void launch_data() {
        QTest::addColumn<QString>("mode");
        QTest::newRow("perf") << QStringLiteral("perf");
        QTest::newRow("ptrace") << QStringLiteral("ptrace");
    }
    void launch() {
        QFETCH(QString, mode);
        const QString out = m_dir.filePath(mode + QStringLiteral(".rec"));
        const CliResult r =
            runScorch({QStringLiteral("record"), QStringLiteral("--mode"), mode, QStringLiteral("-o"), out,
                       QStringLiteral("--"), QString::fromUtf8(kTarget), QStringLiteral("0.8")});
        if (refused(r))
            QSKIP(r.err.constData());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("errors=0"), r.out.constData()); // the target's own output, unchanged
        QVERIFY2(r.err.contains("the command exited with code 0"), r.err.constData());
        QVERIFY(r.err.contains("written to " + out.toUtf8()));
        const CliResult info = runScorch({QStringLiteral("info"), out});
        QVERIFY2(info.exitCode == 0, info.err.constData());
        QVERIFY(info.out.contains("format:        Scorch recording"));
        QVERIFY(info.out.contains("recurse_leaf"));
        const CliResult folded = runScorch({QStringLiteral("collapse"), out});
        QCOMPARE(folded.exitCode, 0);
        QVERIFY(folded.out.contains("busy;") && folded.out.contains("busy_work;"));
        QVERIFY(info.out.contains(mode == QStringLiteral("perf") ? "cpu-clock" : "wall-clock"));
    }

    void interruptLeavesTargetRunning_data() { launch_data(); }
    void interruptLeavesTargetRunning() {
        QFETCH(QString, mode);
        QProcess target;
        target.start(QString::fromUtf8(kTarget), {QStringLiteral("2.5")});
        QVERIFY(target.waitForStarted());
        const qint64 pid = target.processId();
        // Attach once the worker threads run (on a loaded machine the target may still be starting).
        const QString task = QStringLiteral("/proc/%1/task").arg(pid);
        QTRY_VERIFY_WITH_TIMEOUT(QDir(task).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size() >= 3, 5000);
        const QString out = m_dir.filePath(QStringLiteral("int-") + mode + QStringLiteral(".rec"));
        QProcess rec;
        rec.start(QString::fromUtf8(SCORCH_BINARY),
                  {QStringLiteral("record"), QStringLiteral("--mode"), mode, QStringLiteral("-p"),
                   QString::number(pid), QStringLiteral("-o"), out});
        QVERIFY(rec.waitForStarted());
        std::this_thread::sleep_for(std::chrono::milliseconds(1000));
        QVERIFY(rec.state() == QProcess::Running || rec.exitCode() == 1);
        if (rec.state() != QProcess::Running) {
            const QByteArray err = rec.readAllStandardError();
            target.kill();
            target.waitForFinished();
            if (err.contains("was refused") || err.contains("not available"))
                QSKIP(err.constData());
            QFAIL(err.constData());
        }
        kill(static_cast<pid_t>(rec.processId()), SIGINT);
        QVERIFY(rec.waitForFinished(5000));
        const QByteArray err = rec.readAllStandardError();
        QVERIFY2(rec.exitStatus() == QProcess::NormalExit && rec.exitCode() == 0, err.constData());
        QVERIFY(QFile::exists(out));
        // The target runs on, untraced and not stopped.
        QCOMPARE(target.state(), QProcess::Running);
        const auto [tracer, state] = traceState(pid);
        QCOMPARE(tracer, QStringLiteral("TracerPid: 0"));
        QVERIFY2(!state.contains(QStringLiteral("stopped")) && !state.contains(QStringLiteral("tracing")),
                 qPrintable(state));
        QVERIFY(target.waitForFinished(10000));
        QCOMPARE(target.exitStatus(), QProcess::NormalExit);
        QCOMPARE(target.exitCode(), 0);
        QVERIFY(target.readAllStandardOutput().contains("errors=0"));
        const CliResult info = runScorch({QStringLiteral("info"), out});
        QVERIFY2(info.exitCode == 0, info.err.constData());
        const CliResult folded = runScorch({QStringLiteral("collapse"), out});
        QCOMPARE(folded.exitCode, 0);
        QVERIFY(folded.out.contains("busy_work"));
    }

    void usageErrors() {
        CliResult r = runScorch({QStringLiteral("record")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("either -p PID or -- COMMAND"));
        r = runScorch({QStringLiteral("record"), QStringLiteral("--mode"), QStringLiteral("magic"),
                       QStringLiteral("-p"), QStringLiteral("1")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("--mode is perf or ptrace"));
        r = runScorch({QStringLiteral("record"), QStringLiteral("-F"), QStringLiteral("0"),
                       QStringLiteral("-p"), QStringLiteral("1")});
        QCOMPARE(r.exitCode, 2);
        r = runScorch({QStringLiteral("record"), QStringLiteral("-p"), QStringLiteral("999999999")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("no process with id 999999999"), r.err.constData());
        r = runScorch({QStringLiteral("record"), QStringLiteral("-o"),
                       m_dir.filePath(QStringLiteral("x.rec")), QStringLiteral("--"),
                       QStringLiteral("/nonexistent/cmd")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("cannot run /nonexistent/cmd"), r.err.constData());
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("x.rec"))));
        r = runScorch({QStringLiteral("record"), QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("Usage: scorch record"));
    }

    void idleTargetIsNotASilentEmptyProfile() {
        // perf samples running threads only: an attached `sleep` gives no samples, and that is said, not
        // written.
        QProcess idle;
        idle.start(QStringLiteral("sleep"), {QStringLiteral("10")});
        QVERIFY(idle.waitForStarted());
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        const QString out = m_dir.filePath(QStringLiteral("idle.rec"));
        const CliResult r =
            runScorch({QStringLiteral("record"), QStringLiteral("-d"), QStringLiteral("0.3"),
                       QStringLiteral("-o"), out, QStringLiteral("-p"), QString::number(idle.processId())});
        idle.kill();
        idle.waitForFinished();
        if (refused(r))
            QSKIP(r.err.constData());
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("no samples were recorded") && r.err.contains("--mode ptrace"),
                 r.err.constData());
        QVERIFY(!QFile::exists(out));
    }
};

QTEST_GUILESS_MAIN(TestRecord)
#include "tst_record.moc"
