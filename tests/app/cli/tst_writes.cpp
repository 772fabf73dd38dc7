// Writes survive signals: `scorch convert -o OUT` killed (SIGTERM, SIGHUP, SIGINT, kill -9) while it writes
// leaves OUT as it was and nothing beside it, with the unnamed temporary file (O_TMPFILE) and the named one
// (SCORCH_NO_TMPFILE=1); the next write removes a named temporary that kill -9 left. Errors name the file and
// the reason. Deterministic: the writer is traced syscall by syscall until its temporary file exists, then
// stopped (SIGSTOP), and the signal is sent while it is stopped. Standard output to a file gives back the
// blocks it reserved ahead.
#include "clirunner.h"
#include "largefolded.h"
#include "testutil.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cstring>
#include <fstream>
#include <linux/magic.h>
#include <string>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

using scorch::test::kPatienceMs;

namespace {

/// Whether process `pid` holds an unnamed file (O_TMPFILE) in `dir` open: "/dir/#123 (deleted)".
bool holdsUnnamedFile(qint64 pid, const QString& dir) {
    const QDir fds(QStringLiteral("/proc/%1/fd").arg(pid));
    const QByteArray prefix = dir.toUtf8() + "/#";
    for (const QString& fd : fds.entryList(QDir::AllEntries | QDir::System | QDir::NoDotAndDotDot)) {
        char target[4096];
        const ssize_t n = readlink(fds.filePath(fd).toUtf8().constData(), target, sizeof target);
        if (n > 0 && QByteArray(target, n).startsWith(prefix))
            return true;
    }
    return false;
}

/// The names in `dir`, hidden ones included.
QStringList entries(const QString& dir) {
    QStringList names = QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
    names.sort();
    return names;
}

} // namespace

