// FlameGraphView: layout/LOD, navigation with real input events, search, rendering, context menu.
#include "flame/flamegraphview.h"
#include "flame/flamepalette.h"
#include "patience.h"
#include "scorch/flamelayout.h"
#include "widgettestutil.h"

#include "scorch/builder.h"
#include "scorch/flamecolors.h"
#include "scorch/import.h"

#include <QBuffer>
#include <QClipboard>
#include <QFile>
#include <QMenu>
#include <QSignalSpy>
#include <QTest>

#include <map>

using namespace scorch;
using scorch::test::flameFixture;
using scorch::test::kPatienceMs;
using scorch::test::loadShared;
using scorch::test::nodeByPath;

namespace {

QString corpusFile(const char* name) {
    return QStringLiteral(SCORCH_CORPUS_DIR "/perf-script/inputs/flamegraph/test/") + QLatin1String(name);
}

QPoint centreOf(const QRectF& r) {
    return r.center().toPoint();
}

} // namespace

class TestFlameGraphView : public QObject {
    Q_OBJECT

private:
    std::shared_ptr<const ChartData> m_simple; // main;a;b 30 / main;c 10
    std::shared_ptr<const ChartData> m_recursive;

    std::unique_ptr<FlameGraphView> makeView(std::shared_ptr<const ChartData> data, QSize size = {800, 300}) {
        auto view = std::make_unique<FlameGraphView>();
        view->setAnimationDuration(0);
        view->resize(size);
        view->setData(std::move(data));
        view->show();
        if (!QTest::qWaitForWindowExposed(view.get()))
            return nullptr;
        return view;
    }

private Q_SLOTS:
    void initTestCase() {
        m_simple = ChartData::fromProfile(loadShared(flameFixture("simple.folded")));
        m_recursive = ChartData::fromProfile(loadShared(flameFixture("recursive.folded")));
        QCOMPARE(m_simple->tree.grandTotal(0), 40);
    }

    void layoutOffsets() {
        FlameLayout layout;
        layout.setTree(&m_simple->tree, 0);
        const NodeId main = nodeByPath(*m_simple, {"main"}), a = nodeByPath(*m_simple, {"main", "a"}),
                     b = nodeByPath(*m_simple, {"main", "a", "b"}), c = nodeByPath(*m_simple, {"main", "c"});
        QCOMPARE(layout.totalWidth(), 40);
        QCOMPARE(layout.offset(main), 0);
        QCOMPARE(layout.offset(a), 0);
        QCOMPARE(layout.offset(b), 0);
        QCOMPARE(layout.offset(c), 30);
        QCOMPARE(layout.width(c), 10);
        FlameViewport vp{0, 40, 400};
        const auto blocks = layout.blocks(vp);
        QCOMPARE(blocks.size(), std::size_t{5}); // all, main, a, b, c
        for (const FlameBlock& blk : blocks)
            QCOMPARE(blk.width, static_cast<double>(layout.width(blk.node)) * 10);
        // Off-screen ranges and rows are skipped.
        vp.start = 31;
        vp.firstDepth = 2;
        const auto right = layout.blocks(vp);
        QCOMPARE(right.size(), std::size_t{1});
        QCOMPARE(right[0].node, c);
    }

