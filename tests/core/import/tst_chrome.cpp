// Chrome .cpuprofile and Trace Event Format import: every corpus input of other/chrome and
// other/trace-event against speedscope's dumps (per-function self time, totals, heaviest stacks, thread
// names) or the Firefox Profiler's summaries (sample counts per thread); truncated traces; bad input.
//
// Deliberate differences from speedscope, visible in these comparisons:
// - speedscope names a Chrome-timeline profile "<file> - <thread name>" (or just the file name when there is
//   one); our thread is named after the thread, the file name is the profile's source.
// - A sample whose stack is only `(root)`/`(idle)` counts as a sample of the thread (as the Firefox
//   Profiler counts it) but, as in speedscope, no time is attributed to it.
// - B/E events whose args are not in JSON.stringify's form keep their own spelling, minus whitespace.
// - A trace whose duration events carry CPU profiles imports the profiles only (as speedscope does); the
//   Firefox Profiler turns those events into markers, which Scorch does not have.
#include "expectedprofiles.h"

#include "scorch/bytesource.h"

#include <QDirIterator>

#include <algorithm>
#include <climits>
#include <map>
#include <utility>
#include <vector>

using namespace scorch;

namespace {

QString importError(const std::string& text, const std::string& name = "bad.json") {
    try {
        test::fromText(text, name);
    } catch (const ImportError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

/// A thread of a Chrome trace with X events, read independently of the importer (QJsonDocument over the
/// whole decompressed file): its name and its process's from the `thread_name` and `process_name` metadata
/// events, its number of X events and the time its outermost X events cover (the time an evented profile of
/// the thread adds up to), in us.
struct TracedThread {
    std::string name, process;
    uint64_t events = 0;
    int64_t outermostUs = 0;
};

std::map<std::pair<int64_t, int64_t>, TracedThread> tracedThreads(const QString& path) {
    std::string bytes;
    const auto source = openByteSource(path.toStdString()); // only to decompress
    char buffer[65536];
    while (const std::size_t n = source->read(buffer, sizeof buffer))
        bytes.append(buffer, n);
    const QJsonArray events = QJsonDocument::fromJson(QByteArray::fromStdString(bytes))
                                  .object()
                                  .value(QStringLiteral("traceEvents"))
                                  .toArray();
    std::map<std::pair<int64_t, int64_t>, std::string> names;
    std::map<int64_t, std::string> processes;
    std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> spans; // (ts, -dur)
    for (const QJsonValue& v : events) {
        const QJsonObject e = v.toObject();
        const std::pair<int64_t, int64_t> key{e.value(QStringLiteral("pid")).toInteger(),
                                              e.value(QStringLiteral("tid")).toInteger()};
        const QString ph = e.value(QStringLiteral("ph")).toString();
        const QString name =
            e.value(QStringLiteral("args")).toObject().value(QStringLiteral("name")).toString();
        if (ph == QStringLiteral("M") &&
            e.value(QStringLiteral("name")).toString() == QStringLiteral("thread_name"))
            names[key] = name.toStdString();
        else if (ph == QStringLiteral("M") &&
                 e.value(QStringLiteral("name")).toString() == QStringLiteral("process_name"))
            processes[key.first] = name.toStdString();
        else if (ph == QStringLiteral("X"))
            spans[key].push_back(
                {e.value(QStringLiteral("ts")).toInteger(), -e.value(QStringLiteral("dur")).toInteger()});
    }
    std::map<std::pair<int64_t, int64_t>, TracedThread> out;
    for (auto& [key, list] : spans) {
        std::sort(list.begin(), list.end()); // by start, the longer first
        TracedThread& t = out[key];
        t.name = names[key];
        t.process = processes[key.first];
        t.events = list.size();
        int64_t end = INT64_MIN;
        for (const auto& [ts, minusDur] : list)
            if (ts >= end) { // not inside the previous outermost event
                t.outermostUs -= minusDur;
                end = ts - minusDur;
            }
    }
    return out;
}

/// An old-shape .cpuprofile whose `head` tree is `levels` deep.
std::string deepHead(int levels) {
    std::string s = "{\"head\":";
    for (int i = 0; i < levels; ++i)
        s += "{\"functionName\":\"f\",\"id\":" + std::to_string(i + 1) + ",\"children\":[";
    for (int i = 0; i < levels; ++i)
        s += "]}";
    return s + ",\"samples\":[1],\"timestamps\":[1]}";
}

/// The thread of `p` that speedscope's profile `expectedName` stands for.
int matchThread(const Profile& p, const std::string& expectedName, std::size_t expectedCount) {
    for (std::size_t t = 0; t < p.threads.size(); ++t)
        if (p.threads[t].name == expectedName || expectedName.ends_with(" - " + p.threads[t].name))
            return int(t);
    if (expectedCount == 1 && p.threads.size() == 1)
        return 0;
    return -1;
}

void compareWithSpeedscope(const QString& input, const QString& expectedPath) {
    const auto expected = test::expectedSpeedscopeDump(expectedPath);
    QVERIFY2(!expected.empty(), qPrintable(expectedPath));
    const Profile p = importProfile(input.toStdString());
    QCOMPARE(p.meta.format,
             input.endsWith(QStringLiteral(".cpuprofile")) ? Format::ChromeCpuProfile : Format::ChromeTrace);
    QCOMPARE(p.costTypes[0].unit, CostUnit::Nanoseconds);
    QCOMPARE(p.threads.size(), expected.size());
    for (const test::ExpectedProfile& e : expected) {
        const int t = matchThread(p, e.name, expected.size());
        QVERIFY2(t >= 0,
                 qPrintable(input + QStringLiteral(": no thread for ") + QString::fromStdString(e.name)));
        auto mine = [t](uint32_t thread) {
            return int(thread) == t;
        };
        // speedscope's weights are microseconds; ours nanoseconds
        const auto self = test::selfByNameOf(p, 0, mine);
        double total = 0;
        for (const auto& [name, ns] : self)
            total += ns;
        QCOMPARE(total, e.total * 1000);
        for (const auto& [name, us] : e.selfByName) {
            const auto it = self.find(name);
            QVERIFY2(it != self.end() || us == 0, name.c_str());
            if (it != self.end())
                QCOMPARE(it->second, us * 1000);
        }
        // the heaviest stacks: speedscope prints them rounded to 2 decimals per time interval
        // speedscope draws `(program)` and `(garbage collector)` samples on top of the previous sample's
        // stack in its timeline; we keep them where the profile puts them (children of the root), so those
        // stacks are not compared (their per-function self times above are)
        const auto ours = test::stacksOf(p, 0, mine);
        std::map<std::string, double> comparable;
        for (const auto& [stack, ns] : e.stacks)
            if (stack.find("(program)") == std::string::npos &&
                stack.find("(garbage collector)") == std::string::npos)
                comparable[stack] = ns;
        for (const auto& [stack, ns] : test::heaviest(comparable, 3)) {
            const auto it = ours.find(stack);
            QVERIFY2(it != ours.end(), stack.c_str());
            QVERIFY2(std::abs(it->second - ns) <= 0.01 * ns + 20000,
                     qPrintable(QString::fromStdString(stack) +
                                QStringLiteral(": %1 vs %2").arg(it->second).arg(ns)));
        }
    }
}

} // namespace

class TestChrome : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void corpusSpeedscope() {
        SCORCH_REQUIRE_CORPUS();
        int checked = 0;
        for (const char* dir : {"/other/chrome", "/other/trace-event"}) {
            const QString root = test::corpusDir() + QString::fromUtf8(dir);
            for (QDirIterator it(root + QStringLiteral("/inputs/speedscope"), QDir::Files,
                                 QDirIterator::Subdirectories);
                 it.hasNext();) {
                const QString input = it.next();
                QString expected = input;
                expected.replace(QStringLiteral("/inputs/"), QStringLiteral("/expected/"));
                expected += QStringLiteral(".speedscope-dump.json");
                compareWithSpeedscope(input, expected);
                if (QTest::currentTestFailed())
                    QFAIL(qPrintable(QStringLiteral("in ") + input));
                ++checked;
            }
        }
        QCOMPARE(checked, 5 + 17);
    }

    /// The Firefox Profiler's summaries: the threads with CPU samples and how many samples they have.
    void corpusFirefox() {
        SCORCH_REQUIRE_CORPUS();
        const QString root = test::corpusDir() + QStringLiteral("/other/chrome");
        for (const char* file : {"test.chrome-unchunked.json"}) {
            const QString input =
                root + QStringLiteral("/inputs/firefox-profiler/upgrades/") + QString::fromUtf8(file);
            const QJsonObject summary =
                QJsonDocument::fromJson(
                    test::readAll(root + QStringLiteral("/expected/firefox-profiler/upgrades/") +
                                  QString::fromUtf8(file) + QStringLiteral(".import-summary.json")))
                    .object()
                    .value(QStringLiteral("summary"))
                    .toObject();
            const Profile p = importProfile(input.toStdString());
            QCOMPARE(p.meta.format, Format::ChromeTrace);
            int sampled = 0;
            for (const QJsonValue& tv : summary.value(QStringLiteral("threads")).toArray()) {
                const QJsonObject t = tv.toObject();
                const int samples = t.value(QStringLiteral("sampleCount")).toInt();
                if (samples == 0)
                    continue;
                ++sampled;
                const QStringList pidTid = t.value(QStringLiteral("tid")).toString().split(u':');
                bool found = false;
                for (const ThreadInfo& ours : p.threads)
                    if (ours.pid == pidTid[0].toLongLong() && ours.tid == pidTid[1].toLongLong()) {
                        found = true;
                        QCOMPARE(ours.samples, uint64_t(samples));
                        QCOMPARE(QString::fromStdString(ours.name),
                                 t.value(QStringLiteral("name")).toString());
                    }
                QVERIFY2(found, qPrintable(t.value(QStringLiteral("tid")).toString()));
            }
            QCOMPARE(std::size_t(sampled), p.threads.size());
        }
        // The chunked profile: the same thread as the Firefox Profiler's. It counts 905 samples there; the
        // ProfileChunk events hold 3711 (3422 of them `(idle)`), which we and speedscope read. Not explained.
        const Profile chunked = importProfile(
            (root + QStringLiteral("/inputs/firefox-profiler/upgrades/test.chrome.gz")).toStdString());
        QCOMPARE(chunked.threads.size(), std::size_t(1));
        QCOMPARE(chunked.threads[0].name, std::string("CrRendererMain"));
        QCOMPARE(chunked.threads[0].pid, int64_t(88999));
        QCOMPARE(chunked.threads[0].tid, int64_t(775));
        QCOMPARE(chunked.threads[0].samples, uint64_t(3711));
        // chrome://tracing JSON with X events only: the Firefox Profiler shows markers, we build one evented
        // profile per thread with the durations as time
        const QString tracing =
            root + QStringLiteral("/inputs/firefox-profiler/upgrades/chrome-tracing.json.gz");
        const Profile x = importProfile(tracing.toStdString());
        const std::map<std::pair<int64_t, int64_t>, TracedThread> expected = tracedThreads(tracing);
        QCOMPARE(expected.size(), std::size_t(13)); // as read by the independent parse below
        QCOMPARE(x.threads.size(), expected.size());
        std::vector<int64_t> threadTotal(x.threads.size());
        for (std::size_t i = 0; i < x.threadCosts.node.size(); ++i)
            threadTotal[x.threadCosts.thread[i]] += x.threadCosts.cost[0][i];
        int64_t grandTotal = 0;
        for (std::size_t t = 0; t < x.threads.size(); ++t) {
            const ThreadInfo& ours = x.threads[t];
            const auto it = expected.find({ours.pid, ours.tid});
            QVERIFY2(it != expected.end(), ours.name.c_str());
            // named as speedscope names them: process (pid), thread (tid)
            QCOMPARE(QString::fromStdString(ours.name), QStringLiteral("%1 (pid %2), %3 (tid %4)")
                                                            .arg(QString::fromStdString(it->second.process))
                                                            .arg(ours.pid)
                                                            .arg(QString::fromStdString(it->second.name))
                                                            .arg(ours.tid));
            QCOMPARE(ours.samples, it->second.events);
            QCOMPARE(threadTotal[t], it->second.outermostUs * 1000);
            grandTotal += it->second.outermostUs * 1000;
        }
        QCOMPARE(x.tree.grandTotal(0), grandTotal);
        // the Firefox Profiler's summary names the same threads (its markers are the X and I events)
        const QJsonArray firefoxThreads =
            QJsonDocument::fromJson(
                test::readAll(root +
                              QStringLiteral("/expected/firefox-profiler/upgrades/chrome-tracing.json.gz"
                                             ".import-summary.json")))
                .object()
                .value(QStringLiteral("summary"))
                .toObject()
                .value(QStringLiteral("threads"))
                .toArray();
        for (const auto& [pidTid, thread] : expected) {
            const QString tid = QStringLiteral("%1:%2").arg(pidTid.first).arg(pidTid.second);
            bool found = false;
            for (const QJsonValue& tv : firefoxThreads)
                if (tv.toObject().value(QStringLiteral("tid")).toString() == tid) {
                    found = true;
                    QCOMPARE(tv.toObject().value(QStringLiteral("name")).toString().toStdString(),
                             thread.name);
                    QVERIFY(uint64_t(tv.toObject().value(QStringLiteral("markerCount")).toInt()) >=
                            thread.events);
                }
            QVERIFY2(found, qPrintable(tid));
        }
    }

    void cpuProfileShapes() {
        // the current shape with `parent` links instead of `children`, and the old nested `head` shape
        const std::string current = "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"}},"
                                    "{\"id\":2,\"parent\":1,\"callFrame\":{\"functionName\":\"main\",\"url\":"
                                    "\"file:///a.js\",\"lineNumber\":4}},"
                                    "{\"id\":3,\"parent\":2,\"callFrame\":{\"functionName\":\"\",\"url\":"
                                    "\"file:///a.js\",\"lineNumber\":9}}],"
                                    "\"samples\":[2,3,3,2],\"timeDeltas\":[5,10,20,40]}";
        QCOMPARE(detectFormat(current), Format::ChromeCpuProfile);
        const Profile p = test::fromText(current, "x.cpuprofile");
        // sample i weighs the time to sample i+1: main 10 us, then the anonymous function 20 + 40 us
        const NodeId anon = test::nodeByPath(p, p.tree, {"main", "(anonymous a.js:10)"});
        QVERIFY(anon != kRootNode);
        QCOMPARE(p.tree.self(0, anon), int64_t(60000));
        QCOMPARE(p.tree.grandTotal(0), int64_t(70000));
        QCOMPARE(p.frames[p.tree.frame(p.tree.parent(anon))].line, 5u);
        QCOMPARE(p.meta.samples, uint64_t(4));

