// The command line's time dimension: --time and --thread on the commands that read profiles, and the
// timeline `scorch info` prints. Expected values come from the inputs themselves: perf script text cut by its
// own timestamps and threads (the cut text collapsed is what `--time`/`--thread` must give), `perf script
// --ns` of a perf.data recording made here, and a hand-written Chrome trace.
#include "clirunner.h"
#include "testutil.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace {

/// One sample of perf script text: its lines, its time in nanoseconds, thread id, CPU (-1 when absent), comm.
struct Record {
    QByteArray text;
    int64_t ns = 0;
    int64_t tid = -1;
    int cpu = -1;
    QByteArray comm;
};

/// The samples of perf script text (`comm tid [cpu] seconds.micros: ...` headers, blank-line separated).
std::vector<Record> records(const QByteArray& text) {
    static const QRegularExpression header(
        QStringLiteral(R"(^(\S.*?)\s+(\d+)(?:/(\d+))?\s+(?:\[(\d+)\]\s+)?(\d+)\.(\d{6}):)"));
    std::vector<Record> out;
    bool open = false;
    for (const QByteArray& line : text.split('\n')) {
        if (line.trimmed().isEmpty()) {
            if (open)
                out.back().text += "\n";
            open = false;
            continue;
        }
        if (!open) {
            const QRegularExpressionMatch m = header.match(QString::fromUtf8(line.trimmed()));
            if (!m.hasMatch())
                continue;
            Record r;
            r.comm = m.captured(1).toUtf8();
            r.tid = (m.capturedLength(3) ? m.captured(3) : m.captured(2)).toLongLong();
            r.cpu = m.capturedLength(4) ? m.captured(4).toInt() : -1;
            r.ns = (m.captured(5).toLongLong() * 1000000 + m.captured(6).toLongLong()) * 1000;
            out.push_back(r);
            open = true;
        }
        out.back().text += line + "\n";
    }
    return out;
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& data) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(data) != data.size())
        return {};
    return path;
}

/// The records `keep` accepts, as perf script text.
QByteArray cut(const std::vector<Record>& all, const std::function<bool(const Record&)>& keep) {
    QByteArray text;
    for (const Record& r : all)
        if (keep(r))
            text += r.text;
    return text;
}

std::map<std::string, int64_t> counts(const QByteArray& folded) {
    std::map<std::string, int64_t> out;
    for (const auto& [stack, count] : scorch::test::foldedLines(folded))
        out[stack] += std::stoll(count);
    return out;
}

int64_t sum(const std::map<std::string, int64_t>& folded) {
    int64_t s = 0;
    for (const auto& [stack, count] : folded)
        s += count;
    return s;
}

/// The line of `text` starting with `prefix`, without the prefix; empty when there is none.
QByteArray lineAfter(const QByteArray& text, const QByteArray& prefix) {
    for (const QByteArray& line : text.split('\n'))
        if (line.startsWith(prefix))
            return line.mid(prefix.size());
    return {};
}

/// "per W:  n n n ..." of `scorch info`: the bucket width in nanoseconds and the counts.
bool bucketLine(const QByteArray& info, int64_t& width, std::vector<int64_t>& buckets) {
    static const QRegularExpression re(
        QStringLiteral(R"(^per (\d+) (s|ms|us|ns):\s+([\d ]+?)\s+\(samples from)"));
    for (const QByteArray& line : info.split('\n')) {
        const QRegularExpressionMatch m = re.match(QString::fromUtf8(line));
        if (!m.hasMatch())
            continue;
        const QString unit = m.captured(2);
        width = m.captured(1).toLongLong() * (unit == u"s"    ? 1000000000
                                              : unit == u"ms" ? 1000000
                                              : unit == u"us" ? 1000
                                                              : 1);
        buckets.clear();
        for (const QString& n : m.captured(3).split(u' ', Qt::SkipEmptyParts))
            buckets.push_back(n.toLongLong());
        return true;
    }
    return false;
}

QStringList args(std::initializer_list<const char*> list) {
    QStringList out;
    for (const char* a : list)
        out << QString::fromUtf8(a);
    return out;
}

} // namespace

