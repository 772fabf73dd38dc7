// The sample store and its queries: a time range re-aggregated from the store equals importing the input cut
// at the same timestamps; thread subsets; empty ranges; activity and on-stack series against direct counts.
#include "patience.h"
#include "scorch/analysis.h"
#include "scorch/foldedwriter.h"
#include "scorch/import.h"
#include "scorch/samples.h"
#include "scorch/transform.h"
#include "testutil.h"

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <zlib.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

using namespace scorch;
using scorch::test::kPatienceMs;

namespace {

/// One sample of perf script text, found without Scorch's parser: its lines (header first, up to the blank
/// line), the time of its (last) header in ns and its tid.
struct Record {
    std::vector<std::string> lines;
    int64_t timeNs = -1;
    int64_t tid = -1;
};

/// "12345.678901:" -> ns, or -1.
int64_t timestampNs(const std::string& tok) {
    if (tok.size() < 4 || tok.back() != ':')
        return -1;
    const std::size_t dot = tok.find('.');
    if (dot == std::string::npos || dot == 0)
        return -1;
    int64_t whole = 0, fraction = 0;
    for (std::size_t i = 0; i < dot; ++i) {
        if (!std::isdigit(static_cast<unsigned char>(tok[i])))
            return -1;
        whole = whole * 10 + (tok[i] - '0');
    }
    std::size_t digits = 0;
    for (std::size_t i = dot + 1; i + 1 < tok.size(); ++i, ++digits) {
        if (!std::isdigit(static_cast<unsigned char>(tok[i])))
            return -1;
        if (digits < 9)
            fraction = fraction * 10 + (tok[i] - '0');
    }
    for (; digits < 9; ++digits)
        fraction *= 10;
    return whole * 1000000000 + fraction;
}

std::vector<std::string> words(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string w; in >> w;)
        out.push_back(w);
    return out;
}

std::vector<Record> records(const QByteArray& text) {
    std::vector<Record> out;
    bool open = false;
    for (const QByteArray& raw : text.split('\n')) {
        std::string line = raw.toStdString();
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.empty()) {
            open = false;
            continue;
        }
        if (line[0] == '#')
            continue;
        const bool header = !std::isspace(static_cast<unsigned char>(line[0]));
        if (header && !open) {
            out.emplace_back();
            open = true;
        }
        if (!open)
            continue;
        out.back().lines.push_back(line);
        if (!header)
            continue;
        const std::vector<std::string> w = words(line);
        for (std::size_t k = 1; k < w.size(); ++k) {
            const int64_t t = timestampNs(w[k]);
            if (t < 0)
                continue;
            out.back().timeNs = t;
            std::size_t id = k - 1;
            if (w[id].front() == '[' && id > 0)
                --id;
            const std::size_t slash = w[id].find('/');
            out.back().tid = std::stoll(slash == std::string::npos ? w[id] : w[id].substr(slash + 1));
            break;
        }
    }
    return out;
}

/// `rs` (sorted by time) `times` times, one copy after the other: each copy's timestamps `times` later by the
/// span of rs and a millisecond more.
std::vector<Record> repeated(const std::vector<Record>& rs, int times) {
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (const Record& r : rs)
        first = std::min(first, r.timeNs), last = std::max(last, r.timeNs);
    std::vector<Record> out;
    for (int c = 0; c < times; ++c)
        for (const Record& r : rs) {
            Record copy = r;
            copy.timeNs = r.timeNs + c * (last - first + 1000000);
            std::string& header = copy.lines.front();
            for (const std::string& w : words(header))
                if (timestampNs(w) == r.timeNs) {
                    char stamp[32];
                    std::snprintf(stamp, sizeof stamp,
                                  "%lld.%09lld:", static_cast<long long>(copy.timeNs / 1000000000),
                                  static_cast<long long>(copy.timeNs % 1000000000));
                    header.replace(header.find(w), w.size(), stamp);
                    break;
                }
            out.push_back(std::move(copy));
        }
    return out;
}

std::string folded(const Profile& p, int costType) {
    std::ostringstream out;
    FoldedOptions o;
    o.costType = costType;
    writeFolded(p, o, out);
    return out.str();
}

/// Folded text per cost type name (types whose folded text is empty are left out).
std::map<std::string, std::string> foldedByType(const Profile& p) {
    std::map<std::string, std::string> out;
    for (std::size_t t = 0; t < p.costTypes.size(); ++t) {
        std::string f = folded(p, static_cast<int>(t));
        if (!f.empty())
            out[p.costTypes[t].name] = std::move(f);
    }
    return out;
}

const char* const kInputs[] = {
    "perf-script/inputs/flamegraph/test/perf-cycles-instructions-01.txt",
    "perf-script/inputs/flamegraph/test/perf-funcab-cmd-01.txt",
    "perf-script/inputs/flamegraph/test/perf-rust-Yamakaky-dcpu.txt",
    "perf-script/inputs/speedscope/linux-perf/forks.linux-perf.txt",
    "perf-script/inputs/speedscope/linux-perf/system-wide.linux-perf.txt",
    "perf-script/inputs/speedscope/linux-perf/simple-with-pid.linux-perf.txt",
};

/// The same tree shape, self costs and (thread, node) entries, and in each the totals that the self costs
/// add up to, the depths and subtree ends that the parents make.
bool sameSlice(const Profile& a, const Profile& b) {
    if (a.tree.size() != b.tree.size() || a.tree.maxDepth() != b.tree.maxDepth())
        return false;
    for (const Profile* p : {&a, &b}) {
        const CallTree& tree = p->tree;
        std::vector<NodeId> parent(tree.size());
        for (NodeId n = 0; n < tree.size(); ++n)
            parent[n] = tree.parent(n);
        // a node's subtree ends at the next node no deeper than it; a child is one level below its parent
        std::vector<NodeId> open; // the path to the node before
        for (NodeId n = 0; n <= tree.size(); ++n) {
            const uint32_t d = n < tree.size() ? tree.depth(n) : 0;
            for (; !open.empty() && tree.depth(open.back()) >= d; open.pop_back())
                if (tree.subtreeEnd(open.back()) != n)
                    return false;
            if (n == tree.size())
                break;
            if (n > 0 && (open.empty() || parent[n] != open.back() || d != tree.depth(open.back()) + 1))
                return false;
            open.push_back(n);
        }
        for (std::size_t t = 0; t < p->tree.costTypeCount(); ++t)
            if (!std::ranges::equal(p->tree.totalCosts(t), CallTree::totalsOf(parent, p->tree.selfCosts(t))))
                return false;
    }
    for (NodeId n = 0; n < a.tree.size(); ++n)
        if (a.tree.parent(n) != b.tree.parent(n) || a.tree.subtreeEnd(n) != b.tree.subtreeEnd(n) ||
            a.tree.depth(n) != b.tree.depth(n) || a.tree.frame(n) != b.tree.frame(n))
            return false;
    for (std::size_t t = 0; t < a.tree.costTypeCount(); ++t)
        if (!std::ranges::equal(a.tree.selfCosts(t), b.tree.selfCosts(t)))
            return false;
    return a.threadCosts.thread == b.threadCosts.thread && a.threadCosts.node == b.threadCosts.node &&
           a.threadCosts.cost == b.threadCosts.cost;
}

