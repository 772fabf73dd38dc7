// The transforms added for issue 16 (drop, focus on a subtree vs on a function, collapse/merge a module,
// collapse all recursion) and the caller/callee sandwich, on hand-computed fixtures.
#include "testutil.h"

#include "scorch/analysis.h"
#include "scorch/builder.h"
#include "scorch/foldedwriter.h"
#include "scorch/sandwich.h"
#include "scorch/transform.h"

#include <numeric>
#include <sstream>

using namespace scorch;

namespace {

/// The tree as sorted `a;b;c COUNT` lines of cost type 0 (independent of the folded writer).
std::string folded(const Profile& p, const CallTree& tree) {
    std::vector<std::string> lines;
    for (NodeId n = 1; n < tree.size(); ++n) {
        if (tree.self(0, n) == 0)
            continue;
        std::string stack;
        for (NodeId m : tree.path(n))
            stack += (stack.empty() ? "" : ";") + std::string(p.frameName(tree.frame(m)));
        lines.push_back(stack + " " + std::to_string(tree.self(0, n)));
    }
    std::sort(lines.begin(), lines.end());
    std::string out;
    for (const std::string& l : lines)
        out += l + "\n";
    return out;
}

FrameId frameNamed(const Profile& p, std::string_view name) {
    for (uint32_t f = 1; f < p.frames.size(); ++f)
        if (p.frameName(FrameId{f}) == name)
            return FrameId{f};
    return {};
}

/// main (app) calls into libfoo.so, which calls back into the app (cb), which calls libfoo.so again.
Profile moduleProfile() {
    TreeBuilder b;
    const FrameId main = b.frame("main", "/usr/bin/app"), work = b.frame("work", "/usr/bin/app"),
                  cb = b.frame("cb", "/usr/bin/app"), a = b.frame("foo_a", "/usr/lib/libfoo.so"),
                  fb = b.frame("foo_b", "/usr/lib/libfoo.so"), fc = b.frame("foo_c", "/usr/lib/libfoo.so");
    const uint32_t ct = b.costType("samples", CostUnit::Samples);
    const FrameId process = b.frame("app", {}, FrameKind::Process);
    auto add = [&](uint32_t thread, std::vector<FrameId> stack, int64_t cost) {
        stack.insert(stack.begin(), process);
        const CostValue c{ct, cost};
        b.addSample(thread, stack, {&c, 1});
    };
    const uint32_t t1 = b.thread("app", 1, 1), t2 = b.thread("app", 1, 2);
    add(t1, {main, a, fb, cb, fc}, 4);
    add(t2, {main, a, fb, cb, fc}, 1);
    add(t1, {main, a}, 1);
    add(t2, {main, work}, 2);
    return b.finish({});
}

} // namespace

