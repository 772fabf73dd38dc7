// The command line: help for every subcommand, standard input, info, exit status and one-line errors.
#include "clirunner.h"
#include "testutil.h"

#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>

#include <algorithm>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

class TestCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void help() {
        for (const QStringList& args : {QStringList{QStringLiteral("--help")},
                                        QStringList{QStringLiteral("collapse"), QStringLiteral("--help")},
                                        QStringList{QStringLiteral("info"), QStringLiteral("--help")}}) {
            const CliResult r = runScorch(args);
            QCOMPARE(r.exitCode, 0);
            QVERIFY(r.out.startsWith("Usage: scorch"));
        }
        const CliResult v = runScorch({QStringLiteral("--version")});
        QCOMPARE(v.exitCode, 0);
        QVERIFY(v.out.startsWith("scorch "));
        // malloc's large blocks on huge pages unless THP is off, the user's GLIBC_TUNABLES decides, or the
        // first huge pages faulted in slowly (which depends on what the machine's memory did lately)
        std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
        std::string mode;
        std::getline(thp, mode);
        const bool userSets = qgetenv("GLIBC_TUNABLES").contains("glibc.malloc.hugetlb");
        const bool never = mode.empty() || mode.find("[never]") != std::string::npos;
        const char* expected = userSets ? "huge pages:    as GLIBC_TUNABLES sets glibc.malloc.hugetlb"
                               : never  ? "huge pages:    off (transparent huge pages are disabled"
                                        : "huge pages:    on for large allocations";
        QVERIFY2(v.out.contains(expected) ||
                     (!userSets && !never &&
                      v.out.contains("huge pages:    off (a huge page took over 1 ms to fault in")),
                 v.out.constData());
        // blocks of 4 MiB and more mapped apart, unless the user's GLIBC_TUNABLES sets the threshold (or
        // ASan's allocator stands in for glibc's)
#ifdef SCORCH_SANITIZED
        const char* mapped = "large blocks:  as AddressSanitizer's allocator decides";
#else
        const char* mapped = "large blocks:  mapped apart from 4 MiB on";
#endif
        QVERIFY2(v.out.contains(qgetenv("GLIBC_TUNABLES").contains("glibc.malloc.mmap_threshold")
                                    ? "large blocks:  as GLIBC_TUNABLES sets glibc.malloc.mmap_threshold"
                                    : mapped),
                 v.out.constData());
        const bool had = qEnvironmentVariableIsSet("GLIBC_TUNABLES");
        const QByteArray before = qgetenv("GLIBC_TUNABLES");
        qputenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=0"); // the user's choice wins: no re-execution
        const CliResult off = runScorch({QStringLiteral("--version")});
        if (had)
            qputenv("GLIBC_TUNABLES", before);
        else
            qunsetenv("GLIBC_TUNABLES");
        QVERIFY2(off.out.contains("huge pages:    as GLIBC_TUNABLES sets"), off.out.constData());
        QVERIFY2(off.out.contains(mapped), off.out.constData());
        qputenv("GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=65536"); // likewise
        const CliResult own = runScorch({QStringLiteral("--version")});
        if (had)
            qputenv("GLIBC_TUNABLES", before);
        else
            qunsetenv("GLIBC_TUNABLES");
        QVERIFY2(own.out.contains("large blocks:  as GLIBC_TUNABLES sets glibc.malloc.mmap_threshold"),
                 own.out.constData());
        // the user's glibc.malloc.hugetlb decides for the import's own big arrays too (SCORCH_TRACE names it)
        const QString recording = QStringLiteral(SCORCH_TEST_DATA "/perfdata/fp-zstd.data");
        qputenv("SCORCH_TRACE", "1");
        const auto restore = qScopeGuard([&] { // (also when a check below fails: later tests see no trace)
            qunsetenv("SCORCH_TRACE");
            if (had)
                qputenv("GLIBC_TUNABLES", before);
            else
                qunsetenv("GLIBC_TUNABLES");
        });
        for (const auto& [value, expected] :
             {std::pair{"0", "(huge pages: unavailable)"},
              std::pair{"1", never ? "(huge pages: unavailable)" : "(huge pages: fast)"}}) {
            qputenv("GLIBC_TUNABLES", QByteArray("glibc.malloc.hugetlb=") + value);
            const CliResult traced = runScorch({QStringLiteral("info"), recording});
            QCOMPARE(traced.exitCode, 0);
            QVERIFY2(traced.err.contains(expected), traced.err.constData());
            // each line counts the page faults so far: on the reading thread's lines (in the order it made
            // them) they only grow, and the import makes some
            std::vector<long long> faults;
            static const QRegularExpression line(QStringLiteral("\\[(\\w+)\\] .*; (\\d+) page faults\\)$"));
            QString reader;
            for (const QByteArray& text : traced.err.split('\n')) {
                const auto m = line.match(QString::fromUtf8(text));
                if (!m.hasMatch())
                    continue;
                if (reader.isEmpty())
                    reader = m.captured(1); // the first line: "read FILE"
                if (m.captured(1) == reader)
                    faults.push_back(m.captured(2).toLongLong());
            }
            QVERIFY2(faults.size() >= 2, traced.err.constData());
            QVERIFY2(std::is_sorted(faults.begin(), faults.end()), traced.err.constData());
            QVERIFY(faults.back() > faults.front());
        }
    }

    /// Output to a pipe leaves in 1 MiB writes; scorch grows the pipe to hold one (where the system allows).
    void standardOutputPipeIsGrown() {
        std::ifstream maxFile("/proc/sys/fs/pipe-max-size");
        long maxSize = 0;
        if (!(maxFile >> maxSize) || maxSize < (1 << 20))
            QSKIP("fs.pipe-max-size is below 1 MiB here");
        int fds[2];
        QVERIFY(::pipe2(fds, O_CLOEXEC) == 0);
        const int before = ::fcntl(fds[0], F_GETPIPE_SZ);
        QVERIFY(before > 0 && before < (1 << 20));
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
        char arg0[] = "scorch", arg1[] = "--version";
        char* argv[] = {arg0, arg1, nullptr};
        pid_t pid = -1;
        const int spawned = posix_spawn(&pid, SCORCH_BINARY, &actions, nullptr, argv, environ);
        posix_spawn_file_actions_destroy(&actions);
        ::close(fds[1]);
        QCOMPARE(spawned, 0);
        QByteArray out;
        char buf[4096];
        for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;)
            if (n > 0)
                out.append(buf, n);
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        QVERIFY(out.startsWith("scorch "));
        QCOMPARE(::fcntl(fds[0], F_GETPIPE_SZ), 1 << 20); // the pipe is shared: its reader sees the new size
        ::close(fds[0]);
    }

    void usageErrors() {
        CliResult r = runScorch({QStringLiteral("collapse")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("no FILE"));
        r = runScorch({QStringLiteral("collapse"), QStringLiteral("--bogus"), QStringLiteral("x")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("--bogus"));
    }

    void standardInputIsStreamed() {
        const QByteArray perf =
            scorch::test::readAll(scorch::test::testData(QStringLiteral("perf/two-events.perf")));
        const CliResult fromFile = runScorch(
            {QStringLiteral("collapse"), scorch::test::testData(QStringLiteral("perf/two-events.perf"))});
        const CliResult fromPipe = runScorch({QStringLiteral("collapse"), QStringLiteral("-")}, perf);
        QCOMPARE(fromPipe.exitCode, 0);
        QCOMPARE(fromPipe.out, fromFile.out);
        QCOMPARE(fromFile.out, QByteArray("demo;__libc_start_main;main;middle;leaf_a 600\n"
                                          "demo;__libc_start_main;main;middle;leaf_b 300\n"
                                          "worker_thread_2;start_thread;worker_loop;do_syscall_64 200\n"));
        // compressed data on a pipe is detected by its magic bytes too
        const QByteArray gz =
            scorch::test::readAll(scorch::test::testData(QStringLiteral("perf/two-events.perf.gz")));
        QCOMPARE(runScorch({QStringLiteral("collapse"), QStringLiteral("-")}, gz).out, fromFile.out);
    }

    void hugeLineOnAPipe() {
        // standard input is read in chunks (not mapped): the over-long line is skipped with its line number
        QByteArray text = "main;a 1\n";
        text += QByteArray(20 << 20, 'x') + " 5\nmain;b 2\n";
        const CliResult r = runScorch({QStringLiteral("info"), QStringLiteral("-")}, text);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("warnings:      1") && r.out.contains("line 2: line is 20971522 bytes long"),
                 r.out.constData());
        QVERIFY(r.out.contains("samples:       2"));
    }

    void eventSelection() {
        const QString file = scorch::test::testData(QStringLiteral("perf/two-events.perf"));
        CliResult r = runScorch(
            {QStringLiteral("collapse"), QStringLiteral("--event"), QStringLiteral("instructions:u"), file});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, QByteArray("demo;__libc_start_main;main;middle;leaf_a 700\n"));
        r = runScorch(
            {QStringLiteral("collapse"), QStringLiteral("--event"), QStringLiteral("branches"), file});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("cycles:u") && r.err.contains("instructions:u"), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
    }

    void info() {
        const CliResult r = runScorch(
            {QStringLiteral("info"), scorch::test::testData(QStringLiteral("perf/two-events.perf.xz"))});
        QCOMPARE(r.exitCode, 0);
        for (const char* expected :
             {"format:        perf script (xz-compressed)", "samples:       5", "cycles:u (period): 1,100",
              "instructions:u (period): 700", "unique stacks: 3", "max depth:     5", "threads:       3",
              "worker thread 2 [pid 1000 tid 1002]", "54.5% self  54.5% total  leaf_a", "warnings:      0"})
            QVERIFY2(r.out.contains(expected), expected);
    }

    void infoOfPerfData() {
        // perf.data: the recording's facts from its feature sections; warnings without a line say no line.
        const CliResult r = runScorch(
            {QStringLiteral("info"), scorch::test::testData(QStringLiteral("perfdata/fp-two-events.data"))});
        QCOMPARE(r.exitCode, 0);
        for (const char* expected : {"format:        perf.data", "os release:    ", "perf version:  ",
                                     "command line:  /usr/bin/perf record -q -e cpu-clock,task-clock",
                                     "cpu-clock samples (samples): 7 samples", "task-clock (ns): 14 ms"})
            QVERIFY2(r.out.contains(expected), expected);
        QVERIFY(!r.out.contains("line 0"));
        QVERIFY(!r.err.contains("line 0"));
        // the Symbols report: the test program's path from another build tree is nowhere here, and every
        // place looked at is listed; libc is at its recorded path
        QVERIFY2(r.out.contains("symbols:       2 modules with samples\n"), r.out.constData());
        QVERIFY2(r.out.contains(
                     "%  /work/wt-perfdata/build-perfdata/tests/perfprog/scorch_perfprog [86af5542df49]: "
                     "not found; searched /work/wt-perfdata/build-perfdata/tests/perfprog/scorch_perfprog, "),
                 r.out.constData());
        QVERIFY2(r.out.contains("%  /usr/lib/x86_64-linux-gnu/libc.so.6: at its recorded path"),
                 r.out.constData());
        // a debuginfod server that is not there: asked, and why it gave nothing
        const CliResult asked = runScorch(
            {QStringLiteral("info"), QStringLiteral("--debuginfod"), QStringLiteral("http://127.0.0.1:1"),
             scorch::test::testData(QStringLiteral("perfdata/fp-two-events.data"))});
        QCOMPARE(asked.exitCode, 0);
        QVERIFY2(asked.out.contains(", debuginfod http://127.0.0.1:1\n"), asked.out.constData());
        QVERIFY2(asked.out.contains("not found (debuginfod: http://127.0.0.1:1: "), asked.out.constData());
    }

    void badInputExitsNonZeroWithOneLine() {
        QTemporaryDir dir;
        const QString junk = dir.filePath(QStringLiteral("junk"));
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(1000, '\x07'));
        f.close();
        for (const QString& file : {junk, QStringLiteral("/nonexistent.perf")}) {
            for (const char* cmd : {"collapse", "info"}) {
                const CliResult r = runScorch({QString::fromUtf8(cmd), file});
                QCOMPARE(r.exitCode, 1);
                QVERIFY(r.err.startsWith("scorch: " + file.toUtf8() + ": "));
                QCOMPARE(r.err.count('\n'), 1);
                QVERIFY(r.out.isEmpty());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