/// The same per-function costs, in the same order.
bool sameFunctions(const std::vector<FunctionCost>& a, const std::vector<FunctionCost>& b) {
    return std::ranges::equal(a, b, [](const FunctionCost& x, const FunctionCost& y) {
        return x.frame == y.frame && x.self == y.self && x.total == y.total && x.callSites == y.callSites;
    });
}

/// Folded text (first cost type) of the samples in [aUs, bUs) microseconds since the first sample. Sliced on
/// one thread and on two (the tree taken in two parts, each further cost type's totals summed on the other
/// core), with the same result for every cost type; empty when they differ.
std::string foldedRange(const Profile& p, int64_t aUs, int64_t bUs) {
    SliceRequest req;
    req.range = {aUs * 1000, bUs * 1000};
    req.cores = 1;
    const Profile one = sliceProfile(p, *sliceSamples(p, req));
    req.cores = 2;
    const Profile two = sliceProfile(p, *sliceSamples(p, req));
    if (!sameSlice(one, two))
        return {};
    for (std::size_t t = 0; t < p.costTypes.size(); ++t)
        if (folded(one, t) != folded(two, t) || one.tree.totalCosts(t) != two.tree.totalCosts(t))
            return {};
    return folded(one, 0);
}

ImportOptions smallChunks() {
    ImportOptions o;
    o.chunkBytes = 4096; // many chunks, several workers: the store must come out in input order
    return o;
}

/// 12 000 samples whose stacks part at their outermost frame, 50 frames deep under the process's node (a
/// tree of 600 002 nodes), sample i at 1 + i / 1000 seconds and i % 1000 microseconds.
Profile deepProfile() {
    constexpr int kSamples = 12000, kDepth = 50;
    std::string text;
    text.reserve(std::size_t(kSamples) * kDepth * 32);
    for (int i = 0; i < kSamples; ++i) {
        char header[64];
        std::snprintf(header, sizeof header, "prog 7 %d.%06d: 1 cycles:\n", 1 + i / 1000, i % 1000);
        text += header;
        for (int k = kDepth - 1; k >= 1; --k)
            text += "\t" + std::to_string(1000 + k) + " f" + std::to_string(k) + " (/bin/prog)\n";
        text += "\t400000 s" + std::to_string(i) + " (/bin/prog)\n\n";
    }
    return test::fromText(text, "deep.perf");
}

} // namespace