class TestTimeRange : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString corpusFile(const char* name) {
        return scorch::test::corpusDir() + QStringLiteral("/perf-script/inputs/speedscope/linux-perf/") +
               QString::fromUtf8(name);
    }

    /// `scorch collapse EXTRA FILE` against `scorch collapse` of the records `keep` accepts.
    void compareCut(const QString& file, const std::vector<Record>& all, const QStringList& extra,
                    const std::function<bool(const Record&)>& keep) {
        const CliResult sliced = runScorch(QStringList{QStringLiteral("collapse")} << extra << file);
        QCOMPARE(sliced.exitCode, 0);
        const QString cutFile = writeFile(m_dir, QStringLiteral("cut.txt"), cut(all, keep));
        QVERIFY(!cutFile.isEmpty());
        const CliResult expected = runScorch({QStringLiteral("collapse"), cutFile});
        QVERIFY2(sliced.out == expected.out, qPrintable(extra.join(u' ')));
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // The two halves of a recording, cut by --time, are the text cut by its own timestamps, and add up to
    // the whole.
    void perfScriptHalves() {
        SCORCH_REQUIRE_CORPUS();
        const QString file = corpusFile("system-wide.linux-perf.txt");
        const std::vector<Record> all = records(scorch::test::readAll(file));
        QCOMPARE(all.size(), std::size_t(556));
        const int64_t t0 = all.front().ns;
        const int64_t mid = (all.back().ns - t0) / 2;
        const QString half = QString::number(mid) + QStringLiteral("ns");
        compareCut(file, all, {QStringLiteral("--time"), QStringLiteral("-") + half},
                   [&](const Record& r) { return r.ns - t0 < mid; });
        compareCut(file, all, {QStringLiteral("--time"), half + QStringLiteral("-")},
                   [&](const Record& r) { return r.ns - t0 >= mid; });
        const auto first = counts(runScorch({QStringLiteral("collapse"), QStringLiteral("--time"),
                                             QStringLiteral("0-") + half, file})
                                      .out);
        const auto second = counts(
            runScorch({QStringLiteral("collapse"), QStringLiteral("--time=") + half + u'-', file}).out);
        auto both = first;
        for (const auto& [stack, n] : second)
            both[stack] += n;
        QCOMPARE(both, counts(runScorch({QStringLiteral("collapse"), file}).out));
        QVERIFY(sum(first) > 0 && sum(second) > 0);
    }

    // A range is half-open: a sample exactly at BEGIN is in, one exactly at END is out; every unit gives the
    // same range.
    void perfScriptBoundaries() {
        SCORCH_REQUIRE_CORPUS();
        const QString file = corpusFile("system-wide.linux-perf.txt");
        const std::vector<Record> all = records(scorch::test::readAll(file));
        const int64_t t0 = all.front().ns;
        const int64_t begin = all[100].ns - t0, end = all[300].ns - t0;
        QVERIFY(begin % 1000 == 0 && end % 1000 == 0 && end > begin);
        const auto keep = [&](const Record& r) {
            return r.ns - t0 >= begin && r.ns - t0 < end;
        };
        const QString us = QString::number(begin / 1000) + QStringLiteral("us-") +
                           QString::number(end / 1000) + QStringLiteral("us");
        const QString seconds =
            QStringLiteral("0.%1-0.%2").arg(begin, 9, 10, QLatin1Char('0')).arg(end, 9, 10, QLatin1Char('0'));
        const QString mixed = QString::number(begin) + QStringLiteral("ns-0.") +
                              QStringLiteral("%1s").arg(end / 1000, 6, 10, QLatin1Char('0'));
        for (const QString& range : {us, seconds, mixed})
            compareCut(file, all, {QStringLiteral("--time"), range}, keep);
        // and the samples at END start the next range
        const auto atEnd =
            std::count_if(all.begin(), all.end(), [&](const Record& r) { return r.ns - t0 == end; });
        const CliResult at = runScorch(
            {QStringLiteral("info"), QStringLiteral("--time"),
             QString::number(end) + QStringLiteral("ns-") + QString::number(end + 1) + QStringLiteral("ns"),
             file});
        QCOMPARE(at.exitCode, 0);
        QVERIFY2(at.out.contains("samples:       " + QByteArray::number(qsizetype(atEnd)) + "\n"),
                 at.out.constData());
    }

    // --thread by thread id (repeatable) and by name, alone and with --time.
    void threads() {
        SCORCH_REQUIRE_CORPUS();
        const QString file = corpusFile("forks.linux-perf.txt");
        const std::vector<Record> all = records(scorch::test::readAll(file));
        std::set<int64_t> tids;
        for (const Record& r : all)
            tids.insert(r.tid);
        QVERIFY(tids.count(10) && tids.count(11) && tids.count(9) && tids.count(0));
        compareCut(file, all, args({"--thread", "10", "--thread", "11"}),
                   [](const Record& r) { return r.tid == 10 || r.tid == 11; });
        compareCut(file, all, args({"--thread", "swapper"}),
                   [](const Record& r) { return r.comm == "swapper"; });
        compareCut(file, all, args({"--thread", "forks"}), [](const Record& r) { return r.comm == "forks"; });
        const int64_t t0 = all.front().ns, mid = (all.back().ns - t0) / 2;
        compareCut(file, all,
                   {QStringLiteral("--thread"), QStringLiteral("9"), QStringLiteral("--time"),
                    QString::number(mid) + QStringLiteral("ns-")},
                   [&](const Record& r) { return r.tid == 9 && r.ns - t0 >= mid; });
        // --tid keeps the threads apart: only the chosen ones remain
        const CliResult tid = runScorch({QStringLiteral("collapse"), QStringLiteral("--tid"),
                                         QStringLiteral("--thread"), QStringLiteral("11"), file});
        QCOMPARE(tid.exitCode, 0);
        for (const QByteArray& line : tid.out.split('\n'))
            QVERIFY2(line.isEmpty() || line.startsWith("forks-"), line.constData());
        QVERIFY(tid.out.contains("/11;"));
        QVERIFY(!tid.out.contains("/10;"));

        const CliResult none = runScorch(
            {QStringLiteral("collapse"), QStringLiteral("--thread"), QStringLiteral("nosuchthread"), file});
        QCOMPARE(none.exitCode, 1);
        QCOMPARE(none.err.count('\n'), 1);
        QVERIFY2(none.err.contains("--thread nosuchthread") && none.err.contains("forks [tid 10]"),
                 none.err.constData());
        QVERIFY(none.out.isEmpty());
    }

    // Every command that reads profiles takes them: convert, svg and diff see the same samples.
    void everyCommand() {
        SCORCH_REQUIRE_CORPUS();
        const QString file = corpusFile("system-wide.linux-perf.txt");
        const QStringList range = {QStringLiteral("--time"), QStringLiteral("20ms-60ms"),
                                   QStringLiteral("--thread"), QStringLiteral("swapper")};
        const CliResult collapse = runScorch(QStringList{QStringLiteral("collapse")} << range << file);
        QCOMPARE(collapse.exitCode, 0);
        const int64_t total = sum(counts(collapse.out));
        QVERIFY(total > 0);
        const CliResult convert =
            runScorch(QStringList{QStringLiteral("convert"), QStringLiteral("--to"), QStringLiteral("folded")}
                      << range << file);
        QCOMPARE(convert.exitCode, 0);
        QCOMPARE(counts(convert.out), counts(collapse.out));
        const CliResult diff = runScorch(QStringList{QStringLiteral("diff")} << range << file << file);
        QCOMPARE(diff.exitCode, 0);
        int64_t before = 0, after = 0;
        for (const QByteArray& line : diff.out.split('\n')) {
            const QList<QByteArray> f = line.split(' ');
            if (f.size() >= 3) {
                before += f[f.size() - 2].toLongLong();
                after += f.back().toLongLong();
            }
        }
        QCOMPARE(before, total);
        QCOMPARE(after, total);
        const CliResult svg = runScorch(QStringList{QStringLiteral("svg")} << range << file);
        QCOMPARE(svg.exitCode, 0);
        QVERIFY(svg.out.contains("<svg"));
        // the root's tooltip: the range's cpu-clock total (ns, shown in ms), all of it
        const QByteArray root =
            "<title>swapper (" + QByteArray::number(double(total) / 1e6, 'g', 4) + " ms, 100.00%)";
        QVERIFY2(svg.out.contains(root), root.constData());
        QVERIFY(!runScorch({QStringLiteral("svg"), file}).out.contains(root));
        const CliResult help = runScorch({QStringLiteral("svg"), QStringLiteral("--help")});
        QVERIFY(help.out.contains("--time BEGIN-END") && help.out.contains("--thread NAME|TID"));
    }

    // `scorch info`: duration, samples per CPU and per bucket (against the text's own timestamps and CPUs),
    // a sparkline per thread.
    void infoTimeline() {
        SCORCH_REQUIRE_CORPUS();
        const QString file = corpusFile("system-wide.linux-perf.txt");
        const std::vector<Record> all = records(scorch::test::readAll(file));
        for (const bool half : {false, true}) {
            const int64_t t0 = all.front().ns;
            const int64_t from = half ? (all.back().ns - t0) / 2 : 0;
            QStringList a = {QStringLiteral("info")};
            if (half)
                a << QStringLiteral("--time") << QString::number(from) + QStringLiteral("ns-");
            const CliResult r = runScorch(a << file);
            QCOMPARE(r.exitCode, 0);
            std::vector<const Record*> in;
            std::map<int, int> perCpu;
            std::map<QByteArray, int> perComm;
            for (const Record& rec : all)
                if (rec.ns - t0 >= from) {
                    in.push_back(&rec);
                    ++perCpu[rec.cpu];
                    ++perComm[rec.comm];
                }
            QVERIFY2(r.out.contains("timeline:      " + QByteArray::number(qsizetype(in.size())) +
                                    " samples over "),
                     r.out.constData());
            QByteArray cpus;
            for (const auto& [cpu, n] : perCpu)
                cpus += (cpus.isEmpty() ? "" : ", ") + QByteArray("cpu") + QByteArray::number(cpu) + ' ' +
                        QByteArray::number(n);
            QCOMPARE(lineAfter(r.out, "cpu samples:   "), cpus);
            int64_t width = 0;
            std::vector<int64_t> buckets;
            QVERIFY2(bucketLine(r.out, width, buckets), r.out.constData());
            QVERIFY(width > 0 && buckets.size() <= 40);
            std::vector<int64_t> expected(buckets.size(), 0);
            for (const Record* rec : in) {
                const auto b = static_cast<std::size_t>((rec->ns - t0 - from) / width);
                QVERIFY(b < expected.size());
                ++expected[b];
            }
            QCOMPARE(buckets, expected);
            QVERIFY(expected.back() > 0); // the last bucket holds the last sample
            // a sparkline a thread, one character a bucket, with its sample count
            for (const auto& [comm, n] : perComm) {
                bool found = false;
                for (const QByteArray& line : r.out.split('\n')) {
                    const qsizetype close = line.lastIndexOf('|');
                    if (!line.startsWith("  |") || close < 3 ||
                        line.mid(close + 1).trimmed() !=
                            QByteArray::number(n) + "  " + comm +
                                (comm == "swapper" ? " [pid ? tid 0]" : " [pid ? tid 9]"))
                        continue;
                    found = QString::fromUtf8(line.mid(3, close - 3)).size() == qsizetype(buckets.size());
                }
                QVERIFY2(found, comm.constData());
            }
        }
    }

    // Formats without per-sample time say so; --time on them is an error naming the option.
    void noTimeline() {
        const QString folded = writeFile(m_dir, QStringLiteral("f.folded"), "main;a 3\nmain;b 2\n");
        const CliResult info = runScorch({QStringLiteral("info"), folded});
        QCOMPARE(info.exitCode, 0);
        QVERIFY2(
            info.out.contains("timeline:      no timeline (format folded stacks has no per-sample time)\n"),
            info.out.constData());
        for (const char* cmd : {"collapse", "info", "svg"}) {
            const CliResult r =
                runScorch({QString::fromUtf8(cmd), QStringLiteral("--time"), QStringLiteral("0-1s"), folded});
            QCOMPARE(r.exitCode, 1);
            QCOMPARE(r.err.count('\n'), 1);
            QVERIFY2(r.err.startsWith("scorch: " + folded.toUtf8() + ": --time") &&
                         r.err.contains("no per-sample time"),
                     r.err.constData());
            QVERIFY(r.out.isEmpty());
        }
        // perf script text without timestamps: a format that can have a timeline, but this input has none
        const QString untimed = writeFile(m_dir, QStringLiteral("untimed.perf"),
                                          "prog 12 cycles:\n\tabc f (/bin/x)\n\tdef main (/bin/x)\n\n");
        const CliResult r = runScorch({QStringLiteral("info"), untimed});
        QVERIFY2(r.out.contains("no timeline (this perf script input has no per-sample time)"),
                 r.out.constData());
    }

    void badValues() {
        SCORCH_REQUIRE_CORPUS();
        const QString file = corpusFile("system-wide.linux-perf.txt");
        for (const char* value : {"abc", "2s-1s", "1s-1s", "1x-2s", "-", "1s", "1-2-3", "1..2s-3s", "s-2s"}) {
            const CliResult r = runScorch(
                {QStringLiteral("collapse"), QStringLiteral("--time"), QString::fromUtf8(value), file});
            QCOMPARE(r.exitCode, 2);
            QCOMPARE(r.err.count('\n'), 1);
            QVERIFY2(r.err.startsWith("scorch: --time " + QByteArray(value) + ": "), r.err.constData());
        }
        const CliResult missing = runScorch({QStringLiteral("collapse"), file, QStringLiteral("--time")});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY(missing.err.contains("--time needs a time range"));
        // a range after the last sample: empty output and a warning, not an error
        const CliResult late =
            runScorch({QStringLiteral("collapse"), QStringLiteral("--time"), QStringLiteral("100s-"), file});
        QCOMPARE(late.exitCode, 0);
        QVERIFY(late.out.isEmpty());
        QVERIFY2(late.err.contains("no samples in the selected time range"), late.err.constData());
    }

    // Thread names are untrusted: control characters are escaped in the timeline and thread lists.
    void escapedNames() {
        const QByteArray text = "evil\x1b[2Jname 7 [001] 100.000001: 1 cycles:\n\tabc f (/bin/x)\n\n"
                                "evil\x1b[2Jname 7 [001] 100.000101: 1 cycles:\n\tabc g (/bin/x)\n\n";
        const QString file = writeFile(m_dir, QStringLiteral("evil.perf"), text);
        const CliResult r = runScorch({QStringLiteral("info"), file});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(!r.out.contains('\x1b'));
        QVERIFY2(r.out.contains("| 2  evil\\x1b[2Jname [pid ? tid 7]"), r.out.constData());
        QVERIFY(r.out.contains("cpu samples:   cpu1 2\n"));
    }

    // Chrome trace B/E and X events are timed: the intervals between events carry their durations, so a cut
    // at event boundaries splits the durations exactly (values computed by hand below).
    void chromeTraceDurations() {
        // thread 1: a from 5000 us to 5100, b inside it from 5010 to 5030; c (X) from 5100 for 50 us
        // thread 2: d (X) from 5020 for 40 us
        const QByteArray trace = R"({"traceEvents":[
            {"name":"a","ph":"B","ts":5000,"pid":1,"tid":1},
            {"name":"b","ph":"B","ts":5010,"pid":1,"tid":1},
            {"name":"b","ph":"E","ts":5030,"pid":1,"tid":1},
            {"name":"d","ph":"X","ts":5020,"dur":40,"pid":1,"tid":2},
            {"name":"a","ph":"E","ts":5100,"pid":1,"tid":1},
            {"name":"c","ph":"X","ts":5100,"dur":50,"pid":1,"tid":1}]})";
        const QString file = writeFile(m_dir, QStringLiteral("trace.json"), trace);
        auto folded = [&](const QStringList& extra) {
            const CliResult r = runScorch(QStringList{QStringLiteral("collapse")} << extra << file);
            return r.exitCode == 0 ? r.out : "exit " + QByteArray::number(r.exitCode) + ": " + r.err;
        };
        QCOMPARE(folded({}), QByteArray("a 80000\na;b 20000\nc 50000\nd 40000\n"));
        // times since the first event (5000 us): [0, 30 us) holds a's first 10 us and all of b
        QCOMPARE(folded(args({"--time", "0-30us"})), QByteArray("a 10000\na;b 20000\nd 40000\n"));
        QCOMPARE(folded(args({"--time", "30us-"})), QByteArray("a 70000\nc 50000\n"));
        QCOMPARE(folded(args({"--time", "100us-150us"})), QByteArray("c 50000\n"));
        QCOMPARE(folded(args({"--time", "10us-30us", "--thread", "1"})), QByteArray("a;b 20000\n"));
        const CliResult info = runScorch({QStringLiteral("info"), file});
        QVERIFY2(info.out.contains("timeline:      ") && !info.out.contains("no timeline"),
                 info.out.constData());
    }

    // perf.data: the CPU of every sample (PERF_SAMPLE_CPU) and a --time/--thread cut agree with `perf
    // script --ns` on a recording made here.
    void perfDataRecording() {
        const QString data = m_dir.filePath(QStringLiteral("rec.data"));
        QProcess rec;
        rec.start(
            QStringLiteral("perf"),
            {QStringLiteral("record"), QStringLiteral("-q"), QStringLiteral("-e"),
             QStringLiteral("cpu-clock"), QStringLiteral("-F"), QStringLiteral("999"),
             QStringLiteral("--sample-cpu"), QStringLiteral("-g"), QStringLiteral("-o"), data,
             QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
             QStringLiteral("for p in 1 2; do (i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done) & done; "
                            "wait")});
        if (!rec.waitForFinished(scorch::test::kPatienceMs) || rec.exitStatus() != QProcess::NormalExit ||
            rec.exitCode() != 0)
            QSKIP("perf record does not work here");
        QProcess script;
        script.start(QStringLiteral("perf"),
                     {QStringLiteral("script"), QStringLiteral("--ns"), QStringLiteral("-F"),
                      QStringLiteral("tid,cpu,time"), QStringLiteral("-i"), data});
        QVERIFY(script.waitForFinished(scorch::test::kPatienceMs));
        struct Sample {
            int64_t tid, ns;
            int cpu;
        };
        std::vector<Sample> samples;
        static const QRegularExpression line(QStringLiteral(R"(^\s*(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):)"));
        for (const QByteArray& l : script.readAllStandardOutput().split('\n')) {
            const QRegularExpressionMatch m = line.match(QString::fromUtf8(l));
            if (m.hasMatch())
                samples.push_back({m.captured(1).toLongLong(),
                                   m.captured(3).toLongLong() * 1000000000 + m.captured(4).toLongLong(),
                                   m.captured(2).toInt()});
        }
        if (samples.size() < 4)
            QSKIP("the recording has too few samples to cut");
        std::stable_sort(samples.begin(), samples.end(),
                         [](const Sample& a, const Sample& b) { return a.ns < b.ns; });
        const int64_t t0 = samples.front().ns, mid = (samples.back().ns - t0) / 2;

        std::map<int, int> perCpu;
        for (const Sample& s : samples)
            ++perCpu[s.cpu];
        QByteArray cpus;
        for (const auto& [cpu, n] : perCpu)
            cpus += (cpus.isEmpty() ? "" : ", ") + QByteArray("cpu") + QByteArray::number(cpu) + ' ' +
                    QByteArray::number(n);
        const CliResult info = runScorch({QStringLiteral("info"), data});
        QCOMPARE(info.exitCode, 0);
        QCOMPARE(lineAfter(info.out, "cpu samples:   "), cpus);

        // samples per thread id of each half, from `collapse --tid` (root frame `comm-PID/TID`)
        const int64_t busiest = [&] {
            std::map<int64_t, int> perTid;
            for (const Sample& s : samples)
                ++perTid[s.tid];
            return std::max_element(perTid.begin(), perTid.end(),
                                    [](auto& a, auto& b) { return a.second < b.second; })
                ->first;
        }();
        for (const bool second : {false, true})
            for (const bool oneThread : {false, true}) {
                QStringList a = {QStringLiteral("collapse"),
                                 QStringLiteral("--tid"),
                                 QStringLiteral("--event"),
                                 QStringLiteral("cpu-clock samples"),
                                 QStringLiteral("--time"),
                                 second ? QString::number(mid) + QStringLiteral("ns-")
                                        : QStringLiteral("-") + QString::number(mid) + QStringLiteral("ns")};
                if (oneThread)
                    a << QStringLiteral("--thread") << QString::number(busiest);
                const CliResult r = runScorch(a << data);
                QCOMPARE(r.exitCode, 0);
                std::map<int64_t, int64_t> got, expected;
                for (const auto& [stack, n] : counts(r.out)) {
                    const std::string root = stack.substr(0, stack.find(';'));
                    got[std::stoll(root.substr(root.rfind('/') + 1))] += n;
                }
                for (const Sample& s : samples)
                    if ((s.ns - t0 >= mid) == second && (!oneThread || s.tid == busiest))
                        ++expected[s.tid];
                QCOMPARE(got, expected);
            }
    }
};

QTEST_GUILESS_MAIN(TestTimeRange)
#include "tst_timerange.moc"
