// The sandwich view, offscreen: callers and callees of a function against sums made here from the profile's
// own stacks (small fixture with several call sites, a recursive one, a corpus perf script file); where the
// function's rows are drawn; double-click navigation with back/forward (buttons, Alt+Left/Right); a function
// without cost after a transform; the profile tab's "Show in Sandwich" (chart and table menus, key S) and
// the sandwich following the chart's transforms; the comparison window's sandwich in the diff colours.
#include "apptestutil.h"
#include "compare/compareview.h"
#include "flame/flamegraphpanel.h"
#include "flame/flamegraphview.h"
#include "flame/searchbar.h"
#include "patience.h"
#include "profiletab.h"
#include "sandwich/sandwichview.h"
#include "scorch/diff.h"
#include "tables/calltreetables.h"
#include "widgettestutil.h"

#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

#include <map>
#include <set>
#include <vector>

using namespace scorch;
using scorch::test::kPatienceMs;

namespace {

using Key = std::vector<uint32_t>; // frame ids, from the function outwards (callers) or downwards (callees)

struct Expected {
    std::map<Key, int64_t> callers, callees; // total of every path prefix
};

/// The sandwich of `function` computed here from the tree's sample leaves: each sample counts once, from
/// the function's outermost call on its stack; every prefix of its caller chain / callee path gets its cost.
Expected expectedSandwich(const CallTree& tree, FrameId function, std::size_t type) {
    Expected e;
    for (NodeId n = 1; n < tree.size(); ++n) {
        const int64_t cost = tree.self(type, n);
        if (cost == 0)
            continue;
        std::vector<uint32_t> stack; // root first
        for (NodeId m : tree.path(n))
            stack.push_back(tree.frame(m).value);
        std::size_t outer = 0;
        while (outer < stack.size() && stack[outer] != function.value)
            ++outer;
        if (outer == stack.size())
            continue;
        Key up;
        for (std::size_t i = outer + 1; i-- > 0;) {
            up.push_back(stack[i]);
            e.callers[up] += cost;
        }
        Key down;
        for (std::size_t i = outer; i < stack.size(); ++i) {
            down.push_back(stack[i]);
            e.callees[down] += cost;
        }
    }
    return e;
}

/// Every node's path (frame ids below the root) with its total, as the chart draws it.
std::map<Key, int64_t> shownPaths(const FlameGraphView& view) {
    std::map<Key, int64_t> out;
    const auto data = view.data();
    const CallTree& t = data->tree;
    for (NodeId n = 1; n < t.size(); ++n) {
        if (t.total(data->costType, n) == 0)
            continue;
        Key k;
        for (NodeId m : t.path(n))
            k.push_back(t.frame(m).value);
        out[k] += t.total(data->costType, n);
    }
    return out;
}

FrameId frameNamed(const Profile& p, std::string_view name) {
    for (uint32_t f = 1; f < p.frames.size(); ++f)
        if (p.frameName(FrameId{f}) == name)
            return FrameId{f};
    return FrameId{};
}

/// The first-level node of a sandwich chart (the function itself).
NodeId functionNode(const FlameGraphView& view) {
    NodeId found = kRootNode;
    view.data()->tree.forEachChild(kRootNode, [&](NodeId c) { found = c; });
    return found;
}

bool waitShown(SandwichView& v) {
    return QTest::qWaitFor([&] { return !v.isBusy() && v.callersView()->data(); }, kPatienceMs);
}

void checkAgainstStacks(SandwichView& v, const ChartData& data, FrameId f) {
    const Expected e = expectedSandwich(data.tree, f, data.costType);
    QVERIFY(!e.callers.empty());
    QCOMPARE(shownPaths(*v.callersView()), e.callers);
    QCOMPARE(shownPaths(*v.calleesView()), e.callees);
    // the function's row carries its total, counted once per sample as in the function table
    QCOMPARE(e.callers.at(Key{f.value}), e.callees.at(Key{f.value}));
}

bool redish(QRgb c) {
    return qRed(c) > qBlue(c) + 40;
}
bool blueish(QRgb c) {
    return qBlue(c) > qRed(c) + 40;
}

} // namespace

