// The sampler on a real multi-threaded program (tests/data/sampler-target) in both mechanisms: where the
// samples land, inline frames and lines, the target's own output and exit code, attach and exit handling,
// the recording format, and the permission message. Nothing here depends on how fast the machine is: the
// target works until the test has the samples it needs (then a signal stops it), and every wait is bounded
// by a generous time-out that only a broken sampler reaches.
#include "patience.h"
#include "scorch/import.h"
#include "scorch/recording.h"
#include "scorch/sampler.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace scorch;
using scorch::test::kPatienceMs;

namespace {

constexpr const char* kTarget = SCORCH_SAMPLER_TARGET;
constexpr const char* kTargetFp = SCORCH_SAMPLER_TARGET_FP;
/// Samples each worker thread of a launched target gets before the test stops it: enough for the shares
/// checked below to be properties of the target's code, not of sampling noise.
constexpr int64_t kMinSamples = 100;
/// Threads of process `pid` (entries of /proc/PID/task).
qsizetype taskCount(pid_t pid) {
    return QDir(QStringLiteral("/proc/%1/task").arg(pid)).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size();
}

/// Waits until each thread named in `names` has `min` samples in the live sampler, or the recording ended,
/// or kPatienceMs passed. Returns whether they have; `counts` describes the samples per thread name.
bool waitForSamples(const Sampler& sampler, const std::vector<std::string>& names, int64_t min,
                    std::string& counts) {
    std::size_t from = 0;
    std::map<int64_t, int64_t> byTid;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kPatienceMs);
    for (;;) {
        const bool ended = sampler.finished();
        const Recording r = sampler.snapshot(from);
        from += r.samples.size();
        for (const RecordedSample& s : r.samples)
            ++byTid[s.tid];
        std::map<std::string, int64_t> byName;
        for (const auto& [tid, n] : byTid)
            byName[r.threadName(tid)] += n;
        counts.clear();
        bool enough = true;
        for (const std::string& name : names) {
            enough = enough && byName[name] >= min;
            counts += name + ": " + std::to_string(byName[name]) + " samples; ";
        }
        if (enough || ended || std::chrono::steady_clock::now() > deadline)
            return enough;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

/// Per thread name: samples, and samples whose stack contains a frame of each function name.
struct ThreadStats {
    int64_t samples = 0;
    std::map<std::string, int64_t> withFunction; // function on the stack
    std::map<std::string, int64_t> leafFunction; // outermost non-inlined frame of the leaf
};

/// Lines [first, last] of the function whose definition line contains `signature` in the target's source.
std::pair<uint32_t, uint32_t> sourceLines(const std::string& signature) {
    std::ifstream in(std::string(SCORCH_TEST_DATA) + "/sampler-target/target.cpp");
    std::string line;
    uint32_t n = 0, first = 0;
    while (std::getline(in, line)) {
        ++n;
        if (!first && line.find(signature) != std::string::npos)
            first = n;
        else if (first && line.starts_with("}"))
            return {first, n};
    }
    return {0, 0};
}

std::map<std::string, ThreadStats> statsByThread(const Profile& p) {
    std::map<std::string, ThreadStats> out;
    const ThreadCosts& tc = p.threadCosts;
    for (std::size_t i = 0; i < tc.thread.size(); ++i) {
        const int64_t cost = tc.cost[0][i];
        if (cost == 0)
            continue;
        ThreadStats& s = out[p.threads[tc.thread[i]].name];
        s.samples += cost;
        std::set<std::string> seen;
        std::string leaf;
        for (NodeId n = tc.node[i]; n != kRootNode; n = p.tree.parent(n)) {
            const Frame& f = p.frames[p.tree.frame(n)];
            const std::string name(p.strings.view(f.name));
            if (leaf.empty() && f.kind != FrameKind::Inlined)
                leaf = name;
            seen.insert(name);
        }
        for (const std::string& name : seen)
            s.withFunction[name] += cost;
        s.leafFunction[leaf] += cost;
    }
    return out;
}

/// Sum of the counts of the names containing `needle` (use names that match one function per sample when
/// `m` counts functions on the stack).
int64_t countContaining(const std::map<std::string, int64_t>& m, const std::string& needle) {
    int64_t n = 0;
    for (const auto& [name, count] : m)
        if (name.find(needle) != std::string::npos)
            n += count;
    return n;
}

/// The target started as a grandchild whose parent is not this process: an orphaned waiter process waits
/// for it and reports its exit code through a pipe. (A tracer in the same process as the target's parent
/// would compete with the parent's waitpid.)
struct Spawned {
    pid_t target = -1;
    int statusFd = -1; ///< the exit code arrives here
    int outFd = -1;    ///< the target's standard output
    bool exited = false;
    int exitCode() {
        int code = -1;
        if (read(statusFd, &code, sizeof code) != static_cast<ssize_t>(sizeof code))
            code = -1;
        exited = true;
        return code;
    }
    std::string output() {
        std::string text;
        char buf[512];
        ssize_t n;
        while ((n = read(outFd, buf, sizeof buf)) > 0)
            text.append(buf, static_cast<std::size_t>(n));
        return text;
    }
    ~Spawned() {
        if (!exited && target > 0)
            kill(target, SIGKILL); // a test that failed half-way: no target left working forever
        close(statusFd);
        close(outFd);
    }
};

std::unique_ptr<Spawned> spawnTarget(const char* seconds) {
    int info[2], out[2];
    if (pipe(info) != 0 || pipe(out) != 0)
        return nullptr;
    const pid_t first = fork();
    if (first == 0) {
        if (fork() != 0)
            _exit(0); // the waiter below is orphaned
        close(info[0]);
        close(out[0]);
        const pid_t t = fork();
        if (t == 0) {
            dup2(out[1], 1);
            execl(kTarget, kTarget, seconds, static_cast<char*>(nullptr));
            _exit(127);
        }
        close(out[1]);
        if (write(info[1], &t, sizeof t) < 0)
            _exit(1);
        int st = 0;
        waitpid(t, &st, 0);
        const int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (write(info[1], &code, sizeof code) < 0)
            _exit(1);
        _exit(0);
    }
    close(info[1]);
    close(out[1]);
    waitpid(first, nullptr, 0);
    auto s = std::make_unique<Spawned>();
    s->statusFd = info[0];
    s->outFd = out[0];
    if (read(info[0], &s->target, sizeof s->target) != static_cast<ssize_t>(sizeof s->target))
        return nullptr;
    return s;
}

/// "name: count, ..." of the largest entries, for failure messages.
std::string describe(const std::map<std::string, int64_t>& m) {
    std::vector<std::pair<int64_t, std::string>> v;
    for (const auto& [name, count] : m)
        v.emplace_back(count, name);
    std::sort(v.rbegin(), v.rend());
    std::string out;
    for (std::size_t i = 0; i < v.size() && i < 6; ++i)
        out += v[i].second + ": " + std::to_string(v[i].first) + "; ";
    return out;
}

struct Run {
    Recording recording;
    Profile profile;
    std::string output;
    int exitCode = -1;
    QString skip, error; ///< the kernel refused the mechanism / any other error
};

/// Launches `target wait` under the sampler, lets it run until each worker thread has kMinSamples samples,
/// then stops it with SIGUSR1 (it exits normally) and symbolizes the recording.
Run recordLaunch(SamplerMode mode, const char* target, const QString& dir) {
    Run run;
    const std::string out = (dir + QStringLiteral("/target.out")).toStdString();
    SamplerOptions o;
    o.mode = mode;
    o.command = {"/bin/sh", "-c", "exec \"$0\" \"$1\" > \"$2\"", target, "wait", out};
    Sampler sampler(o);
    try {
        sampler.start();
    } catch (const SamplerError& e) {
        const std::string what = e.what();
        if (e.permissionDenied || what.find("not available") != std::string::npos)
            run.skip = QStringLiteral("the kernel refuses this sampling mechanism here: ") +
                       QString::fromStdString(what);
        else
            run.error = QString::fromStdString(what);
        return run;
    }
    std::string counts;
    const bool enough = waitForSamples(sampler, {"busy", "recurse", "late"}, kMinSamples, counts);
    kill(static_cast<pid_t>(sampler.pid()), SIGUSR1); // the shell exec'd the target: same process
    sampler.wait();
    run.exitCode = sampler.waitCommand();
    run.recording = sampler.take();
    std::ifstream in(out);
    std::getline(in, run.output, '\0');
    if (!enough)
        run.error = QStringLiteral("fewer than %1 samples per worker thread: ").arg(kMinSamples) +
                    QString::fromStdString(counts + sampler.error());
    run.profile = profileFromRecording(run.recording, "test.rec");
    return run;
}

/// "cpu busy=0.4 recurse=0.4 late=0.1" of the target's output: CPU seconds of each worker thread.
std::map<std::string, double> cpuSeconds(const std::string& output) {
    std::map<std::string, double> out;
    const QRegularExpression re(QStringLiteral("cpu busy=([0-9.]+) recurse=([0-9.]+) late=([0-9.]+)"));
    const auto m = re.match(QString::fromStdString(output));
    if (m.hasMatch()) {
        out["busy"] = m.captured(1).toDouble();
        out["recurse"] = m.captured(2).toDouble();
        out["late"] = m.captured(3).toDouble();
    }
    return out;
}

/// The function each worker thread of the target runs, as the leaf of its samples.
const std::pair<const char*, const char*> kWorkers[] = {
    {"busy", "busy_work"}, {"recurse", "recurse_leaf"}, {"late", "unit"}};

/// Starts a Sampler with `o` in a child process running as user nobody and returns "STARTED", or "DENIED\n"
/// or "OTHER\n" followed by the error; nothing when it cannot switch to nobody. The child is made dumpable
/// again (setuid() left it undumpable, which would refuse perf_event_open on a command it forks before its
/// exec; a user's own shell is dumpable).
std::optional<std::string> startAsNobody(const SamplerOptions& o) {
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return std::string("OTHER\npipe() failed");
    const pid_t child = fork();
    if (child == 0) {
        close(pipefd[0]);
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(3);
        prctl(PR_SET_DUMPABLE, 1);
        std::string msg;
        try {
            Sampler s(o);
            s.start();
            msg = "STARTED";
        } catch (const SamplerError& e) {
            msg = std::string(e.permissionDenied ? "DENIED\n" : "OTHER\n") + e.what();
        }
        if (write(pipefd[1], msg.data(), msg.size()) < 0)
            _exit(4);
        _exit(0);
    }
    close(pipefd[1]);
    std::string msg;
    char buf[4096];
    ssize_t n;
    while ((n = read(pipefd[0], buf, sizeof buf)) > 0)
        msg.append(buf, static_cast<std::size_t>(n));
    close(pipefd[0]);
    int st = 0;
    waitpid(child, &st, 0);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
        return std::nullopt;
    return msg;
}

} // namespace

class TestSampler : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    /// perfLaunch and ptraceLaunch, for mechanismsAgree
    struct Seen {
        std::map<std::string, ThreadStats> stats;
        std::map<std::string, double> cpu; ///< CPU seconds per worker thread, as the target measured them
        uint64_t lost = 0;
    };
    std::map<SamplerMode, Seen> m_seen;

