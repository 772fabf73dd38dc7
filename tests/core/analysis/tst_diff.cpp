// The diff model: merged tree with before/after/delta, normalisation, hex stripping, added/removed frames and
// matching across formats.
#include "testutil.h"

#include "scorch/analysis.h"
#include "scorch/diff.h"
#include "scorch/foldedwriter.h"

#include <algorithm>

#include <sstream>

using namespace scorch;

class TestDiff : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void mergedTreeCarriesBothAndDelta() {
        const Profile before = test::fromFolded("main;a;x 10\nmain;b 5\nmain;gone 4\n");
        const Profile after = test::fromFolded("main;a;x 7\nmain;b 9\nmain;new 2\n");
        const Profile d = diffProfiles(before, 0, after, 0);
        QCOMPARE(d.costTypes.size(), std::size_t(4));
        QCOMPARE(d.tree.grandTotal(kBefore), int64_t(19));
        QCOMPARE(d.tree.grandTotal(kAfter), int64_t(18));
        QCOMPARE(d.tree.grandTotal(kDelta), int64_t(18 - 19)); // delta totals = after - before
        const NodeId a = test::nodeByPath(d, d.tree, {"main", "a"}),
                     b = test::nodeByPath(d, d.tree, {"main", "b"});
        QCOMPARE(d.tree.total(kDelta, a), int64_t(-3));
        QCOMPARE(d.tree.total(kDelta, b), int64_t(4));
        QCOMPARE(diffStatus(d.tree, a), DiffStatus::Shrank);
        QCOMPARE(diffStatus(d.tree, b), DiffStatus::Grew);
        QCOMPARE(diffStatus(d.tree, test::nodeByPath(d, d.tree, {"main", "gone"})), DiffStatus::Removed);
        QCOMPARE(diffStatus(d.tree, test::nodeByPath(d, d.tree, {"main", "new"})), DiffStatus::Added);
        QCOMPARE(diffStatus(d.tree, test::nodeByPath(d, d.tree, {"main"})), DiffStatus::Shrank);
        // every node: delta = after - before, for self and total; the chart width defaults to after
        for (NodeId n = 0; n < d.tree.size(); ++n) {
            QCOMPARE(d.tree.total(kWidth, n), d.tree.total(kAfter, n));
            QCOMPARE(d.tree.self(kDelta, n), d.tree.self(kAfter, n) - d.tree.self(kBefore, n));
            QCOMPARE(d.tree.total(kDelta, n), d.tree.total(kAfter, n) - d.tree.total(kBefore, n));
        }
    }

    void normalizeAndStripHex() {
        const Profile before = test::fromFolded("m;f 3\nm;g 1\n");
        const Profile after = test::fromFolded("m;f 4\nm;g 4\n");
        DiffOptions o;
        o.normalize = true;
        const Profile d = diffProfiles(before, 0, after, 0, o);
        QCOMPARE(d.tree.self(kBefore, test::nodeByPath(d, d.tree, {"m", "f"})), int64_t(6)); // 3 * 8 / 4
        QCOMPARE(d.tree.self(kBefore, test::nodeByPath(d, d.tree, {"m", "g"})), int64_t(2));
        QCOMPARE(stripHexLiterals("call 0x7f2eAB12 at 0x1;0xg"), std::string("call 0x... at 0x...;0xg"));
        o = DiffOptions{};
        o.stripHex = true;
        const Profile h =
            diffProfiles(test::fromFolded("m;0x1234 5\n"), 0, test::fromFolded("m;0xbeef 6\n"), 0, o);
        QCOMPARE(h.tree.total(kDelta, test::nodeByPath(h, h.tree, {"m", "0x..."})), int64_t(1));
    }

    void sameRecordingAcrossFormatsHasNoDelta() {
        const Profile perf =
            importProfile(test::testData(QStringLiteral("perf/two-events.perf")).toStdString());
        std::ostringstream folded;
        writeFolded(perf, {}, folded);
        const Profile fromFolded = test::fromFolded(folded.str());
        const Profile d = diffProfiles(perf, 0, fromFolded, 0);
        QCOMPARE(d.tree.grandTotal(kBefore), int64_t(1100));
        for (NodeId n = 0; n < d.tree.size(); ++n)
            QCOMPARE(d.tree.total(kDelta, n), int64_t(0));
        // the process root `worker thread 2` matches the folded `worker_thread_2`
        QVERIFY(test::nodeByPath(d, d.tree, {"worker thread 2", "start_thread"}) != kRootNode);
    }

    void differentialFoldedRoundTrip() {
        const Profile d =
            diffProfiles(test::fromFolded("a;b 2\na;c 1\n"), 0, test::fromFolded("a;b 1\na;d 5\n"), 0);
        FoldedOptions o;
        o.costType = kBefore;
        o.secondCostType = kAfter;
        std::ostringstream out;
        writeFolded(d, o, out);
        QCOMPARE(out.str(), std::string("a;b 2 1\na;c 1 0\na;d 0 5\n"));
        const Profile back = test::fromFolded(out.str()); // the two-column form imports as before/after
        QCOMPARE(back.meta.format, Format::FoldedDiff);
        QCOMPARE(back.tree.grandTotal(0), int64_t(3));
        QCOMPARE(back.tree.grandTotal(1), int64_t(6));
    }

    void matchesByNameAndModule();
    void corpusPairHasNoDelta();
    void corpusDeltaSumsToAfterMinusBefore();
    void noiseFloorAndLayout();
    void functionSummary();
};

