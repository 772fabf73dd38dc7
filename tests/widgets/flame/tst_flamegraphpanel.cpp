// FlameGraphPanel: re-derivation (transforms, threads, cost type), chips, breadcrumbs, find bar, settings.
#include "common/qtprofile.h"
#include "flame/breadcrumbbar.h"
#include "flame/flamegraphpanel.h"
#include "flame/flamepalette.h"
#include "flame/searchbar.h"
#include "patience.h"
#include "testutil.h"
#include "widgettestutil.h"

#include "scorch/bytesource.h"
#include "scorch/import.h"
#include "scorch/transform.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <map>
#include <string>
#include <thread>
#include <vector>

using namespace scorch;
using scorch::test::flameFixture;
using scorch::test::kPatienceMs;
using scorch::test::loadShared;
using scorch::test::nodeByPath;

namespace {

FrameId frameNamed(const Profile& p, std::string_view name) {
    for (uint32_t f = 1; f < p.frames.size(); ++f)
        if (p.frameName(FrameId{f}) == name)
            return FrameId{f};
    return FrameId{};
}

void trigger(FlameGraphView* view, NodeId node, const char* action) {
    std::unique_ptr<QMenu> menu(view->createContextMenu(node, view));
    QAction* a = menu->findChild<QAction*>(QLatin1String(action));
    QVERIFY2(a, action);
    a->trigger();
}

} // namespace

class TestFlameGraphPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true); // QSettings go to a throwaway test location
        QCoreApplication::setOrganizationName(QStringLiteral("Scorch"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_flamegraphpanel"));
        QSettings().clear();
    }

    void setProfileEmitsData() {
        FlameGraphPanel panel;
        QSignalSpy spy(&panel, &FlameGraphPanel::dataChanged);
        panel.setProfile(loadShared(flameFixture("simple.folded")));
        QCOMPARE(spy.size(), 1);
        QVERIFY(panel.data());
        QCOMPARE(panel.data()->tree.grandTotal(0), 40);
        QCOMPARE(panel.view()->data(), panel.data());
        QVERIFY(panel.chips().empty());
        QCOMPARE(spy.last().at(0).value<std::shared_ptr<const ChartData>>(), panel.data());
    }

    /// A large tree's chart is laid out by the job that makes its data, off the GUI thread (a pass over
    /// the tree, 9 ms at 3.5 M nodes, would hold up the window whenever a range or thread set changes); a
    /// small one's at once. The layout is the one FlameLayout makes of the tree.
    void largeChartLaidOutOffTheGuiThread() {
        std::string text;
        for (int i = 0; i < 120000; ++i) // 120 k leaves under 300 callers: over 100 k nodes
            text += "main;caller" + std::to_string(i / 400) + ";leaf" + std::to_string(i) + ' ' +
                    std::to_string(1 + i % 7) + '\n';
        const auto large = std::make_shared<const Profile>(
            importProfile(memoryByteSource(std::move(text), "large.folded"), "large.folded"));
        QVERIFY(large->tree.size() > 120000);
        FlameGraphPanel panel;
        panel.setProfile(large);
        QTRY_VERIFY_WITH_TIMEOUT(panel.view()->data() != nullptr, kPatienceMs);
        const std::shared_ptr<const ChartData> data = panel.view()->data();
        QVERIFY(data->layoutMadeOn() != std::thread::id{});
        QVERIFY(data->layoutMadeOn() != std::this_thread::get_id());
        FlameLayout expected;
        expected.setTree(&data->tree, data->costType);
        QCOMPARE(panel.view()->layout().totalWidth(), data->tree.grandTotal(0));
        for (NodeId n = 0; n < data->tree.size(); n += 997)
            QCOMPARE(panel.view()->layout().offset(n), expected.offset(n));

        panel.setProfile(loadShared(flameFixture("simple.folded")));
        QVERIFY(panel.view()->data() != data);
        QCOMPARE(panel.view()->data()->layoutMadeOn(), std::this_thread::get_id());
    }

    /// The setters' contract: one that changes nothing emits nothing, one that changes something emits
    /// dataChanged exactly once, with the data it asked for. Each step below makes no-op calls and then one
    /// change; the k-th signal must carry the k-th change (a no-op that emitted, or a change that emitted
    /// twice, would shift the signals against the changes).
    void settersEmitOnlyOnChange() {
        const auto profile = loadShared(test::testData(QStringLiteral("perf/two-events.perf")));
        QCOMPARE(profile->costTypes.size(), std::size_t{2}); // cycles, instructions
        QCOMPARE(profile->threads.size(), std::size_t{3});
        const FrameId middle = frameNamed(*profile, "middle");
        QVERIFY(middle.value != 0);
        const TreeTransform focus{TreeTransform::Kind::Focus, middle};

        FlameGraphPanel panel;
        QSignalSpy spy(&panel, &FlameGraphPanel::dataChanged);
        qsizetype changes = 0;
        auto emitted = [&]() -> std::shared_ptr<const ChartData> {
            ++changes;
            if (!QTest::qWaitFor([&] { return spy.size() >= changes; }, kPatienceMs) || spy.size() != changes)
                return nullptr;
            const auto data = spy.at(changes - 1).at(0).value<std::shared_ptr<const ChartData>>();
            return data == panel.data() ? data : nullptr;
        };

        panel.setProfile(profile);
        auto data = emitted();
        QVERIFY(data);
        QCOMPARE(data->costType, std::size_t{0});

        panel.setCostType(0);
        panel.setThreads({});
        panel.setTransforms({});
        panel.removeTransform(0); // there is none
        panel.setCostType(1);
        data = emitted();
        QVERIFY(data);
        QCOMPARE(data->costType, std::size_t{1});
        QCOMPARE(data->tree.grandTotal(1), int64_t(700));

        panel.setCostType(1);
        panel.setThreads({1});
        data = emitted();
        QVERIFY(data);
        QCOMPARE(data->threads, std::vector<uint32_t>{1});
        QCOMPARE(data->costType, std::size_t{1});

        panel.setThreads({1});
        panel.addTransform(focus);
        data = emitted();
        QVERIFY(data);
        QCOMPARE(data->transforms, std::vector<TreeTransform>{focus});
        QCOMPARE(data->threads, std::vector<uint32_t>{1});

        panel.addTransform(focus); // already active
        panel.setTransforms({focus});
        panel.removeTransform(1); // out of range
        panel.removeTransform(0);
        data = emitted();
        QVERIFY(data);
        QVERIFY(data->transforms.empty());
        QCOMPARE(panel.chips().size(), std::size_t{0});

        panel.setTransforms({});
        panel.setProfile(profile); // back to all threads and cost type 0
        data = emitted();
        QVERIFY(data);
        QCOMPARE(data->costType, std::size_t{0});
        QVERIFY(data->threads.empty());
        QCOMPARE(spy.size(), changes);
    }

    void transformsFromContextMenu() {
        FlameGraphPanel panel;
        panel.resize(900, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setProfile(loadShared(flameFixture("simple.folded")));
        const auto before = panel.data();
        const NodeId a = nodeByPath(*before, {"main", "a"});
        QCOMPARE(before->tree.total(0, a), 30);

        // Focus on a: the grand total becomes a's total.
        QSignalSpy spy(&panel, &FlameGraphPanel::dataChanged);
        trigger(panel.view(), a, "focus");
        QCOMPARE(panel.chips().size(), std::size_t{1}); // the chip at once, the chart when derived:
        QCOMPARE(panel.data(), before);                 // derived off the GUI thread, delivered through
        QCOMPARE(panel.view()->data(), before);         // its event loop; until then the old chart stays
        QCOMPARE(spy.size(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(spy.size(), 1, kPatienceMs);
        QCOMPARE(panel.view()->data(), panel.data());
        QCOMPARE(panel.data()->tree.grandTotal(0), 30);
        QCOMPARE(panel.data()->transforms.size(), std::size_t{1});
        QCOMPARE(panel.chips().size(), std::size_t{1});
        auto* chip = qobject_cast<QToolButton*>(panel.chips().front());
        QVERIFY(chip);
        QVERIFY2(chip->text().startsWith(QLatin1String("Focus: a")), qPrintable(chip->text()));

        // Clicking the chip removes the transform.
        QTest::mouseClick(chip, Qt::LeftButton);
        QCOMPARE(panel.data()->tree.grandTotal(0), 40);
        QVERIFY(panel.chips().empty());

        // Hide a: the total stays, b moves up under main.
        trigger(panel.view(), nodeByPath(*panel.data(), {"main", "a"}), "hide");
        QTRY_COMPARE_WITH_TIMEOUT(panel.data()->transforms.size(), std::size_t{1}, kPatienceMs);
        QCOMPARE(panel.data()->tree.grandTotal(0), 40);
        const NodeId b = nodeByPath(*panel.data(), {"main", "b"});
        QVERIFY(b != kRootNode);
        QCOMPARE(panel.data()->tree.total(0, b), 30);
        QCOMPARE(nodeByPath(*panel.data(), {"main", "a"}), kRootNode);
        QCOMPARE(panel.chips().size(), std::size_t{1});
        // The same transform twice is ignored.
        panel.addTransform(panel.data()->transforms.front());
        QCOMPARE(panel.chips().size(), std::size_t{1});
        panel.setTransforms({});
        QVERIFY(panel.chips().empty());
    }

    void reversedChart() {
        // flamegraph.pl --reverse: every stack flipped, leaf functions at the base. Checked against the
        // profile's own stacks reversed here, path by path.
        FlameGraphPanel panel;
        panel.resize(900, 600);
        const auto profile = loadShared(test::testData(QStringLiteral("gui/small.folded")));
        panel.setProfile(profile);
        const auto forward = panel.data();
        QSignalSpy changed(&panel, &FlameGraphPanel::dataChanged);
        panel.findChild<QAction*>(QStringLiteral("reversed"))->trigger();
        QVERIFY(panel.isReversed());
        QTRY_VERIFY_WITH_TIMEOUT(panel.view()->data() != forward, kPatienceMs);
        QCOMPARE(changed.count(), 0); // the tables' data stays the forward tree
        QCOMPARE(panel.data(), forward);
        std::map<std::vector<std::string>, int64_t> expected; // every prefix of every reversed stack
        const CallTree& t = forward->tree;
        for (NodeId n = 1; n < t.size(); ++n) {
            if (t.self(0, n) == 0)
                continue;
            std::vector<std::string> reversed;
            for (NodeId m = n; m != kRootNode; m = t.parent(m)) {
                reversed.push_back(std::string(profile->frameName(t.frame(m))));
                expected[reversed] += t.self(0, n);
            }
        }
        std::map<std::vector<std::string>, int64_t> shown;
        const CallTree& r = panel.view()->data()->tree;
        for (NodeId n = 1; n < r.size(); ++n) {
            std::vector<std::string> path;
            for (NodeId m : r.path(n))
                path.push_back(std::string(profile->frameName(r.frame(m))));
            shown[path] += r.total(0, n);
        }
        QCOMPARE(shown, expected);
        QCOMPARE(shown.at({"inner"}), int64_t(23)); // inner at the base, under run's and helper's compute
        // a reversed path is no call path: no "Focus on This Subtree" in the menu
        const NodeId inner = nodeByPath(*panel.view()->data(), {"inner", "compute"});
        std::unique_ptr<QMenu> menu(panel.view()->createContextMenu(inner, panel.view()));
        QVERIFY(!menu->findChild<QAction*>(QStringLiteral("focusSubtree"))->isVisible());
        QVERIFY(menu->findChild<QAction*>(QStringLiteral("focus"))->isVisible());
        // a transform while reversed: the chart is the reversed transformed tree
        panel.addTransform({TreeTransform::Kind::Drop, frameNamed(*profile, "helper")});
        QTRY_VERIFY_WITH_TIMEOUT(
            panel.view()->data() && !panel.view()->data()->transforms.empty() &&
                nodeByPath(*panel.view()->data(), {"inner"}) != kRootNode &&
                panel.view()->data()->tree.total(0, nodeByPath(*panel.view()->data(), {"inner"})) == 20,
            kPatienceMs);
        // back to the forward chart: the panel's data itself
        panel.setReversed(false);
        QCOMPARE(panel.view()->data(), panel.data());
        std::unique_ptr<QMenu> forwardMenu(
            panel.view()->createContextMenu(nodeByPath(*panel.data(), {"main"}), panel.view()));
        QVERIFY(forwardMenu->findChild<QAction*>(QStringLiteral("focusSubtree"))->isVisible());
    }

    void collapseRecursion() {
        FlameGraphPanel panel;
        panel.setProfile(loadShared(flameFixture("recursive.folded")));
        const NodeId rec = nodeByPath(*panel.data(), {"main", "rec"});
        QVERIFY(nodeByPath(*panel.data(), {"main", "rec", "work", "rec", "leaf"}) != kRootNode);
        trigger(panel.view(), rec, "collapseRecursion");
        QTRY_COMPARE_WITH_TIMEOUT(panel.data()->transforms.size(), std::size_t{1}, kPatienceMs);
        QCOMPARE(panel.data()->tree.grandTotal(0), 20);
        QCOMPARE(nodeByPath(*panel.data(), {"main", "rec", "work", "rec"}), kRootNode);
        QCOMPARE(panel.data()->tree.total(0, nodeByPath(*panel.data(), {"main", "rec", "leaf"})), 15);
    }

    /// The module chips (context menu) give the tree the command line's --collapse-module/--merge-module
    /// give.
    void moduleChipsMatchTheCommandLine() {
        const std::string path = test::testData(QStringLiteral("perf/two-events.perf")).toStdString();
        Profile shown = importProfile(path);
        addModuleFrames(shown); // as the window's loader does
        const auto profile = std::make_shared<const Profile>(std::move(shown));
        FlameGraphPanel panel;
        panel.setProfile(profile);
        NodeId withModule = kRootNode;
        for (NodeId n = 1; n < profile->tree.size() && withModule == kRootNode; ++n)
            if (profile->frames[profile->tree.frame(n)].module && profile->tree.parent(n) != kRootNode)
                withModule = n;
        QVERIFY(withModule != kRootNode);
        const StringId module = profile->frames[profile->tree.frame(withModule)].module;
        const QString label = toQString(moduleFrameName(profile->strings.view(module)));
        auto folded = [](const Profile& p, const CallTree& t) {
            std::vector<std::string> lines;
            for (NodeId n = 1; n < t.size(); ++n)
                if (t.self(0, n) != 0) {
                    std::string line;
                    for (NodeId m : t.path(n))
                        line += std::string(p.frameName(t.frame(m))) + ";";
                    lines.push_back(line + std::to_string(t.self(0, n)));
                }
            std::sort(lines.begin(), lines.end());
            return lines;
        };
        for (const auto& [action, kind, chipText] :
             {std::tuple{"collapseModule", TreeTransform::Kind::CollapseModule, "Collapse module: "},
              std::tuple{"mergeModule", TreeTransform::Kind::MergeModule, "Merge module: "}}) {
            trigger(panel.view(), withModule, action);
            QTRY_COMPARE_WITH_TIMEOUT(panel.data()->transforms.size(), std::size_t{1}, kPatienceMs);
            auto* chip = qobject_cast<QToolButton*>(panel.chips().front());
            QVERIFY(chip);
            QVERIFY2(chip->text().startsWith(QLatin1String(chipText) + label), qPrintable(chip->text()));
            Profile cli = importProfile(path); // the command line's way: the profile transformed in place
            const TreeTransform t[] = {
                TreeTransform::forModule(kind, cli.strings.find(profile->strings.view(module)))};
            applyTransforms(cli, t);
            QCOMPARE(folded(*profile, panel.data()->tree), folded(cli, cli.tree));
            panel.setTransforms({});
            QTRY_COMPARE_WITH_TIMEOUT(panel.data()->transforms.size(), std::size_t{0}, kPatienceMs);
        }
    }

    void findBar() {
        FlameGraphPanel panel;
        panel.resize(900, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&panel));
        panel.setProfile(loadShared(flameFixture("recursive.folded")));
        SearchBar* bar = panel.searchBar();
        QVERIFY(!bar->isVisible());
        panel.view()->setFocus();
        QTest::keyClick(panel.view(), Qt::Key_F, Qt::ControlModifier);
        QVERIFY(bar->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(bar->lineEdit()->hasFocus(), kPatienceMs);

        QTest::keyClicks(bar->lineEdit(), QStringLiteral("rec"));
        QTest::keyClick(bar->lineEdit(), Qt::Key_Return); // applies at once and selects the first match
        QCOMPARE(bar->resultLabel()->text(), QStringLiteral("Matched: 15 (75.0% of total)"));
        const NodeId first = panel.view()->selectedNode();
        QCOMPARE(panel.data()->profile->frameName(panel.data()->tree.frame(first)), std::string_view("rec"));
        QTest::keyClick(bar->lineEdit(), Qt::Key_Return);
        QVERIFY(panel.view()->selectedNode() != first);
        QTest::keyClick(bar->lineEdit(), Qt::Key_Return, Qt::ShiftModifier);
        QCOMPARE(panel.view()->selectedNode(), first);

        // Case toggle: "REC" matches nothing case-sensitively.
        bar->lineEdit()->setText(QStringLiteral("REC"));
        bar->caseButton()->click();
        QCOMPARE(bar->resultLabel()->text(), QStringLiteral("Matched: 0 (0.0% of total)"));
        bar->caseButton()->click();
        QCOMPARE(bar->resultLabel()->text(), QStringLiteral("Matched: 15 (75.0% of total)"));
        // Regex toggle.
        bar->lineEdit()->setText(QStringLiteral("^(other|leaf)$"));
        bar->regexButton()->click();
        QCOMPARE(bar->resultLabel()->text(), QStringLiteral("Matched: 20 (100.0% of total)"));
        // Narrow (a 1024 px screen leaves the chart about 700 px): the short forms, every part of the bar
        // inside it and the pattern box keeping its room; the words move to the tooltip.
        QVERIFY(!bar->isCompact());
        panel.resize(700, 500);
        QTRY_VERIFY_WITH_TIMEOUT(bar->isCompact(), kPatienceMs);
        QCOMPARE(bar->regexButton()->text(), QStringLiteral(".*"));
        QCOMPARE(bar->resultLabel()->text(), QStringLiteral("20 (100.0%)"));
        QVERIFY(bar->resultLabel()->toolTip().startsWith(QStringLiteral("Matched: 20 (100.0% of total)")));
        QTRY_VERIFY_WITH_TIMEOUT(bar->resultLabel()->geometry().right() < bar->width(), kPatienceMs);
        QVERIFY(bar->resultLabel()->width() >= bar->resultLabel()->sizeHint().width());
        QVERIFY(bar->lineEdit()->width() >= bar->lineEdit()->minimumWidth());
        panel.resize(900, 500);
        QTRY_VERIFY_WITH_TIMEOUT(!bar->isCompact(), kPatienceMs);
        QCOMPARE(bar->resultLabel()->text(), QStringLiteral("Matched: 20 (100.0% of total)"));
        bar->lineEdit()->setText(QStringLiteral("(unclosed"));
        QTRY_COMPARE_WITH_TIMEOUT(bar->resultLabel()->text(), QStringLiteral("Invalid regular expression"),
                                  kPatienceMs);

        QTest::keyClick(bar->lineEdit(), Qt::Key_Escape);
        QVERIFY(!bar->isVisible());
        QVERIFY(panel.view()->search().pattern.empty());
    }

    // F3 / Shift+F3 and the arrow buttons visit the matches from the heaviest to the lightest, wrapping
    // around, and the counter shows the position ("2 of 4").
    void findNextHeaviestFirst() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("weights.folded"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("main;a;hot 50\nmain;b;hot 30\nmain;c;hot 5\nmain;hot 10\nmain;cold 7\n");
        f.close();
        FlameGraphPanel panel;
        panel.resize(900, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setProfile(loadShared(path));
        QTRY_VERIFY_WITH_TIMEOUT(panel.data() != nullptr, kPatienceMs);
        const ChartData& data = *panel.data();
        const NodeId byWeight[] = {nodeByPath(data, {"main", "a", "hot"}),
                                   nodeByPath(data, {"main", "b", "hot"}), nodeByPath(data, {"main", "hot"}),
                                   nodeByPath(data, {"main", "c", "hot"})};

        SearchBar* bar = panel.searchBar();
        panel.findNext(); // F3 without a search opens the find bar
        QVERIFY(bar->isVisible());
        bar->lineEdit()->setText(QStringLiteral("hot"));
        QTRY_COMPARE_WITH_TIMEOUT(bar->counterLabel()->text(), QStringLiteral("4 matches"), kPatienceMs);
        QTest::keyClick(bar->lineEdit(), Qt::Key_F3);
        QCOMPARE(panel.view()->selectedNode(), byWeight[0]);
        QCOMPARE(bar->counterLabel()->text(), QStringLiteral("1 of 4"));
        panel.findNext();
        QCOMPARE(panel.view()->selectedNode(), byWeight[1]);
        QCOMPARE(bar->counterLabel()->text(), QStringLiteral("2 of 4"));
        QTest::keyClick(bar->lineEdit(), Qt::Key_F3);
        QCOMPARE(panel.view()->selectedNode(), byWeight[2]);
        QTest::keyClick(bar->lineEdit(), Qt::Key_F3, Qt::ShiftModifier);
        QTest::keyClick(bar->lineEdit(), Qt::Key_F3, Qt::ShiftModifier);
        QCOMPARE(panel.view()->selectedNode(), byWeight[0]);
        QTest::keyClick(bar->lineEdit(), Qt::Key_F3, Qt::ShiftModifier); // wraps to the lightest
        QCOMPARE(panel.view()->selectedNode(), byWeight[3]);
        QCOMPARE(bar->counterLabel()->text(), QStringLiteral("4 of 4"));
        bar->nextButton()->click(); // and back round to the heaviest
        QCOMPARE(panel.view()->selectedNode(), byWeight[0]);
        bar->previousButton()->click();
        QCOMPARE(bar->counterLabel()->text(), QStringLiteral("4 of 4"));

        // Selecting a frame that does not match leaves the position.
        panel.view()->selectNode(nodeByPath(data, {"main", "cold"}));
        QCOMPARE(bar->counterLabel()->text(), QStringLiteral("4 matches"));
        bar->lineEdit()->setText(QStringLiteral("nothing-matches-this"));
        QTRY_COMPARE_WITH_TIMEOUT(bar->counterLabel()->text(), QStringLiteral("0 matches"), kPatienceMs);
        QVERIFY(!bar->nextButton()->isEnabled());
    }

    void breadcrumbsAndHistoryButtons() {
        FlameGraphPanel panel;
        panel.resize(900, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setProfile(loadShared(flameFixture("simple.folded")));
        FlameGraphView* view = panel.view();
        view->setAnimationDuration(0);
        const NodeId b = nodeByPath(*panel.data(), {"main", "a", "b"});
        view->zoomTo(b);
        const auto& path = panel.breadcrumbBar()->path();
        QCOMPARE(path.size(), std::size_t{4});
        QCOMPARE(path[0].text, QStringLiteral("all"));
        QCOMPARE(path[3].text, QStringLiteral("b"));
        // Clicking the "main" crumb zooms there.
        auto crumbs = panel.breadcrumbBar()->findChildren<QToolButton*>(QStringLiteral("crumb"));
        QCOMPARE(crumbs.size(), 4);
        QTest::mouseClick(crumbs[1], Qt::LeftButton);
        QCOMPARE(view->zoomRoot(), nodeByPath(*panel.data(), {"main"}));
        QVERIFY(view->canGoBack());
        view->back();
        QCOMPARE(view->zoomRoot(), b);
    }

    /// The scroll height follows the zoom: the deepest stack under the zoomed frame, not the profile's.
    void scrollHeightFollowsZoom() {
        FlameGraphPanel panel;
        panel.resize(900, 200);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        // "deep" goes 12 frames down, "flat" 1: zoomed on "flat", only its own rows and its callers count.
        std::string text = "main;flat 5\nmain";
        for (int i = 0; i < 12; ++i)
            text += ";d" + std::to_string(i);
        text += " 5\n";
        panel.setProfile(std::make_shared<const Profile>(scorch::test::fromFolded(text)));
        QTRY_VERIFY_WITH_TIMEOUT(panel.data() != nullptr, kPatienceMs);
        FlameGraphView* view = panel.view();
        view->setAnimationDuration(0);
        const int row = view->rowHeight();
        QCOMPARE(view->minimumHeight(), 14 * row); // all, main, d0 .. d11
        view->zoomTo(nodeByPath(*panel.data(), {"main", "flat"}));
        QCOMPARE(view->minimumHeight(), 3 * row); // all, main, flat
        view->zoomTo(nodeByPath(*panel.data(), {"main", "d0", "d1"}));
        QCOMPARE(view->minimumHeight(), 14 * row);
        view->zoomTo(kRootNode);
        QCOMPARE(view->minimumHeight(), 14 * row);
        // Flame mode: the root row stays in view at the bottom when the height changes.
        view->zoomTo(nodeByPath(*panel.data(), {"main", "flat"}));
        QScrollBar* bar = panel.findChild<QScrollArea*>()->verticalScrollBar();
        QTRY_COMPARE_WITH_TIMEOUT(bar->value(), bar->maximum(), kPatienceMs);
    }

    /// By Module and By Kind say what their colours stand for; Hot and System have no legend.
    void colourLegend() {
        FlameGraphPanel panel;
        panel.resize(900, 400);
        panel.show();
        const std::string script =
            "p 1/1 1.0: 1 cpu-clock:\n\t1 work (/usr/bin/app)\n\t2 main (/usr/bin/app)\n\n"
            "p 1/1 1.1: 1 cpu-clock:\n\t3 memcpy (/lib/libc.so.6)\n\t2 main (/usr/bin/app)\n\n"
            "p 1/1 1.2: 1 cpu-clock:\n\t3 memcpy (/lib/libc.so.6)\n\t2 main (/usr/bin/app)\n\n";
        panel.setProfile(std::make_shared<const Profile>(scorch::test::fromText(script, "legend.perf")));
        QTRY_VERIFY_WITH_TIMEOUT(panel.data() != nullptr, kPatienceMs);
        panel.setColorScheme(FlameGraphView::ColorScheme::Hot);
        QVERIFY(!panel.legend()->isVisible());
        panel.setColorScheme(FlameGraphView::ColorScheme::Module);
        QVERIFY(panel.legend()->isVisible());
        const QString modules = panel.legend()->text();
        // The heaviest module first, each with the colour its frames are drawn in.
        QVERIFY2(modules.indexOf(QStringLiteral("libc.so.6")) >= 0, qPrintable(modules));
        QVERIFY(modules.indexOf(QStringLiteral("libc.so.6")) < modules.indexOf(QStringLiteral("app")));
        const Profile& p = *panel.data()->profile;
        const QRgb libc = FlamePalette::computeColor(p, frameNamed(p, "memcpy"), FlameColorScheme::Module,
                                                     panel.view()->palette());
        QVERIFY(modules.contains(QColor(libc).name()));
        panel.setColorScheme(FlameGraphView::ColorScheme::Kind);
        QVERIFY(panel.legend()->text().contains(QStringLiteral("native")));
        panel.setColorScheme(FlameGraphView::ColorScheme::System);
        QVERIFY(!panel.legend()->isVisible());
    }

    /// Names are untrusted: ESC sequences, BEL, C1 controls and bidi overrides show escaped in the
    /// breadcrumbs and the tooltip, so no single-line widget breaks or reorders.
    void hostileNamesAreShownEscaped() {
        FlameGraphPanel panel;
        panel.resize(900, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const std::string text = "main;evil\x1b[2Jt\x07x;rtl\xe2\x80\xae"
                                 "leaf\xc2\x9b 5\nmain;other 1\n";
        panel.setProfile(std::make_shared<const Profile>(
            importProfile(memoryByteSource(text, "hostile.folded"), "hostile")));
        FlameGraphView* view = panel.view();
        view->setAnimationDuration(0);
        const NodeId leaf = nodeByPath(*panel.data(), {"main", "evil\x1b[2Jt\x07x",
                                                       "rtl\xe2\x80\xae"
                                                       "leaf\xc2\x9b"});
        QVERIFY(leaf != kRootNode);
        view->zoomTo(leaf);
        const auto safe = [](const QString& s) {
            for (const QChar c : s)
                if ((c.unicode() < 0x20 && c != u'\n') || (c.unicode() >= 0x7F && c.unicode() <= 0x9F) ||
                    (c.unicode() >= 0x202A && c.unicode() <= 0x202E) ||
                    (c.unicode() >= 0x2066 && c.unicode() <= 0x2069))
                    return false;
            return true;
        };
        const auto& path = panel.breadcrumbBar()->path();
        QCOMPARE(path.size(), std::size_t{4});
        QCOMPARE(path[2].text, QStringLiteral("evil\\x1b[2Jt\\x07x"));
        QCOMPARE(path[3].text, QStringLiteral("rtl\\u202eleaf\\xc2\\x9b"));
        for (const QToolButton* crumb :
             panel.breadcrumbBar()->findChildren<QToolButton*>(QStringLiteral("crumb")))
            QVERIFY2(safe(crumb->text()), qPrintable(crumb->text()));
        const QString tip = view->toolTipText(view->nodeRect(leaf).center().toPoint());
        QVERIFY2(tip.contains(QStringLiteral("rtl\\u202eleaf")), qPrintable(tip));
        QVERIFY2(safe(tip), qPrintable(tip));
    }

    void settingsPersist() {
        {
            FlameGraphPanel panel;
            panel.setOrientation(FlameGraphView::Orientation::Icicle);
            panel.setColorScheme(FlameGraphView::ColorScheme::Module);
        }
        FlameGraphPanel again;
        QCOMPARE(again.view()->orientation(), FlameGraphView::Orientation::Icicle);
        QCOMPARE(again.view()->colorScheme(), FlameGraphView::ColorScheme::Module);
        again.setOrientation(FlameGraphView::Orientation::Flame);
        again.setColorScheme(FlameGraphView::ColorScheme::Hot);
        QCOMPARE(QSettings().value(QStringLiteral("FlameGraph/orientation")).toString(),
                 QStringLiteral("flame"));
    }

    void threadsAndCorpus() {
        const QString path =
            QStringLiteral(SCORCH_CORPUS_DIR "/perf-script/inputs/flamegraph/test/perf-vertx-stacks-01.txt");
        if (!QFile::exists(path))
            QSKIP("corpus not found at " SCORCH_CORPUS_DIR " (perf-vertx-stacks-01.txt)");
        FlameGraphPanel panel;
        const auto profile = loadShared(path);
        panel.setProfile(profile);
        const int64_t all = panel.data()->tree.grandTotal(0);
        QVERIFY(profile->threads.size() >= 2);
        panel.setThreads({0});
        QTRY_COMPARE_WITH_TIMEOUT(panel.data()->threads, std::vector<uint32_t>{0}, kPatienceMs);
        QVERIFY(panel.data()->tree.grandTotal(0) < all);
        // Focus on a frame of this thread keeps the thread filter.
        const FrameId f = frameNamed(*profile, "start_thread");
        QVERIFY(f.value != 0);
        panel.addTransform({TreeTransform::Kind::Focus, f});
        QTRY_COMPARE_WITH_TIMEOUT(panel.data()->transforms.size(), std::size_t{1}, kPatienceMs);
        QCOMPARE(panel.data()->threads, std::vector<uint32_t>{0});
        QVERIFY(panel.data()->tree.grandTotal(0) <= all);
        panel.setThreads({});
        QTRY_VERIFY_WITH_TIMEOUT(panel.data()->threads.empty(), kPatienceMs);
        QCOMPARE(panel.data()->transforms.size(), std::size_t{1});
    }
};

QTEST_MAIN(TestFlameGraphPanel)
#include "tst_flamegraphpanel.moc"