    void checkLaunch(SamplerMode mode, const char* target) {
        Run run = recordLaunch(mode, target, m_dir.path());
        if (!run.skip.isEmpty())
            QSKIP(qPrintable(run.skip));
        QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.output.find("errors=0") != std::string::npos, run.output.c_str());
        QCOMPARE(run.recording.exitCode, 0);
        QVERIFY(!run.recording.modules.empty());
        auto stats = statsByThread(run.profile);
        QVERIFY2(stats.count("busy") && stats.count("recurse") && stats.count("late"),
                 "the busy, recurse and late threads all have samples");

        // >= 90% of the busy thread's samples in busy_work, with the inlined mix() inside it.
        const ThreadStats& busy = stats["busy"];
        QVERIFY(busy.samples >= kMinSamples);
        const int64_t inBusyWork = countContaining(busy.leafFunction, "busy_work");
        QVERIFY2(inBusyWork * 10 >= busy.samples * 9,
                 qPrintable(
                     QStringLiteral("%1 of %2 busy samples in busy_work").arg(inBusyWork).arg(busy.samples)));
        // Complete stacks, down to the thread start in libc (unwound through libstdc++ without frame
        // pointers).
        QVERIFY2(countContaining(busy.withFunction, "start_thread") * 10 >= busy.samples * 9,
                 "busy stacks reach start_thread");
        const auto mixLines = sourceLines("uint64_t mix(");
        const auto busyLines = sourceLines("uint64_t busy_work(");
        QVERIFY(mixLines.first > 0 && busyLines.first > 0);
        bool inlineMix = false;
        for (std::size_t i = 1; i < run.profile.frames.size(); ++i) {
            const Frame& f = run.profile.frames[FrameId{static_cast<uint32_t>(i)}];
            inlineMix =
                inlineMix || (f.kind == FrameKind::Inlined &&
                              run.profile.strings.view(f.name).find("mix") != std::string_view::npos &&
                              run.profile.strings.view(f.file).ends_with("target.cpp"));
        }
        QVERIFY2(inlineMix, "an inline frame for mix() declared in target.cpp");
        // file:line: the inlined mix() executes its own lines; busy_work calls it from its own lines.
        const LineCosts& lc = run.profile.lineCosts;
        int64_t mixSelf = 0, busyLine = 0;
        for (std::size_t i = 0; i < lc.size(); ++i) {
            const Frame& f = run.profile.frames[lc.frame[i]];
            const std::string_view fn = run.profile.strings.view(f.name);
            const std::string_view file = run.profile.strings.view(lc.file[i]);
            const uint32_t line = lc.line[i];
            if (!file.ends_with("target.cpp"))
                continue;
            if (f.kind == FrameKind::Inlined && fn.find("mix") != std::string_view::npos &&
                line >= mixLines.first && line <= mixLines.second)
                mixSelf += lc.self[0][i];
            if (fn.find("busy_work") != std::string_view::npos && line >= busyLines.first &&
                line <= busyLines.second)
                busyLine += lc.total[0][i];
        }
        QVERIFY2(mixSelf * 2 >= busy.samples,
                 qPrintable(
                     QStringLiteral("%1 of %2 busy samples on mix() lines").arg(mixSelf).arg(busy.samples)));
        QVERIFY2(busyLine * 10 >= busy.samples * 9, "busy_work samples carry target.cpp lines of busy_work");