namespace {

/// A perf script sample (one stack, leaf first) in the format perf writes.
std::string perfSample(int64_t period, std::initializer_list<std::pair<const char*, const char*>> frames) {
    std::string s = "prog 10/10 [000] 1.000001: " + std::to_string(period) + " cycles:\n";
    for (const auto& [fn, module] : frames)
        s += std::string("\t    401000 ") + fn + "+0x10 (" + module + ")\n";
    return s + "\n";
}

} // namespace

void TestDiff::matchesByNameAndModule() {
    // `parse` lives in two libraries; the after recording moved one copy to another directory
    const Profile before =
        test::fromText(perfSample(10, {{"parse", "/opt/a/libjson.so"}, {"main", "/bin/p"}}) +
                       perfSample(6, {{"parse", "/opt/a/libxml.so"}, {"main", "/bin/p"}}));
    const Profile after =
        test::fromText(perfSample(4, {{"parse", "/usr/lib/libjson.so"}, {"main", "/bin/p"}}) +
                       perfSample(9, {{"parse", "/opt/a/libxml.so"}, {"main", "/bin/p"}}));
    QCOMPARE(before.meta.format, Format::PerfScript);
    QVERIFY(diffMatchesModules(before, after, {}));
    const Profile d = diffProfiles(before, 0, after, 0);
    std::vector<int64_t> deltas;
    NodeId mainNode = test::nodeByPath(d, d.tree, {"prog", "main"});
    QVERIFY(mainNode != kRootNode);
    d.tree.forEachChild(mainNode, [&](NodeId c) {
        QCOMPARE(d.nodeName(c), std::string_view("parse"));
        deltas.push_back(d.tree.total(kDelta, c));
    });
    std::sort(deltas.begin(), deltas.end());
    // two `parse` frames, one per library: json 10 -> 4, xml 6 -> 9 (the json module matched by file name)
    QCOMPARE(deltas, (std::vector<int64_t>{-6, 3}));

    // name only when asked, or when one side has no modules (folded stacks)
    DiffOptions nameOnly;
    nameOnly.matchModules = false;
    const Profile n = diffProfiles(before, 0, after, 0, nameOnly);
    const NodeId parse = test::nodeByPath(n, n.tree, {"prog", "main", "parse"});
    QCOMPARE(n.tree.total(kBefore, parse), int64_t(16));
    QCOMPARE(n.tree.total(kDelta, parse), int64_t(-3));
    const Profile folded = test::fromFolded("prog;main;parse 13\n");
    QVERIFY(!diffMatchesModules(before, folded, {}));
    const Profile f = diffProfiles(before, 0, folded, 0);
    QCOMPARE(f.tree.total(kDelta, test::nodeByPath(f, f.tree, {"prog", "main", "parse"})), int64_t(-3));
}