class TestSamples : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    // the arrays of the slices made before, reused by those after (compareCut)
    std::shared_ptr<SliceMemory> m_memory = std::make_shared<SliceMemory>();

    /// Imports `rs` (the records to keep) written as perf script text.
    Profile importRecords(const std::vector<const Record*>& rs) {
        const QString path = m_dir.filePath(QStringLiteral("cut.perf"));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            qFatal("cannot write %s", qPrintable(path));
        for (const Record* r : rs) {
            for (const std::string& l : r->lines)
                f.write((l + '\n').c_str());
            f.write("\n");
        }
        f.close();
        return importProfile(path.toStdString());
    }

    /// The range [a, b) (absolute ns) of the profile re-aggregated against the cut text imported.
    /// With `outside`, the samples before a and from b on (the rest of the recording) against the text
    /// without [a, b).
    void compareCut(const Profile& full, const std::vector<Record>& rs, int64_t a, int64_t b,
                    const std::set<int64_t>* tids = nullptr, bool outside = false) {
        std::vector<const Record*> kept;
        for (const Record& r : rs)
            if ((r.timeNs >= a && r.timeNs < b) != outside && (!tids || tids->count(r.tid)))
                kept.push_back(&r);
        SliceRequest req;
        const int64_t origin = full.samples->originNs();
        req.range = {a - origin, b - origin};
        req.outside = outside;
        if (tids)
            for (uint32_t t = 0; t < full.threads.size(); ++t)
                if (tids->count(full.threads[t].tid))
                    req.threads.push_back(t);
        const std::optional<TimeSlice> slice = sliceSamples(full, req);
        QVERIFY(slice);
        QCOMPARE(slice->samples, uint64_t(kept.size()));
        uint64_t perThread = 0;
        for (uint64_t n : slice->threadSamples)
            perThread += n;
        QCOMPARE(perThread, slice->samples);
        const Profile sliced = sliceProfile(full, *slice);
        QVERIFY(slice->functions.empty() && sliced.functions.empty()); // (not asked for)
        // its per-function costs, summed by a walk over its tree
        const std::vector<FunctionCost> functions = functionCosts(sliced);
        // the same on one core and on two (the tree taken in two parts on two threads), with the samples
        // keyed in one word each (where they fit, as here) or in 16-byte items (a very large recording's);
        // and the per-function costs summed with the tree the same as by the walk
        req.functions = true;
        for (const unsigned cores : {1u, 2u})
            for (const bool wide : {false, true}) {
                req.cores = cores;
                req.wideItems = wide;
                const std::string what =
                    std::to_string(cores) + (wide ? " core(s), 16-byte items" : " core(s)");
                const Profile p = sliceProfile(full, *sliceSamples(full, req));
                QVERIFY2(sameSlice(p, sliced), what.c_str());
                QVERIFY2(sameFunctions(p.functions, functions), what.c_str());
            }
        // the same reusing the arrays of the slices before (SliceMemory: larger or smaller, holding another
        // range's values), given back as a slice and as the profile of one; a cancelled slice leaves them
        req.memory = m_memory.get();
        std::atomic<bool> cancelled{true};
        req.cancel = &cancelled;
        QVERIFY(!sliceSamples(full, req));
        req.cancel = nullptr;
        for (const unsigned cores : {1u, 2u})
            for (const bool wide : {false, true}) {
                req.cores = cores;
                req.wideItems = wide;
                std::optional<TimeSlice> reused = sliceSamples(full, req);
                QVERIFY(reused);
                const std::string what = "reusing memory, " + std::to_string(cores) +
                                         (wide ? " core(s), 16-byte items" : " core(s)");
                QVERIFY2(sameFunctions(reused->functions, functions), what.c_str());
                if (cores == 1) {
                    QVERIFY2(sameSlice(sliceProfile(full, *reused), sliced), what.c_str());
                    m_memory->recycle(std::move(*reused));
                } else {
                    std::shared_ptr<const Profile> p = sliceProfile(full, std::move(*reused), m_memory);
                    QVERIFY2(sameSlice(*p, sliced), what.c_str());
                }
                QVERIFY(m_memory->bytes() > 0);
            }
        req.memory = nullptr;
        if (kept.empty()) {
            QCOMPARE(sliced.tree.size(), std::size_t(1));
            QVERIFY(foldedByType(sliced).empty());
            return;
        }
        const Profile cut = importRecords(kept);
        QCOMPARE(cut.meta.samples, uint64_t(kept.size()));
        const auto expected = foldedByType(cut), actual = foldedByType(sliced);
        QCOMPARE(actual.size(), expected.size());
        for (const auto& [type, text] : expected) {
            QVERIFY2(actual.count(type), type.c_str());
            QCOMPARE(actual.at(type), text);
        }
        // the thread split re-sums to the tree
        for (std::size_t t = 0; t < sliced.costTypes.size(); ++t) {
            int64_t sum = 0;
            for (int64_t v : sliced.threadCosts.cost[t])
                sum += v;
            QCOMPARE(sum, sliced.tree.grandTotal(t));
        }
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // A log reserved for fewer, as many or more samples than come (also once some are in) keeps the same
    // samples as one never reserved: times out of order, a CPU column that starts midway, a cost column that
    // is constant, then 32-bit, then 64-bit, and a cost type that appears midway.
    void reservedLogKeepsItsSamples_data() {
        QTest::addColumn<int>("expected");
        QTest::addColumn<int>("reserveAfter");
        QTest::newRow("not reserved") << 0 << 0;
        QTest::newRow("fewer") << 1000 << 0;
        QTest::newRow("as many") << 10000 << 0;
        QTest::newRow("more") << 30000 << 0;
        QTest::newRow("more, once some are in") << 30000 << 2500;
        QTest::newRow("as many, once the CPU and 32-bit costs came") << 10000 << 4000;
    }
    void reservedLogKeepsItsSamples() {
        QFETCH(int, expected);
        QFETCH(int, reserveAfter);
        const auto fill = [](SampleLog& log, int expect, int after) {
            for (int i = 0; i < 10000; ++i) {
                if (expect && i == after)
                    log.reserve(static_cast<std::size_t>(expect));
                const int64_t time = i % 10 == 3 ? int64_t(i) * 1000 - 2500 : int64_t(i) * 1000;
                const int32_t cpu = i < 2000 ? -1 : i % 4;
                const int64_t period = i < 3000 ? 250000 : i == 7000 ? (int64_t(1) << 40) : 1000 + i;
                std::vector<CostValue> costs{{0, 1}, {1, period}};
                if (i >= 5000)
                    costs.push_back({2, i % 5});
                log.add(time, static_cast<uint32_t>(i % 3), static_cast<uint32_t>(i % 7), cpu, costs);
            }
        };
        SampleLog plain, reserved;
        fill(plain, 0, 0);
        fill(reserved, expected, reserveAfter);
        const std::vector<NodeId> refNode{1, 2, 3, 4, 5, 6, 7};
        const std::vector<uint32_t> threadMap{0, 1, 2}, typeOrder{0, 1, 2};
        const auto a = plain.build(10000, refNode, threadMap, typeOrder, 3, true);
        const auto b = reserved.build(10000, refNode, threadMap, typeOrder, 3, true);
        QCOMPARE(b->size(), a->size());
        QCOMPARE(b->size(), std::size_t(10000));
        QCOMPARE(b->costTypeCount(), std::size_t(3));
        QVERIFY(!a->cost(1).uniform() && !a->cost(2).uniform()); // (the columns took those forms)
        for (std::size_t i = 0; i < a->size(); ++i) {
            if (a->time(i) != b->time(i) || a->thread(i) != b->thread(i) || a->node(i) != b->node(i) ||
                a->cpu(i) != b->cpu(i))
                QFAIL(qPrintable(QStringLiteral("sample %1 differs").arg(i)));
            for (std::size_t t = 0; t < 3; ++t)
                if (a->cost(t)[i] != b->cost(t)[i])
                    QFAIL(qPrintable(QStringLiteral("sample %1's cost %2 differs").arg(i).arg(t)));
        }
    }

    // A recording of over ten thousand samples (a corpus recording's, repeated one copy after the other):
    // slices large enough to be sorted by radix, in several passes, on one thread and on two
    void largeCut() {
        if (!test::haveCorpus())
            QSKIP("../shared/corpus is absent");
        // FlameGraph's example: 1315 samples, 15 threads and a tree of over a thousand nodes, whose keys take
        // more than one pass of the radix sort
        const QString input =
            test::corpusDir() + QStringLiteral("/perf-script/inputs/flamegraph/example-perf-stacks.txt.gz");
        QByteArray text;
        gzFile gz = gzopen(input.toLocal8Bit().constData(), "rb");
        QVERIFY(gz);
        char buffer[65536];
        for (int n; (n = gzread(gz, buffer, sizeof buffer)) > 0;)
            text.append(buffer, n);
        gzclose(gz);
        std::vector<Record> one = records(text);
        std::sort(one.begin(), one.end(),
                  [](const Record& a, const Record& b) { return a.timeNs < b.timeNs; });
        QCOMPARE(one.size(), std::size_t(1315));
        const std::vector<Record> rs = repeated(one, 8);
        std::vector<const Record*> all;
        for (const Record& r : rs)
            all.push_back(&r);
        const Profile full = importRecords(all);
        QVERIFY(full.samples);
        QCOMPARE(full.samples->size(), rs.size());
        QVERIFY(rs.size() > 10000); // (sorted by radix from 4096 samples)
        const int64_t a = rs.front().timeNs, z = rs.back().timeNs + 1;
        compareCut(full, rs, a, z);                                            // everything
        compareCut(full, rs, a + (z - a) / 7, a + (z - a) * 6 / 7);            // most
        compareCut(full, rs, a + (z - a) / 3, a + (z - a) / 2, nullptr, true); // outside a third
    }

    // SliceMemory::release() gives the pages of the arrays kept to the kernel lazily (they show as LazyFree
    // in /proc/self/smaps_rollup) and keeps the arrays: a slice made after reuses them and comes out the same
    void releasedMemory() {
        // the slice of all of deepProfile() with cost arrays of 4.8 MB (pages are released from arrays of 4
        // MiB on)
        const Profile full = deepProfile();
        QVERIFY(full.samples);
        QCOMPARE(full.tree.size(), std::size_t(600002));
        SliceRequest req;
        req.range = {0, full.samples->lastTime() + 1};
        const Profile expected = sliceProfile(full, *sliceSamples(full, req));
        QCOMPARE(expected.tree.size(), full.tree.size());
        SliceMemory memory;
        req.memory = &memory;
        memory.recycle(std::move(*sliceSamples(full, req)));
        const std::size_t kept = memory.bytes();
        QVERIFY(kept > std::size_t(2 * 4800000));
        const long long before = test::lazyFreeKb();
        QVERIFY(before >= 0);
        memory.release();
        // at least the self and total arrays' pages (8 bytes a node each; the kernel counts a few later)
        QVERIFY2(test::lazyFreeKb() - before >= 2 * 8 * static_cast<long long>(full.tree.size()) / 1024 - 256,
                 (std::to_string(before) + " -> " + std::to_string(test::lazyFreeKb()) + " kB").c_str());
        QCOMPARE(memory.bytes(), kept);
        std::optional<TimeSlice> again = sliceSamples(full, req);
        QVERIFY(again);
        QVERIFY(sameSlice(sliceProfile(full, *again), expected));
        memory.recycle(std::move(*again));
        QCOMPARE(memory.bytes(), kept); // (the same arrays came back)
    }

    // SliceMemory::prepare() keeps the arrays of a slice of everything, given back lazily: a slice made after
    // takes them (whatever its range) and comes out the same. A series' new arrays have room for everything:
    // a larger slice after a smaller one grows them in place.
    void preparedMemory() {
        // (arrays of 4.8 MB a cost type; sample i at i / 1000 seconds and i % 1000 microseconds after the
        // first)
        const Profile full = deepProfile();
        constexpr int64_t kSecond = 1000000000;
        QVERIFY(full.samples);
        const int64_t span = full.samples->lastTime() + 1;
        const auto expect = [&](TimeRange r) {
            SliceRequest req;
            req.range = r;
            req.functions = true;
            return sliceProfile(full, *sliceSamples(full, req));
        };
        // (the parent, end, depth, frame and source arrays, 4 bytes a node, and self and total, 8)
        const std::size_t allNodes = full.tree.size() * (5 * 4 + 2 * 8);

        SliceMemory memory;
        std::atomic<bool> cancelled{true};
        QVERIFY(!memory.prepare(full, &cancelled));
        const long long lazyBefore = test::lazyFreeKb();
        QVERIFY(memory.prepare(full));
        const std::size_t kept = memory.bytes();
        QVERIFY2(kept >= allNodes, std::to_string(kept).c_str());
        // given back lazily: at least the self and total arrays' pages
        QVERIFY2(test::lazyFreeKb() - lazyBefore >=
                     2 * 8 * static_cast<long long>(full.tree.size()) / 1024 - 256,
                 (std::to_string(lazyBefore) + " -> " + std::to_string(test::lazyFreeKb()) + " kB").c_str());
        SliceRequest req;
        req.functions = true;
        req.memory = &memory;
        for (const TimeRange r : {TimeRange{span / 4, span * 3 / 4}, TimeRange{0, span},
                                  TimeRange{5 * kSecond, 5 * kSecond + 100000}}) {
            req.range = r;
            std::optional<TimeSlice> s = sliceSamples(full, req);
            QVERIFY(s);
            const Profile expected = expect(r);
            QVERIFY(sameSlice(sliceProfile(full, *s), expected));
            QVERIFY(sameFunctions(s->functions, expected.functions));
            memory.recycle(std::move(*s));
            QCOMPARE(memory.bytes(), kept); // (the prepared arrays came back: none larger was needed)
        }

        // a series starting small: its arrays have room for everything, and the larger slices after fit (the
        // buffer that sorts the samples comes with the first of more than 4096, with room for all of them)
        SliceMemory series;
        req.memory = &series;
        std::size_t room = 0;
        for (const TimeRange r :
             {TimeRange{5 * kSecond, 5 * kSecond + 100000}, TimeRange{0, 4500 * kSecond / 1000}}) {
            req.range = r; // (the first 100 samples of a second, the first 4500)
            series.recycle(std::move(*sliceSamples(full, req)));
            QVERIFY(series.bytes() >= room);
            room = series.bytes();
            QVERIFY2(room >= allNodes, std::to_string(room).c_str());
        }
        for (const TimeRange r : {TimeRange{span / 4, span * 3 / 4}, TimeRange{0, span}}) {
            req.range = r;
            std::optional<TimeSlice> s = sliceSamples(full, req);
            QVERIFY(s);
            QVERIFY(sameSlice(sliceProfile(full, *s), expect(r)));
            series.recycle(std::move(*s));
            QCOMPARE(series.bytes(), room);
        }

        // nothing to prepare without samples
        Profile folded = test::fromText("a;b 3\na;c 2\n", "x.folded");
        QVERIFY(!folded.samples);
        SliceMemory none;
        QVERIFY(!none.prepare(folded));
        QCOMPARE(none.bytes(), std::size_t(0));
    }

    // A slice's per-function costs are those of its tree as made: a transform of its profile's tree drops
    // them, and functionCosts() sums the new tree's.
    void functionsAfterTransform() {
        if (!test::haveCorpus())
            QSKIP("../shared/corpus is absent");
        const Profile full =
            importProfile((test::corpusDir() +
                           QStringLiteral("/perf-script/inputs/speedscope/linux-perf/forks.linux-perf.txt"))
                              .toStdString());
        QVERIFY(full.samples);
        SliceRequest req;
        req.range = {0, full.samples->lastTime() / 2};
        req.functions = true;
        Profile sliced = sliceProfile(full, *sliceSamples(full, req));
        QVERIFY(sliced.functions.size() > 1);
        QVERIFY(sameFunctions(functionCosts(sliced), sliced.functions));
        req.functions = false;
        Profile walked = sliceProfile(full, *sliceSamples(full, req)); // (its functions summed by a walk)
        QVERIFY(walked.functions.empty());
        const FrameId hidden = sliced.functions[0].frame;
        const std::vector<TreeTransform> hide = {{TreeTransform::Kind::Hide, hidden}};
        applyTransforms(sliced, hide);
        applyTransforms(walked, hide);
        QVERIFY(sliced.functions.empty());
        const std::vector<FunctionCost> after = functionCosts(walked);
        QVERIFY(std::none_of(after.begin(), after.end(),
                             [&](const FunctionCost& f) { return f.frame == hidden; }));
        QVERIFY(sameFunctions(functionCosts(sliced), after));
    }

    void perfScriptCut_data() {
        QTest::addColumn<QString>("input");
        for (const char* in : kInputs)
            QTest::newRow(in) << QString::fromUtf8(in);
    }
    // [A, B) re-aggregated from the store == the text cut at the same timestamps, imported
    void perfScriptCut() {
        if (!test::haveCorpus())
            QSKIP("../shared/corpus is absent");
        QFETCH(QString, input);
        const QString path = test::corpusDir() + u'/' + input;
        const std::vector<Record> rs = records(test::readAll(path));
        QVERIFY(!rs.empty());
        const bool allTimed =
            std::all_of(rs.begin(), rs.end(), [](const Record& r) { return r.timeNs >= 0; });
        const Profile full = importProfile(path.toStdString(), smallChunks());
        if (!allTimed) {
            QVERIFY(!full.samples);
            return;
        }
        QVERIFY(full.samples);
        const SampleStore& store = *full.samples;
        QCOMPARE(uint64_t(store.size()), full.meta.samples);
        QCOMPARE(store.size(), rs.size());
        QVERIFY(std::is_sorted(store.times().begin(), store.times().end()));
        QCOMPARE(store.time(0), int64_t(0));
        std::vector<int64_t> times;
        for (const Record& r : rs)
            times.push_back(r.timeNs);
        std::sort(times.begin(), times.end());
        QCOMPARE(store.originNs(), times.front());
        QCOMPARE(store.lastTime(), times.back() - times.front());
        QVERIFY(store.bytes() <= store.size() * (16 + 4 + 8 * store.costTypeCount()));

        const std::size_t n = times.size();
        compareCut(full, rs, times.front(), times.back() + 1);             // everything
        compareCut(full, rs, times[n / 4], times[(3 * n) / 5]);            // a middle part
        compareCut(full, rs, times[n / 2], times[n / 2] + 1);              // one instant
        compareCut(full, rs, times.front() - 1000, times[n / 3]);          // from before the start
        compareCut(full, rs, times[(2 * n) / 3], times.back() + 1000000);  // to past the end
        compareCut(full, rs, times[n / 2], times[n / 2]);                  // empty
        compareCut(full, rs, times.back() + 1, times.back() + 1000000000); // after the end
        // the rest of the recording, for comparing a range with it
        compareCut(full, rs, times[n / 4], times[(3 * n) / 5], nullptr, true); // both sides of the middle
        compareCut(full, rs, times.front(), times[n / 3], nullptr, true);      // all after the first third
        compareCut(full, rs, times.front(), times.back() + 1, nullptr, true);  // nothing
    }

    // a thread subset (with and without a time range) == the text cut by tid
    void threadSubset() {
        if (!test::haveCorpus())
            QSKIP("../shared/corpus is absent");
        const QString path = test::corpusDir() + u'/' + QString::fromUtf8(kInputs[0]); // 5 threads
        const std::vector<Record> rs = records(test::readAll(path));
        const Profile full = importProfile(path.toStdString(), smallChunks());
        QVERIFY(full.samples);
        QVERIFY(full.threads.size() >= 3);
        std::set<int64_t> tids;
        for (std::size_t t = 0; t < full.threads.size(); t += 2)
            tids.insert(full.threads[t].tid);
        std::vector<int64_t> times;
        for (const Record& r : rs)
            times.push_back(r.timeNs);
        std::sort(times.begin(), times.end());
        compareCut(full, rs, times.front(), times.back() + 1, &tids);
        compareCut(full, rs, times[times.size() / 5], times[times.size() / 2], &tids);
        compareCut(full, rs, times[times.size() / 5], times[times.size() / 2], &tids, true);
    }

    // sliceThreads (from per-thread costs, no store needed) == sliceSamples of the same threads, thread by
    // thread and for all of them; on a profile without a store it splits the profiles of a speedscope file
    void threadSliceWithoutStore() {
        if (!test::haveCorpus())
            QSKIP("../shared/corpus is absent");
        const Profile full =
            importProfile((test::corpusDir() + u'/' + QString::fromUtf8(kInputs[0])).toStdString());
        QVERIFY(full.samples && full.threads.size() >= 3);
        QCOMPARE(foldedByType(sliceProfile(full, sliceThreads(full, {}))), foldedByType(full));
        for (uint32_t t = 0; t < full.threads.size(); ++t) {
            SliceRequest req;
            req.threads = {t};
            const TimeSlice bySamples = *sliceSamples(full, req);
            const TimeSlice byCosts = sliceThreads(full, req.threads);
            QCOMPARE(byCosts.samples, bySamples.samples);
            QCOMPARE(byCosts.tree.size(), bySamples.tree.size());
            QCOMPARE(byCosts.sourceNode, bySamples.sourceNode);
            QCOMPARE(foldedByType(sliceProfile(full, byCosts)), foldedByType(sliceProfile(full, bySamples)));
        }
        const std::string text =
            R"({"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[)"
            R"({"name":"main"},{"name":"a"},{"name":"b"}]},"profiles":[{"type":"sampled","name":"one",)"
            R"("unit":"none","startValue":0,"endValue":3,"samples":[[0,1],[0,2]],"weights":[1,2]},)"
            R"({"type":"sampled","name":"two","unit":"none","startValue":0,"endValue":5,"samples":[[0,2]],)"
            R"("weights":[5]}]})";
        const Profile p = test::fromText(text, "n.speedscope.json");
        QVERIFY(!p.samples);
        QCOMPARE(p.threads.size(), std::size_t(2));
        const Profile one = sliceProfile(p, sliceThreads(p, std::vector<uint32_t>{0}));
        QCOMPARE(folded(one, 0), std::string("main;a 1\nmain;b 2\n"));
        QCOMPARE(one.meta.samples, uint64_t(2));
        const Profile two = sliceProfile(p, sliceThreads(p, std::vector<uint32_t>{1}));
        QCOMPARE(folded(two, 0), std::string("main;b 5\n"));
        QCOMPARE(two.tree.size(), std::size_t(3)); // root, main, b: a is gone
    }

    void cancelled() {
        if (!test::haveCorpus())
            QSKIP("../shared/corpus is absent");
        const Profile full =
            importProfile((test::corpusDir() + u'/' + QString::fromUtf8(kInputs[4])).toStdString());
        QVERIFY(full.samples);
        std::atomic<bool> cancel{true};
        SliceRequest req;
        req.cancel = &cancel;
        QVERIFY(!sliceSamples(full, req));
        cancel = false;
        QVERIFY(sliceSamples(full, req));
    }

    void noStoreWithoutTimes() {
        const Profile p = test::fromFolded("main;a 3\nmain;b 1\n");
        QVERIFY(!p.samples);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sliceSamples(p, SliceRequest{}));
    }

    void activity_data() {
        QTest::addColumn<int>("buckets");
        QTest::newRow("1") << 1;
        QTest::newRow("7") << 7;
        QTest::newRow("100") << 100;
        QTest::newRow("5000") << 5000;
    }
    // bucket series sum to the range's samples and match a direct count per sample
    void activity() {
        if (!test::haveCorpus())
            QSKIP("../shared/corpus is absent");
        QFETCH(int, buckets);
        const Profile full =
            importProfile((test::corpusDir() + u'/' + QString::fromUtf8(kInputs[0])).toStdString());
        QVERIFY(full.samples);
        const SampleStore& store = *full.samples;
        const TimeRange ranges[] = {{0, store.lastTime() + 1},
                                    {store.lastTime() / 5, store.lastTime() / 2},
                                    {store.lastTime() / 3, store.lastTime() / 3}};
        for (const TimeRange& r : ranges) {
            const auto series = activitySeries(store, r, static_cast<std::size_t>(buckets));
            QCOMPARE(series.size(), full.threads.size());
            SliceRequest req;
            req.range = r;
            const std::optional<TimeSlice> slice = sliceSamples(full, req);
            QVERIFY(slice);
            uint64_t sum = 0;
            for (std::size_t t = 0; t < series.size(); ++t) {
                uint64_t threadSum = 0;
                for (uint32_t c : series[t])
                    threadSum += c;
                QCOMPARE(threadSum, slice->threadSamples[t]);
                sum += threadSum;
            }
            QCOMPARE(sum, slice->samples);
            // each sample's bucket, from its time as a fraction of the range
            std::vector<std::vector<uint32_t>> direct(series.size(), std::vector<uint32_t>(buckets, 0));
            for (std::size_t i = 0; i < store.size(); ++i) {
                const int64_t t = store.time(i);
                if (t < r.begin || t >= r.end)
                    continue;
                const auto b = static_cast<std::size_t>(static_cast<long double>(t - r.begin) * buckets /
                                                        static_cast<long double>(r.end - r.begin));
                ++direct[store.thread(i)][std::min<std::size_t>(b, buckets - 1)];
            }
            QCOMPARE(series, direct);
            // a thread subset gives those threads' rows, in the order asked
            QVERIFY(series.size() >= 3);
            const std::vector<uint32_t> some = {2, 0};
            const auto subset = activitySeries(store, r, static_cast<std::size_t>(buckets), some);
            QCOMPARE(subset.size(), std::size_t(2));
            QCOMPARE(subset[0], series[2]);
            QCOMPARE(subset[1], series[0]);
        }
    }

    // "when was F on the stack" against walking every sample's stack
    void onStack() {
        if (!test::haveCorpus())
            QSKIP("../shared/corpus is absent");
        const Profile full =
            importProfile((test::corpusDir() + u'/' + QString::fromUtf8(kInputs[3])).toStdString()); // forks
        QVERIFY(full.samples);
        const SampleStore& store = *full.samples;
        // a few frames: the busiest ones at depths 1 to 3
        std::set<uint32_t> frames;
        for (uint32_t depth = 1; depth <= 3; ++depth) {
            NodeId best = kRootNode;
            for (NodeId n = 1; n < full.tree.size(); ++n)
                if (full.tree.depth(n) == depth &&
                    (best == kRootNode || full.tree.total(0, n) > full.tree.total(0, best)))
                    best = n;
            if (best != kRootNode)
                frames.insert(full.tree.frame(best).value);
        }
        QVERIFY(frames.size() >= 2);
        const std::size_t buckets = 13;
        const TimeRange r{store.lastTime() / 10, store.lastTime() - store.lastTime() / 10};
        for (uint32_t fv : frames) {
            const FrameId f{fv};
            const auto series = onStackSeries(full, f, r, buckets);
            std::vector<std::vector<uint32_t>> direct(full.threads.size(), std::vector<uint32_t>(buckets, 0));
            uint64_t total = 0;
            for (std::size_t i = 0; i < store.size(); ++i) {
                const int64_t t = store.time(i);
                if (t < r.begin || t >= r.end)
                    continue;
                bool in = false;
                for (NodeId n = store.node(i); n != kRootNode && !in; n = full.tree.parent(n))
                    in = full.tree.frame(n) == f;
                if (!in)
                    continue;
                ++total;
                const auto b = static_cast<std::size_t>(static_cast<long double>(t - r.begin) * buckets /
                                                        static_cast<long double>(r.end - r.begin));
                ++direct[store.thread(i)][b];
            }
            QVERIFY(total > 0);
            QCOMPARE(series, direct);
        }
    }

    // Chrome .cpuprofile: samples at 0, 10, 20, 40, 50 and 80 us (the deltas summed); sample i weighs the
    // time to sample i + 1, the last nothing
    void chromeCpuProfile() {
        const std::string text = "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"}},"
                                 "{\"id\":2,\"parent\":1,\"callFrame\":{\"functionName\":\"main\"}},"
                                 "{\"id\":3,\"parent\":2,\"callFrame\":{\"functionName\":\"a\"}},"
                                 "{\"id\":4,\"parent\":2,\"callFrame\":{\"functionName\":\"b\"}}],"
                                 "\"samples\":[3,3,4,3,4,4],\"timeDeltas\":[7,10,10,20,10,30]}";
        const Profile p = test::fromText(text, "x.cpuprofile");
        QVERIFY(p.samples);
        QCOMPARE(p.samples->size(), std::size_t(6));
        QCOMPARE(p.samples->originNs(), int64_t(7000));
        QCOMPARE(p.samples->lastTime(), int64_t(80000));
        QCOMPARE(folded(p, 0), std::string("main;a 30000\nmain;b 50000\n")); // the whole profile
        // [10, 50): a at 10 (10 us), b at 20 (20 us), a at 40 (10 us)
        QCOMPARE(foldedRange(p, 10, 50), std::string("main;a 20000\nmain;b 20000\n"));
        // [0, 10): the first a only
        QCOMPARE(foldedRange(p, 0, 10), std::string("main;a 10000\n"));
        // [50, 81): b at 50 (30 us) and the last b (nothing): one sample of cost 0 is still a sample
        QCOMPARE(foldedRange(p, 50, 81), std::string("main;b 30000\n"));
        SliceRequest last;
        last.range = {80000, 80001};
        QCOMPARE(sliceSamples(p, last)->samples, uint64_t(1));
        QCOMPARE(foldedRange(p, 11, 20), std::string());
    }

    // Chrome trace events with a `samples` array: each sample weighs the time to its thread's next one
    void chromeTraceSamples() {
        const std::string text =
            "{\"traceEvents\":[],\"stackFrames\":{\"1\":{\"name\":\"main\"},\"2\":{\"name\":\"a\","
            "\"parent\":\"1\"},\"3\":{\"name\":\"b\",\"parent\":\"1\"}},"
            "\"samples\":[{\"pid\":1,\"tid\":1,\"ts\":100,\"sf\":\"2\"},"
            "{\"pid\":1,\"tid\":2,\"ts\":105,\"sf\":\"3\"},"
            "{\"pid\":1,\"tid\":1,\"ts\":110,\"sf\":\"3\"},"
            "{\"pid\":1,\"tid\":2,\"ts\":125,\"sf\":\"2\"},"
            "{\"pid\":1,\"tid\":1,\"ts\":150,\"sf\":\"2\"}]}";
        const Profile p = test::fromText(text, "trace.json");
        QVERIFY(p.samples);
        QCOMPARE(p.samples->size(), std::size_t(5));
        QCOMPARE(p.samples->originNs(), int64_t(100000));
        // times: t1 a@0 (10 us), t2 b@5 (20 us), t1 b@10 (40 us), t2 a@25 (0), t1 a@50 (0)
        SliceRequest req;
        req.range = {5000, 26000};
        const Profile s = sliceProfile(p, *sliceSamples(p, req));
        QCOMPARE(s.meta.samples, uint64_t(3));
        QCOMPARE(folded(s, 0), std::string("main;b 60000\n")); // a weighs 0 here: left out
        uint32_t t2 = 0;
        for (uint32_t t = 0; t < p.threads.size(); ++t)
            if (p.threads[t].tid == 2)
                t2 = t;
        req.threads = {t2};
        QCOMPARE(folded(sliceProfile(p, *sliceSamples(p, req)), 0), std::string("main;b 20000\n"));
    }

    // Chrome trace B/E/X events: every begin is a sample (no cost) and every interval between two events a
    // timed cost at its start, so a cut at event boundaries splits the durations exactly
    void chromeTraceDurations() {
        const std::string text = R"([{"name":"a","ph":"B","ts":50,"pid":1,"tid":1},)"
                                 R"({"name":"b","ph":"X","ts":60,"dur":30,"pid":1,"tid":1},)"
                                 R"({"name":"a","ph":"E","ts":100,"pid":1,"tid":1}])";
        const Profile p = test::fromText(text, "trace.json");
        QVERIFY(p.samples);
        QCOMPARE(p.meta.samples, uint64_t(2));       // the begins of a and b, as before
        QCOMPARE(p.samples->size(), std::size_t(5)); // a, b begin; a, a;b, a intervals
        QCOMPARE(p.samples->originNs(), int64_t(50000));
        QCOMPARE(folded(p, 0), std::string("a 20000\na;b 30000\n"));
        QCOMPARE(foldedRange(p, 0, 10), std::string("a 10000\n"));
        QCOMPARE(foldedRange(p, 10, 40), std::string("a;b 30000\n"));
        QCOMPARE(foldedRange(p, 40, 50), std::string("a 10000\n"));
        QCOMPARE(foldedRange(p, 0, 50), folded(p, 0));
    }

    // speedscope evented: the intervals between events are the timeline's samples, cut at event boundaries
    void speedscopeEvented() {
        const std::string text =
            R"({"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[)"
            R"({"name":"main"},{"name":"a"},{"name":"b"}]},"profiles":[{"type":"evented","name":"t",)"
            R"("unit":"microseconds","startValue":0,"endValue":100,"events":[{"type":"O","frame":0,"at":0},)"
            R"({"type":"O","frame":1,"at":10},{"type":"C","frame":1,"at":30},{"type":"O","frame":2,"at":30},)"
            R"({"type":"C","frame":2,"at":60},{"type":"C","frame":0,"at":100}]}]})";
        const Profile p = test::fromText(text, "x.speedscope.json");
        QVERIFY(p.samples);
        QCOMPARE(p.samples->size(), std::size_t(4)); // main, main;a, main;b, main
        QCOMPARE(folded(p, 0), std::string("main 50000\nmain;a 20000\nmain;b 30000\n"));
        QCOMPARE(foldedRange(p, 0, 100), folded(p, 0));
        QCOMPARE(foldedRange(p, 10, 60), std::string("main;a 20000\nmain;b 30000\n"));
        QCOMPARE(foldedRange(p, 0, 30), std::string("main 10000\nmain;a 20000\n"));
        QCOMPARE(foldedRange(p, 60, 61), std::string("main 40000\n"));
    }

    // speedscope sampled: sample i starts at startValue + the weights before it
    void speedscopeSampled() {
        const std::string text =
            R"({"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[)"
            R"({"name":"main"},{"name":"a"},{"name":"b"}]},"profiles":[{"type":"sampled","name":"s",)"
            R"("unit":"milliseconds","startValue":5,"endValue":11,"samples":[[0,1],[0,2],[0,1]],)"
            R"("weights":[1,2,3]}]})";
        const Profile p = test::fromText(text, "s.speedscope.json");
        QVERIFY(p.samples);
        QCOMPARE(p.samples->originNs(), int64_t(5000000));
        QCOMPARE(p.samples->time(1), int64_t(1000000));
        QCOMPARE(p.samples->time(2), int64_t(3000000));
        SliceRequest req;
        req.range = {1000000, 3000000};
        QCOMPARE(folded(sliceProfile(p, *sliceSamples(p, req)), 0), std::string("main;b 2000000\n"));
        req.range = {0, 1000000};
        QCOMPARE(folded(sliceProfile(p, *sliceSamples(p, req)), 0), std::string("main;a 1000000\n"));
    }

    // perf.data: the range's samples per thread and costs per event agree with `perf script`'s cut
    void perfDataCut_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("two events") << QStringLiteral("fp-two-events");
        QTest::newRow("zstd records") << QStringLiteral("fp-zstd");
    }
    // perf script text with source lines (-F +srcline): a time range's own line costs (SliceRequest::details)
    // == those of the text cut at the same timestamps, imported; read in many chunks (merged builders)
    void perfScriptSrclineRanges() {
        const QString path = test::testData(QStringLiteral("perf/hot-srcline.perf"));
        const std::vector<Record> rs = records(test::readAll(path));
        const Profile full = importProfile(path.toStdString(), smallChunks());
        QVERIFY(full.samples);
        QVERIFY(hasSliceDetails(full));
        QCOMPARE(full.stacks.leafAddress.size(), full.stacks.size());
        std::vector<int64_t> times;
        for (const Record& r : rs)
            times.push_back(r.timeNs);
        std::sort(times.begin(), times.end());
        const std::size_t n = times.size();
        QVERIFY(n > 50);
        // (function, file, line) -> self and total per cost type name
        using Key = std::tuple<std::string, std::string, uint32_t>;
        const auto lineCosts = [](const Profile& p) {
            std::map<Key, std::map<std::string, std::pair<int64_t, int64_t>>> out;
            const LineCosts& lc = p.lineCosts;
            for (std::size_t e = 0; e < lc.size(); ++e)
                for (std::size_t t = 0; t < p.costTypes.size(); ++t)
                    if (lc.self[t][e] || lc.total[t][e])
                        out[{std::string(p.frameName(lc.frame[e])), std::string(p.strings.view(lc.file[e])),
                             lc.line[e]}][p.costTypes[t].name] = {lc.self[t][e], lc.total[t][e]};
            return out;
        };
        const auto check = [&](int64_t a, int64_t b, bool outside) {
            std::vector<const Record*> kept;
            for (const Record& r : rs)
                if ((r.timeNs >= a && r.timeNs < b) != outside)
                    kept.push_back(&r);
            SliceRequest req;
            const int64_t origin = full.samples->originNs();
            req.range = {a - origin, b - origin};
            req.outside = outside;
            req.details = true;
            const std::optional<TimeSlice> slice = sliceSamples(full, req);
            QVERIFY(slice && slice->hasDetails);
            const auto actual = lineCosts(sliceProfile(full, *slice));
            if (kept.empty()) {
                QVERIFY(actual.empty());
                return;
            }
            const auto expected = lineCosts(importRecords(kept));
            QVERIFY(!expected.empty());
            QCOMPARE(actual.size(), expected.size());
            QVERIFY(actual == expected);
        };
        check(times.front(), times.back() + 1, false);  // everything
        check(times[n / 4], times[(3 * n) / 5], false); // a middle part
        check(times[n / 2], times[n / 2] + 1, false);   // one instant
        check(times[n / 3], times[(2 * n) / 3], true);  // the rest of the recording
        check(times[n / 2], times[n / 2], false);       // empty
        // the whole range has the profile's own line costs
        SliceRequest all;
        all.details = true;
        QVERIFY(lineCosts(sliceProfile(full, *sliceSamples(full, all))) == lineCosts(full));
    }

    void perfDataCut() {
        QFETCH(QString, name);
        const QString perf = QStandardPaths::findExecutable(QStringLiteral("perf"));
        if (perf.isEmpty())
            QSKIP("perf is not installed");
        const QString data = test::testData(QStringLiteral("perfdata/") + name + QStringLiteral(".data"));
        QProcess p;
        p.start(perf, {QStringLiteral("script"), QStringLiteral("-i"), data, QStringLiteral("--ns"),
                       QStringLiteral("-F"), QStringLiteral("tid,time,period,event")});
        QVERIFY(p.waitForFinished(kPatienceMs));
        if (p.exitCode() != 0)
            QSKIP("perf script cannot read the fixture here");
        struct Sample {
            int64_t tid, timeNs, period;
            std::string event;
        };
        std::vector<Sample> perfSamples;
        for (const QByteArray& line : p.readAllStandardOutput().split('\n')) {
            const std::vector<std::string> w = words(line.toStdString());
            if (w.size() < 4)
                continue;
            std::string event = w[3];
            if (!event.empty() && event.back() == ':')
                event.pop_back();
            perfSamples.push_back({std::stoll(w[0]), timestampNs(w[1]), std::stoll(w[2]), event});
        }
        QVERIFY(perfSamples.size() >= 4);
        const Profile full = importProfile(data.toStdString());
        QVERIFY(full.samples);
        QCOMPARE(full.samples->size(), perfSamples.size());
        std::vector<int64_t> times;
        for (const Sample& s : perfSamples)
            times.push_back(s.timeNs);
        std::sort(times.begin(), times.end());
        QCOMPARE(full.samples->originNs(), times.front());
        const std::size_t n = times.size();
        const std::pair<int64_t, int64_t> cuts[] = {{times.front(), times.back() + 1},
                                                    {times[n / 4], times[(3 * n) / 4]},
                                                    {times[n / 2], times[n / 2] + 1}};
        for (const auto& [a, b] : cuts) {
            std::map<int64_t, uint64_t> perTid;
            std::map<std::string, int64_t> period;
            std::map<std::string, int64_t> count;
            for (const Sample& s : perfSamples) {
                if (s.timeNs < a || s.timeNs >= b)
                    continue;
                ++perTid[s.tid];
                period[s.event] += s.period;
                ++count[s.event];
            }
            SliceRequest req;
            req.range = {a - times.front(), b - times.front()};
            const std::optional<TimeSlice> slice = sliceSamples(full, req);
            QVERIFY(slice);
            std::map<int64_t, uint64_t> ours;
            for (std::size_t t = 0; t < full.threads.size(); ++t)
                if (slice->threadSamples[t])
                    ours[full.threads[t].tid] += slice->threadSamples[t];
            QCOMPARE(ours, perTid);
            for (const auto& [event, sum] : period) {
                const int periodType = full.costTypeIndex(event);
                const int countType = full.costTypeIndex(event + " samples");
                QVERIFY2(periodType >= 0 && countType >= 0, event.c_str());
                QCOMPARE(slice->tree.grandTotal(static_cast<std::size_t>(periodType)), sum);
                QCOMPARE(slice->tree.grandTotal(static_cast<std::size_t>(countType)), count[event]);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestSamples)
#include "tst_samples.moc"