        // Deep recursion: 40 levels of recurse() under the recurse thread, most samples in recurse_leaf.
        const ThreadStats& rec = stats["recurse"];
        QVERIFY2(countContaining(rec.leafFunction, "recurse") * 10 >= rec.samples * 9,
                 describe(rec.leafFunction).c_str());
        int deepest = 0;
        for (std::size_t i = 0; i < run.profile.threadCosts.node.size(); ++i) {
            int depth = 0;
            for (NodeId n = run.profile.threadCosts.node[i]; n != kRootNode; n = run.profile.tree.parent(n))
                depth += run.profile.nodeName(n).ends_with("::recurse") ? 1 : 0;
            deepest = std::max(deepest, depth);
        }
        QVERIFY2(deepest >= 40, // recurse(40) .. recurse(1); recurse(0) tail-calls recurse_leaf
                 qPrintable(QStringLiteral("deepest recursion seen: %1").arg(deepest)));

        // The late thread (started 300 ms in) in late_work/unit.
        const ThreadStats& late = stats["late"];
        QVERIFY(countContaining(late.withFunction, "late_work") * 10 >= late.samples * 9);

        m_seen[mode] = {stats, cpuSeconds(run.output), run.recording.lost};
        if (mode == SamplerMode::Ptrace) {
            // Wall-clock: the sleeping main thread is sampled too.
            QVERIFY2(stats.count("sampler_target_"), "the blocked main thread has samples in ptrace mode");
        }
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void perfLaunch() { checkLaunch(SamplerMode::Perf, kTarget); }
    void ptraceLaunch() { checkLaunch(SamplerMode::Ptrace, kTarget); }
    void perfFramePointers() {
        Run run = recordLaunch(SamplerMode::Perf, kTargetFp, m_dir.path());
        if (!run.skip.isEmpty())
            QSKIP(qPrintable(run.skip));
        QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
        QCOMPARE(run.exitCode, 0);
        auto stats = statsByThread(run.profile);
        QVERIFY(countContaining(stats["busy"].leafFunction, "busy_work") * 10 >= stats["busy"].samples * 9);
    }