void TestDiff::corpusPairHasNoDelta() {
    SCORCH_REQUIRE_CORPUS();
    // the same recordings as perf script and as stackcollapse-perf.pl's folded output (perf-vertx-stacks-01
    // is left out: one of its stacks ends in a frame with an empty name, which the two importers read apart)
    const QString dir = test::corpusDir() + QStringLiteral("/perf-script/");
    for (const char* stem : {"perf-cycles-instructions-01", "perf-dd-stacks-01", "perf-funcab-cmd-01",
                             "perf-java-faults-01", "perf-mirageos-stacks-01", "perf-rust-Yamakaky-dcpu"}) {
        const QString name = QLatin1String(stem);
        const Profile a = importProfile(
            (dir + QStringLiteral("inputs/flamegraph/test/") + name + QStringLiteral(".txt")).toStdString());
        const Profile b = importProfile((dir + QStringLiteral("expected/generated/flamegraph/test/") + name +
                                         QStringLiteral("-collapsed-default.txt"))
                                            .toStdString());
        QVERIFY(!diffMatchesModules(a, b, {}));
        const Profile d = diffProfiles(a, 0, b, 0);
        QVERIFY2(d.tree.grandTotal(kBefore) > 0, stem);
        QCOMPARE(d.tree.grandTotal(kBefore), d.tree.grandTotal(kAfter));
        for (NodeId n = 0; n < d.tree.size(); ++n)
            QCOMPARE(d.tree.total(kDelta, n), int64_t(0));
        for (const FunctionDelta& fd : functionDeltas(d))
            QCOMPARE(fd.status(), DiffStatus::Same);
    }
}

void TestDiff::corpusDeltaSumsToAfterMinusBefore() {
    SCORCH_REQUIRE_CORPUS();
    const QString dir = test::corpusDir() + QStringLiteral("/folded/inputs/inferno/diff-folded/");
    const Profile before = importProfile((dir + QStringLiteral("before.txt")).toStdString());
    const Profile after = importProfile((dir + QStringLiteral("after.txt")).toStdString());
    for (bool normalize : {false, true}) {
        DiffOptions o;
        o.normalize = normalize;
        const Profile d = diffProfiles(before, 0, after, 0, o);
        QCOMPARE(d.tree.grandTotal(kAfter), after.tree.grandTotal(0));
        if (!normalize)
            QCOMPARE(d.tree.grandTotal(kBefore), before.tree.grandTotal(0));
        QCOMPARE(d.tree.grandTotal(kDelta), d.tree.grandTotal(kAfter) - d.tree.grandTotal(kBefore));
        int64_t added = 0, removed = 0;
        for (NodeId n = 1; n < d.tree.size(); ++n) {
            QCOMPARE(d.tree.total(kDelta, n), d.tree.total(kAfter, n) - d.tree.total(kBefore, n));
            const DiffStatus s = diffStatus(d.tree, n);
            added += s == DiffStatus::Added;
            removed += s == DiffStatus::Removed;
            QCOMPARE(s == DiffStatus::Added, d.tree.total(kBefore, n) == 0 && d.tree.total(kAfter, n) != 0);
        }
        QVERIFY(added + removed > 0); // the inferno pair has stacks on one side only
        // function level: the summed self deltas equal the total delta
        int64_t selfSum = 0;
        for (const FunctionDelta& f : functionDeltas(d))
            selfSum += f.selfDelta();
        QCOMPARE(selfSum, d.tree.grandTotal(kDelta));
    }
}