    void lodMergesTinySiblings() {
        // main has 10,000 tiny children (each with a child of its own) split by one wide sibling, plus two
        // wide children at the ends.
        TreeBuilder builder;
        const uint32_t ct = builder.costType("samples", CostUnit::Samples);
        const uint32_t thread = builder.thread("t", 1, 1);
        auto add = [&](std::vector<std::string> names, int64_t cost) {
            std::vector<FrameId> frames;
            for (const auto& n : names)
                frames.push_back(builder.frame(n));
            const CostValue v{ct, cost};
            builder.addSample(thread, frames, std::span(&v, 1));
        };
        add({"main", "a_big"}, 50000);
        for (int i = 0; i < 10000; ++i) {
            char name[16];
            std::snprintf(name, sizeof name, "f%05d", i);
            add({"main", name, "leaf"}, 1);
        }
        add({"main", "f05000_big"}, 20000);
        add({"main", "z_big", "child"}, 30000);
        Profile profile = builder.finish({});
        FlameLayout layout;
        layout.setTree(&profile.tree, 0);
        const NodeId main = 1;
        QCOMPARE(profile.nodeName(main), std::string_view("main"));
        const int64_t mainWidth = layout.width(main);
        QCOMPARE(mainWidth, 110000);

        const FlameViewport vp{0, static_cast<double>(layout.totalWidth()), 1920};
        const auto blocks = layout.blocks(vp);
        int64_t rowCost = 0;
        double rowPixels = 0;
        int merged = 0, mergedFrames = 0;
        for (const FlameBlock& b : blocks) {
            if (b.depth == 2) {
                rowCost += b.cost;
                rowPixels += b.width;
                if (b.merged()) {
                    ++merged;
                    mergedFrames += static_cast<int>(b.count);
                    QVERIFY(b.tiny);
                }
            }
            if (b.depth == 3) // only z_big's child: the tiny frames' leaves are not drawn
                QCOMPARE(profile.nodeName(b.node), std::string_view("child"));
        }
        QCOMPARE(rowCost, mainWidth);
        QCOMPARE(rowPixels, static_cast<double>(mainWidth) * vp.scale());
        QCOMPARE(merged, 2); // the wide f05000_big splits the run in two
        QCOMPARE(mergedFrames, 10000);
        QVERIFY(blocks.size() < 20);

        // Zoomed into the tiny frames they become individual frames again.
        const NodeId f0 = profile.tree.findChild(main, profile.tree.frame(main + 2));
        QVERIFY(f0 != kRootNode);
        const FlameViewport zoomed{static_cast<double>(layout.offset(f0)),
                                   static_cast<double>(layout.offset(f0) + 10), 1000};
        int single = 0;
        for (const FlameBlock& b : layout.blocks(zoomed))
            single += b.depth == 2 && !b.merged() && !b.tiny ? 1 : 0;
        QCOMPARE(single, 10);

        // In the widget: the merged run explains itself in the tooltip, and a click shows it across the
        // width.
        auto profilePtr = std::make_shared<const Profile>(std::move(profile)); // `layout` is not used below
        auto view = makeView(ChartData::fromProfile(profilePtr), {1000, 300});
        QVERIFY(view);
        const FlameViewport inView{0, static_cast<double>(view->layout().totalWidth()), 1000};
        std::optional<FlameBlock> run;
        for (const FlameBlock& b : view->layout().blocks(inView))
            if (b.depth == 2 && b.merged() && (!run || b.width > run->width))
                run = b;
        QVERIFY(run && run->width > 10);
        const QPoint at(static_cast<int>(run->x + run->width / 2), view->rowRect(2).center().y());
        QCOMPARE(view->nodeAt(at), kRootNode); // not a single frame
        const QString tip = view->toolTipText(at);
        QVERIFY2(tip.contains(QStringLiteral("%1 small frames").arg(run->count)), qPrintable(tip));
        QTest::mouseClick(view.get(), Qt::LeftButton, {}, at);
        QCOMPARE(view->visibleStart(), static_cast<double>(run->start));
        QCOMPARE(view->visibleEnd(), static_cast<double>(run->start + run->cost));
        QCOMPARE(view->zoomRoot(), kRootNode);
    }

    void selectFunctionPicksHeaviest() {
        auto view = makeView(m_recursive);
        QVERIFY(view);
        QSignalSpy spy(view.get(), &FlameGraphView::nodeSelected);
        const NodeId outer = nodeByPath(*m_recursive, {"main", "rec"});
        view->selectFunction(m_recursive->tree.frame(outer));
        QCOMPARE(view->selectedNode(), outer); // total 15, the inner rec has 10
        QCOMPARE(spy.size(), 1);
        view->selectFunction(m_recursive->tree.frame(outer)); // no change, no signal
        QCOMPARE(spy.size(), 1);
    }