    void mechanismsAgree() {
        if (m_seen.size() < 2)
            QSKIP("needs both perfLaunch and ptraceLaunch");
        // Both mechanisms attribute the majority of each worker thread's samples to the function it runs.
        for (const auto& [mode, seen] : m_seen) {
            for (const auto& [thread, fn] : kWorkers) {
                const ThreadStats& t = seen.stats.at(thread);
                int64_t inFn = 0;
                for (const auto& [leaf, count] : t.leafFunction)
                    if (leaf.ends_with("::" + std::string(fn)))
                        inFn += count;
                QVERIFY2(inFn * 2 > t.samples,
                         qPrintable(
                             QStringLiteral("%1 (%2): %3 of %4 samples in %5; %6")
                                 .arg(QLatin1String(mode == SamplerMode::Perf ? "perf" : "ptrace"),
                                      QLatin1String(thread))
                                 .arg(inFn)
                                 .arg(t.samples)
                                 .arg(QLatin1String(fn), QString::fromStdString(describe(t.leafFunction)))));
            }
        }
        // perf samples CPU time (cpu-clock events of each thread): a worker thread's share of the workers'
        // samples is its share of the CPU time they consumed, as the target measured it (the thread CPU
        // clocks), however the machine shared its CPUs among them. Lost samples widen the margin. (ptrace
        // samples wall-clock time: each thread about equally, whether it ran or waited for a CPU.)
        const Seen& perf = m_seen[SamplerMode::Perf];
        QCOMPARE(perf.cpu.size(), std::size_t(3));
        double cpuAll = 0;
        int64_t samplesAll = 0;
        for (const auto& [thread, fn] : kWorkers) {
            cpuAll += perf.cpu.at(thread);
            samplesAll += perf.stats.at(thread).samples;
        }
        QVERIFY(cpuAll > 0 && samplesAll > 0);
        const double margin = 0.1 + static_cast<double>(perf.lost) / static_cast<double>(samplesAll);
        for (const auto& [thread, fn] : kWorkers) {
            const double sampled = static_cast<double>(perf.stats.at(thread).samples) / samplesAll;
            const double cpu = perf.cpu.at(thread) / cpuAll;
            qInfo("%s: %.3f of the perf samples, %.3f of the CPU time", thread, sampled, cpu);
            QVERIFY2(std::abs(sampled - cpu) <= margin,
                     qPrintable(QStringLiteral("%1: %2 of the samples, %3 of the CPU time (%4 s of %5 s)")
                                    .arg(QLatin1String(thread))
                                    .arg(sampled)
                                    .arg(cpu)
                                    .arg(perf.cpu.at(thread))
                                    .arg(cpuAll)));
        }
    }

