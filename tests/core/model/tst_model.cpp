// Unit tests of the core model: interning, tree building, costs, bottom-up, per-function costs, thread
// filtering, transforms, search and the folded round trip.
#include "testutil.h"

#include "scorch/analysis.h"
#include "scorch/builder.h"
#include "scorch/foldedwriter.h"
#include "scorch/search.h"
#include "scorch/transform.h"

#include <QFile>

#include <atomic>
#include <optional>

#include <regex>
#include <sstream>
#include <tuple>

using namespace scorch;
using scorch::test::fromFolded;

namespace {

std::string folded(const Profile& p, FoldedOptions o = {}) {
    std::ostringstream s;
    writeFolded(p, o, s);
    return s.str();
}

} // namespace

class TestModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void stringInterning() {
        StringTable t;
        const StringId a = t.intern("alpha");
        QCOMPARE(t.intern("alpha").value, a.value);
        QCOMPARE(t.intern("").value, 0u);
        QVERIFY(t.intern("beta").value != a.value);
        const std::string_view early = t.view(a);
        for (int i = 0; i < 200000; ++i) // forces many re-hashes and new chunks
            t.intern("s" + std::to_string(i));
        QCOMPARE(t.view(a), std::string_view("alpha"));
        QCOMPARE(early.data(), t.view(a).data()); // views stay valid while the table grows
        QCOMPARE(t.find("s199999").value, t.intern("s199999").value);
        QCOMPARE(t.find("missing").value, 0u);
        const std::string big(1 << 20, 'x'); // long strings get their own storage
        QCOMPARE(t.view(t.intern(big)).size(), big.size());
    }

    // A copy has the same strings under the same ids (sampled hashing too), its own storage, and interns on
    // from there without touching the original
    void stringTableCopy() {
        for (const StringTable::Hashing hashing :
             {StringTable::Hashing::Full, StringTable::Hashing::Sampled}) {
            StringTable t(hashing);
            for (int i = 0; i < 5000; ++i)
                t.intern("name" + std::to_string(i) + std::string(i % 200, 'y'));
            const std::string big(1 << 20, 'x');
            const StringId bigId = t.intern(big);
            const StringTable c = t.copy();
            QCOMPARE(c.size(), t.size());
            for (uint32_t i = 0; i < t.size(); ++i) {
                QCOMPARE(c.view(StringId{i}), t.view(StringId{i}));
                QVERIFY(i == 0 || c.view(StringId{i}).data() != t.view(StringId{i}).data());
                QCOMPARE(c.find(t.view(StringId{i})).value, i);
            }
            QCOMPARE(c.view(bigId), std::string_view(big));
            StringTable d = t.copy();
            const StringId next = d.intern("new one");
            QCOMPARE(next.value, uint32_t(t.size()));
            QCOMPARE(d.intern("name17" + std::string(17, 'y')).value,
                     t.find("name17" + std::string(17, 'y')).value);
            QCOMPARE(t.find("new one").value, 0u);
            QCOMPARE(d.view(next), std::string_view("new one"));
        }
    }

    // Sampled hashing looks at 80 bytes of a long string; strings that differ only elsewhere hash alike but
    // are still told apart (compared whole), and those that differ in the sampled bytes are found too
    void sampledHashingComparesWholeStrings() {
        StringTable t(StringTable::Hashing::Sampled);
        std::vector<std::string> keys;
        for (int i = 0; i < 300; ++i) {
            std::string s(200, 'k');
            s[40] = static_cast<char>('!' + i % 90); // outside the first 32, middle 16 and last 32 bytes
            s[60] = static_cast<char>('!' + i / 90);
            keys.push_back(s);
            std::string m = s, e = s;
            m[100] = '#'; // in the middle slice, and in the last 32 bytes
            e[190] = '#';
            keys.push_back(m);
            keys.push_back(e);
        }
        std::vector<uint32_t> ids;
        for (const std::string& k : keys)
            ids.push_back(t.intern(k).value);
        QCOMPARE(t.size(), keys.size() + 1);
        for (std::size_t i = 0; i < keys.size(); ++i) {
            QCOMPARE(t.find(keys[i]).value, ids[i]);
            QCOMPARE(t.view(StringId{ids[i]}), std::string_view(keys[i]));
        }
        QCOMPARE(t.find(std::string(200, 'k')).value, 0u);
    }

    void frameInterning() {
        StringTable s;
        FrameTable f;
        Frame a{s.intern("f"), s.intern("/lib/x.so"), {}, 0, FrameKind::Native};
        Frame b = a;
        b.kind = FrameKind::Inlined;
        QCOMPARE(f.intern(a).value, f.intern(a).value);
        QVERIFY(f.intern(a).value != f.intern(b).value);
        QVERIFY(f.intern(a).value != 0u); // 0 is the invisible root's frame
    }

    void lineCosts() {
        // Two builders (as two importer workers) record lines; recursion counts once per sample in "total".
        auto fill = [](TreeBuilder& b, int64_t weight) {
            const uint32_t type = b.costType("samples", CostUnit::Count);
            const uint32_t thread = b.thread("t", 1, 1);
            const FrameId main = b.frame("main"), rec = b.frame("rec");
            const StringId file = b.strings().intern("a.c");
            const FrameId stack[] = {main, rec, rec};
            const SourceLine lines[] = {{file, 10}, {file, 20}, {file, 21}};
            const CostValue cost[] = {{type, weight}};
            b.addSample(thread, stack, cost, 1, lines);
            const SourceLine lines2[] = {{file, 10}, {file, 20}, {file, 20}};
            b.addSample(thread, stack, cost, 1, lines2);
        };
        TreeBuilder a, b;
        fill(a, 1);
        fill(b, 10);
        a.merge(std::move(b));
        const Profile p = a.finish({});
        const LineCosts& lc = p.lineCosts;
        QCOMPARE(lc.size(), std::size_t(3));
        auto find = [&](std::string_view fn, uint32_t line) -> int {
            for (std::size_t i = 0; i < lc.size(); ++i)
                if (p.frameName(lc.frame[i]) == fn && lc.line[i] == line &&
                    p.strings.view(lc.file[i]) == "a.c")
                    return static_cast<int>(i);
            return -1;
        };
        const int m10 = find("main", 10), r20 = find("rec", 20), r21 = find("rec", 21);
        QVERIFY(m10 >= 0 && r20 >= 0 && r21 >= 0);
        QCOMPARE(lc.total[0][m10], 22);
        QCOMPARE(lc.self[0][m10], 0);
        QCOMPARE(lc.total[0][r20], 22); // on the stack in all four samples, counted once each
        QCOMPARE(lc.self[0][r20], 11);  // executing in the second sample of each builder
        QCOMPARE(lc.self[0][r21], 11);
        QCOMPARE(lc.total[0][r21], 11);
        QVERIFY(lc.frame[0].value <= lc.frame[1].value && lc.frame[1].value <= lc.frame[2].value); // sorted
    }

    void treeShapeAndTotals() {
        const Profile p = fromFolded("main;b;x 2\nmain;a 3\nmain;b;y 5\nother 1\n");
        const CallTree& t = p.tree;
        QCOMPARE(t.grandTotal(0), int64_t(11));
        const NodeId main = test::nodeByPath(p, t, {"main"}), b = test::nodeByPath(p, t, {"main", "b"});
        QVERIFY(main && b);
        QCOMPARE(t.total(0, main), int64_t(10));
        QCOMPARE(t.total(0, b), int64_t(7));
        QCOMPARE(t.self(0, b), int64_t(0));
        QCOMPARE(t.self(0, test::nodeByPath(p, t, {"main", "a"})), int64_t(3));
        // siblings in name order, preorder numbering, subtree ranges
        std::vector<std::string_view> rootKids, mainKids;
        t.forEachChild(kRootNode, [&](NodeId c) { rootKids.push_back(p.nodeName(c)); });
        t.forEachChild(main, [&](NodeId c) { mainKids.push_back(p.nodeName(c)); });
        QCOMPARE(rootKids, (std::vector<std::string_view>{"main", "other"}));
        QCOMPARE(mainKids, (std::vector<std::string_view>{"a", "b"}));
        QCOMPARE(main, NodeId(1));
        QCOMPARE(t.subtreeEnd(main) - main, NodeId(5)); // main, a, b, x, y
        const NodeId x = test::nodeByPath(p, t, {"main", "b", "x"});
        QCOMPARE(t.path(x), (std::vector<NodeId>{main, b, x}));
        QCOMPARE(t.depth(x), 3u);
        QCOMPARE(t.maxDepth(), 3u);
        QCOMPARE(t.findChild(main, t.frame(b)), b);
        const auto byCost = t.childrenByCost(main, 0);
        QCOMPARE(p.nodeName(byCost.front()), std::string_view("b"));
        QCOMPARE(p.meta.samples, uint64_t(4));
    }

    void fromPreorderMatchesFromParentArray() {
        // a tree built by fromParentArray is in preorder with name-sorted siblings: fromPreorder must take it
        // as it is and give the same tree
        const Profile p = fromFolded("main;b;x 2\nmain;a 3\nmain;b;y 5\nother 1\nmain;b 4\n");
        const CallTree& t = p.tree;
        std::vector<NodeId> parent(t.size());
        std::vector<FrameId> frame(t.size());
        std::vector<std::vector<int64_t>> self(1, std::vector<int64_t>(t.size()));
        for (NodeId n = 0; n < t.size(); ++n) {
            parent[n] = t.parent(n);
            frame[n] = t.frame(n);
            self[0][n] = t.self(0, n);
        }
        CallTree copy;
        QVERIFY(CallTree::fromPreorder(parent, frame, self, copy));
        QVERIFY(self.empty()); // moved into the tree
        QCOMPARE(copy.size(), t.size());
        QCOMPARE(copy.maxDepth(), t.maxDepth());
        for (NodeId n = 0; n < t.size(); ++n) {
            QCOMPARE(copy.parent(n), t.parent(n));
            QCOMPARE(copy.subtreeEnd(n), t.subtreeEnd(n));
            QCOMPARE(copy.depth(n), t.depth(n));
            QCOMPARE(copy.total(0, n), t.total(0, n));
        }
        // not in preorder (node 3's parent, node 1, is not on the path to node 2): refused, nothing moved
        const std::vector<NodeId> notPreorder = {0, 0, 0, 1};
        const std::vector<FrameId> frames4(4, frame[1]);
        std::vector<std::vector<int64_t>> self4(1, std::vector<int64_t>{0, 1, 1, 1});
        CallTree refused;
        QVERIFY(!CallTree::fromPreorder(notPreorder, frames4, self4, refused));
        QCOMPARE(self4.size(), std::size_t(1));
        QCOMPARE(refused.size(), std::size_t(0));
    }

    void costsFromRunningSums() {
        // A tree keeps one running sum of self costs per cost type; self and total come back as differences.
        // Checked against costs summed here from a tree of signed costs (two types, one of them the negated
        // other plus a per-node offset) set as self costs.
        const Profile p = fromFolded("main;b;x 2\nmain;a 3\nmain;b;y 5\nother 1\nmain;b 4\nmain;a;z;w 7\n");
        CallTree t = p.tree;
        const std::size_t n = t.size();
        std::vector<std::vector<int64_t>> self(2, std::vector<int64_t>(n));
        for (NodeId i = 0; i < n; ++i) {
            self[0][i] = int64_t(i) * 1000 - 3500;
            self[1][i] = -self[0][i] + int64_t(i % 3);
        }
        t.setSelfCosts(self);
        for (std::size_t c = 0; c < 2; ++c) {
            std::vector<int64_t> total(n, 0);
            for (NodeId i = 0; i < n; ++i) // each node's self cost added to it and to all its ancestors
                for (NodeId a = i;; a = t.parent(a)) {
                    total[a] += self[c][i];
                    if (a == kRootNode)
                        break;
                }
            QCOMPARE(t.selfCosts(c), self[c]);
            QCOMPARE(t.totalCosts(c), total);
            const CallTree::Costs view = t.costs(c);
            for (NodeId i = 0; i < n; ++i) {
                QCOMPARE(view.self(i), self[c][i]);
                QCOMPARE(view.total(i), total[i]);
            }
            QCOMPARE(t.grandTotal(c), total[kRootNode]);
        }
        // Absurd costs whose sums overflow: each self cost stays exact, totals saturate as addCost() does
        // (their running sums wrap around; a total computed from them alone would be wrong).
        const Profile q = fromFolded("a;b 1\na;c 1\nd 1\n");
        CallTree big = q.tree; // root, a, b, c, d
        QCOMPARE(big.size(), std::size_t(5));
        const std::vector<int64_t> huge = {0, 5, INT64_MAX, INT64_MAX - 1, INT64_MIN};
        big.setSelfCosts({huge});
        QCOMPARE(big.selfCosts(0), huge);
        QCOMPARE(big.total(0, 1), INT64_MAX); // 5 + MAX + MAX - 1
        QCOMPARE(big.total(0, 4), INT64_MIN);
        const std::vector<NodeId> parents = {0, 0, 1, 1, 0};
        for (NodeId i = 1; i < 5; ++i)
            QCOMPARE(big.parent(i), parents[i]);
        QCOMPARE(big.grandTotal(0), CallTree::totalsOf(parents, huge)[0]);
        QCOMPARE(big.totalCosts(0), CallTree::totalsOf(parents, huge));
        // and a cost type that fits beside one that does not
        big.setSelfCosts({huge, {0, 1, 2, 3, 4}});
        QCOMPARE(big.total(1, 1), int64_t(6));
        QCOMPARE(big.grandTotal(1), int64_t(10));
        QCOMPARE(big.total(0, 1), INT64_MAX);
    }

    void decimalAndSignedCosts() {
        const Profile p = fromFolded("a 1.5\nb 2\nc 0.25\n");
        QCOMPARE(p.costTypes[0].decimals, 2);
        QCOMPARE(p.tree.grandTotal(0), int64_t(375)); // 3.75 in hundredths
        QCOMPARE(formatCostValue(375, 2), std::string("3.75"));
        QCOMPARE(formatCostValue(-5, 1), std::string("-0.5"));
        QCOMPARE(formatCostValue(200, 2), std::string("2"));
        QCOMPARE(formatCost(1234567, CostType{"x", CostUnit::Samples, 0}), std::string("1,234,567 samples"));
        QCOMPARE(formatCost(-42, CostType{"x", CostUnit::Count, 0}), std::string("-42"));
        // the differential form keeps two signed cost types
        const Profile d = fromFolded("a;b 5 3\na;c 0 4\n");
        QCOMPARE(d.costTypes.size(), std::size_t(2));
        QCOMPARE(d.costTypes[0].name, std::string("before"));
        QCOMPARE(d.tree.grandTotal(0) - d.tree.grandTotal(1), int64_t(-2));
    }

    void bottomUp() {
        const Profile p = fromFolded("main;f;g 4\nmain;g 2\nmain;f 1\n");
        const CallTree inv = bottomUpTree(p);
        QCOMPARE(inv.grandTotal(0), int64_t(7));
        const NodeId g = test::nodeByPath(p, inv, {"g"}), f = test::nodeByPath(p, inv, {"f"});
        QCOMPARE(inv.total(0, g), int64_t(6));
        QCOMPARE(inv.total(0, f), int64_t(1));
        QCOMPARE(inv.total(0, test::nodeByPath(p, inv, {"g", "f"})), int64_t(4));
        QCOMPARE(inv.total(0, test::nodeByPath(p, inv, {"g", "f", "main"})), int64_t(4));
        QCOMPARE(inv.total(0, test::nodeByPath(p, inv, {"g", "main"})), int64_t(2));
        QCOMPARE(inv.total(0, test::nodeByPath(p, inv, {"f", "main"})), int64_t(1));
        QCOMPARE(test::nodeByPath(p, inv, {"main"}), kRootNode); // main has no self cost
    }

    /// On real recordings: the bottom-up tree is the tree of the stacks read backwards. Each corpus file's
    /// folded lines are reversed frame by frame and imported; the inverted tree has that profile's stacks and
    /// costs, and its nodes in the same preorder (siblings by name).
    void bottomUpOfRealRecordings() {
        if (!test::haveCorpus())
            QSKIP("the shared corpus (../shared/corpus) is not here");
        for (const char* file : {"perf-script/inputs/flamegraph/test/perf-vertx-stacks-01.txt",
                                 "perf-script/inputs/speedscope/linux-perf/system-wide.linux-perf.txt",
                                 "perf-script/inputs/flamegraph/test/perf-rust-Yamakaky-dcpu.txt"}) {
            const QString path = test::corpusDir() + u'/' + QString::fromLatin1(file);
            if (!QFile::exists(path))
                QSKIP(qPrintable(path + QStringLiteral(" is not in the corpus")));
            Profile p = importProfile(path.toStdString());
            std::string reversed;
            std::istringstream lines(folded(p));
            for (std::string line; std::getline(lines, line);) {
                const std::size_t space = line.rfind(' ');
                std::vector<std::string> frames;
                for (std::size_t from = 0, semi; from < space; from = semi + 1) {
                    semi = std::min(line.find(';', from), space);
                    frames.push_back(line.substr(from, semi - from));
                }
                for (auto it = frames.rbegin(); it != frames.rend(); ++it)
                    reversed += (it == frames.rbegin() ? "" : ";") + *it;
                reversed += line.substr(space) + '\n';
            }
            const Profile expected = fromFolded(reversed);
            QVERIFY2(expected.tree.size() > 20, std::to_string(expected.tree.size()).c_str());
            // the cancellable forms: the same results while not cancelled, none once cancelled
            std::atomic<bool> cancel{false};
            std::optional<CallTree> inverted = bottomUpTree(p, p.tree, &cancel);
            const std::optional<std::vector<FunctionCost>> sums = functionCosts(p, p.tree, &cancel);
            QVERIFY(inverted && sums);
            const std::vector<FunctionCost> plainSums = functionCosts(p);
            QCOMPARE(sums->size(), plainSums.size());
            for (std::size_t i = 0; i < sums->size(); ++i) {
                QCOMPARE((*sums)[i].frame, plainSums[i].frame);
                QCOMPARE((*sums)[i].self, plainSums[i].self);
                QCOMPARE((*sums)[i].total, plainSums[i].total);
            }
            cancel = true;
            QVERIFY(!bottomUpTree(p, p.tree, &cancel));
            QVERIFY(!functionCosts(p, p.tree, &cancel));
            p.tree = bottomUpTree(p);
            QVERIFY2(folded(p) == folded(expected), file);
            std::swap(p.tree, *inverted);
            QVERIFY2(folded(p) == folded(expected), file);
            // the same nodes in the same preorder (siblings by name), node by node
            const auto preorder = [](const Profile& q) {
                std::vector<std::tuple<uint32_t, std::string_view, int64_t>> nodes;
                for (NodeId n = 1; n < q.tree.size(); ++n)
                    nodes.emplace_back(q.tree.depth(n), q.frameName(q.tree.frame(n)), q.tree.self(0, n));
                return nodes;
            };
            QVERIFY2(preorder(p) == preorder(expected), file);
            for (NodeId n = 0; n < p.tree.size(); ++n) { // (as the stack strings sort, bytewise)
                const std::vector<NodeId> kids = p.tree.children(n);
                for (std::size_t k = 1; k < kids.size(); ++k)
                    QVERIFY(compareAsStackSegments(p.frameName(p.tree.frame(kids[k - 1])),
                                                   p.frameName(p.tree.frame(kids[k]))) <= 0);
            }
        }
    }

    void functionCostsCountRecursionOnce() {
        // (h's recursion is the last node of its subtree)
        const Profile p = fromFolded("main;f;f;f 5\nmain;f;g 3\nmain;g 2\nmain;h;h 4\n");
        std::map<std::string_view, FunctionCost> byName;
        for (const FunctionCost& fc : functionCosts(p))
            byName[p.frameName(fc.frame)] = fc;
        QCOMPARE(byName["f"].total[0], int64_t(8));
        QCOMPARE(byName["f"].self[0], int64_t(5));
        QCOMPARE(byName["f"].callSites, 3u);
        QCOMPARE(byName["g"].total[0], int64_t(5));
        QCOMPARE(byName["h"].total[0], int64_t(4));
        QCOMPARE(byName["h"].callSites, 2u);
        QCOMPARE(byName["main"].total[0], int64_t(14));
        const auto top = topFunctions(p, 0, 1);
        QCOMPARE(p.frameName(top.front().frame), std::string_view("f"));
    }

    void functionCostsOfALargeTreeInTwoParts() {
        // > 200 000 nodes: summed in two parts on two threads (where there are two cores), split inside a
        // subtree whose path has a recursive frame; against a walk that checks every node's ancestors
        std::string text;
        for (int i = 0; i < 80000; ++i)
            text += "main;a" + std::to_string(i / 1000) + ";r;b" + std::to_string(i % 1000) + ";r;leaf" +
                    std::to_string(i % 3) + " " + std::to_string(1 + i % 5) + "\n";
        const Profile p = fromFolded(text);
        QVERIFY2(p.tree.size() > 200000, std::to_string(p.tree.size()).c_str());
        std::vector<FunctionCost> expected;
        std::map<uint32_t, std::size_t> at;
        for (NodeId n = 1; n < p.tree.size(); ++n) {
            const FrameId f = p.tree.frame(n);
            const auto [it, added] = at.try_emplace(f.value, expected.size());
            if (added)
                expected.push_back({f, {0}, {0}, 0});
            FunctionCost& fc = expected[it->second];
            ++fc.callSites;
            fc.self[0] += p.tree.self(0, n);
            bool outermost = true;
            for (NodeId a = p.tree.parent(n); a != kRootNode; a = p.tree.parent(a))
                outermost = outermost && p.tree.frame(a) != f;
            if (outermost)
                fc.total[0] += p.tree.total(0, n);
        }
        const std::vector<FunctionCost> sums = functionCosts(p);
        QCOMPARE(sums.size(), expected.size());
        for (std::size_t i = 0; i < sums.size(); ++i) {
            QCOMPARE(sums[i].frame, expected[i].frame); // in the order of their first nodes
            QCOMPARE(sums[i].self, expected[i].self);
            QCOMPARE(sums[i].total, expected[i].total);
            QCOMPARE(sums[i].callSites, expected[i].callSites);
        }
    }

    void threadFilter() {
        const Profile p = importProfile(test::testData(QStringLiteral("perf/two-events.perf")).toStdString());
        QCOMPARE(p.threads.size(), std::size_t(3));
        uint32_t worker = 99;
        for (uint32_t i = 0; i < p.threads.size(); ++i)
            if (p.threads[i].name == "worker thread 2")
                worker = i;
        QVERIFY(worker != 99);
        CallTree t = p.tree;
        const uint32_t subset[] = {worker};
        t.setSelfCosts(selfCostsForThreads(p, subset));
        QCOMPARE(t.grandTotal(0), int64_t(200));
        QCOMPARE(t.grandTotal(1), int64_t(0)); // that thread has no instructions samples
        const uint32_t all[] = {0, 1, 2};
        t.setSelfCosts(selfCostsForThreads(p, all));
        QCOMPARE(t.grandTotal(0), p.tree.grandTotal(0));
    }

    void builderMergeMatchesSequential() {
        // the two halves meet their frames in different orders (so different ids) and share paths
        const char* lines[] = {"m;a;b 1", "n;e;f 2", "m;d 3", "m;a;c 4", "n;e;f 5", "m;a;b 6"};
        TreeBuilder all, left, right;
        for (int i = 0; i < 6; ++i) {
            for (TreeBuilder* b : {&all, i % 2 ? &right : &left}) {
                std::string_view s = lines[i];
                const std::size_t sp = s.rfind(' ');
                std::vector<FrameId> frames;
                std::size_t start = 0;
                std::string_view stack = s.substr(0, sp);
                for (;;) {
                    const std::size_t semi = stack.find(';', start);
                    frames.push_back(
                        b->frame(stack.substr(start, semi == std::string_view::npos ? semi : semi - start)));
                    if (semi == std::string_view::npos)
                        break;
                    start = semi + 1;
                }
                const CostValue c{b->costType("samples", CostUnit::Count),
                                  std::stoll(std::string(s.substr(sp + 1)))};
                b->addSample(b->thread("t", 1, 1), frames, {&c, 1});
            }
        }
        left.merge(std::move(right));
        const Profile a = all.finish({}), m = left.finish({});
        QCOMPARE(folded(m), folded(a));
        QCOMPARE(m.tree.size(), a.tree.size());
        QCOMPARE(m.threads.front().samples, uint64_t(6));
    }

    void transforms() {
        const Profile p = fromFolded("main;f;x 2\nmain;g;f;y 3\nmain;z 5\nmain;f;g;f;h 4\n");
        const FrameId f = p.tree.frame(test::nodeByPath(p, p.tree, {"main", "f"}));
        const TreeTransform focus[] = {{TreeTransform::Kind::Focus, f}};
        const CallTree focused = applyTransforms(p, p.tree, focus);
        QCOMPARE(focused.grandTotal(0), int64_t(9)); // every stack through f: 2 + 3 + 4
        QCOMPARE(focused.total(0, test::nodeByPath(p, focused, {"f", "y"})), int64_t(3));
        QCOMPARE(focused.total(0, test::nodeByPath(p, focused, {"f", "g", "f", "h"})), int64_t(4));

        const TreeTransform hide[] = {{TreeTransform::Kind::Hide, f}};
        const CallTree hidden = applyTransforms(p, p.tree, hide);
        QCOMPARE(hidden.grandTotal(0), p.tree.grandTotal(0)); // hiding moves cost, never drops it
        QCOMPARE(hidden.total(0, test::nodeByPath(p, hidden, {"main", "x"})), int64_t(2));
        QCOMPARE(hidden.total(0, test::nodeByPath(p, hidden, {"main", "g", "y"})), int64_t(3));
        QCOMPARE(hidden.total(0, test::nodeByPath(p, hidden, {"main", "g", "h"})), int64_t(4));

        const TreeTransform collapse[] = {{TreeTransform::Kind::CollapseRecursion, f}};
        const CallTree collapsed = applyTransforms(p, p.tree, collapse);
        QCOMPARE(collapsed.total(0, test::nodeByPath(p, collapsed, {"main", "f", "h"})), int64_t(4));
        QCOMPARE(test::nodeByPath(p, collapsed, {"main", "f", "g", "f"}), kRootNode);
        QCOMPARE(collapsed.grandTotal(0), p.tree.grandTotal(0));
        QCOMPARE(applyTransforms(p, p.tree, {}).size(), p.tree.size());
    }

    void searchCountsEachSampleOnce() {
        const Profile p = fromFolded("main;f;g;f 4\nmain;h 6\nmain;Fx 10\n");
        SearchQuery q{"f", false, true};
        const auto m = matchFrames(p, q);
        QCOMPARE(matchedCost(p.tree, m, 0), int64_t(4)); // not 8: the stack matches twice
        QCOMPARE(matchingNodes(p.tree, m).size(), std::size_t(2));
        q.caseSensitive = false;
        QCOMPARE(matchedCost(p.tree, matchFrames(p, q), 0), int64_t(14));
        q = SearchQuery{"^(g|h)$", true, true};
        QCOMPARE(matchedCost(p.tree, matchFrames(p, q), 0), int64_t(10));
        q.pattern = "(";
        QVERIFY_THROWS_EXCEPTION(std::regex_error, matchFrames(p, q));
    }

    void foldedOutputIsSortedBytewise() {
        // names that are prefixes of siblings, with characters on both sides of ';' after the prefix
        const std::vector<std::string> lines = {"a;foo 1",   "a;foo:x 2",   "a;foo;c 3", "a;foo<int> 4",
                                                "a;foo+1 5", "a;foo 1 6",   "a 7",       "a;fo 8",
                                                "b;x 9",     "a;foo;c;d 10"};
        std::string text;
        for (auto it = lines.rbegin(); it != lines.rend(); ++it)
            text += *it + "\n";
        std::vector<std::string> expected = lines;
        std::sort(expected.begin(), expected.end(), [](const std::string& x, const std::string& y) {
            return x.substr(0, x.rfind(' ')) < y.substr(0, y.rfind(' '));
        });
        std::string want;
        for (const auto& l : expected)
            want += l + "\n";
        QCOMPARE(folded(fromFolded(text)), want);
        QVERIFY(compareAsStackSegments("foo", "foo:x") > 0); // "foo;" sorts after "foo:x"
        QVERIFY(compareAsStackSegments("foo", "foo<int>") < 0);
        // sibling frames with the same name (two modules) print as one line, in order
        TreeBuilder b;
        const CostValue one{b.costType("samples", CostUnit::Samples), 1};
        const uint32_t t = b.thread("t", 1, 1);
        const FrameId main = b.frame("main"), f1 = b.frame("f", "/lib/a.so"), f2 = b.frame("f", "/lib/b.so"),
                      g = b.frame("g"), fx = b.frame("f:x");
        for (auto stack :
             {std::vector<FrameId>{main, f1, g}, {main, f2}, {main, fx}, {main, f2, g}, {main, f1}})
            b.addSample(t, stack, {&one, 1});
        QCOMPARE(folded(b.finish({})), std::string("main;f 2\nmain;f:x 1\nmain;f;g 2\n"));
    }

    void foldedRoundTrip() {
        const std::string text = "a;b;c 3\na;b;d 0.5\na;e 7\n[unknown <7f2e>];x y 2\n";
        const Profile p = fromFolded(text);
        const std::string once = folded(p);
        QCOMPARE(once, std::string("[unknown <7f2e>];x y 2\na;b;c 3\na;b;d 0.5\na;e 7\n"));
        QCOMPARE(folded(fromFolded(once)), once);
        FoldedOptions two;
        two.secondCostType = 1;
        const std::string diff = "a;b 1 2\na;c 3 0\n";
        QCOMPARE(folded(fromFolded(diff), two), diff);
    }
};

QTEST_GUILESS_MAIN(TestModel)
#include "tst_model.moc"