class TestSandwichView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void callersAndCalleesOverAllCallSites() {
        // compute is called from run, helper and other: three call sites, one sandwich
        const auto profile = test::loadShared(test::testData(QStringLiteral("gui/small.folded")));
        const auto data = ChartData::fromProfile(profile);
        SandwichView v;
        v.resize(900, 600);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        const FrameId compute = frameNamed(*profile, "compute");
        v.setData(data);
        v.showFunction(compute);
        QVERIFY(waitShown(v));
        QCOMPARE(v.function(), compute);
        checkAgainstStacks(v, *data, compute);
        // 20 + 10 + 3 + 5 samples through compute, three callers
        const NodeId fn = functionNode(*v.callersView());
        QCOMPARE(v.callersView()->data()->tree.total(0, fn), int64_t(38));
        int callers = 0;
        v.callersView()->data()->tree.forEachChild(fn, [&](NodeId) { ++callers; });
        QCOMPARE(callers, 3);
        QVERIFY(v.titleLabel()->text().contains(QStringLiteral("compute")));

        // known pixels: the function's row right above the callers chart's root row (at its bottom), and
        // right below the callees chart's root row (at its top), across the whole width
        FlameGraphView* up = v.callersView();
        FlameGraphView* down = v.calleesView();
        const int h = up->rowHeight();
        QTRY_VERIFY_WITH_TIMEOUT(up->height() > 5 * h && down->height() > 5 * h, kPatienceMs);
        const int mid = up->width() / 2;
        QVERIFY(up->rowRect(0).top() >= up->height() - h - 1); // the root row at the bottom
        QCOMPARE(up->rowRect(1).top(), up->rowRect(0).top() - h);
        QCOMPARE(up->nodeAt(QPoint(mid, up->rowRect(1).center().y())), fn);
        QCOMPARE(up->nodeAt(QPoint(up->width() - 3, up->rowRect(1).center().y())), fn); // the whole width
        QCOMPARE(up->nodeAt(QPoint(mid, up->rowRect(0).center().y())), kRootNode);
        QVERIFY(down->rowRect(0).top() <= 1); // the root row at the top
        QCOMPARE(down->nodeAt(QPoint(mid, down->rowRect(1).center().y())), functionNode(*down));
        QCOMPARE(down->data()->tree.frame(functionNode(*down)), compute);
        // the two charts are scrolled so that these rows face each other in the middle
        QTRY_VERIFY_WITH_TIMEOUT(!up->visibleRegion().intersected(up->rowRect(1)).isEmpty(), kPatienceMs);
        QVERIFY(!down->visibleRegion().intersected(down->rowRect(1)).isEmpty());
    }

    void recursionCountedOnce() {
        const auto profile = test::loadShared(test::flameFixture("recursive.folded"));
        const auto data = ChartData::fromProfile(profile);
        SandwichView v;
        v.resize(800, 500);
        v.show();
        const FrameId rec = frameNamed(*profile, "rec");
        v.setData(data);
        v.showFunction(rec);
        QVERIFY(waitShown(v));
        checkAgainstStacks(v, *data, rec);
        QCOMPARE(v.callersView()->data()->tree.total(0, functionNode(*v.callersView())), int64_t(15));
        QCOMPARE(v.calleesView()->data()->tree.total(0, functionNode(*v.calleesView())), int64_t(15));
    }

    void corpusProfile() {
        SCORCH_REQUIRE_CORPUS();
        const QString path = test::corpusDir() +
                             QStringLiteral("/perf-script/inputs/flamegraph/test/perf-vertx-stacks-01.txt");
        const auto profile = test::loadShared(path);
        const auto data = ChartData::fromProfile(profile);
        // the function with the most distinct callers of its outermost calls (a recursive call's caller is
        // the function itself, not a caller in the sandwich)
        std::map<uint32_t, std::set<uint32_t>> parents;
        const CallTree& t = data->tree;
        for (NodeId n = 1; n < t.size(); ++n) {
            if (t.parent(n) == kRootNode)
                continue;
            bool outermost = true;
            for (NodeId m = t.parent(n); m != kRootNode && outermost; m = t.parent(m))
                outermost = t.frame(m) != t.frame(n);
            if (outermost)
                parents[t.frame(n).value].insert(t.frame(t.parent(n)).value);
        }
        FrameId best;
        std::size_t most = 1;
        for (const auto& [f, ps] : parents)
            if (ps.size() > most) {
                most = ps.size();
                best = FrameId{f};
            }
        QVERIFY(best.value != 0);
        SandwichView v;
        v.resize(1000, 700);
        v.show();
        v.setData(data);
        v.showFunction(best);
        QVERIFY(waitShown(v));
        checkAgainstStacks(v, *data, best);
        std::size_t shownCallers = 0;
        v.callersView()->data()->tree.forEachChild(functionNode(*v.callersView()),
                                                   [&](NodeId) { ++shownCallers; });
        QCOMPARE(shownCallers, most);
    }

    void doubleClickBackAndForward() {
        const auto profile = test::loadShared(test::testData(QStringLiteral("gui/small.folded")));
        SandwichView v;
        v.resize(900, 600);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.activateWindow();
        const FrameId compute = frameNamed(*profile, "compute"), run = frameNamed(*profile, "run"),
                      inner = frameNamed(*profile, "inner");
        v.setData(ChartData::fromProfile(profile));
        QVERIFY(!v.canGoBack() && !v.backButton()->isEnabled());
        v.showFunction(compute);
        QVERIFY(waitShown(v));

        // double-click the caller "run" in the callers chart: the sandwich moves to run
        FlameGraphView* up = v.callersView();
        const NodeId runNode =
            test::nodeByPath(*profile, up->data()->tree, {"compute", "run"}); // function, then its caller
        QVERIFY(runNode != kRootNode);
        const QPoint at = up->nodeRect(runNode).center().toPoint();
        QCOMPARE(up->nodeAt(at), runNode);
        QTest::mouseDClick(up, Qt::LeftButton, {}, at);
        QCOMPARE(v.function(), run);
        QVERIFY(waitShown(v));
        QCOMPARE(v.callersView()->data()->tree.frame(functionNode(*v.callersView())), run);
        QVERIFY(v.canGoBack() && v.backButton()->isEnabled() && !v.forwardButton()->isEnabled());

        // double-click a callee (compute's "inner" below run)
        FlameGraphView* down = v.calleesView();
        const NodeId innerNode = test::nodeByPath(*profile, down->data()->tree, {"run", "compute", "inner"});
        QVERIFY(innerNode != kRootNode);
        QTest::mouseDClick(down, Qt::LeftButton, {}, down->nodeRect(innerNode).center().toPoint());
        QCOMPARE(v.function(), inner);
        QVERIFY(waitShown(v));

        // back with the button, back and forward with Alt+Left / Alt+Right
        v.backButton()->click();
        QCOMPARE(v.function(), run);
        QVERIFY(waitShown(v));
        QCOMPARE(v.callersView()->data()->tree.frame(functionNode(*v.callersView())), run);
        QTRY_VERIFY_WITH_TIMEOUT(QApplication::activeWindow() == &v, kPatienceMs);
        v.callersView()->setFocus();
        QTest::keyClick(v.callersView(), Qt::Key_Left, Qt::AltModifier);
        QCOMPARE(v.function(), compute);
        QVERIFY(!v.canGoBack());
        QTest::keyClick(v.calleesView(), Qt::Key_Right, Qt::AltModifier);
        QCOMPARE(v.function(), run);
        QVERIFY(v.canGoForward());
        // a new function drops the forward entries
        v.showFunction(compute);
        QVERIFY(!v.canGoForward());
        QVERIFY(waitShown(v));
        // the root row ("callers of …") leads nowhere
        QTest::mouseDClick(v.callersView(), Qt::LeftButton, {},
                           v.callersView()->nodeRect(kRootNode).center().toPoint());
        QCOMPARE(v.function(), compute);
    }

    void functionWithoutCostAfterATransform() {
        const auto profile = test::loadShared(test::testData(QStringLiteral("gui/small.folded")));
        const FrameId compute = frameNamed(*profile, "compute");
        SandwichView v;
        v.resize(800, 500);
        v.show();
        v.setData(ChartData::fromProfile(profile));
        v.showFunction(compute);
        QVERIFY(waitShown(v));
        QVERIFY(v.findChild<QLabel*>(QStringLiteral("sandwichNote"))->isHidden());
        // dropping the samples through compute leaves it nothing: the note says so, the charts are empty
        v.setData(ChartData::derive(profile, 0, {}, {{TreeTransform::Kind::Drop, compute}}));
        QVERIFY(waitShown(v));
        QTRY_VERIFY_WITH_TIMEOUT(!v.findChild<QLabel*>(QStringLiteral("sandwichNote"))->isHidden(),
                                 kPatienceMs);
        QCOMPARE(v.callersView()->data()->tree.grandTotal(0), int64_t(0));
        QCOMPARE(v.function(), compute);
    }

    void profileTabShowInSandwich() {
        ProfileTab tab(test::testData(QStringLiteral("gui/small.folded")));
        tab.resize(1200, 800);
        tab.show();
        QVERIFY(test::waitLoaded(&tab));
        const auto profile = tab.profile();
        const FrameId compute = frameNamed(*profile, "compute"), helper = frameNamed(*profile, "helper");
        FlameGraphView* chart = tab.panel()->view();
        const NodeId node = test::nodeByPath(*chart->data(), {"main", "run", "compute"});
        QVERIFY(node != kRootNode);

        // the chart's context menu
        std::unique_ptr<QMenu> menu(chart->createContextMenu(node));
        QAction* show = menu->findChild<QAction*>(QStringLiteral("sandwich"));
        QVERIFY(show);
        QVERIFY(show->text().contains(QStringLiteral("compute")));
        show->trigger();
        QCOMPARE(tab.chartTabs()->currentWidget(), tab.sandwich());
        QCOMPARE(tab.sandwich()->function(), compute);
        QVERIFY(waitShown(*tab.sandwich()));
        checkAgainstStacks(*tab.sandwich(), *tab.panel()->data(), compute);

        // the sandwich follows the chart's transforms: dropping helper's samples removes that call site
        tab.panel()->addTransform({TreeTransform::Kind::Drop, helper});
        QTRY_VERIFY_WITH_TIMEOUT(tab.sandwich()->data() == tab.panel()->data() && !tab.sandwich()->isBusy() &&
                                     tab.sandwich()->callersView()->data()->tree.grandTotal(0) == 35,
                                 kPatienceMs);
        checkAgainstStacks(*tab.sandwich(), *tab.panel()->data(), compute);

        // the table's context menu, and a row picked while the sandwich is shown
        QVERIFY(test::waitLoaded(&tab));
        CallTreeTables* tables = tab.tables();
        tables->tabs()->setCurrentIndex(CallTreeTables::Functions);
        QTreeView* list = tables->view(CallTreeTables::Functions);
        const QModelIndex runRow = test::findRow(*list->model(), QStringLiteral("run"));
        QVERIFY(runRow.isValid());
        std::unique_ptr<QMenu> rowMenu(tables->createContextMenu(CallTreeTables::Functions, runRow, &tab));
        QAction* rowShow = rowMenu->findChild<QAction*>(QStringLiteral("sandwich"));
        QVERIFY(rowShow);
        tab.chartTabs()->setCurrentIndex(0);
        rowShow->trigger();
        QCOMPARE(tab.chartTabs()->currentWidget(), tab.sandwich());
        QCOMPARE(tab.sandwich()->function(), frameNamed(*profile, "run"));
        const QModelIndex ioRow = test::findRow(*list->model(), QStringLiteral("io"));
        list->setCurrentIndex(ioRow);
        QCOMPARE(tab.sandwich()->function(), frameNamed(*profile, "io"));
        QVERIFY(tab.sandwich()->canGoBack());

        // key S on the chart's selected frame
        tab.chartTabs()->setCurrentIndex(0);
        chart->selectNode(test::nodeByPath(*chart->data(), {"main", "run", "compute"}));
        chart->setFocus();
        QTest::keyClick(chart, Qt::Key_S);
        QCOMPARE(tab.chartTabs()->currentWidget(), tab.sandwich());
        QCOMPARE(tab.sandwich()->function(), compute);

        // from the find bar: its Sandwich button (or Ctrl+Enter) shows the selected match's function, and
        // without a selected match the heaviest one's
        tab.chartTabs()->setCurrentIndex(0);
        tab.panel()->focusSearch();
        SearchBar* search = tab.panel()->searchBar();
        QVERIFY(!search->sandwichButton()->isEnabled()); // no pattern, no match
        search->lineEdit()->setText(QStringLiteral("io"));
        QTRY_VERIFY_WITH_TIMEOUT(search->sandwichButton()->isEnabled(), kPatienceMs);
        chart->selectNode(kRootNode);
        search->sandwichButton()->click();
        QCOMPARE(tab.chartTabs()->currentWidget(), tab.sandwich());
        QCOMPARE(tab.sandwich()->function(), frameNamed(*profile, "io"));
        tab.chartTabs()->setCurrentIndex(0);
        search->lineEdit()->setText(QStringLiteral("compute"));
        QTRY_VERIFY_WITH_TIMEOUT(!chart->matchOrder().empty() &&
                                     profile->frameName(chart->data()->tree.frame(
                                         chart->matchOrder().front())) == std::string_view("compute"),
                                 kPatienceMs);
        QTest::keyClick(search->lineEdit(), Qt::Key_Return, Qt::ControlModifier);
        QCOMPARE(tab.chartTabs()->currentWidget(), tab.sandwich());
        QCOMPARE(tab.sandwich()->function(), compute);
    }

    void compareSandwichInDiffColours() {
        // a;x shrinks (-3), b;x grows (+4): x's callers a and b are blue and red, x itself grows by 1
        auto before = std::make_shared<const Profile>(test::fromFolded("m;a;x 10\nm;b;x 5\nm;c 4\n"));
        auto after = std::make_shared<const Profile>(test::fromFolded("m;a;x 7\nm;b;x 9\nm;c 4\n"));
        CompareView v;
        v.resize(1200, 800);
        v.show();
        v.setProfiles(before, after, QStringLiteral("before"), QStringLiteral("after"));
        QTRY_VERIFY_WITH_TIMEOUT(v.isReady(), kPatienceMs);
        const auto diff = v.findChild<FlameGraphView*>(QStringLiteral("diffChart"))->data()->profile;
        const FrameId x = frameNamed(*diff, "x");
        v.showSandwich(x);
        SandwichView* s = v.sandwich();
        QVERIFY(s->isVisible());
        QVERIFY(waitShown(*s));
        FlameGraphView* up = s->callersView();
        QCOMPARE(up->colorScheme(), FlameGraphView::ColorScheme::Differential);
        const CallTree& t = up->data()->tree;
        const NodeId fn = functionNode(*up);
        QCOMPARE(t.total(kBefore, fn), int64_t(15));
        QCOMPARE(t.total(kAfter, fn), int64_t(16));
        const NodeId a = test::nodeByPath(*diff, t, {"x", "a"}), b = test::nodeByPath(*diff, t, {"x", "b"});
        QCOMPARE(t.total(kDelta, a), int64_t(-3));
        QCOMPARE(t.total(kDelta, b), int64_t(4));
        QTRY_VERIFY_WITH_TIMEOUT(up->height() > 4 * up->rowHeight(), kPatienceMs);
        const QImage image = up->grab().toImage();
        const qreal dpr = image.devicePixelRatio();
        auto at = [&](NodeId n) {
            const QRectF r = up->nodeRect(n);
            return image.pixel(static_cast<int>((r.left() + 1) * dpr), static_cast<int>((r.top() + 1) * dpr));
        };
        QVERIFY2(blueish(at(a)), qPrintable(QColor::fromRgb(at(a)).name()));
        QVERIFY2(redish(at(b)), qPrintable(QColor::fromRgb(at(b)).name()));
        // the tooltip gives before, after and delta of the sandwich's own node
        QVERIFY(up->toolTipText(up->nodeRect(b).center().toPoint()).contains(QStringLiteral("+4")));
        // the function table's row click moves the sandwich while it is shown
        QTableView* table = v.findChild<QTableView*>(QStringLiteral("functions"));
        QAbstractItemModel* m = table->model();
        int rowA = -1;
        for (int r = 0; r < m->rowCount(); ++r)
            if (m->index(r, 0).data().toString() == QStringLiteral("a"))
                rowA = r;
        QVERIFY(rowA >= 0);
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                          table->visualRect(m->index(rowA, 0)).center());
        QCOMPARE(s->function(), frameNamed(*diff, "a"));
        QVERIFY(s->canGoBack());
        QVERIFY(waitShown(*s));
        // and the toolbar's other modes leave it
        v.setMode(CompareView::Mode::Differential);
        QVERIFY(!s->isVisible());
    }
};

QTEST_MAIN(TestSandwichView)
#include "tst_sandwichview.moc"