    void attachAndTargetExits_data() {
        QTest::addColumn<int>("mode");
        QTest::newRow("perf") << int(SamplerMode::Perf);
        QTest::newRow("ptrace") << int(SamplerMode::Ptrace);
    }
    void attachAndTargetExits() {
        QFETCH(int, mode);
        auto target = spawnTarget("wait");
        QVERIFY(target);
        // Attach once all four threads run (the late one starts 300 ms in).
        QTRY_VERIFY_WITH_TIMEOUT(taskCount(target->target) >= 4, kPatienceMs);
        SamplerOptions o;
        o.mode = static_cast<SamplerMode>(mode);
        o.pid = target->target;
        Sampler sampler(o); // no duration: only the target's exit (or stop()) ends the recording
        try {
            sampler.start();
        } catch (const SamplerError& e) {
            kill(target->target, SIGKILL);
            if (e.permissionDenied)
                QSKIP(e.what());
            QFAIL(e.what());
        }
        std::string counts;
        const bool enough = waitForSamples(sampler, {"busy", "late"}, 10, counts);
        timespec now{};
        clock_gettime(CLOCK_MONOTONIC, &now); // (the samples' clock)
        const uint64_t signalled = uint64_t(now.tv_sec) * 1'000'000'000u + uint64_t(now.tv_nsec);
        kill(target->target, SIGUSR1);
        QVERIFY2(enough, counts.c_str());
        // The target exits: the recording ends by itself.
        QTRY_VERIFY_WITH_TIMEOUT(sampler.finished(), kPatienceMs);
        sampler.wait();
        QCOMPARE(target->exitCode(), 0);
        QVERIFY(target->output().find("errors=0") != std::string::npos);
        Recording r = sampler.take();
        QVERIFY(r.samples.size() >= 20);
        std::set<std::string> names;
        for (const RecordedThread& t : r.threads)
            names.insert(t.name);
        QVERIFY(names.count("busy") && names.count("late"));
        // Symbolizing after the process is gone: binaries unchanged, build-ids match. Until the signal the
        // busy thread runs nothing but busy_work(); after it, it leaves busy_work and exits, which takes more
        // of the sampling periods the busier the machine is, so only the samples before the signal are
        // counted.
        std::erase_if(r.samples, [&](const RecordedSample& s) { return s.timeNs >= signalled; });
        Profile p = profileFromRecording(r, "attach.rec");
        auto stats = statsByThread(p);
        QVERIFY(stats["busy"].samples >= 1);
        QVERIFY2(countContaining(stats["busy"].leafFunction, "busy_work") * 10 >= stats["busy"].samples * 9,
                 qPrintable(QStringLiteral("%1 of %2 busy samples in busy_work")
                                .arg(countContaining(stats["busy"].leafFunction, "busy_work"))
                                .arg(stats["busy"].samples)));
    }