    void clickZoomsAndHistory() {
        auto view = makeView(m_simple);
        QVERIFY(view);
        const NodeId a = nodeByPath(*m_simple, {"main", "a"}), b = nodeByPath(*m_simple, {"main", "a", "b"});
        QSignalSpy zoomSpy(view.get(), &FlameGraphView::zoomChanged);
        QSignalSpy selSpy(view.get(), &FlameGraphView::functionSelected);
        QCOMPARE(view->nodeAt(centreOf(view->nodeRect(a))), a);

        QTest::mouseClick(view.get(), Qt::LeftButton, {}, centreOf(view->nodeRect(a)));
        QCOMPARE(view->zoomRoot(), a);
        QCOMPARE(zoomSpy.size(), 1);
        QCOMPARE(zoomSpy.last().at(0).value<NodeId>(), a);
        QCOMPARE(view->selectedNode(), a);
        QCOMPARE(selSpy.last().at(0).value<FrameId>(), m_simple->tree.frame(a));
        QCOMPARE(view->nodeRect(a).width(), view->width()); // zoomed frame fills the width
        QCOMPARE(view->nodeRect(nodeByPath(*m_simple, {"main"})).width(), view->width()); // ancestor too
        QVERIFY(view->nodeRect(nodeByPath(*m_simple, {"main", "c"})).isEmpty());          // sibling gone

        QTest::mouseClick(view.get(), Qt::LeftButton, {}, centreOf(view->nodeRect(b)));
        QCOMPARE(view->zoomRoot(), b);
        QTest::keyClick(view.get(), Qt::Key_Escape);
        QCOMPARE(view->zoomRoot(), kRootNode);
        QCOMPARE(view->visibleEnd() - view->visibleStart(), 40.0);

        QVERIFY(view->canGoBack());
        QVERIFY(!view->canGoForward());
        QTest::keyClick(view.get(), Qt::Key_Left, Qt::AltModifier);
        QCOMPARE(view->zoomRoot(), b);
        QTest::mouseClick(view.get(), Qt::BackButton, {}, QPoint(10, 10));
        QCOMPARE(view->zoomRoot(), a);
        QTest::keyClick(view.get(), Qt::Key_Right, Qt::AltModifier);
        QCOMPARE(view->zoomRoot(), b);
        QTest::mouseClick(view.get(), Qt::ForwardButton, {}, QPoint(10, 10));
        QCOMPARE(view->zoomRoot(), kRootNode);
        QVERIFY(!view->canGoForward());
    }

    void animatedZoom() {
        auto view = makeView(m_simple);
        QVERIFY(view);
        view->setAnimationDuration(150);
        const NodeId c = nodeByPath(*m_simple, {"main", "c"});
        QTest::mouseClick(view.get(), Qt::LeftButton, {}, centreOf(view->nodeRect(c)));
        QCOMPARE(view->zoomRoot(), c);
        QTRY_COMPARE_WITH_TIMEOUT(view->visibleStart(), 30.0, kPatienceMs);
        QTRY_COMPARE_WITH_TIMEOUT(view->visibleEnd(), 40.0, kPatienceMs);
    }

    void keyboardNavigation() {
        auto view = makeView(m_simple);
        QVERIFY(view);
        const NodeId main = nodeByPath(*m_simple, {"main"}), a = nodeByPath(*m_simple, {"main", "a"}),
                     b = nodeByPath(*m_simple, {"main", "a", "b"}), c = nodeByPath(*m_simple, {"main", "c"});
        QTest::keyClick(view.get(), Qt::Key_Up); // flame: up = towards the leaves (heaviest child)
        QCOMPARE(view->selectedNode(), main);
        QTest::keyClick(view.get(), Qt::Key_Up);
        QCOMPARE(view->selectedNode(), a);
        QTest::keyClick(view.get(), Qt::Key_Up);
        QCOMPARE(view->selectedNode(), b);
        QTest::keyClick(view.get(), Qt::Key_Down);
        QCOMPARE(view->selectedNode(), a);
        QTest::keyClick(view.get(), Qt::Key_Right);
        QCOMPARE(view->selectedNode(), c);
        QTest::keyClick(view.get(), Qt::Key_Left);
        QCOMPARE(view->selectedNode(), a);
        QTest::keyClick(view.get(), Qt::Key_Return);
        QCOMPARE(view->zoomRoot(), a);
        QTest::keyClick(view.get(), Qt::Key_0);
        QCOMPARE(view->zoomRoot(), kRootNode);
        QTest::keyClick(view.get(), Qt::Key_Plus);
        QVERIFY(view->visibleEnd() - view->visibleStart() < 40.0);
        QTest::keyClick(view.get(), Qt::Key_Minus);
        QCOMPARE(view->visibleEnd() - view->visibleStart(), 40.0);
        view->setOrientation(FlameGraphView::Orientation::Icicle);
        QTest::keyClick(view.get(), Qt::Key_Down); // icicle: down = towards the leaves
        QCOMPARE(view->selectedNode(), b);
    }

