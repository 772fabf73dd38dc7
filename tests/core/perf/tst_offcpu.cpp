// Off-CPU and wall-clock time (issue 14): recordings of scorch_offcpuprog made here with
// `perf record -e sched:sched_switch --switch-events -g` (and with cpu-clock beside it, and --switch-events
// alone), the mutex case, and bad input made by editing a real recording's records: switch-outs without
// their sched_switch sample, switch-ins on another CPU, a thread whose switch-in is missing at the end.
// The bounds are those of the program's sleeps and lock waits (at least 20 x 50 ms, at least 3 x 200 ms of
// the holder's CPU time), which hold however loaded the machine is.
#include "patience.h"
#include "scorch/import.h"
#include "testutil.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cstring>
#include <functional>
#include <map>

using namespace scorch;

namespace {

constexpr int64_t kMs = 1000000;

/// Runs perf with `args`; true when it finished with exit code 0.
bool perf(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral("perf"), args);
    return p.waitForFinished(scorch::test::kPatienceMs) && p.exitStatus() == QProcess::NormalExit &&
           p.exitCode() == 0;
}

/// Records `scorch_offcpuprog mode` with the perf options `events` into `out`; false when perf cannot.
bool record(const QStringList& events, const QString& mode, const QString& out) {
    QStringList args = {QStringLiteral("record"), QStringLiteral("-q")};
    args << events << QStringLiteral("-g") << QStringLiteral("-o") << out << QStringLiteral("--")
         << QStringLiteral(SCORCH_OFFCPUPROG) << mode;
    return perf(args);
}

/// Sum of cost `type` of the nodes (self costs) that have a frame starting with `function` on their path
/// (empty: every node) and, when `leaf` is given, a leaf frame starting with it.
int64_t costUnder(const Profile& p, int type, std::string_view function, std::string_view leaf = {}) {
    std::vector<char> under(p.tree.size(), 0);
    int64_t sum = 0;
    for (NodeId n = 1; n < p.tree.size(); ++n) {
        const std::string_view name = p.nodeName(n);
        under[n] = under[p.tree.parent(n)] || function.empty() || name.starts_with(function);
        if (under[n] && (leaf.empty() || name.starts_with(leaf)))
            sum += p.tree.self(static_cast<std::size_t>(type), n);
    }
    return sum;
}

bool hasWarning(const Profile& p, std::string_view text) {
    for (const auto& w : p.meta.warnings)
        if (w.message.find(text) != std::string::npos)
            return true;
    return false;
}

std::string recordingNote(const Profile& p, const std::string& key) {
    for (const auto& [k, v] : p.meta.recording)
        if (k == key)
            return v;
    return {};
}

/// The records of a (file-mode, uncompressed) perf.data recording with one event, for editing.
struct PerfFile {
    QByteArray bytes;
    uint64_t sampleType = 0;
    struct Record {
        qsizetype at;
        uint32_t type;
        uint16_t misc, size;
    };
    std::vector<Record> records;

    template <typename T>
    T get(qsizetype at) const {
        T v;
        std::memcpy(&v, bytes.constData() + at, sizeof v);
        return v;
    }
    template <typename T>
    void put(qsizetype at, T v) {
        std::memcpy(bytes.data() + at, &v, sizeof v);
    }

    bool load(const QString& path) {
        bytes = test::readAll(path);
        if (bytes.size() < 104 || !bytes.startsWith("PERFILE2"))
            return false;
        const auto attrsAt = static_cast<qsizetype>(get<uint64_t>(24));
        sampleType = get<uint64_t>(attrsAt + 24);
        // every event's records are read with the first one's layout: refuse a file where they differ
        const auto attrEntry = static_cast<qsizetype>(get<uint64_t>(16)) + 16;
        for (qsizetype at = attrsAt;
             attrEntry > 16 && at < attrsAt + static_cast<qsizetype>(get<uint64_t>(32)); at += attrEntry)
            if (get<uint64_t>(at + 24) != sampleType) {
                qWarning("%s: its events have different sample_type layouts", qPrintable(path));
                return false;
            }
        const auto dataAt = static_cast<qsizetype>(get<uint64_t>(40));
        const auto dataEnd = dataAt + static_cast<qsizetype>(get<uint64_t>(48));
        for (qsizetype at = dataAt; at + 8 <= dataEnd && at + 8 <= bytes.size();) {
            const Record r{at, get<uint32_t>(at), get<uint16_t>(at + 4), get<uint16_t>(at + 6)};
            if (r.size < 8 || r.type == 81 || r.type == 83) // zstd-compressed records are not edited here
                return false;
            records.push_back(r);
            at += r.size;
        }
        return !records.empty();
    }
    bool save(const QString& path) const {
        QFile f(path);
        return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
    }