    void stopDetaches_data() {
        QTest::addColumn<int>("mode");
        QTest::newRow("perf") << int(SamplerMode::Perf);
        QTest::newRow("ptrace") << int(SamplerMode::Ptrace);
    }
    void stopDetaches() {
        // Attach, stop after a few samples, and check the target runs on untraced and ends normally.
        QFETCH(int, mode);
        auto target = spawnTarget("wait");
        QVERIFY(target);
        QTRY_VERIFY_WITH_TIMEOUT(taskCount(target->target) >= 3, kPatienceMs);
        SamplerOptions o;
        o.mode = static_cast<SamplerMode>(mode);
        o.pid = target->target;
        {
            Sampler sampler(o);
            try {
                sampler.start();
            } catch (const SamplerError& e) {
                kill(target->target, SIGKILL);
                if (e.permissionDenied)
                    QSKIP(e.what());
                QFAIL(e.what());
            }
            std::string counts;
            const bool enough = waitForSamples(sampler, {"busy"}, 5, counts);
            sampler.stop();
            sampler.wait();
            if (!enough)
                kill(target->target, SIGKILL);
            QVERIFY2(enough, counts.c_str());
        }
        // The target waits for its stop signal: it is still there, untraced and running.
        std::ifstream status("/proc/" + std::to_string(target->target) + "/status");
        std::string line, tracer, state;
        while (std::getline(status, line)) {
            if (line.starts_with("TracerPid:"))
                tracer = line;
            if (line.starts_with("State:"))
                state = line;
        }
        kill(target->target, SIGUSR1);
        QCOMPARE(QString::fromStdString(tracer).simplified(), QStringLiteral("TracerPid: 0"));
        QVERIFY2(state.find("(stopped)") == std::string::npos && state.find("tracing") == std::string::npos,
                 state.c_str());
        QCOMPARE(target->exitCode(), 0);
        QVERIFY(target->output().find("errors=0") != std::string::npos);
    }

    void launchFailure() {
        SamplerOptions o;
        o.mode = SamplerMode::Ptrace;
        o.command = {"/nonexistent/program"};
        Sampler sampler(o);
        try {
            sampler.start();
            QFAIL("expected an error");
        } catch (const SamplerError& e) {
            if (e.permissionDenied)
                QSKIP(e.what());
            QVERIFY2(std::strstr(e.what(), "/nonexistent/program") && std::strstr(e.what(), "No such file"),
                     e.what());
        }
    }