    void wheelAndDrag() {
        auto view = makeView(m_simple);
        QVERIFY(view);
        const QPoint at(200, 100);
        const double costAtCursor = 40.0 * 200 / view->width();
        // The plain wheel is left to the scroll area (vertical scrolling of deep stacks); Ctrl+wheel zooms.
        QWheelEvent plain(at, view->mapToGlobal(at), {}, QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(view.get(), &plain);
        QVERIFY(!plain.isAccepted());
        QCOMPARE(view->visibleEnd() - view->visibleStart(), 40.0);
        QWheelEvent wheel(at, view->mapToGlobal(at), {}, QPoint(0, 240), Qt::NoButton, Qt::ControlModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(view.get(), &wheel);
        QVERIFY(wheel.isAccepted());
        const double w = view->visibleEnd() - view->visibleStart();
        QVERIFY(w < 40.0);
        // The cost under the cursor stays under the cursor.
        QVERIFY(std::abs(view->visibleStart() + w * 200 / view->width() - costAtCursor) < 1e-6);
        const double before = view->visibleStart();
        QTest::mousePress(view.get(), Qt::LeftButton, {}, at);
        QTest::mouseMove(view.get(), at + QPoint(40, 0));
        QTest::mouseRelease(view.get(), Qt::LeftButton, {}, at + QPoint(40, 0));
        QVERIFY(view->visibleStart() < before); // dragging right shows what is left of the view
        QCOMPARE(view->zoomRoot(), kRootNode);  // a drag is not a click
    }

    void searchCountsEachSampleOnce() {
        auto view = makeView(m_recursive);
        QVERIFY(view);
        QSignalSpy spy(view.get(), &FlameGraphView::searchResultChanged);
        view->setSearch({"rec", false, false});
        QCOMPARE(spy.size(), 1);
        // main;rec;work;rec;leaf 10 + main;rec;leaf 5: 15 of 20, although two frames match on the first.
        QCOMPARE(spy[0][0].toInt(), 2);
        QCOMPARE(spy[0][1].toLongLong(), 15);
        QCOMPARE(spy[0][2].toLongLong(), 20);

        // nextMatch walks the matching frames in order and wraps around.
        view->nextMatch();
        const NodeId first = view->selectedNode();
        QCOMPARE(m_recursive->profile->frameName(m_recursive->tree.frame(first)), std::string_view("rec"));
        view->nextMatch();
        const NodeId second = view->selectedNode();
        QVERIFY(second != first);
        QCOMPARE(m_recursive->profile->frameName(m_recursive->tree.frame(second)), std::string_view("rec"));
        view->nextMatch();
        QCOMPARE(view->selectedNode(), first);
        view->nextMatch(true);
        QCOMPARE(view->selectedNode(), second);

        view->setSearch({});
        QCOMPARE(spy.last()[1].toLongLong(), 0);
    }

    void searchPercentOnCorpus() {
        const QString path = corpusFile("perf-vertx-stacks-01.txt");
        if (!QFile::exists(path))
            QSKIP("corpus not found at " SCORCH_CORPUS_DIR " (perf-vertx-stacks-01.txt)");
        const auto data = ChartData::fromProfile(loadShared(path));
        FlameGraphView view;
        view.setData(data);
        QSignalSpy spy(&view, &FlameGraphView::searchResultChanged);
        view.setSearch({"vertx", false, false});
        QCOMPARE(spy.size(), 1);
        const qint64 matched = spy[0][1].toLongLong(), total = spy[0][2].toLongLong();

        // Independently: walk every node's self cost up its stack and count it once if any frame matches.
        const CallTree& t = data->tree;
        int64_t expectMatched = 0, expectTotal = 0;
        for (NodeId n = 1; n < t.size(); ++n) {
            const int64_t self = t.self(0, n);
            expectTotal += self;
            for (NodeId a = n; a != kRootNode; a = t.parent(a)) {
                if (QString::fromStdString(std::string(data->profile->nodeName(a)))
                        .contains(QLatin1String("vertx"), Qt::CaseInsensitive)) {
                    expectMatched += self;
                    break;
                }
            }
        }
        QCOMPARE(total, expectTotal);
        QCOMPARE(matched, expectMatched);

        // And from flamegraph.pl's own folded output for the same file.
        QFile folded(QStringLiteral(SCORCH_CORPUS_DIR "/perf-script/expected/flamegraph/test/results/"
                                                      "perf-vertx-stacks-01-collapsed-pid.txt"));
        QVERIFY(folded.open(QIODevice::ReadOnly));
        int64_t foldedMatched = 0, foldedTotal = 0;
        while (!folded.atEnd()) {
            const QByteArray line = folded.readLine().trimmed();
            const qsizetype space = line.lastIndexOf(' ');
            const int64_t count = line.mid(space + 1).toLongLong();
            foldedTotal += count;
            if (line.left(space).toLower().contains("vertx"))
                foldedMatched += count;
        }
        QCOMPARE(total, foldedTotal);
        const double percent = 100.0 * static_cast<double>(matched) / static_cast<double>(total);
        QCOMPARE(QString::number(percent, 'f', 1),
                 QString::number(
                     100.0 * static_cast<double>(foldedMatched) / static_cast<double>(foldedTotal), 'f', 1));
        QVERIFY(matched > 0 && matched < total);
    }

    void clickOnCorpus() {
        const QString path = corpusFile("perf-funcab-cmd-01.txt");
        if (!QFile::exists(path))
            QSKIP("corpus not found at " SCORCH_CORPUS_DIR " (perf-funcab-cmd-01.txt)");
        const auto data = ChartData::fromProfile(loadShared(path));
        auto view = makeView(data, {1000, 400});
        QVERIFY(view);
        // The deepest frame wider than 50 px.
        NodeId target = kRootNode;
        for (NodeId n = 1; n < data->tree.size(); ++n) {
            const QRectF r = view->nodeRect(n);
            if (r.width() > 50 && view->rect().contains(centreOf(r)) &&
                (target == kRootNode || data->tree.depth(n) > data->tree.depth(target)))
                target = n;
        }
        QVERIFY(target != kRootNode);
        QTest::mouseClick(view.get(), Qt::LeftButton, {}, centreOf(view->nodeRect(target)));
        QCOMPARE(view->zoomRoot(), target);
        QCOMPARE(view->nodeRect(target).width(), view->width());
        const QString tip = view->toolTipText(centreOf(view->nodeRect(target)));
        QVERIFY2(tip.contains(QString::fromStdString(std::string(data->profile->nodeName(target)))),
                 qPrintable(tip));
        QVERIFY(tip.contains(QLatin1String("100.0% of the zoomed frame")));
    }

    void renderColorsAndOrientation() {
        auto view = makeView(m_simple, {400, 200});
        QVERIFY(view);
        const NodeId a = nodeByPath(*m_simple, {"main", "a"});
        const QPalette pal = view->palette();
        const QRgb aColor = FlamePalette::computeColor(*m_simple->profile, m_simple->tree.frame(a),
                                                       FlameColorScheme::Hot, pal);
        const QRgb rootColor = FlamePalette::computeColor(*m_simple->profile, m_simple->tree.frame(kRootNode),
                                                          FlameColorScheme::Hot, pal);
        const int rowH = view->rowHeight();

        QImage flame = view->renderImage(QSize(400, 200));
        QCOMPARE(flame.size(), QSize(400, 200));
        QCOMPARE(flame.pixel(centreOf(view->nodeRect(a))) | 0xFF000000u, aColor | 0xFF000000u);
        QCOMPARE(flame.pixel(200, 200 - rowH / 2), rootColor); // root row at the bottom
        QVERIFY(flame.pixel(200, rowH / 2) != rootColor);

        view->setOrientation(FlameGraphView::Orientation::Icicle);
        QImage icicle = view->renderImage(QSize(400, 200));
        QCOMPARE(icicle.pixel(200, rowH / 2), rootColor); // root row at the top
        QCOMPARE(icicle.pixel(centreOf(view->nodeRect(a))), aColor);
        QVERIFY(view->nodeRect(a).top() < view->height() / 2);

        // Same name, same colour: deterministic across instances (and runs: the hash is fixed).
        FlameGraphView other;
        other.resize(400, 200);
        other.setData(ChartData::fromProfile(loadShared(flameFixture("simple.folded"))));
        other.setOrientation(FlameGraphView::Orientation::Icicle);
        QCOMPARE(other.renderImage(QSize(400, 200)), icicle);

        // Searching paints matches magenta.
        view->setSearch({"a", true, true});
        const QImage searched = view->renderImage(QSize(400, 200));
        QCOMPARE(searched.pixel(centreOf(view->nodeRect(a))), qRgb(230, 0, 230));

        QBuffer svg;
        QVERIFY(svg.open(QIODevice::WriteOnly));
        QVERIFY(view->renderSvg(&svg, QSize(400, 200)));
        QVERIFY(svg.data().contains("<svg"));
        QVERIFY(svg.data().contains(">main<"));
    }

    /// Hot/cold: an off-CPU profile drawn by wall time paints each frame warm for its on-CPU part and blue
    /// for its off-CPU share at its right end; drawn by cpu-clock, nothing is blue. The tooltip splits the
    /// time. (tests/data/offcpu/hotcold.perfscript: main runs busy for 20 ms and sleeps 100 ms in sleepy.)
    void hotCold() {
        auto profile = std::make_shared<const Profile>(test::fromText(
            test::readAll(QStringLiteral(SCORCH_TEST_DATA "/offcpu/hotcold.perfscript")).toStdString(),
            "hotcold.perfscript"));
        const int wall = profile->costTypeIndex("wall"), cpu = profile->costTypeIndex("cpu-clock");
        QVERIFY(wall >= 0 && cpu >= 0);
        const auto byName = [&](const CallTree& t, std::string_view name) {
            for (NodeId n = 1; n < t.size(); ++n)
                if (profile->frameName(t.frame(n)) == name)
                    return n;
            return kRootNode;
        };
        const auto data = ChartData::fromProfile(profile, static_cast<std::size_t>(wall));
        auto view = makeView(data, {600, 200});
        QVERIFY(view);
        const NodeId main = byName(data->tree, "main"), busy = byName(data->tree, "busy"),
                     sleepy = byName(data->tree, "sleepy");
        QVERIFY(main != kRootNode && busy != kRootNode && sleepy != kRootNode);
        const FlameColors colors(profile.get(), FlameColorScheme::Hot);
        const auto rgb = [](Rgb c) {
            return qRgb(c.r, c.g, c.b);
        };
        const QImage image = view->renderImage(QSize(600, 200));
        QCOMPARE(image.pixel(centreOf(view->nodeRect(sleepy))),
                 rgb(colors.coldColor(data->tree.frame(sleepy))));
        QCOMPARE(image.pixel(centreOf(view->nodeRect(busy))), rgb(colors.frameColor(data->tree.frame(busy))));
        // main: 20 of its 120 ms on the CPU, warm at its left, blue over the rest
        const QRectF m = view->nodeRect(main);
        const int y = static_cast<int>(m.center().y());
        QCOMPARE(image.pixel(static_cast<int>(m.left() + m.width() * 0.08), y),
                 rgb(colors.frameColor(data->tree.frame(main))));
        QCOMPARE(image.pixel(static_cast<int>(m.left() + m.width() * 0.3), y),
                 rgb(colors.coldColor(data->tree.frame(main))));
        const QString tip = view->offCpuSplit(main);
        QVERIFY2(tip.contains(QStringLiteral("Off-CPU: ")) && tip.contains(QStringLiteral("83.3%")) &&
                     tip.contains(QStringLiteral("[blocked: S]")),
                 qPrintable(tip));
        // drawn by cpu-clock: no off-CPU part anywhere
        const auto cpuData = ChartData::fromProfile(profile, static_cast<std::size_t>(cpu));
        view->setData(cpuData);
        const QImage cpuImage = view->renderImage(QSize(600, 200));
        const NodeId cpuMain = byName(cpuData->tree, "main");
        const QRectF cm = view->nodeRect(cpuMain);
        QCOMPARE(cpuImage.pixel(static_cast<int>(cm.right() - 4), static_cast<int>(cm.center().y())),
                 rgb(colors.frameColor(cpuData->tree.frame(cpuMain))));
    }

    void colorSchemesAreDeterministic() {
        const Profile& p = *m_simple->profile;
        for (auto scheme : {FlameColorScheme::Hot, FlameColorScheme::Module, FlameColorScheme::Kind,
                            FlameColorScheme::System}) {
            const QRgb c1 = FlamePalette::computeColor(p, m_simple->tree.frame(1), scheme, QPalette());
            QCOMPARE(FlamePalette::computeColor(p, m_simple->tree.frame(1), scheme, QPalette()), c1);
        }
        // Hot stays in flamegraph.pl's warm range.
        const QRgb hot =
            FlamePalette::computeColor(p, m_simple->tree.frame(1), FlameColorScheme::Hot, QPalette());
        QVERIFY(qRed(hot) >= 205 && qGreen(hot) <= 230 && qBlue(hot) <= 55);
    }

    void contextMenuActions() {
        auto view = makeView(m_simple);
        QVERIFY(view);
        const NodeId b = nodeByPath(*m_simple, {"main", "a", "b"});
        std::unique_ptr<QMenu> menu(view->createContextMenu(b, view.get()));
        auto action = [&](const char* name) {
            return menu->findChild<QAction*>(QLatin1String(name));
        };
        QVERIFY(action("copyName") && action("copyStack") && action("focus") && action("hide") &&
                action("collapseRecursion"));
        action("copyStack")->trigger();
        QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("main\na\nb"));
        action("copyName")->trigger();
        QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("b"));
        QSignalSpy spy(view.get(), &FlameGraphView::transformRequested);
        action("focus")->trigger();
        action("hide")->trigger();
        action("collapseRecursion")->trigger();
        QCOMPARE(spy.size(), 3);
        const auto t0 = spy[0][0].value<TreeTransform>();
        QCOMPARE(t0.kind, TreeTransform::Kind::Focus);
        QCOMPARE(t0.frame, m_simple->tree.frame(b));
        QCOMPARE(spy[1][0].value<TreeTransform>().kind, TreeTransform::Kind::Hide);
        QCOMPARE(spy[2][0].value<TreeTransform>().kind, TreeTransform::Kind::CollapseRecursion);
        // focus on this subtree (the path to b) vs on the function; drop samples with b
        QVERIFY(action("focusSubtree") && action("drop"));
        action("focusSubtree")->trigger();
        action("drop")->trigger();
        QCOMPARE(spy.size(), 5);
        std::vector<FrameId> path;
        for (NodeId n : m_simple->tree.path(b))
            path.push_back(m_simple->tree.frame(n));
        QCOMPARE(spy[3][0].value<TreeTransform>(), TreeTransform::focusSubtree(path));
        QCOMPARE(spy[4][0].value<TreeTransform>(),
                 (TreeTransform{TreeTransform::Kind::Drop, m_simple->tree.frame(b)}));
        QVERIFY(!action("collapseModule")); // folded frames have no module
    }
};

QTEST_MAIN(TestFlameGraphView)
#include "tst_flamegraphview.moc"