class TestTransforms : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void dropRemovesEverySampleThroughTheFunction() {
        const Profile p = test::fromFolded("main;f;x 2\nmain;g;f 3\nmain;z 5\nf 1\n");
        const TreeTransform drop[] = {{TreeTransform::Kind::Drop, frameNamed(p, "f")}};
        QCOMPARE(folded(p, applyTransforms(p, p.tree, drop)), std::string("main;z 5\n"));
    }

    void focusOnSubtreeDiffersFromFocusOnFunction() {
        const Profile p = test::fromFolded("main;a;f;x 2\nmain;b;f;y 3\nmain;a;f 1\nmain;a;g 7\n");
        const FrameId main = frameNamed(p, "main"), a = frameNamed(p, "a"), f = frameNamed(p, "f");
        const TreeTransform subtree[] = {TreeTransform::focusSubtree({main, a, f})};
        QCOMPARE(folded(p, applyTransforms(p, p.tree, subtree)), std::string("f 1\nf;x 2\n"));
        const TreeTransform function[] = {{TreeTransform::Kind::Focus, f}};
        QCOMPARE(folded(p, applyTransforms(p, p.tree, function)), std::string("f 1\nf;x 2\nf;y 3\n"));
        const TreeTransform shorter[] = {TreeTransform::focusSubtree({main, a})};
        QCOMPARE(folded(p, applyTransforms(p, p.tree, shorter)), std::string("a;f 1\na;f;x 2\na;g 7\n"));
    }

    void severalFramesActAsOne() {
        const Profile p = test::fromFolded("main;f1;x 2\nmain;f2;y 3\nmain;z 5\n");
        const FrameId fs[] = {frameNamed(p, "f1"), frameNamed(p, "f2")};
        const TreeTransform focus[] = {TreeTransform::forFrames(TreeTransform::Kind::Focus, fs)};
        QCOMPARE(folded(p, applyTransforms(p, p.tree, focus)), std::string("f1;x 2\nf2;y 3\n"));
        const TreeTransform none[] = {TreeTransform::forFrames(TreeTransform::Kind::Focus, {})};
        QCOMPARE(applyTransforms(p, p.tree, none).grandTotal(0), int64_t(0));
    }

    void collapseAllRecursionKeepsEachFunctionOnce() {
        const Profile p = test::fromFolded("a;b;a;c 2\nm;f;f;f;g 3\nm;h 1\n");
        const TreeTransform all[] = {{TreeTransform::Kind::CollapseAllRecursion, FrameId{}}};
        QCOMPARE(folded(p, applyTransforms(p, p.tree, all)), std::string("a;c 2\nm;f;g 3\nm;h 1\n"));
    }

    void collapseAndMergeModule() {
        Profile p = moduleProfile();
        const StringId lib = p.strings.find("/usr/lib/libfoo.so");
        QVERIFY(lib);
        QCOMPARE(moduleFrameName("/usr/lib/libfoo.so"), std::string("[libfoo.so]"));
        QCOMPARE(moduleFrameName("[kernel.kallsyms]"), std::string("[kernel.kallsyms]"));

        const TreeTransform merge[] = {TreeTransform::forModule(TreeTransform::Kind::MergeModule, lib)};
        QCOMPARE(folded(p, applyTransforms(p, p.tree, merge)),
                 std::string("app;main 1\napp;main;cb 5\napp;main;work 2\n"));

        // without the module frame a run becomes its outermost frame; with it, `[libfoo.so]`
        const TreeTransform collapse[] = {TreeTransform::forModule(TreeTransform::Kind::CollapseModule, lib)};
        QCOMPARE(folded(p, applyTransforms(p, p.tree, collapse)),
                 std::string("app;main;foo_a 1\napp;main;foo_a;cb;foo_c 5\napp;main;work 2\n"));
        addModuleFrames(p);
        QVERIFY(moduleFrame(p, lib).value != 0);
        QCOMPARE(
            folded(p, applyTransforms(p, p.tree, collapse)),
            std::string("app;main;[libfoo.so] 1\napp;main;[libfoo.so];cb;[libfoo.so] 5\napp;main;work 2\n"));
        // merging after collapsing removes the collapsed frames too
        const TreeTransform both[] = {collapse[0], merge[0]};
        QCOMPARE(folded(p, applyTransforms(p, p.tree, both)),
                 std::string("app;main 1\napp;main;cb 5\napp;main;work 2\n"));
    }

    void transformingTheProfileKeepsThreadCosts() {
        Profile p = moduleProfile();
        const StringId lib = p.strings.find("/usr/lib/libfoo.so");
        const TreeTransform t[] = {TreeTransform::forModule(TreeTransform::Kind::CollapseModule, lib),
                                   {TreeTransform::Kind::Drop, frameNamed(p, "work")}};
        applyTransforms(p, t);
        QCOMPARE(folded(p, p.tree),
                 std::string("app;main;[libfoo.so] 1\napp;main;[libfoo.so];cb;[libfoo.so] 5\n"));
        // per-thread costs follow the nodes: they sum to the tree's self costs, and thread 2 lost `work`
        std::vector<int64_t> self(p.tree.size(), 0), thread2(p.tree.size(), 0);
        for (std::size_t e = 0; e < p.threadCosts.node.size(); ++e) {
            self[p.threadCosts.node[e]] += p.threadCosts.cost[0][e];
            if (p.threadCosts.thread[e] == 1)
                thread2[p.threadCosts.node[e]] += p.threadCosts.cost[0][e];
        }
        for (NodeId n = 0; n < p.tree.size(); ++n)
            QCOMPARE(self[n], p.tree.self(0, n));
        QCOMPARE(std::accumulate(thread2.begin(), thread2.end(), int64_t(0)), int64_t(1));
        FoldedOptions o;
        o.includeTid = true;
        std::ostringstream out;
        writeFolded(p, o, out);
        QCOMPARE(out.str(),
                 std::string("app-1/1;main;[libfoo.so] 1\napp-1/1;main;[libfoo.so];cb;[libfoo.so] 4\n"
                             "app-1/2;main;[libfoo.so];cb;[libfoo.so] 1\n"));
    }

    void sandwichWithRecursionAndSeveralCallSites() {
        // f: called from a, b and main; recursive through h; a root of its own once
        const Profile p = test::fromFolded("main;a;f;g 10\nmain;b;f 5\nmain;f;h;f;g 3\nmain;c 7\nf;x 2\n");
        const FrameId f = frameNamed(p, "f");
        const Sandwich s = sandwich(p, p.tree, f);
        QCOMPARE(s.self[0], int64_t(5));
        QCOMPARE(s.total[0], int64_t(20)); // 10 + 5 + 3 + 2: the recursive stack counts once
        for (const FunctionCost& fc : functionCosts(p))
            if (fc.frame == f) {
                QCOMPARE(s.self[0], fc.self[0]);
                QCOMPARE(s.total[0], fc.total[0]);
            }
        // callers: f at the root, then who called it (from its outermost call), out to the roots
        const CallTree& up = s.callers;
        QCOMPARE(up.grandTotal(0), int64_t(20));
        QCOMPARE(up.total(0, test::nodeByPath(p, up, {"f"})), int64_t(20));
        QCOMPARE(up.self(0, test::nodeByPath(p, up, {"f"})), int64_t(2)); // the stack f was the root of
        QCOMPARE(up.total(0, test::nodeByPath(p, up, {"f", "a", "main"})), int64_t(10));
        QCOMPARE(up.total(0, test::nodeByPath(p, up, {"f", "b", "main"})), int64_t(5));
        QCOMPARE(up.total(0, test::nodeByPath(p, up, {"f", "main"})), int64_t(3));
        QCOMPARE(test::nodeByPath(p, up, {"f", "h"}), kRootNode); // the inner call is not a second site
        QCOMPARE(up.children(kRootNode).size(), std::size_t(1));
        // callees: everything below f's outermost calls, merged
        const CallTree& down = s.callees;
        QCOMPARE(down.grandTotal(0), int64_t(20));
        QCOMPARE(down.self(0, test::nodeByPath(p, down, {"f"})), int64_t(5));
        QCOMPARE(down.total(0, test::nodeByPath(p, down, {"f", "g"})), int64_t(10));
        QCOMPARE(down.total(0, test::nodeByPath(p, down, {"f", "h", "f", "g"})), int64_t(3));
        QCOMPARE(down.total(0, test::nodeByPath(p, down, {"f", "x"})), int64_t(2));
        QCOMPARE(down.children(kRootNode).size(), std::size_t(1));
    }

    void sandwichOfATransformedTree() {
        const Profile p = test::fromFolded("main;a;f;g 10\nmain;b;f 5\nmain;f;h;f;g 3\n");
        const TreeTransform drop[] = {{TreeTransform::Kind::Drop, frameNamed(p, "b")}};
        const CallTree t = applyTransforms(p, p.tree, drop);
        const Sandwich s = sandwich(p, t, frameNamed(p, "f"));
        QCOMPARE(s.total[0], int64_t(13));
        QCOMPARE(s.self[0], int64_t(0));
        QCOMPARE(test::nodeByPath(p, s.callers, {"f", "b"}), kRootNode);
    }
};

QTEST_GUILESS_MAIN(TestTransforms)
#include "tst_transforms.moc"
