// `scorch record` end to end: launch and attach, Ctrl+C (SIGINT) of the recorder leaves the target running
// untraced, the recording opens with `scorch info`, usage errors. No step waits for a fixed time: the
// target works a fixed amount of CPU time or until told to stop, and waits are for events.
#include "clirunner.h"
#include "patience.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <fstream>
#include <string>

namespace {

using scorch::test::kPatienceMs;
constexpr const char* kTarget = SCORCH_SAMPLER_TARGET;

qsizetype taskCount(qint64 pid) {
    return QDir(QStringLiteral("/proc/%1/task").arg(pid)).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size();
}

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

/// True once `pid` has ended: gone, or a zombie nobody reaped yet (its parent, the recorder, is gone).
bool ended(qint64 pid) {
    return kill(static_cast<pid_t>(pid), 0) != 0 || procState(pid) == 'Z';
}

/// The launched command's pid from "scorch: recording command, pid N ...", or -1.
qint64 launchedPid(const QByteArray& err) {
    static const QRegularExpression re(QStringLiteral("scorch: recording command, pid (\\d+)"));
    const QRegularExpressionMatch m = re.match(QString::fromUtf8(err));
    return m.hasMatch() ? m.captured(1).toLongLong() : -1;
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
                       QStringLiteral("--"), QString::fromUtf8(kTarget), QStringLiteral("cpu=0.3")});
        if (refused(r))
            QSKIP(r.err.constData());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("errors=0"), r.out.constData()); // the target's own output, unchanged
        // scorch runs with glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES (see hugepagemalloc.h); the
        // command it records gets the environment the test gave scorch
        const QByteArray tunables = qgetenv("GLIBC_TUNABLES");
        QVERIFY2(r.out.contains(
                     "GLIBC_TUNABLES=" +
                     (qEnvironmentVariableIsSet("GLIBC_TUNABLES") ? tunables : QByteArray("(unset)")) + "\n"),
                 r.out.constData());
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
        target.start(QString::fromUtf8(kTarget), {QStringLiteral("wait")}); // works until SIGUSR1
        QVERIFY(target.waitForStarted());
        const qint64 pid = target.processId();
        auto endTarget = qScopeGuard([&] {
            kill(static_cast<pid_t>(pid), SIGUSR1);
            target.waitForFinished(kPatienceMs);
        });
        // Attach once all four threads run.
        QTRY_VERIFY_WITH_TIMEOUT(taskCount(pid) >= 4, kPatienceMs);
        const QString out = m_dir.filePath(QStringLiteral("int-") + mode + QStringLiteral(".rec"));
        QProcess rec;
        rec.start(QString::fromUtf8(SCORCH_BINARY),
                  {QStringLiteral("record"), QStringLiteral("--mode"), mode, QStringLiteral("-p"),
                   QString::number(pid), QStringLiteral("-o"), out});
        QVERIFY(rec.waitForStarted());
        QByteArray err;
        auto readErr = [&] {
            err += rec.readAllStandardError();
            return rec.state() != QProcess::Running || err.contains("scorch: recording pid");
        };
        QTRY_VERIFY_WITH_TIMEOUT(readErr(), kPatienceMs);
        if (rec.state() != QProcess::Running) {
            rec.waitForFinished();
            err += rec.readAllStandardError();
            if (err.contains("was refused") || err.contains("not available"))
                QSKIP(err.constData());
            QFAIL(err.constData());
        }
        // Interrupt once every thread that can be sampled has samples (perf: the three working ones; ptrace
        // also the main thread, which waits): SIGUSR1 makes the recorder say how many it has.
        const qulonglong threads = mode == QStringLiteral("perf") ? 3 : 4;
        const QRegularExpression soFar(QStringLiteral("scorch: \\d+ samples of (\\d+) threads so far"));
        auto haveSamples = [&] {
            err += rec.readAllStandardError();
            auto it = soFar.globalMatch(QString::fromUtf8(err));
            qulonglong sampled = 0;
            while (it.hasNext())
                sampled = it.next().captured(1).toULongLong();
            if (sampled < threads)
                kill(static_cast<pid_t>(rec.processId()), SIGUSR1);
            return sampled >= threads;
        };
        QTRY_VERIFY_WITH_TIMEOUT(haveSamples(), kPatienceMs);
        kill(static_cast<pid_t>(rec.processId()), SIGINT);
        QVERIFY(rec.waitForFinished(kPatienceMs));
        err += rec.readAllStandardError();
        QVERIFY2(rec.exitStatus() == QProcess::NormalExit && rec.exitCode() == 0, err.constData());
        QVERIFY(QFile::exists(out));
        // The target runs on, untraced and not stopped.
        QCOMPARE(target.state(), QProcess::Running);
        const auto [tracer, state] = traceState(pid);
        QCOMPARE(tracer, QStringLiteral("TracerPid: 0"));
        QVERIFY2(!state.contains(QStringLiteral("stopped")) && !state.contains(QStringLiteral("tracing")),
                 qPrintable(state));
        endTarget.dismiss();
        kill(static_cast<pid_t>(pid), SIGUSR1);
        QVERIFY(target.waitForFinished(kPatienceMs));
        QCOMPARE(target.exitStatus(), QProcess::NormalExit);
        QCOMPARE(target.exitCode(), 0);
        QVERIFY(target.readAllStandardOutput().contains("errors=0"));
        const CliResult info = runScorch({QStringLiteral("info"), out});
        QVERIFY2(info.exitCode == 0, info.err.constData());
        const CliResult folded = runScorch({QStringLiteral("collapse"), out});
        QCOMPARE(folded.exitCode, 0);
        // the samples of the worker threads, symbolized (at least two of them are among the sampled threads)
        QVERIFY2(folded.out.contains("busy_work") || folded.out.contains("recurse_leaf") ||
                     folded.out.contains("late_work"),
                 folded.out.constData());
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

    /// -d SEC: the recording is written as soon as the duration is over; the command, still working, keeps
    /// running (and scorch says so) unless --kill-after stops it.
    void durationEnd_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<bool>("killAfter");
        QTest::newRow("perf") << QStringLiteral("perf") << false;
        QTest::newRow("ptrace") << QStringLiteral("ptrace") << false;
        QTest::newRow("perf --kill-after") << QStringLiteral("perf") << true;
        QTest::newRow("ptrace --kill-after") << QStringLiteral("ptrace") << true;
    }
    void durationEnd() {
        QFETCH(QString, mode);
        QFETCH(bool, killAfter);
        const QString out = m_dir.filePath(QStringLiteral("dur-%1-%2.rec").arg(mode).arg(killAfter));
        QStringList args{QStringLiteral("record"), QStringLiteral("--mode"), mode, QStringLiteral("-d"),
                         QStringLiteral("1"),      QStringLiteral("-o"),     out};
        if (killAfter)
            args << QStringLiteral("--kill-after");
        args << QStringLiteral("--") << QString::fromUtf8(kTarget)
             << QStringLiteral("wait"); // works until told
        const CliResult r = runScorch(args);
        if (refused(r))
            QSKIP(r.err.constData());
        const qint64 pid = launchedPid(r.err);
        QVERIFY2(pid > 0, r.err.constData());
        auto endTarget = qScopeGuard([&] { kill(static_cast<pid_t>(pid), SIGKILL); });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.err.contains("written to " + out.toUtf8()), r.err.constData());
        const CliResult info = runScorch({QStringLiteral("info"), out});
        QVERIFY2(info.exitCode == 0, info.err.constData());
        if (killAfter) {
            QVERIFY2(r.err.contains("stopping the command") && r.err.contains("the command exited with code"),
                     r.err.constData());
            QVERIFY(ended(pid)); // scorch waited for it
        } else {
            QVERIFY2(r.err.contains(QStringLiteral("the command (pid %1) keeps running").arg(pid).toUtf8()),
                     r.err.constData());
            QVERIFY(!ended(pid));
            const auto [tracer, state] = traceState(pid);
            QCOMPARE(tracer, QStringLiteral("TracerPid: 0"));
            QVERIFY2(!state.contains(QStringLiteral("stopped")), qPrintable(state));
            kill(static_cast<pid_t>(pid), SIGUSR1); // the target's own way to stop
            QTRY_VERIFY_WITH_TIMEOUT(ended(pid), kPatienceMs);
        }
    }

    /// An output that cannot be written is refused before anything is launched or recorded.
    void unwritableOutputIsCheckedFirst() {
        const QString missing = m_dir.filePath(QStringLiteral("no-such-dir/out.rec"));
        const CliResult r =
            runScorch({QStringLiteral("record"), QStringLiteral("-o"), missing, QStringLiteral("--"),
                       QString::fromUtf8(kTarget), QStringLiteral("cpu=0.1")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(
            r.err.startsWith("scorch: record: " + missing.toUtf8() + ": cannot create a temporary file in") &&
                r.err.contains("(No such file or directory)") && r.err.contains("nothing was recorded"),
            r.err.constData());
        QVERIFY2(!r.out.contains("errors="), r.out.constData()); // the target never ran
        QVERIFY(!r.err.contains("scorch: recording"));
        const CliResult dir =
            runScorch({QStringLiteral("record"), QStringLiteral("-o"), m_dir.path(), QStringLiteral("--"),
                       QString::fromUtf8(kTarget), QStringLiteral("cpu=0.1")});
        QCOMPARE(dir.exitCode, 1);
        QVERIFY2(dir.err.contains(": is a directory"), dir.err.constData());
    }

    /// When the output's directory vanished during the recording, the samples are saved in the cache
    /// directory ($XDG_CACHE_HOME/scorch) and scorch says where.
    void failedWriteFallsBackToCacheDirectory() {
        QTemporaryDir cache;
        const QString dir = m_dir.filePath(QStringLiteral("vanishing"));
        QVERIFY(QDir().mkpath(dir));
        const QString out = dir + QStringLiteral("/x.rec");
        QProcess rec;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CACHE_HOME"), cache.path());
        rec.setProcessEnvironment(env);
        rec.start(QString::fromUtf8(SCORCH_BINARY),
                  {QStringLiteral("record"), QStringLiteral("--mode"), QStringLiteral("ptrace"),
                   QStringLiteral("-o"), out, QStringLiteral("--"), QString::fromUtf8(kTarget),
                   QStringLiteral("wait")});
        QVERIFY(rec.waitForStarted());
        QByteArray err;
        // Wait for samples (SIGUSR1 makes the recorder say how many), then take the directory away.
        const QRegularExpression soFar(QStringLiteral("scorch: (\\d+) samples of \\d+ threads so far"));
        auto haveSamples = [&] {
            err += rec.readAllStandardError();
            if (rec.state() != QProcess::Running)
                return true;
            if (!err.contains("scorch: recording command"))
                return false;
            auto it = soFar.globalMatch(QString::fromUtf8(err));
            qulonglong samples = 0;
            while (it.hasNext())
                samples = it.next().captured(1).toULongLong();
            if (samples == 0)
                kill(static_cast<pid_t>(rec.processId()), SIGUSR1);
            return samples > 0;
        };
        QTRY_VERIFY_WITH_TIMEOUT(haveSamples(), kPatienceMs);
        if (rec.state() != QProcess::Running) {
            err += rec.readAllStandardError();
            if (err.contains("was refused") || err.contains("not available"))
                QSKIP(err.constData());
            QFAIL(err.constData());
        }
        const qint64 pid = launchedPid(err);
        QVERIFY(pid > 0);
        const qint64 recorder = rec.processId();
        QVERIFY(QDir(dir).removeRecursively());
        kill(static_cast<pid_t>(recorder), SIGINT); // stops the recording, then the command
        QVERIFY(rec.waitForFinished(kPatienceMs));
        err += rec.readAllStandardError();
        QCOMPARE(rec.exitCode(), 1);
        const QString fallback = cache.path() + QStringLiteral("/scorch/%1-x.rec").arg(recorder);
        QVERIFY2(err.contains(out.toUtf8() + ": cannot create a temporary file") &&
                     err.contains("saved to " + fallback.toUtf8() + " instead of " + out.toUtf8()),
                 err.constData());
        QVERIFY(QFile::exists(fallback));
        const CliResult info = runScorch({QStringLiteral("info"), fallback});
        QVERIFY2(info.exitCode == 0, info.err.constData());
        QTRY_VERIFY_WITH_TIMEOUT(ended(pid), kPatienceMs); // the Ctrl+C went on to the command
    }

    /// kill -9 of the recorder does not orphan a launched command: the watchdog kills it.
    void killedRecorderTakesTheCommandAlong() {
        QProcess rec;
        rec.start(QString::fromUtf8(SCORCH_BINARY),
                  {QStringLiteral("record"), QStringLiteral("-o"), m_dir.filePath(QStringLiteral("k9.rec")),
                   QStringLiteral("--"), QString::fromUtf8(kTarget), QStringLiteral("wait")});
        QVERIFY(rec.waitForStarted());
        QByteArray err;
        QTRY_VERIFY_WITH_TIMEOUT(
            (err += rec.readAllStandardError(), launchedPid(err) > 0 || rec.state() != QProcess::Running),
            kPatienceMs);
        const qint64 pid = launchedPid(err);
        QVERIFY2(pid > 0, err.constData());
        auto endTarget = qScopeGuard([&] { kill(static_cast<pid_t>(pid), SIGKILL); });
        QVERIFY(!ended(pid));
        kill(static_cast<pid_t>(rec.processId()), SIGKILL);
        QVERIFY(rec.waitForFinished(kPatienceMs));
        QTRY_VERIFY_WITH_TIMEOUT(ended(pid), kPatienceMs);
    }

    void idleTargetIsNotASilentEmptyProfile() {
        // perf samples running threads only: an attached `sleep` gives no samples, and that is said, not
        // written.
        QProcess idle;
        idle.start(QStringLiteral("sleep"), {QStringLiteral("600")});
        QVERIFY(idle.waitForStarted());
        const qint64 pid = idle.processId();
        // Attach once it sleeps: `sleep` itself (not the forked test process before exec), blocked.
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(QStringLiteral("/proc/%1/exe").arg(pid))
                                         .symLinkTarget()
                                         .endsWith(QStringLiteral("/sleep")) &&
                                     procState(pid) == 'S',
                                 kPatienceMs);
        const QString out = m_dir.filePath(QStringLiteral("idle.rec"));
        const CliResult r =
            runScorch({QStringLiteral("record"), QStringLiteral("-d"), QStringLiteral("0.3"),
                       QStringLiteral("-o"), out, QStringLiteral("-p"), QString::number(pid)});
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