    // sample_type bits
    static constexpr uint64_t kIp = 1, kTid = 2, kTime = 4, kId = 64, kCpu = 128, kStream = 512,
                              kIdent = 65536;
    /// Where a sample keeps its pid (tid 4 bytes later) and its time.
    qsizetype sampleTid(const Record& r) const {
        return r.at + 8 + ((sampleType & kIdent) ? 8 : 0) + ((sampleType & kIp) ? 8 : 0);
    }
    qsizetype sampleTime(const Record& r) const { return sampleTid(r) + 8; }
    /// Where a non-sample record's sample_id keeps pid/tid, time and CPU.
    qsizetype trailer(const Record& r) const {
        return r.at + r.size - 8 * std::popcount(sampleType & (kTid | kTime | kId | kStream | kCpu | kIdent));
    }
    qsizetype trailerTime(const Record& r) const { return trailer(r) + 8; }
    qsizetype trailerCpu(const Record& r) const {
        return trailer(r) + 8 * (2 + ((sampleType & kId) ? 1 : 0) + ((sampleType & kStream) ? 1 : 0));
    }
    int32_t tidOf(const Record& r) const {
        if (r.type == 9)
            return get<int32_t>(sampleTid(r) + 4);
        return get<int32_t>(trailer(r) + 4);
    }
    uint64_t timeOf(const Record& r) const {
        return get<uint64_t>(r.type == 9 ? sampleTime(r) : trailerTime(r));
    }
    static bool switchIn(const Record& r) { return r.type == 14 && !(r.misc & (1u << 13)); }
};

/// `perf script` text of a recording with the fields off-CPU time needs (README: Formats).
QByteArray scriptText(const QString& file) {
    QProcess p;
    p.start(QStringLiteral("perf"),
            {QStringLiteral("script"), QStringLiteral("--ns"), QStringLiteral("--show-switch-events"),
             QStringLiteral("-F"), QStringLiteral("comm,pid,tid,cpu,time,event,trace,ip,sym,dso"),
             QStringLiteral("-i"), file});
    p.waitForFinished(scorch::test::kPatienceMs);
    return p.readAllStandardOutput();
}

Profile fromScript(const QByteArray& text) {
    return test::fromText(text.toStdString(), "offcpu.perfscript");
}

/// A header line's "pid/tid", "[cpu]" and "seconds.nanoseconds:" tokens.
struct ScriptHeader {
    int64_t tid = -1;
    qsizetype cpuAt = -1; ///< the cpu token's position in the line
    int64_t timeNs = -1;
    bool switchIn = false;
};
ScriptHeader scriptHeader(const QByteArray& line) {
    ScriptHeader h;
    if (line.isEmpty() || line[0] == ' ' || line[0] == '\t')
        return h;
    const QList<QByteArray> tokens = line.split(' ');
    qsizetype at = 0;
    for (const QByteArray& t : tokens) {
        if (t.contains('/') && h.tid < 0 && !t.startsWith("prev") && t.split('/').size() == 2 &&
            !t.split('/')[1].isEmpty() && t.split('/')[1].toLongLong() > 0)
            h.tid = t.split('/')[1].toLongLong();
        else if (t.startsWith('[') && t.endsWith(']') && h.cpuAt < 0)
            h.cpuAt = at;
        else if (t.endsWith(':') && t.contains('.') && h.timeNs < 0) {
            const QList<QByteArray> parts = t.chopped(1).split('.');
            if (parts.size() == 2 && parts[1].size() == 9)
                h.timeNs = parts[0].toLongLong() * 1000000000 + parts[1].toLongLong();
        }
        at += t.size() + 1;
    }
    h.switchIn = line.contains("PERF_RECORD_SWITCH IN");
    return h;
}

} // namespace