void TestDiff::noiseFloorAndLayout() {
    const Profile d = diffProfiles(test::fromFolded("m;a 100\nm;b 50\nm;gone 20\nm;c;x 30\n"), 0,
                                   test::fromFolded("m;a 101\nm;b 80\nm;new 10\nm;c;x 5\n"), 0);
    const CallTree& t = d.tree;
    QCOMPARE((NoiseFloor{5, 0}.threshold(t)), int64_t(5));
    QCOMPARE((NoiseFloor{0, 10}.threshold(t)), int64_t(20)); // 10% of max(200, 196)
    QCOMPARE((NoiseFloor{30, 10}.threshold(t)), int64_t(30));

    const NodeId a = test::nodeByPath(d, t, {"m", "a"}), gone = test::nodeByPath(d, t, {"m", "gone"}),
                 added = test::nodeByPath(d, t, {"m", "new"}), x = test::nodeByPath(d, t, {"m", "c", "x"}),
                 c = test::nodeByPath(d, t, {"m", "c"});
    DiffLayoutOptions o;
    o.showMissing = false; // flamegraph.pl: after widths, removed stacks take no space
    CallTree l = diffLayoutTree(t, o);
    QCOMPARE(l.total(kWidth, kRootNode), int64_t(196));
    QCOMPARE(l.total(kWidth, gone), int64_t(0));
    QCOMPARE(l.total(kBefore, gone), int64_t(20)); // the other cost types are untouched
    o.showMissing = true;
    l = diffLayoutTree(t, o);
    QCOMPARE(l.total(kWidth, gone), int64_t(20));
    QCOMPARE(l.total(kWidth, kRootNode), int64_t(216));
    o.width = DiffWidth::Before;
    l = diffLayoutTree(t, o);
    QCOMPARE(l.total(kWidth, added), int64_t(10));
    QCOMPARE(l.total(kWidth, a), int64_t(100));
    o.width = DiffWidth::Max;
    l = diffLayoutTree(t, o);
    QCOMPARE(l.total(kWidth, kRootNode), int64_t(101 + 80 + 20 + 10 + 30));
    for (NodeId n = 0; n < l.size(); ++n) // every frame of both profiles fits in its parent
        QVERIFY(l.total(kWidth, n) >= std::max(l.total(kBefore, n), l.total(kAfter, n)));

    // hiding noise: a (+1) goes, x (-25) stays, and so does its caller c (whose own self delta is 0)
    o = DiffLayoutOptions{};
    o.hideBelow = NoiseFloor{5, 0}.threshold(t);
    l = diffLayoutTree(t, o);
    QCOMPARE(l.total(kWidth, a), int64_t(0));
    QCOMPARE(l.total(kWidth, x), int64_t(5));
    QCOMPARE(l.total(kWidth, c), int64_t(5));
    QCOMPARE(l.total(kWidth, gone), int64_t(20));
    o.metric = DiffMetric::Self;
    o.hideBelow = 26; // by self delta: only b (+30) remains
    l = diffLayoutTree(t, o);
    QCOMPARE(l.total(kWidth, kRootNode), int64_t(80));
}

void TestDiff::functionSummary() {
    const Profile d = diffProfiles(test::fromFolded("m;a;f 10\nm;b;f 10\nm;r;r;r 6\nm;gone 4\n"), 0,
                                   test::fromFolded("m;a;f 30\nm;b 12\nm;r;r 2\nm;new 3\n"), 0);
    const std::vector<FunctionDelta> all = functionDeltas(d);
    auto find = [&](std::string_view name) {
        for (const FunctionDelta& f : all)
            if (d.frameName(f.frame) == name)
                return f;
        return FunctionDelta{};
    };
    QCOMPARE(find("f").totalBefore, int64_t(20));
    QCOMPARE(find("f").totalDelta(), int64_t(10));
    QCOMPARE(find("b").selfDelta(), int64_t(12));
    QCOMPARE(find("b").totalDelta(), int64_t(2));
    QCOMPARE(find("r").totalBefore, int64_t(6)); // recursion counted once
    QCOMPARE(find("r").totalDelta(), int64_t(-4));
    QCOMPARE(find("gone").status(), DiffStatus::Removed);
    QCOMPARE(find("new").status(), DiffStatus::Added);
    QCOMPARE(find("f").status(), DiffStatus::Grew);

    const auto worseTotal = biggestChanges(all, DiffMetric::Total, true, 2);
    QCOMPARE(worseTotal.size(), std::size_t(2));
    QCOMPARE(d.frameName(worseTotal[0].frame), std::string_view("a")); // +20
    QCOMPARE(d.frameName(worseTotal[1].frame), std::string_view("m")); // +17
    const auto betterTotal = biggestChanges(all, DiffMetric::Total, false, 10);
    QCOMPARE(betterTotal.size(), std::size_t(2)); // gone -4 and r -4 (ties keep tree order)
    QCOMPARE(d.frameName(betterTotal[0].frame), std::string_view("gone"));
    QCOMPARE(d.frameName(betterTotal[1].frame), std::string_view("r"));
    const auto worseSelf = biggestChanges(all, DiffMetric::Self, true, 10);
    QCOMPARE(d.frameName(worseSelf[0].frame), std::string_view("b")); // +12, then f +10, new +3
    QCOMPARE(worseSelf.size(), std::size_t(3));
    for (const FunctionDelta& f : worseSelf)
        QVERIFY(f.selfDelta() > 0);
}

QTEST_GUILESS_MAIN(TestDiff)
#include "tst_diff.moc"
