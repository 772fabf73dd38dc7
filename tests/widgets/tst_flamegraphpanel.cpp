// FlameGraphPanel: re-derivation (transforms, threads, cost type), chips, breadcrumbs, find bar, settings.
#include "breadcrumbbar.h"
#include "flamegraphpanel.h"
#include "patience.h"
#include "searchbar.h"
#include "widgettestutil.h"

#include "scorch/import.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QToolButton>

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
        panel.setCostType(0);
        panel.setThreads({});
        QCOMPARE(spy.size(), 3);
        QCOMPARE(spy.last().at(0).value<std::shared_ptr<const ChartData>>(), panel.data());
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
        QCOMPARE(spy.size(), 1);
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

    void collapseRecursion() {
        FlameGraphPanel panel;
        panel.setProfile(loadShared(flameFixture("recursive.folded")));
        const NodeId rec = nodeByPath(*panel.data(), {"main", "rec"});
        QVERIFY(nodeByPath(*panel.data(), {"main", "rec", "work", "rec", "leaf"}) != kRootNode);
        trigger(panel.view(), rec, "collapseRecursion");
        QCOMPARE(panel.data()->tree.grandTotal(0), 20);
        QCOMPARE(nodeByPath(*panel.data(), {"main", "rec", "work", "rec"}), kRootNode);
        QCOMPARE(panel.data()->tree.total(0, nodeByPath(*panel.data(), {"main", "rec", "leaf"})), 15);
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
        bar->lineEdit()->setText(QStringLiteral("(unclosed"));
        QTRY_COMPARE_WITH_TIMEOUT(bar->resultLabel()->text(), QStringLiteral("Invalid regular expression"),
                                  kPatienceMs);

        QTest::keyClick(bar->lineEdit(), Qt::Key_Escape);
        QVERIFY(!bar->isVisible());
        QVERIFY(panel.view()->search().pattern.empty());
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
        QCOMPARE(panel.data()->threads, std::vector<uint32_t>{0});
        QVERIFY(panel.data()->tree.grandTotal(0) < all);
        // Focus on a frame of this thread keeps the thread filter.
        const FrameId f = frameNamed(*profile, "start_thread");
        QVERIFY(f.value != 0);
        panel.addTransform({TreeTransform::Kind::Focus, f});
        QCOMPARE(panel.data()->threads, std::vector<uint32_t>{0});
        QVERIFY(panel.data()->tree.grandTotal(0) <= all);
        panel.setThreads({});
        QCOMPARE(panel.data()->transforms.size(), std::size_t{1});
    }
};

QTEST_MAIN(TestFlameGraphPanel)
#include "tst_flamegraphpanel.moc"