class TestOffCpu : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_sleep, m_both, m_mutex;

    QString path(const char* name) const { return m_dir.filePath(QString::fromUtf8(name)); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const QStringList sched = {QStringLiteral("-e"), QStringLiteral("sched:sched_switch"),
                                   QStringLiteral("--switch-events")};
        if (!record(sched, QStringLiteral("sleep"), path("sleep.data"))) {
            qWarning("perf record -e sched:sched_switch --switch-events does not work here (perf missing, "
                     "perf_event_paranoid, or no tracefs access): the off-CPU recordings are skipped");
            return;
        }
        m_sleep = path("sleep.data");
        QVERIFY(record(QStringList{QStringLiteral("-e"), QStringLiteral("cpu-clock")} + sched,
                       QStringLiteral("sleep"), path("both.data")));
        m_both = path("both.data");
        QVERIFY(record(sched, QStringLiteral("mutex"), path("mutex.data")));
        m_mutex = path("mutex.data");
    }

    void sleepingFunction() {
        if (m_sleep.isEmpty())
            QSKIP("perf cannot record sched_switch here");
        const Profile p = importProfile(m_sleep.toStdString());
        const int off = p.costTypeIndex("off-cpu"), wall = p.costTypeIndex("wall");
        QVERIFY(off >= 0 && wall >= 0);
        QCOMPARE(p.costTypes[static_cast<std::size_t>(off)].unit, CostUnit::Nanoseconds);
        const int64_t all = p.tree.grandTotal(static_cast<std::size_t>(off));
        const int64_t sleeping = costUnder(p, off, "sleepPhase");
        const int64_t sleepingBlocked = costUnder(p, off, "sleepPhase", "[blocked: S]");
        const int64_t blocked = costUnder(p, off, "", "[blocked");
        const int64_t computePreempted = costUnder(p, off, "computePhase", "[preempted]");
        qInfo("off-CPU: %.3f s in all, %.3f s under sleepPhase (%.3f s blocked in S), %.3f s blocked in all, "
              "%.3f s preempted under computePhase",
              double(all) / 1e9, double(sleeping) / 1e9, double(sleepingBlocked) / 1e9, double(blocked) / 1e9,
              double(computePreempted) / 1e9);
        // 20 sleeps of at least 50 ms each, the kernel's own leaves under them
        QVERIFY(sleepingBlocked >= 20 * 50 * kMs);
        // The waiting the program chose (blocked, not preempted) is nearly all in its sleeps: at least 70%.
        // (Preemption in computePhase depends on the machine's load, not on the program.)
        QVERIFY(sleepingBlocked * 10 >= blocked * 7);
        QVERIFY(costUnder(p, off, "computePhase", "[blocked") * 20 < sleepingBlocked);
        // wall = off-CPU here: no CPU event
        QCOMPARE(p.tree.grandTotal(static_cast<std::size_t>(wall)), all);
        QVERIFY(recordingNote(p, "context switches").find("switch-outs") != std::string::npos);
    }

    void wallIsOnPlusOff() {
        if (m_both.isEmpty())
            QSKIP("perf cannot record sched_switch here");
        const Profile p = importProfile(m_both.toStdString());
        const int off = p.costTypeIndex("off-cpu"), wall = p.costTypeIndex("wall"),
                  cpu = p.costTypeIndex("cpu-clock");
        QVERIFY(off >= 0 && wall >= 0 && cpu >= 0);
        // per frame: wall = on-CPU (cpu-clock periods, ns) + off-CPU
        for (NodeId n = 0; n < p.tree.size(); ++n)
            QCOMPARE(p.tree.total(static_cast<std::size_t>(wall), n),
                     p.tree.total(static_cast<std::size_t>(cpu), n) +
                         p.tree.total(static_cast<std::size_t>(off), n));
        QVERIFY(costUnder(p, off, "sleepPhase", "[blocked: S]") >= 20 * 50 * kMs);
        // computePhase computes 20 x 50 ms of CPU time: its wall time has an on-CPU part of about that
        const int64_t computeOn = costUnder(p, wall, "computePhase") - costUnder(p, off, "computePhase");
        qInfo("computePhase: %.3f s on-CPU", double(computeOn) / 1e9);
        QVERIFY(computeOn >= 700 * kMs && computeOn <= 1300 * kMs);
    }

    void pipeMode() {
        if (m_sleep.isEmpty())
            QSKIP("perf cannot record sched_switch here");
        // `perf record -o -`: the tracepoint formats come as a record among the others
        QProcess p;
        p.setStandardOutputFile(path("pipe.data"));
        p.start(QStringLiteral("perf"),
                {QStringLiteral("record"), QStringLiteral("-q"), QStringLiteral("-e"),
                 QStringLiteral("sched:sched_switch"), QStringLiteral("--switch-events"),
                 QStringLiteral("-g"), QStringLiteral("-o"), QStringLiteral("-"), QStringLiteral("--"),
                 QStringLiteral(SCORCH_OFFCPUPROG), QStringLiteral("sleep")});
        QVERIFY(p.waitForFinished(scorch::test::kPatienceMs));
        QCOMPARE(p.exitCode(), 0);
        const Profile pipe = importProfile(path("pipe.data").toStdString());
        const int off = pipe.costTypeIndex("off-cpu");
        QVERIFY(off >= 0);
        QVERIFY(costUnder(pipe, off, "sleepPhase", "[blocked: S]") >= 20 * 50 * kMs);
    }

    void systemWide() {
        if (m_sleep.isEmpty())
            QSKIP("perf cannot record sched_switch here");
        // `perf record -a` without --switch-events: the switch-in is the sched_switch of the CPU's next task
        if (!perf({QStringLiteral("record"), QStringLiteral("-q"), QStringLiteral("-a"), QStringLiteral("-e"),
                   QStringLiteral("sched:sched_switch"), QStringLiteral("-g"), QStringLiteral("-o"),
                   path("system.data"), QStringLiteral("--"), QStringLiteral(SCORCH_OFFCPUPROG),
                   QStringLiteral("sleep")}))
            QSKIP("perf record -a does not work here (perf_event_paranoid)");
        const Profile p = importProfile(path("system.data").toStdString());
        const int off = p.costTypeIndex("off-cpu");
        QVERIFY(off >= 0);
        // Only that the sleeps are found blocked, not their whole time: on a busy machine a system-wide
        // recording loses switch-ins (perf's per-CPU buffers overflow or reach the file out of order), and
        // the intervals they close are then not charged (a known gap: the README's off-CPU section).
        const int64_t sleeping = costUnder(p, off, "sleepPhase", "[blocked: S]");
        if (sleeping == 0 && hasWarning(p, "events were lost"))
            QSKIP("perf lost events of this system-wide recording (a busy machine), the sleeps' among them");
        QVERIFY(sleeping > 0);
        QVERIFY(recordingNote(p, "context switches").find("switch-outs") != std::string::npos);
    }

    void switchEventsAlone() {
        if (m_sleep.isEmpty())
            QSKIP("perf cannot record sched_switch here");
        // no sched_switch samples: the off-CPU time goes to each thread's last sampled stack
        if (!record({QStringLiteral("-e"), QStringLiteral("cpu-clock"), QStringLiteral("--switch-events")},
                    QStringLiteral("sleep"), path("switches.data")))
            QSKIP("perf record --switch-events does not work here");
        const Profile p = importProfile(path("switches.data").toStdString());
        const int off = p.costTypeIndex("off-cpu");
        QVERIFY(off >= 0);
        QVERIFY(hasWarning(p, "last sampled stack"));
        const int64_t blocked = costUnder(p, off, "", "[blocked]"), underMain = costUnder(p, off, "main");
        qInfo("switch events alone: %.3f s blocked, %.3f s of it under main", double(blocked) / 1e9,
              double(underMain) / 1e9);
        QVERIFY(blocked >= 20 * 50 * kMs);
        // most under main: the last sample before a sleep is nearly always in computePhase, but on a busy
        // machine one can be taken where the frame-pointer stack does not reach main (in libc, at start-up)
        QVERIFY(underMain * 2 >= blocked);
    }

    void lockWait() {
        if (m_mutex.isEmpty())
            QSKIP("perf cannot record sched_switch here");
        const Profile p = importProfile(m_mutex.toStdString());
        const int off = p.costTypeIndex("off-cpu");
        QVERIFY(off >= 0);
        const int64_t waiting = costUnder(p, off, "waitForLock");
        const int64_t blocked = costUnder(p, off, "waitForLock", "[blocked: S]");
        qInfo("waitForLock: %.3f s off-CPU, %.3f s blocked", double(waiting) / 1e9, double(blocked) / 1e9);
        // from `waiting = round` to the holder's unlock: 3 x 200 ms of the holder's CPU time at least
        QVERIFY(waiting >= 3 * 200 * kMs - 30 * kMs);
        QVERIFY(blocked * 2 >= waiting);
        // blocked in the kernel's futex wait, under the lock call
        QVERIFY(costUnder(p, off, "futex_wait", "[blocked: S]") > 0);
    }

    void switchWithoutSample() {
        if (m_sleep.isEmpty())
            QSKIP("perf cannot record sched_switch here");
        PerfFile f;
        QVERIFY(f.load(m_sleep));
        // every other sched_switch sample now names a thread that does not exist
        int n = 0, edited = 0;
        for (const PerfFile::Record& r : f.records)
            if (r.type == 9 && f.tidOf(r) > 0 && n++ % 2 == 0) {
                f.put<int32_t>(f.sampleTid(r) + 4, 0x3ffffff0);
                ++edited;
            }
        QVERIFY(edited >= 10); // the 20 sleeps switch out at least 20 times
        QVERIFY(f.save(path("unmatched.data")));
        const Profile before = importProfile(m_sleep.toStdString());
        const Profile after = importProfile(path("unmatched.data").toStdString());
        const int off = after.costTypeIndex("off-cpu");
        QVERIFY(off >= 0);
        QVERIFY(hasWarning(after, "had no sched_switch sample"));
        QVERIFY(!hasWarning(before, "had no sched_switch sample"));
        // the same time off-CPU, part of it now without its stack and from the switch record on (a few
        // microseconds after the sched_switch sample, inside the scheduler)
        const int64_t total =
            before.tree.grandTotal(static_cast<std::size_t>(before.costTypeIndex("off-cpu")));
        const int64_t totalAfter = after.tree.grandTotal(static_cast<std::size_t>(off));
        QVERIFY(totalAfter <= total);
        QVERIFY(total - totalAfter < edited * kMs);
        QVERIFY(costUnder(after, off, "[no stack]") > 0);
    }

    void migration() {
        if (m_sleep.isEmpty())
            QSKIP("perf cannot record sched_switch here");
        PerfFile f;
        QVERIFY(f.load(m_sleep));
        QVERIFY(f.sampleType & PerfFile::kCpu);
        // every switch-in now happens on another CPU than the switch-out before it
        int edited = 0;
        for (const PerfFile::Record& r : f.records)
            if (PerfFile::switchIn(r)) {
                f.put<uint32_t>(f.trailerCpu(r), f.get<uint32_t>(f.trailerCpu(r)) + 1000);
                ++edited;
            }
        QVERIFY(edited >= 10); // the 20 sleeps switch out at least 20 times
        QVERIFY(f.save(path("migrated.data")));
        const Profile before = importProfile(m_sleep.toStdString());
        const Profile after = importProfile(path("migrated.data").toStdString());
        const int off = after.costTypeIndex("off-cpu");
        QCOMPARE(costUnder(after, off, "sleepPhase"),
                 costUnder(before, before.costTypeIndex("off-cpu"), "sleepPhase"));
        QCOMPARE(after.tree.grandTotal(static_cast<std::size_t>(off)),
                 before.tree.grandTotal(static_cast<std::size_t>(before.costTypeIndex("off-cpu"))));
        const std::string note = recordingNote(after, "context switches");
        QVERIFY2(note.find(" 0 came back") == std::string::npos, note.c_str());
    }

    void perfScriptText() {
        if (m_sleep.isEmpty())
            QSKIP("perf cannot record sched_switch here");
        const Profile data = importProfile(m_sleep.toStdString());
        const Profile text = fromScript(scriptText(m_sleep));
        QCOMPARE(text.meta.format, Format::PerfScript);
        const int off = text.costTypeIndex("off-cpu"), wall = text.costTypeIndex("wall");
        QVERIFY(off >= 0 && wall >= 0);
        QVERIFY(costUnder(text, off, "sleepPhase", "[blocked: S]") >= 20 * 50 * kMs);
        // the same intervals as from perf.data: switch-out at the sched_switch sample, switch-in at the
        // PERF_RECORD_SWITCH IN record
        const int dataOff = data.costTypeIndex("off-cpu");
        QCOMPARE(costUnder(text, off, "sleepPhase"), costUnder(data, dataOff, "sleepPhase"));
        // On a busy machine the totals have differed by a preemption interval or so (122 us of 2.38 s in a
        // loaded CI run, 2026-11-23; not yet explained: perf script and our reader may order records that
        // reach the file late differently). The sleeps above are equal either way; the rest within 0.1 %.
        const auto near = [](int64_t a, int64_t b) {
            return std::llabs(a - b) * 1000 <= std::max(a, b);
        };
        QVERIFY(near(text.tree.grandTotal(static_cast<std::size_t>(off)),
                     data.tree.grandTotal(static_cast<std::size_t>(dataOff))));
        QVERIFY(near(costUnder(text, off, "computePhase", "[preempted]"),
                     costUnder(data, dataOff, "computePhase", "[preempted]")));
        // every sched_switch sample and every off-CPU interval counts once, in both
        QCOMPARE(text.meta.samples, data.meta.samples);
    }

    void perfScriptTextBadInput() {
        if (m_mutex.isEmpty())
            QSKIP("perf cannot record sched_switch here");
        const QByteArray original = scriptText(m_mutex);
        const Profile before = fromScript(original);
        const int64_t totalBefore =
            before.tree.grandTotal(static_cast<std::size_t>(before.costTypeIndex("off-cpu")));
        QList<QByteArray> lines = original.split('\n');
        // switch-ins on another CPU: the same time off-CPU
        QList<QByteArray> migrated = lines;
        int moved = 0;
        for (QByteArray& line : migrated) {
            const ScriptHeader h = scriptHeader(line);
            if (h.switchIn && h.cpuAt >= 0) {
                line.replace(h.cpuAt, line.indexOf(']', h.cpuAt) - h.cpuAt + 1, "[077]");
                ++moved;
            }
        }
        QVERIFY(moved > 10);
        const Profile m = fromScript(migrated.join('\n'));
        QCOMPARE(m.tree.grandTotal(static_cast<std::size_t>(m.costTypeIndex("off-cpu"))), totalBefore);
        QVERIFY(recordingNote(m, "context switches").find(" 0 came back") == std::string::npos);
        // a thread loses its last switch-in and everything after it: the first thread (in the text's order)
        // whose last switch-out (a sched_switch of its own, not of a dying thread) has a switch-in after it.
        // A switch-in is the thread's own PERF_RECORD_SWITCH IN, or another thread's sched_switch naming it
        // as next_pid (on a busy machine a sibling thread often hands its CPU over directly). From that
        // switch-in on, the thread's records are dropped and the next_pid of the others' switches to it
        // becomes 0 (the idle task): its last switch-out stays open.
        const auto nextPidIs = [](const QByteArray& line, int64_t tid) {
            return line.contains("sched:sched_switch") &&
                   line.contains(" next_pid=" + QByteArray::number(tid) + ' ');
        };
        std::map<int64_t, qsizetype> lastOutOf;
        std::vector<int64_t> order;
        int64_t lastTime = 0;
        for (qsizetype i = 0; i < lines.size(); ++i) {
            const ScriptHeader h = scriptHeader(lines[i]);
            if (h.tid > 0 && std::find(order.begin(), order.end(), h.tid) == order.end())
                order.push_back(h.tid);
            const qsizetype state = lines[i].indexOf(" prev_state=");
            if (h.tid > 0 && lines[i].contains("sched:sched_switch") && state >= 0 &&
                lines[i].indexOf(" prev_pid=" + QByteArray::number(h.tid) + ' ') >= 0 &&
                !QByteArray("XZ").contains(lines[i].at(state + 12)))
                lastOutOf[h.tid] = i;
            lastTime = std::max(lastTime, h.timeNs);
        }
        int64_t mainTid = -1, inTime = -1;
        qsizetype lastIn = -1;
        for (const int64_t tid : order) {
            if (!lastOutOf.contains(tid))
                continue;
            for (qsizetype i = lastOutOf[tid] + 1; i < lines.size() && lastIn < 0; ++i) {
                const ScriptHeader h = scriptHeader(lines[i]);
                if ((h.tid == tid && h.switchIn) || nextPidIs(lines[i], tid))
                    lastIn = i, inTime = h.timeNs;
            }
            if (lastIn > 0) {
                mainTid = tid;
                break;
            }
        }
        QVERIFY(lastIn > 0);
        QList<QByteArray> cut;
        bool dropping = false; // inside a dropped sample's frame lines
        for (qsizetype i = 0; i < lines.size(); ++i) {
            const ScriptHeader h = scriptHeader(lines[i]);
            if (h.tid > 0)
                dropping = i >= lastIn && h.tid == mainTid;
            if (dropping)
                continue;
            QByteArray line = lines[i];
            if (i >= lastIn && nextPidIs(line, mainTid))
                line.replace(" next_pid=" + QByteArray::number(mainTid) + ' ', " next_pid=0 ");
            cut << line;
        }
        const Profile after = fromScript(cut.join('\n'));
        QVERIFY(hasWarning(after, "without a switch-in"));
        QVERIFY(!hasWarning(before, "without a switch-in"));
        int64_t lastKept = 0;
        for (const QByteArray& line : cut)
            lastKept = std::max(lastKept, scriptHeader(line).timeNs);
        QVERIFY(lastKept <= lastTime);
        const int64_t totalAfter =
            after.tree.grandTotal(static_cast<std::size_t>(after.costTypeIndex("off-cpu")));
        QCOMPARE(totalAfter - totalBefore, lastKept - inTime);
    }

    void missingSwitchInAtTheEnd() {
        if (m_mutex.isEmpty())
            QSKIP("perf cannot record sched_switch here");
        PerfFile f;
        QVERIFY(f.load(m_mutex));
        // the main thread (blocked in join) loses its last switch-in and everything after it, as if the
        // recording had stopped while it waited
        int32_t mainTid = -1;
        for (const PerfFile::Record& r : f.records)
            if (r.type == 9) {
                mainTid = f.get<int32_t>(f.sampleTid(r)); // the pid: the main thread
                break;
            }
        QVERIFY(mainTid > 0);
        // By time, not by place in the file: perf writes each CPU's buffer in turn, so a thread's records
        // are not in time order in the file when it moved between CPUs.
        uint64_t inTime = 0;
        for (const PerfFile::Record& r : f.records)
            if (PerfFile::switchIn(r) && f.tidOf(r) == mainTid)
                inTime = std::max(inTime, f.timeOf(r));
        QVERIFY(inTime > 0);
        uint64_t lastTime = 0; // the end of the recording: its last sample or switch
        int edited = 0;
        for (const PerfFile::Record& r : f.records) {
            if (r.type != 9 && r.type != 14 && r.type != 4)
                continue;
            if (r.type != 4)
                lastTime = std::max(lastTime, f.timeOf(r));
            if (f.timeOf(r) < inTime || f.tidOf(r) != mainTid)
                continue;
            ++edited;
            if (r.type == 9)
                f.put<int32_t>(f.sampleTid(r) + 4, 0x3ffffff0);
            else
                f.put<int32_t>(f.trailer(r) + 4, 0x3ffffff0);
            if (r.type == 4)
                f.put<int32_t>(r.at + 16, 0x3ffffff0); // the exit record's own tid
        }
        qInfo("main thread %d: its last switch-in at %llu ns, the recording's end %llu ns, %d records edited",
              mainTid, static_cast<unsigned long long>(inTime), static_cast<unsigned long long>(lastTime),
              edited);
        QVERIFY(f.save(path("noswitchin.data")));
        const Profile before = importProfile(m_mutex.toStdString());
        const Profile after = importProfile(path("noswitchin.data").toStdString());
        QVERIFY(hasWarning(after, "without a switch-in"));
        QVERIFY(!hasWarning(before, "without a switch-in"));
        // the main thread's last wait is charged up to the last record instead of its switch-in
        const int64_t totalBefore =
            before.tree.grandTotal(static_cast<std::size_t>(before.costTypeIndex("off-cpu")));
        const int64_t totalAfter =
            after.tree.grandTotal(static_cast<std::size_t>(after.costTypeIndex("off-cpu")));
        QCOMPARE(totalAfter - totalBefore, static_cast<int64_t>(lastTime) - static_cast<int64_t>(inTime));
    }
};

QTEST_GUILESS_MAIN(TestOffCpu)
#include "tst_offcpu.moc"