class TestWrites : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_input;

    /// Starts `scorch convert --to speedscope INPUT -o OUT` and stops it (SIGSTOP) while its temporary
    /// file exists: unnamed (held open) or named (in the directory). The convert's main thread, which
    /// writes, is traced from syscall to syscall (ptrace) until the file is there; then a SIGSTOP is queued
    /// and the tracer lets go, so the process stops on its way back from that syscall. Returns false when
    /// the convert ended first; skips when this system does not allow ptrace.
    bool catchWriting(QProcess& p, const QString& dir, const QString& out, bool named) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        if (named)
            env.insert(QStringLiteral("SCORCH_NO_TMPFILE"), QStringLiteral("1"));
        p.setProcessEnvironment(env);
        p.start(QString::fromUtf8(SCORCH_BINARY),
                {QStringLiteral("convert"), QStringLiteral("--to"), QStringLiteral("speedscope"), m_input,
                 QStringLiteral("-o"), out});
        if (!p.waitForStarted())
            return false;
        const auto pid = static_cast<pid_t>(p.processId());
        if (ptrace(PTRACE_SEIZE, pid, nullptr, reinterpret_cast<void*>(PTRACE_O_TRACESYSGOOD)) != 0) {
            m_ptraceRefused = QByteArray("ptrace is not allowed here: ") + std::strerror(errno);
            return false;
        }
        ptrace(PTRACE_INTERRUPT, pid, nullptr, nullptr);
        for (;;) {
            // look first (WNOWAIT): an exit is left for QProcess to collect
            siginfo_t info{};
            if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WSTOPPED | WNOWAIT | __WALL) != 0 ||
                info.si_code == CLD_EXITED || info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED)
                return false;
            int status = 0;
            if (waitpid(pid, &status, WUNTRACED | __WALL) != pid || !WIFSTOPPED(status))
                return false;
            int passOn = 0;
            if (WSTOPSIG(status) == (SIGTRAP | 0x80)) { // at a syscall's entry or exit
                if (named ? entries(dir).filter(QStringLiteral(".scorch-")).size() == 1
                          : holdsUnnamedFile(pid, dir)) {
                    kill(pid, SIGSTOP);
                    ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
                    // it stops once back from the syscall
                    while (procState(pid) != 'T' && procState(pid) != 'Z' && procState(pid) != '?')
                        QTest::qWait(1);
                    return true;
                }
            } else if (status >> 16 != PTRACE_EVENT_STOP) {
                passOn = WSTOPSIG(status); // a signal for the process: deliver it
            }
            ptrace(PTRACE_SYSCALL, pid, nullptr, reinterpret_cast<void*>(static_cast<long>(passOn)));
        }
    }
    QByteArray m_ptraceRefused;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_input = m_dir.filePath(QStringLiteral("big.folded"));
        // big enough that writing its speedscope (one entry per sample) takes many rounds of the catching
        // loop
        QVERIFY(scorch::test::writeLargeFolded(m_input, 24) > 0);
    }

    void signalLeavesNothing_data() {
        QTest::addColumn<int>("sig");
        QTest::addColumn<bool>("named");
        for (const bool named : {false, true}) {
            const char* how = named ? "named" : "unnamed";
            QTest::addRow("SIGTERM %s", how) << int(SIGTERM) << named;
            QTest::addRow("SIGHUP %s", how) << int(SIGHUP) << named;
            QTest::addRow("SIGINT %s", how) << int(SIGINT) << named;
        }
        QTest::addRow("SIGKILL unnamed") << int(SIGKILL) << false;
    }
    /// A signal during the write: the old target stays as it was and nothing else is left in the directory.
    void signalLeavesNothing() {
        QFETCH(int, sig);
        QFETCH(bool, named);
        const QString dir = m_dir.filePath(QStringLiteral("sig-%1-%2").arg(sig).arg(named));
        QVERIFY(QDir().mkpath(dir));
        const QString out = dir + QStringLiteral("/out.json");
        {
            QFile old(out);
            QVERIFY(old.open(QIODevice::WriteOnly));
            old.write("old content\n");
        }
        QProcess p;
        if (!catchWriting(p, dir, out, named)) {
            p.waitForFinished(kPatienceMs);
            if (!m_ptraceRefused.isEmpty())
                QSKIP(m_ptraceRefused.constData());
            QFAIL(qPrintable(QStringLiteral("the convert was never seen writing: ") +
                             QString::fromUtf8(p.readAllStandardError())));
        }
        kill(static_cast<pid_t>(p.processId()), sig);
        kill(static_cast<pid_t>(p.processId()), SIGCONT);
        QVERIFY(p.waitForFinished(kPatienceMs));
        QCOMPARE(p.exitStatus(), QProcess::CrashExit); // ended by the signal, as without the clean-up
        QCOMPARE(entries(dir), QStringList{QStringLiteral("out.json")});
        QCOMPARE(scorch::test::readAll(out), QByteArray("old content\n"));
    }

    /// kill -9 with a named temporary file leaves it; the next write to the same target removes it.
    void staleTemporaryIsRemovedByTheNextWrite() {
        const QString dir = m_dir.filePath(QStringLiteral("stale"));
        QVERIFY(QDir().mkpath(dir));
        const QString out = dir + QStringLiteral("/out.json");
        QProcess p;
        if (!catchWriting(p, dir, out, true) && !m_ptraceRefused.isEmpty())
            QSKIP(m_ptraceRefused.constData());
        QVERIFY(p.state() == QProcess::Running);
        kill(static_cast<pid_t>(p.processId()), SIGKILL);
        QVERIFY(p.waitForFinished(kPatienceMs));
        const QStringList left = entries(dir);
        QCOMPARE(left.size(), 1);
        QVERIFY2(left.first().startsWith(QStringLiteral(".out.json.scorch-")), qPrintable(left.first()));
        // an unrelated hidden file of the same pattern but a live owner (this test) is kept
        const QString live = dir + QStringLiteral("/.out.json.scorch-%1-keepme").arg(getpid());
        QFile(live).open(QIODevice::WriteOnly);
        const CliResult r = runScorch(
            {QStringLiteral("convert"), QStringLiteral("--to"), QStringLiteral("folded"),
             scorch::test::testData(QStringLiteral("flame/simple.folded")), QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(entries(dir), (QStringList{QFileInfo(live).fileName(), QStringLiteral("out.json")}));
    }

    /// `scorch collapse IN > OUT` and `>> OUT` on ext4: standard output goes through FileOutputBuffer, which
    /// reserves OUT's blocks ahead of its writes; OUT ends with the same bytes as the output through a pipe
    /// and holds no more blocks than its size needs (what was reserved and not written is given back).
    void collapseToFileGivesBackReservedBlocks() {
        struct statfs fs {};
        QVERIFY(statfs(m_dir.path().toUtf8().constData(), &fs) == 0);
        if (fs.f_type != EXT4_SUPER_MAGIC)
            QSKIP("the temporary directory is not on ext4: nothing is reserved elsewhere");
        // 80 000 distinct stacks: about 4 MB of folded output
        const QString input = m_dir.filePath(QStringLiteral("distinct.folded"));
        {
            QFile f(input);
            QVERIFY(f.open(QIODevice::WriteOnly));
            for (int i = 0; i < 80000; ++i)
                f.write("main;dispatch_" + QByteArray::number(i % 211) + ";handler_" + QByteArray::number(i) +
                        ";work 1\n");
        }
        const CliResult piped = runScorch({QStringLiteral("collapse"), input});
        QVERIFY2(piped.exitCode == 0, piped.err.constData());
        QVERIFY(piped.out.size() > (2 << 20)); // past the first MiB: blocks were reserved
        const QString out = m_dir.filePath(QStringLiteral("collapsed.folded"));
        for (const QIODevice::OpenMode mode : {QIODevice::Truncate, QIODevice::Append}) {
            QProcess p;
            p.setStandardOutputFile(out, mode);
            p.start(QString::fromUtf8(SCORCH_BINARY), {QStringLiteral("collapse"), input});
            QVERIFY(p.waitForFinished(kPatienceMs));
            QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
            const QByteArray expected = mode == QIODevice::Append ? piped.out + piped.out : piped.out;
            QVERIFY(scorch::test::readAll(out) == expected);
            struct stat st {};
            QVERIFY(stat(out.toUtf8().constData(), &st) == 0);
            QVERIFY2(st.st_blocks * 512 < st.st_size + (1 << 20),
                     QByteArray::number(static_cast<qint64>(st.st_blocks) * 512).constData());
        }
    }

    /// Every writer's error names the file and the reason (here: the file size limit, EFBIG).
    void errorsNameFileAndReason() {
        // 1 MB of folded stacks: every format's output is larger than the limit
        const QString in = m_dir.filePath(QStringLiteral("medium.folded"));
        QVERIFY(scorch::test::writeLargeFolded(in, 1) > 0);
        for (const char* to : {"speedscope", "pprof", "folded", "svg"}) {
            const QString out = m_dir.filePath(QStringLiteral("limited.") + QString::fromUtf8(to));
            const QString command = QString::fromUtf8(to) == QStringLiteral("svg")
                                        ? QStringLiteral("svg")
                                        : QStringLiteral("convert --to ") + QString::fromUtf8(to);
            QProcess p;
            // a file size limit of 1 block, SIGXFSZ ignored: a write fails with EFBIG
            p.start(
                QStringLiteral("/bin/sh"),
                {QStringLiteral("-c"),
                 QStringLiteral("trap '' XFSZ; ulimit -f 1; exec \"$0\" %1 \"$1\" -o \"$2\"").arg(command),
                 QString::fromUtf8(SCORCH_BINARY), in, out});
            QVERIFY(p.waitForFinished(kPatienceMs));
            const QByteArray err = p.readAllStandardError();
            QCOMPARE(p.exitCode(), 1);
            QCOMPARE(err, "scorch: " + out.toUtf8() + ": cannot write (File too large)\n");
            QVERIFY(!QFile::exists(out));
            QCOMPARE(entries(m_dir.path()).filter(QStringLiteral(".scorch-")).size(), 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestWrites)
#include "tst_writes.moc"