        const std::string old =
            "{\"head\":{\"functionName\":\"(root)\",\"id\":1,\"children\":[{\"functionName\":"
            "\"f\",\"id\":2,\"children\":[{\"functionName\":\"g\",\"id\":3,\"children\":[]}]}]},"
            "\"startTime\":1,\"endTime\":2,\"samples\":[2,3,3],\"timestamps\":[100,110,150]}";
        QCOMPARE(detectFormat(old), Format::ChromeCpuProfile);
        const Profile o = test::fromText(old, "old.cpuprofile");
        QCOMPARE(o.tree.self(0, test::nodeByPath(o, o.tree, {"f"})), int64_t(10000));
        QCOMPARE(o.tree.self(0, test::nodeByPath(o, o.tree, {"f", "g"})), int64_t(40000));
    }

    // Issue 15: a DevTools trace export (object form, metadata first) whose ProfileChunk events list nodes
    // before their parents: node 3 names parent 2, which only arrives in the next chunk.
    void profileChunkNodesInAnyOrder() {
        const std::string trace =
            "{\"metadata\":{\"source\":\"DevTools\",\"startTime\":\"2026-01-01T00:00:00Z\"},"
            "\"traceEvents\":["
            "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":7,\"tid\":8,\"args\":{\"name\":"
            "\"CrRendererMain\"}},"
            "{\"ph\":\"P\",\"name\":\"Profile\",\"id\":\"0x1\",\"pid\":7,\"tid\":8,\"ts\":100,"
            "\"args\":{\"data\":{\"startTime\":100}}},"
            "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"pid\":7,\"tid\":9,\"ts\":200,"
            "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":"
            "\"(root)\",\"url\":\"\",\"scriptId\":0}},{\"id\":3,\"parent\":2,\"callFrame\":{\"functionName\":"
            "\"inner\",\"url\":\"https://x.test/a.js\",\"scriptId\":5,\"lineNumber\":9}}],"
            "\"samples\":[3,3]},\"timeDeltas\":[10,20]}}},"
            "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"pid\":7,\"tid\":9,\"ts\":300,"
            "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"id\":2,\"parent\":1,\"callFrame\":{"
            "\"functionName\":\"outer\",\"url\":\"https://x.test/a.js\",\"scriptId\":5,\"lineNumber\":1}}],"
            "\"samples\":[2,3]},\"timeDeltas\":[40,80]}}}"
            "]}";
        QCOMPARE(detectFormat(trace), Format::ChromeTrace);
        const Profile p = test::fromText(trace, "devtools.json");
        QCOMPARE(p.threads.size(), std::size_t(1));
        QCOMPARE(p.threads[0].name, std::string("CrRendererMain"));
        QCOMPARE(p.meta.samples, uint64_t(4));
        // sample i weighs the time to sample i+1: inner 20 + 40 us, outer 80 us, the last nothing
        const NodeId outer = test::nodeByPath(p, p.tree, {"outer"});
        const NodeId inner = test::nodeByPath(p, p.tree, {"outer", "inner"});
        QVERIFY(outer != kRootNode);
        QVERIFY(inner != kRootNode);
        QCOMPARE(p.tree.self(0, inner), int64_t(60000));
        QCOMPARE(p.tree.self(0, outer), int64_t(80000));
        // a parent that never arrives (a chunk missing from the trace): the node starts its stacks, as in
        // speedscope, and a warning says so
        const std::string dangling =
            "{\"traceEvents\":[{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"pid\":1,\"tid\":1,"
            "\"ts\":1,\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"id\":3,\"parent\":2,"
            "\"callFrame\":{\"functionName\":\"f\"}}],\"samples\":[3]},\"timeDeltas\":[1]}}}]}";
        const Profile d = test::fromText(dangling, "cut.json");
        QCOMPARE(d.meta.samples, uint64_t(1));
        QVERIFY(test::nodeByPath(d, d.tree, {"f"}) != kRootNode);
        QCOMPARE(d.meta.warningCount, uint64_t(1));
        QVERIFY2(d.meta.warnings[0].message.find("node 3 has parent 2") != std::string::npos,
                 d.meta.warnings[0].message.c_str());
    }

    void streamsLargeProfile() {
        // 1.4 MB of samples, as many deltas: the walker hands them over in several slices
        const int n = 700000;
        std::string text =
            "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},\"children\":[2]},"
            "{\"id\":2,\"callFrame\":{\"functionName\":\"f\"},\"children\":[3]},"
            "{\"id\":3,\"callFrame\":{\"functionName\":\"g\"}}],\"samples\":[";
        for (int i = 0; i < n; ++i)
            text += i ? (i % 3 ? ",3" : ",2") : "2";
        text += "],\"timeDeltas\":[";
        for (int i = 0; i < n; ++i)
            text += i ? ",1" : "7";
        text += "]}";
        QVERIFY(text.size() > (2u << 20));
        const Profile p = test::fromText(text, "big.cpuprofile");
        QCOMPARE(p.meta.samples, uint64_t(n));
        QCOMPARE(p.tree.grandTotal(0), int64_t(n - 1) * 1000); // every sample but the last weighs 1 us
        QCOMPARE(p.tree.self(0, test::nodeByPath(p, p.tree, {"f"})),
                 int64_t((n + 2) / 3 - 1) * 1000); // the last sample is f
    }

    void truncatedAndOrderedTraces() {
        // Chrome writes traces without the closing bracket; a half-written last event is dropped
        const std::string events = "[{\"ph\":\"B\",\"name\":\"a\",\"ts\":0,\"pid\":1,\"tid\":2},"
                                   "{\"ph\":\"X\",\"name\":\"b\",\"ts\":1,\"dur\":3,\"pid\":1,\"tid\":2},"
                                   "{\"ph\":\"E\",\"name\":\"a\",\"ts\":10,\"pid\":1,\"tid\":2},";
        for (const std::string& text : {events, events + "\n\n", events + "{\"ph\":\"B\",\"na"}) {
            QCOMPARE(detectFormat(text), Format::ChromeTrace);
            const Profile p = test::fromText(text, "t.json");
            QCOMPARE(p.tree.grandTotal(0), int64_t(10000));
            QCOMPARE(p.tree.self(0, test::nodeByPath(p, p.tree, {"a", "b"})), int64_t(3000));
            QVERIFY(p.meta.warningCount >= 1);
            QVERIFY(QString::fromStdString(p.meta.warnings[0].message).contains(QStringLiteral("truncated")));
            QCOMPARE(p.threads[0].pid, int64_t(1));
            QCOMPARE(p.threads[0].tid, int64_t(2));
        }
        // a large truncated trace: the last complete event of many slices still counts
        std::string big = "[";
        const int n = 60000;
        for (int i = 0; i < n; ++i)
            big += "{\"ph\":\"X\",\"name\":\"e" + std::to_string(i % 10) +
                   "\",\"ts\":" + std::to_string(i * 10) +
                   ",\"dur\":5,\"pid\":3,\"tid\":4,\"args\":{\"pad\":\"" + std::string(20, 'x') + "\"}},\n";
        big += "{\"ph\":\"X\",\"name\":\"cut";
        QVERIFY(big.size() > (4u << 20));
        const Profile b = test::fromText(big, "big.json");
        QCOMPARE(b.tree.grandTotal(0), int64_t(n) * 5000);
        QCOMPARE(b.meta.samples, uint64_t(n));
        // unbalanced events: warnings, not failures
        const Profile u = test::fromText("[{\"ph\":\"B\",\"name\":\"a\",\"ts\":0,\"pid\":0,\"tid\":0},"
                                         "{\"ph\":\"E\",\"name\":\"zzz\",\"ts\":5,\"pid\":0,\"tid\":0},"
                                         "{\"ph\":\"E\",\"name\":\"a\",\"ts\":7,\"pid\":0,\"tid\":0},"
                                         "{\"ph\":\"E\",\"name\":\"a\",\"ts\":9,\"pid\":0,\"tid\":0}]",
                                         "u.json");
        QCOMPARE(u.tree.grandTotal(0), int64_t(7000));
        QCOMPARE(u.meta.warningCount, uint64_t(2));
        QVERIFY(QString::fromStdString(u.meta.warnings[0].message).contains(QStringLiteral("\"zzz\"")));
        QVERIFY(
            QString::fromStdString(u.meta.warnings[1].message).contains(QStringLiteral("no frame is open")));
    }

    void badInput() {
        struct Case {
            std::string json;
            const char* mustMention;
        } cases[] = {
            {"{\"nodes\":[{\"id\":1,\"callFrame\":{}},{\"id\":2,\"parent\":3,\"callFrame\":{}},{\"id\":3,"
             "\"parent\":2,"
             "\"callFrame\":{}}],\"samples\":[2],\"timeDeltas\":[1]}",
             "cycle"},
            {"{\"nodes\":[{\"id\":1,\"callFrame\":{}},{\"id\":2,\"parent\":9,\"callFrame\":{}}],\"samples\":["
             "1],"
             "\"timeDeltas\":[1]}",
             "parent 9"},
            {"{\"nodes\":[{\"id\":\"x\",\"callFrame\":{}}],\"samples\":[1],\"timeDeltas\":[1]}", "nodes[0]"},
            {"{\"nodes\":[{\"id\":1,\"callFrame\":{}}],\"samples\":[1e300],\"timeDeltas\":[1]}",
             "samples[0]"},
            {"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"f\"}}],\"samples\":[1],\"timeDeltas\":["
             "1]",
             "byte offset"},
            {deepHead(100000), "nested deeper"},
            {"[{\"ph\":\"B\",\"args\":" + std::string(100000, '[') + std::string(100000, ']') + "}]",
             "nested deeper"},
            {"{\"nodes\":[{\"id\":1,\"callFrame\":" + std::string(100000, '[') + std::string(100000, ']') +
                 "}]}",
             "nodes[0]"},
            {"[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":-5,\"pid\":0,\"tid\":0}]", "\"dur\""},
            {"[{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"1\",\"args\":{\"data\":{\"cpuProfile\":{"
             "\"nodes\":[{\"id\":1,\"callFrame\":{}},{\"id\":1,\"callFrame\":{}}],\"samples\":[1]}}}}]",
             "used twice"},
            {"[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1e300,\"dur\":1,\"pid\":0,\"tid\":0}]", "event 0"},
            {"[{\"ph\":\"X\",\"name\":\"a\",\"ts\":\"soon\",\"dur\":1,\"pid\":0,\"tid\":0}]", "\"ts\""},
            {"[{\"ph\":\"I\",\"name\":\"a\",\"ts\":1,\"pid\":0,\"tid\":0}]", "no B/E/X duration events"},
            {"{\"traceEvents\":[]}", "no samples"},
        };
        for (const Case& c : cases) {
            const QString e = importError(c.json);
            QVERIFY2(e.contains(QStringLiteral("bad.json")) && e.contains(QString::fromUtf8(c.mustMention)),
                     qPrintable(QString::fromUtf8(c.mustMention) + QStringLiteral(" / ") + e));
        }
    }
};

QTEST_GUILESS_MAIN(TestChrome)
#include "tst_chrome.moc"
