// The diff model: merged tree with before/after/delta, normalisation, hex stripping, added/removed frames and
// matching across formats.
#include "testutil.h"

#include "scorch/diff.h"
#include "scorch/folded.h"

#include <sstream>

using namespace scorch;

class TestDiff : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void mergedTreeCarriesBothAndDelta() {
        const Profile before = test::fromFolded("main;a;x 10\nmain;b 5\nmain;gone 4\n");
        const Profile after = test::fromFolded("main;a;x 7\nmain;b 9\nmain;new 2\n");
        const Profile d = diffProfiles(before, 0, after, 0);
        QCOMPARE(d.costTypes.size(), std::size_t(3));
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
        // every node: delta = after - before, for self and total
        for (NodeId n = 0; n < d.tree.size(); ++n) {
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
        QCOMPARE(back.meta.format, std::string("differential folded stacks"));
        QCOMPARE(back.tree.grandTotal(0), int64_t(3));
        QCOMPARE(back.tree.grandTotal(1), int64_t(6));
    }
};

QTEST_GUILESS_MAIN(TestDiff)
#include "tst_diff.moc"