    void permissionMessage() {
        // As an unprivileged user, attaching to PID 1 must fail with the advice, in both mechanisms.
        for (SamplerMode mode : {SamplerMode::Perf, SamplerMode::Ptrace}) {
            SamplerOptions o;
            o.mode = mode;
            o.pid = 1;
            const std::optional<std::string> started = startAsNobody(o);
            if (!started)
                QSKIP("cannot switch to user nobody");
            const std::string& msg = *started;
            QVERIFY2(msg.starts_with("DENIED\n"), msg.c_str());
            const char* setting =
                mode == SamplerMode::Perf ? "kernel.perf_event_paranoid = " : "kernel.yama.ptrace_scope = ";
            QVERIFY2(msg.find(setting) != std::string::npos, msg.c_str());
            std::ifstream value(mode == SamplerMode::Perf ? "/proc/sys/kernel/perf_event_paranoid"
                                                          : "/proc/sys/kernel/yama/ptrace_scope");
            std::string v = "absent";
            if (value)
                value >> v;
            QVERIFY2(msg.find(setting + v) != std::string::npos, msg.c_str());
            QVERIFY(msg.find("scorch record -- COMMAND") != std::string::npos); // launch instead
            QVERIFY(msg.find("setcap") != std::string::npos && msg.find("root") != std::string::npos);
            QVERIFY(msg.find("user id 0") != std::string::npos); // names the owner
        }
    }

    void recordingRoundTrip() {
        Recording r;
        r.mode = "ptrace";
        r.frequency = 99;
        r.pid = 42;
        r.command = {"a", "b c"};
        r.startNs = 5;
        r.endNs = 10;
        r.exitCode = 3;
        r.modules.push_back({0x1000, 0x2000, 0x100, 6, "/bin/true", "abcd"});
        r.threads.push_back({42, 6, "main"});
        const uint64_t ips[] = {0x1234, 0x1500};
        r.addSample(42, 7, ips, 2);
        r.notes.push_back("note");
        const std::string bytes = serializeRecording(r);
        QCOMPARE(detectFormat(bytes), Format::ScorchRecording);
        Recording back = parseRecording(bytes, "x.rec");
        QCOMPARE(back.mode, r.mode);
        QCOMPARE(back.command, r.command);
        QCOMPARE(back.exitCode, 3);
        QCOMPARE(back.modules.size(), std::size_t(1));
        QCOMPARE(back.modules[0].buildId, std::string("abcd"));
        QCOMPARE(back.samples.size(), std::size_t(1));
        QCOMPARE(back.ips, r.ips);
        QCOMPARE(back.notes, r.notes);
        // Truncated in the middle of a sample: an error naming the file and byte offset.
        try {
            parseRecording(std::string_view(bytes).substr(0, bytes.size() - 12), "x.rec");
            QFAIL("expected an error");
        } catch (const ImportError& e) {
            QVERIFY2(std::strstr(e.what(), "x.rec: byte offset ") && std::strstr(e.what(), "truncated"),
                     e.what());
        }
        // A later version is refused with a clear message.
        std::string newer = bytes;
        newer[8] = 9;
        try {
            parseRecording(newer, "x.rec");
            QFAIL("expected an error");
        } catch (const ImportError& e) {
            QVERIFY2(std::strstr(e.what(), "version 9"), e.what());
        }
        // Atomic write and import through importProfile.
        const std::string path = (m_dir.path() + QStringLiteral("/rt.rec")).toStdString();
        writeRecording(r, path);
        QFile written(QString::fromStdString(path));
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(written.readAll().toStdString(), bytes);
        Profile p = importProfile(path);
        QCOMPARE(p.meta.format, Format::ScorchRecording);
        QCOMPARE(p.meta.samples, uint64_t(1));
    }

    /// An off-CPU recording (`record --off-cpu`): timed samples survive the file, and the profile has the
    /// off-cpu and wall cost types in ns with the reason as the leaf ([no stack] when none was taken).
    void offCpuRecording() {
        Recording r;
        r.mode = "perf";
        r.frequency = 1000;
        r.pid = 42;
        r.offCpu = true;
        r.periodNs = 1'000'000;
        r.threads.push_back({42, 1, "main"});
        const uint64_t ips[] = {0x1234, 0x1500};
        r.addTimed(42, 10, 1'000'000, 0, ips, 2);       // on-CPU: one period
        r.addTimed(42, 20, 7'000'000, 'S', ips, 2);     // sleeping 7 ms
        r.addTimed(42, 30, 2'000'000, 'R', ips + 1, 1); // preempted 2 ms
        r.addTimed(42, 40, 3'000'000, '?', nullptr, 0); // blocked, no stack
        QCOMPARE(r.samples.size(), std::size_t(4));
        const Recording back = parseRecording(serializeRecording(r), "off.rec");
        QVERIFY(back.offCpu);
        QCOMPARE(back.periodNs, r.periodNs);
        QCOMPARE(back.samples.size(), r.samples.size());
        for (std::size_t i = 0; i < r.samples.size(); ++i) {
            QCOMPARE(back.samples[i].durationNs, r.samples[i].durationNs);
            QCOMPARE(back.samples[i].state, r.samples[i].state);
            QCOMPARE(back.samples[i].count, r.samples[i].count);
        }
        const Profile p = profileFromRecording(back, "off.rec", nullptr, false);
        const int cpu = p.costTypeIndex("cpu-clock"), off = p.costTypeIndex("off-cpu"),
                  wall = p.costTypeIndex("wall");
        QVERIFY(cpu >= 0 && off >= 0 && wall >= 0);
        QCOMPARE(p.costTypes[static_cast<std::size_t>(off)].unit, CostUnit::Nanoseconds);
        QCOMPARE(p.tree.grandTotal(static_cast<std::size_t>(cpu)), 1);
        QCOMPARE(p.tree.grandTotal(static_cast<std::size_t>(off)), 12'000'000);
        QCOMPARE(p.tree.grandTotal(static_cast<std::size_t>(wall)), 13'000'000);
        std::map<std::string, int64_t> leaves; // off-CPU ns by leaf name, with its caller's
        for (NodeId n = 1; n < p.tree.size(); ++n)
            if (const int64_t v = p.tree.self(static_cast<std::size_t>(off), n)) {
                const NodeId up = p.tree.parent(n);
                const std::string caller = up == kRootNode ? "" : std::string(p.frameName(p.tree.frame(up)));
                leaves[std::string(p.frameName(p.tree.frame(n))) + " in " + caller] += v;
            }
        QCOMPARE(leaves.size(), std::size_t(3));
        QCOMPARE(leaves["[blocked] in [no stack]"], 3'000'000);
        int64_t sleeping = 0, preempted = 0;
        for (const auto& [name, v] : leaves) {
            sleeping += name.starts_with("[blocked: S] in ") ? v : 0;
            preempted += name.starts_with("[preempted] in ") ? v : 0;
        }
        QCOMPARE(sleeping, 7'000'000);
        QCOMPARE(preempted, 2'000'000);
        // a sample of 0 ns is refused with its byte offset
        std::string bad = serializeRecording(r);
        const std::string duration(reinterpret_cast<const char*>(&r.samples[1].durationNs), 8);
        const std::size_t at = bad.find(duration);
        QVERIFY(at != std::string::npos);
        bad.replace(at, 8, std::string(8, '\0'));
        try {
            parseRecording(bad, "off.rec");
            QFAIL("expected an error");
        } catch (const ImportError& e) {
            QVERIFY2(std::strstr(e.what(), "off.rec: byte offset ") && std::strstr(e.what(), "0 ns"),
                     e.what());
        }
    }

    /// `--mode perf --off-cpu` needs the stack of every context switch, which an unprivileged user does not
    /// get with kernel.perf_event_paranoid 2: refused with the setting, its value and the ways out (ptrace).
    void offCpuPerfPermission() {
        SamplerOptions o;
        o.mode = SamplerMode::Perf;
        o.offCpu = true;
        o.command = {"/bin/true"};
        const std::optional<std::string> started = startAsNobody(o);
        if (!started)
            QSKIP("cannot switch to user nobody");
        const std::string& msg = *started;
        std::ifstream value("/proc/sys/kernel/perf_event_paranoid");
        int paranoid = 2;
        value >> paranoid;
        if (paranoid <= 1)
            QSKIP("kernel.perf_event_paranoid is 1 or lower here: context-switch stacks are allowed");
        QVERIFY2(msg.starts_with("DENIED\n"), msg.c_str());
        QVERIFY2(msg.find("kernel.perf_event_paranoid is " + std::to_string(paranoid)) != std::string::npos,
                 msg.c_str());
        QVERIFY(msg.find("--mode ptrace --off-cpu") != std::string::npos);
        QVERIFY(msg.find("CAP_PERFMON") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestSampler)
#include "tst_sampler.moc"
