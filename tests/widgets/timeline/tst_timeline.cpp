// The timeline of a profile tab on perf script text written here with known sample times per thread: lanes
// and their activity per pixel, a range dragged with the mouse re-aggregates the chart and tables to exactly
// the samples in it (counted from the generated list, not through Scorch), a newer range wins, a click on a
// lane's label filters to that thread, the selected function's on-stack buckets, zoom, and the one-line note
// for a format without per-sample times.
#include "apptestutil.h"
#include "comparetab.h"
#include "flame/flamegraphpanel.h"
#include "mainwindow.h"
#include "profiletab.h"
#include "summarybar.h"
#include "tables/calltreemodel.h"
#include "tables/calltreetables.h"
#include "threadlist.h"
#include "timeline/stackchart.h"
#include "timeline/timelinepanel.h"
#include "timeline/timelineview.h"
#include "widgettestutil.h"

#include <QAction>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeWidget>

#include <cstdio>
#include <map>
#include <numeric>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

using namespace scorch;
using scorch::test::kPatienceMs;

namespace {

constexpr int64_t kMs = 1000000;

struct Sample {
    int thread; // index into kThreads
    int64_t timeNs;
    bool hot; // the stack has main;compute;hot
};

struct ThreadSpec {
    const char* comm;
    int tid;
};
// A plain name, a long one that must be elided, and one with markup that must be escaped in tooltips.
constexpr ThreadSpec kThreads[] = {{"main", 100}, {"worker_pool_thread_long", 101}, {"io<b>x</b>", 102}};

/// main every 10 ms over 1 s (every third sample in hot), the worker every 20 ms but only from 200 ms to
/// 700 ms, io every 50 ms: offsets keep the threads' samples apart.
std::vector<Sample> makeSamples() {
    std::vector<Sample> out;
    for (int k = 0; k < 100; ++k)
        out.push_back({0, k * 10 * kMs, k % 3 == 0});
    for (int k = 10; k < 35; ++k)
        out.push_back({1, k * 20 * kMs + 3 * kMs, false});
    for (int k = 0; k < 20; ++k)
        out.push_back({2, k * 50 * kMs + 7 * kMs, false});
    return out;
}

QByteArray perfScript(const std::vector<Sample>& samples) {
    QByteArray text;
    for (const Sample& s : samples) {
        const ThreadSpec& t = kThreads[s.thread];
        const int64_t abs = 5000 * 1000 * kMs + s.timeNs; // 5000 s since boot
        char header[160];
        std::snprintf(header, sizeof header, "%s %d/%d [000] %lld.%06lld: 1 cpu-clock:\n", t.comm, 100, t.tid,
                      static_cast<long long>(abs / 1000000000),
                      static_cast<long long>(abs % 1000000000 / 1000));
        text += header;
        if (s.hot)
            text += "\t          401000 hot (/bin/app)\n";
        text += s.thread == 0 ? "\t          402000 compute (/bin/app)\n"
                              : "\t          403000 wait (/bin/app)\n";
        text += "\t          404000 main (/bin/app)\n\n";
    }
    return text;
}

int64_t countIn(const std::vector<Sample>& samples, TimeRange r, int thread = -1) {
    int64_t n = 0;
    for (const Sample& s : samples)
        if (s.timeNs >= r.begin && s.timeNs < r.end && (thread < 0 || s.thread == thread))
            ++n;
    return n;
}

int64_t chartTotal(const ProfileTab& tab) {
    const auto data = tab.panel()->data();
    return data ? data->tree.grandTotal(data->costType) : -1;
}

bool tablesFollowChart(const ProfileTab& tab) {
    return tab.tables()->tableData() && tab.tables()->tableData()->chart == tab.panel()->data();
}

/// The profile thread index of a thread by tid.
uint32_t threadIndex(const Profile& p, int tid) {
    for (uint32_t i = 0; i < p.threads.size(); ++i)
        if (p.threads[i].tid == tid)
            return i;
    return UINT32_MAX;
}

FrameId frameNamed(const Profile& p, std::string_view name) {
    for (uint32_t id = 1; id < p.frames.size(); ++id)
        if (p.frameName(FrameId{id}) == name && p.frames[FrameId{id}].kind != FrameKind::Process)
            return FrameId{id};
    return {};
}

/// Counts the events of one type that the objects it filters receive.
void drag(QWidget* w, int x0, int x1, int y) {
    QTest::mousePress(w, Qt::LeftButton, {}, QPoint(x0, y));
    QTest::mouseMove(w, QPoint((x0 + x1) / 2, y));
    QTest::mouseMove(w, QPoint(x1, y));
    QTest::mouseRelease(w, Qt::LeftButton, {}, QPoint(x1, y));
}

} // namespace

class TstTimeline : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::vector<Sample> m_samples = makeSamples();
    QString m_perf;

    std::unique_ptr<ProfileTab> openTab() {
        auto tab = std::make_unique<ProfileTab>(m_perf);
        tab->resize(1200, 800);
        tab->show();
        if (!test::waitLoaded(tab.get()))
            return nullptr;
        TimelineView* view = tab->timeline()->view();
        const auto ready = [view] {
            return view->activityCurrent() && !view->lanes().empty() &&
                   !view->activityOf(view->lanes().front()).empty();
        };
        if (!QTest::qWaitFor(ready, kPatienceMs))
            return nullptr;
        return tab;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_perf = m_dir.filePath(QStringLiteral("threads.perf"));
        QFile f(m_perf);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(perfScript(m_samples));
    }

    void formatsTimes() {
        QCOMPARE(formatTimelineTime(520 * kMs, 100 * kMs), QStringLiteral("0.5 s"));
        QCOMPARE(formatTimelineTime(1050 * kMs, 50 * kMs), QStringLiteral("1.05 s"));
        QCOMPARE(formatTimelineTime(3 * kMs, 1 * kMs / 2), QStringLiteral("3.0 ms"));
        QCOMPARE(formatTimelineTime(35500, 100), QStringLiteral("35.5 µs"));
        QCOMPARE(formatTimelineRange({520 * kMs, 1300 * kMs}), QStringLiteral("0.52 s – 1.30 s"));
    }

    void lanesAndActivity() {
        auto tab = openTab();
        QVERIFY(tab);
        TimelineView* view = tab->timeline()->view();
        const Profile& p = *tab->profile();
        // the per-thread index the lanes read was built by the loader, not on the GUI thread
        QVERIFY(p.samples->threadIndexMadeOn() != std::thread::id{});
        QVERIFY(p.samples->threadIndexMadeOn() != std::this_thread::get_id());
        QVERIFY(view->hasTimeline());
        QVERIFY(!tab->timeline()->note()->isVisible());
        // One lane per thread, busiest first.
        const std::vector<uint32_t> expected{threadIndex(p, 100), threadIndex(p, 101), threadIndex(p, 102)};
        QCOMPARE(view->lanes(), expected);
        const QRect plot = view->plotRect();
        for (int t = 0; t < 3; ++t) {
            const uint32_t thread = expected[static_cast<std::size_t>(t)];
            QVERIFY(!view->laneRect(thread).isEmpty());
            // Each generated sample lies in the bucket of its pixel; the buckets hold exactly the samples.
            const std::vector<uint32_t> a = view->activityOf(thread);
            QCOMPARE(a.size(), static_cast<std::size_t>(plot.width()));
            std::vector<uint32_t> mine(a.size(), 0);
            for (const Sample& s : m_samples)
                if (s.thread == t)
                    ++mine[static_cast<std::size_t>(view->timeToX(s.timeNs) - plot.left())];
            QCOMPARE(a, mine);
        }
        // Readable labels: the long name is elided to fit, the tooltip has it whole and escaped.
        const uint32_t worker = expected[1], io = expected[2];
        const QFontMetrics fm = view->fontMetrics();
        QVERIFY(fm.horizontalAdvance(view->laneLabel(worker)) <= view->labelRect(worker).width());
        QVERIFY(view->laneToolTip(worker).contains(QStringLiteral("worker_pool_thread_long")));
        QVERIFY(view->laneToolTip(io).contains(QStringLiteral("io&lt;b&gt;x&lt;/b&gt;")));
        QVERIFY(!view->laneToolTip(io).contains(QStringLiteral("<b>x</b>")));
        // The labels' column is measured once, and again when the font changes: a larger font, wider labels
        // (the long name still elided to fit).
        const int left = view->plotRect().left();
        QFont larger = view->font();
        larger.setPointSizeF(larger.pointSizeF() * 1.5);
        view->setFont(larger);
        QVERIFY2(view->plotRect().left() > left, qPrintable(QString::number(view->plotRect().left())));
        QVERIFY(view->fontMetrics().horizontalAdvance(view->laneLabel(worker)) <=
                view->labelRect(worker).width());
    }

    void axisLabelsNeverClipped() {
        // Whatever the width and the span shown, each tick's label fits whole before the axis ends, or the
        // tick has none, and the axis keeps labels. Ending the span a little earlier each time moves the last
        // tick across the right edge, so some spans put it too near for its label.
        auto tab = openTab();
        QVERIFY(tab);
        TimelineView* view = tab->timeline()->view();
        const TimeRange full = view->visibleRange();
        int unlabelled = 0;
        for (int w : {1000, 1200, 1500}) {
            tab->resize(w, 800);
            QVERIFY(QTest::qWaitFor([&] { return view->width() < w && view->width() > w / 2; }, kPatienceMs));
            for (int k = 0; k < 60; ++k) {
                view->zoomTo({full.begin, full.end - (full.end - full.begin) * k / 300});
                const QRect plot = view->plotRect();
                const QFontMetrics fm = view->fontMetrics();
                int labelled = 0;
                for (const TimelineView::AxisTick& t : view->axisTicks()) {
                    if (t.label.isEmpty()) {
                        ++unlabelled;
                        continue;
                    }
                    ++labelled;
                    QVERIFY(t.labelRect.left() > t.x);
                    QVERIFY(t.labelRect.width() >= fm.horizontalAdvance(t.label));
                    QVERIFY2(
                        t.labelRect.right() <= plot.right() + 4 && t.labelRect.right() < view->width(),
                        qPrintable(QStringLiteral("width %1, span %2: label %3 ends at %4, the axis at %5")
                                       .arg(w)
                                       .arg(k)
                                       .arg(t.label)
                                       .arg(t.labelRect.right())
                                       .arg(plot.right() + 4)));
                }
                QVERIFY2(labelled >= 2, qPrintable(QStringLiteral("width %1, span %2").arg(w).arg(k)));
            }
        }
        QVERIFY(unlabelled > 0);
    }

    void dragSelectsRange() {
        auto tab = openTab();
        QVERIFY(tab);
        TimelineView* view = tab->timeline()->view();
        const int64_t all = static_cast<int64_t>(m_samples.size());
        QCOMPARE(chartTotal(*tab), all);
        const int y = view->plotRect().top() + 4;
        const int64_t pixelNs =
            (view->visibleRange().end - view->visibleRange().begin) / view->plotRect().width();

        // A first range, at once replaced by a second one: the newer wins.
        drag(view, view->timeToX(100 * kMs), view->timeToX(900 * kMs), y);
        drag(view, view->timeToX(205 * kMs), view->timeToX(505 * kMs), y);
        const std::optional<TimeRange> sel = view->selection();
        QVERIFY(sel);
        QVERIFY(std::abs(sel->begin - 205 * kMs) <= 2 * pixelNs);
        QVERIFY(std::abs(sel->end - 505 * kMs) <= 2 * pixelNs);
        QCOMPARE(tab->timeRange().has_value(), true);
        const int64_t expected = countIn(m_samples, *sel);
        QVERIFY(expected > 0 && expected < all);
        QTRY_COMPARE_WITH_TIMEOUT(chartTotal(*tab), expected, kPatienceMs);
        QTRY_VERIFY_WITH_TIMEOUT(tablesFollowChart(*tab), kPatienceMs);
        // the summary says what part of the whole the range is
        const QLocale locale;
        QCOMPARE(tab->summary()->samplesText(),
                 QStringLiteral("%1 of %2").arg(locale.toString(expected), locale.toString(all)));
        const CostType& type = tab->profile()->costTypes[tab->panel()->data()->costType];
        QCOMPARE(tab->summary()->totalText(), QStringLiteral("%1 of %2")
                                                  .arg(QString::fromStdString(formatCost(expected, type)),
                                                       QString::fromStdString(formatCost(all, type))));

        // The chip names the range; clicking it shows the whole profile again.
        QToolButton* chip = tab->timeline()->rangeChip();
        QVERIFY(chip->isVisible());
        QVERIFY(chip->text().startsWith(formatTimelineRange(*sel)));
        QTest::mouseClick(chip, Qt::LeftButton);
        QVERIFY(!view->selection());
        QVERIFY(!chip->isVisible());
        QTRY_COMPARE_WITH_TIMEOUT(chartTotal(*tab), all, kPatienceMs);
        QCOMPARE(tab->summary()->samplesText(), locale.toString(all));
    }

    /// Showing a range changes the summary's texts, shows the chip and rebuilds the crumbs, but repaints
    /// only what changed: the page tabs above the chart and the thread list beside it are not painted again
    /// (each new text re-activated every layout up to the window, and each tab widget on the way repainted
    /// itself whole, three times per mouse move of a drag).
    void rangesRepaintNotTheWholeTab() {
        auto tab = openTab();
        QVERIFY(tab);
        TimelineView* view = tab->timeline()->view();
        QWidget* pageTabs = tab->pages()->tabBar();
        QWidget* threads = tab->findChild<ThreadList*>();
        QVERIFY(threads);
        QWidget* summary = tab->summary();
        scorch::test::EventCounter paintCounter(QEvent::Paint), layoutCounter(QEvent::LayoutRequest);
        std::map<QObject*, int>&paints = paintCounter.counts, &layouts = layoutCounter.counts;
        for (QWidget* w : {pageTabs, threads, summary})
            w->installEventFilter(&paintCounter);
        qApp->installEventFilter(&layoutCounter);
        // until the layouts' activations, passed up one parent per turn of the event loop, have ended (a
        // turn without any) and the window is painted
        const auto settled = [&layouts] {
            for (int turn = 0; turn < 10000; ++turn) {
                layouts.clear();
                QCoreApplication::sendPostedEvents();
                QCoreApplication::processEvents();
                if (layouts.empty())
                    break;
            }
        };
        QTRY_VERIFY_WITH_TIMEOUT(tablesFollowChart(*tab), kPatienceMs); // (the whole profile's, first)
        settled();
        paints.clear();
        const TimeRange ranges[] = {
            {100 * kMs, 900 * kMs}, {200 * kMs, 700 * kMs}, {150 * kMs, 420 * kMs}, {300 * kMs, 500 * kMs}};
        for (const TimeRange& r : ranges) {
            view->setSelection(r);
            QTRY_COMPARE_WITH_TIMEOUT(chartTotal(*tab), countIn(m_samples, r), kPatienceMs);
            QTRY_VERIFY_WITH_TIMEOUT(tablesFollowChart(*tab), kPatienceMs);
            settled();
        }
        QVERIFY(paints[summary] >= 4); // (its texts changed with each range, and were painted)
        QCOMPARE(paints[pageTabs], 0);
        QCOMPARE(paints[threads], 0);
    }

    /// Once the profile is loaded, newer chart data (a range dragged on) cancels the tables' build for the
    /// older: only the newest tables are shown. (While loading, a snapshot's build runs to its end and the
    /// newest snapshot waits for it: the tables were shown twice here, the first of a chart no longer shown.)
    void newerChartCancelsTheTablesBuild() {
        auto tab = openTab();
        QVERIFY(tab);
        QCOMPARE(tab->state(), ProfileTab::State::Loaded);
        QTRY_VERIFY_WITH_TIMEOUT(tablesFollowChart(*tab), kPatienceMs);
        std::vector<std::shared_ptr<const ChartData>> shown;
        connect(tab->tables()->topDownModel(), &QAbstractItemModel::modelReset, tab.get(),
                [&] { shown.push_back(tab->tables()->tableData()->chart); });
        const auto older = ChartData::fromProfile(tab->profile()),
                   newer = ChartData::fromProfile(tab->profile());
        QSignalSpy updated(tab.get(), &ProfileTab::tablesUpdated);
        Q_EMIT tab->panel()->dataChanged(older); // (the older build starts, and is cancelled at once)
        Q_EMIT tab->panel()->dataChanged(newer);
        QTRY_COMPARE_WITH_TIMEOUT(updated.count(), 1, kPatienceMs);
        QCOMPARE(shown, std::vector<std::shared_ptr<const ChartData>>{newer});
        QCOMPARE(tab->tables()->tableData()->chart, newer);
    }

    /// The bottom-up tree, the slowest table by far, is built only while its page is shown: on showing the
    /// page (a "building" note meanwhile), and then with each range's other tables.
    void bottomUpBuiltWhenItsPageIsShown() {
        auto tab = openTab();
        QVERIFY(tab);
        CallTreeTables* tables = tab->tables();
        QTRY_VERIFY_WITH_TIMEOUT(tablesFollowChart(*tab), kPatienceMs);
        QVERIFY(!tables->tableData()->bottomUp);
        auto* building = tables->findChild<QLabel*>(QStringLiteral("bottomUpBuilding"));
        QVERIFY(building);
        QVERIFY(!building->isVisible());
        tables->tabs()->setCurrentIndex(CallTreeTables::BottomUp);
        QVERIFY(building->isVisible()); // (the tree arrives from another thread, later)
        QTRY_VERIFY_WITH_TIMEOUT(tables->tableData()->bottomUp, kPatienceMs);
        QVERIFY(!building->isVisible());
        QCOMPARE(tables->tableData()->chart, tab->panel()->data());
        const QAbstractItemModel* model = tables->view(CallTreeTables::BottomUp)->model();
        QVERIFY(model->rowCount() > 0);
        // a range's tables come with their bottom-up tree while the page is shown
        const TimeRange range{200 * kMs, 600 * kMs};
        tab->timeline()->view()->setSelection(range);
        QTRY_COMPARE_WITH_TIMEOUT(chartTotal(*tab), countIn(m_samples, range), kPatienceMs);
        QTRY_VERIFY_WITH_TIMEOUT(tablesFollowChart(*tab), kPatienceMs);
        const auto withRange = tables->tableData();
        QVERIFY(withRange->bottomUp);
        QCOMPARE(withRange->bottomUp->grandTotal, countIn(m_samples, range));
        QVERIFY(!building->isVisible());
        // and without it when another page is shown
        tables->tabs()->setCurrentIndex(CallTreeTables::Functions);
        tab->timeline()->view()->setSelection(std::nullopt);
        QTRY_COMPARE_WITH_TIMEOUT(chartTotal(*tab), static_cast<int64_t>(m_samples.size()), kPatienceMs);
        QTRY_VERIFY_WITH_TIMEOUT(tablesFollowChart(*tab), kPatienceMs);
        QVERIFY(!tables->tableData()->bottomUp);
    }

    /// Once the profile is loaded and shown, the memory of a slice of everything is mapped in for the first
    /// range (SliceMemory::prepare()); a range sliced in it has the right totals.
    void sliceMemoryPreparedOnceLoaded() {
        auto tab = openTab();
        QVERIFY(tab);
        QTRY_VERIFY_WITH_TIMEOUT(tab->sliceMemory()->bytes() > 0, kPatienceMs);
        // (the arrays for every node: parent, end, depth, frame and source, 4 bytes each)
        QVERIFY(tab->sliceMemory()->bytes() >= tab->profile()->tree.size() * 20);
        const TimeRange range{200 * kMs, 700 * kMs};
        tab->timeline()->view()->setSelection(range);
        QTRY_COMPARE_WITH_TIMEOUT(chartTotal(*tab), countIn(m_samples, range), kPatienceMs);
        QTRY_VERIFY_WITH_TIMEOUT(tablesFollowChart(*tab), kPatienceMs);
    }

    /// Ranges asked for while one is re-aggregated (a selection being dragged) wait for it instead of
    /// cancelling it: the first is shown (cancelled at each move, none was shown until the mouse stopped),
    /// then the newest; the ones between may be skipped, and nothing else is shown.
    void rangesWhileOneIsSlicedWaitForIt() {
        auto tab = openTab();
        QVERIFY(tab);
        TimelineView* view = tab->timeline()->view();
        const TimeRange ranges[] = {{100 * kMs, 900 * kMs}, {200 * kMs, 700 * kMs}, {300 * kMs, 500 * kMs}};
        std::vector<int64_t> expected;
        for (const TimeRange& r : ranges)
            expected.push_back(countIn(m_samples, r));
        QVERIFY(expected[0] > expected[1] && expected[1] > expected[2] && expected[2] > 0);
        std::vector<int64_t> shown;
        connect(tab->panel(), &FlameGraphPanel::dataChanged, tab.get(),
                [&shown](std::shared_ptr<const ChartData> data) {
                    if (data)
                        shown.push_back(data->tree.grandTotal(data->costType));
                });
        for (const TimeRange& r : ranges) // (no event is handled between them: the first is still running)
            view->setSelection(r);
        QTRY_VERIFY_WITH_TIMEOUT(!shown.empty() && shown.back() == expected[2], kPatienceMs);
        QCOMPARE(shown.front(), expected[0]);
        for (const int64_t total : shown)
            QVERIFY2(std::ranges::find(expected, total) != expected.end(), std::to_string(total).c_str());
        QCOMPARE(tab->timeRange()->begin, ranges[2].begin);
        QTRY_VERIFY_WITH_TIMEOUT(tablesFollowChart(*tab), kPatienceMs);
    }

    void laneClickFiltersThread() {
        auto tab = openTab();
        QVERIFY(tab);
        TimelineView* view = tab->timeline()->view();
        const uint32_t worker = threadIndex(*tab->profile(), 101);
        const int y = view->plotRect().top() + 4;
        drag(view, view->timeToX(300 * kMs), view->timeToX(800 * kMs), y);
        const TimeRange sel = *view->selection();

        // Clicking the worker's label: only the worker, within the range.
        QTest::mouseClick(view, Qt::LeftButton, {}, view->labelRect(worker).center());
        QCOMPARE(tab->threadList()->selectedThreads(), std::vector<uint32_t>{worker});
        QTRY_COMPARE_WITH_TIMEOUT(chartTotal(*tab), countIn(m_samples, sel, 1), kPatienceMs);
        // The range cleared: the worker's samples over the whole profile.
        QTest::keyClick(view, Qt::Key_Escape);
        QVERIFY(!view->selection());
        QTRY_COMPARE_WITH_TIMEOUT(chartTotal(*tab), countIn(m_samples, {0, INT64_MAX}, 1), kPatienceMs);
        // A second click on the same label: every thread again.
        QTest::mouseClick(view, Qt::LeftButton, {}, view->labelRect(worker).center());
        QVERIFY(tab->threadList()->selectedThreads().empty());
        QTRY_COMPARE_WITH_TIMEOUT(chartTotal(*tab), static_cast<int64_t>(m_samples.size()), kPatienceMs);
    }

    void selectedFunctionOnStack() {
        auto tab = openTab();
        QVERIFY(tab);
        TimelineView* view = tab->timeline()->view();
        const auto data = tab->panel()->data();
        const FrameId hot = frameNamed(*data->profile, "hot");
        QVERIFY(hot.value != 0);
        tab->panel()->view()->selectFunction(hot); // through the chart's selection, as a click does
        QCOMPARE(view->highlightFrame(), hot);
        QTRY_VERIFY_WITH_TIMEOUT(view->highlightCurrent() && !view->highlightOf(view->lanes()[0]).empty(),
                                 kPatienceMs);
        const QRect plot = view->plotRect();
        std::vector<uint32_t> mine(static_cast<std::size_t>(plot.width()), 0);
        for (const Sample& s : m_samples)
            if (s.hot)
                ++mine[static_cast<std::size_t>(view->timeToX(s.timeNs) - plot.left())];
        QCOMPARE(view->highlightOf(view->lanes()[0]), mine);
        const std::vector<uint32_t> none(mine.size(), 0);
        QCOMPARE(view->highlightOf(view->lanes()[1]), none);
    }

    /// The lanes are painted once and kept: dragging a selection repaints only the selection over them, and
    /// what changes the lanes (the function shown on the stack, the thread filter, scrolling, the size)
    /// paints them again.
    void lanesKeptWhileASelectionIsDragged() {
        auto tab = openTab();
        QVERIFY(tab);
        TimelineView* view = tab->timeline()->view();
        const QRect plot = view->plotRect();
        const int y = view->laneRect(view->lanes()[0]).center().y();
        const auto pixel = [&](int x) {
            return view->grab().toImage().pixelColor(x, y);
        };
        const int inside = plot.left() + plot.width() / 2;
        const QImage before = view->grab().toImage();
        const int painted = view->lanesPainted();
        QVERIFY(painted > 0);
        QTest::mousePress(view, Qt::LeftButton, {}, QPoint(plot.left() + 10, y));
        for (int x = plot.left() + 20; x <= plot.right() - 10; x += plot.width() / 8) {
            QTest::mouseMove(view, QPoint(x, y));
            const QColor now = pixel(plot.left() + 15); // inside the span from the first move on
            QVERIFY(now != before.pixelColor(plot.left() + 15, y));
        }
        QCOMPARE(view->lanesPainted(), painted);                // (each grab() painted the view)
        QVERIFY(pixel(inside) != before.pixelColor(inside, y)); // the span covers the middle now
        QTest::mouseRelease(view, Qt::LeftButton, {}, QPoint(plot.right() - 10, y));
        QTRY_VERIFY_WITH_TIMEOUT(tablesFollowChart(*tab), kPatienceMs);
        view->setSelection(std::nullopt);
        QCOMPARE(view->grab().toImage(), before);
        QCOMPARE(view->lanesPainted(), painted);

        // the function on the stack: painted again, in its colour
        const FrameId hot = frameNamed(*tab->profile(), "hot");
        view->setHighlightFrame(hot);
        QTRY_VERIFY_WITH_TIMEOUT(view->highlightCurrent() && !view->highlightOf(view->lanes()[0]).empty(),
                                 kPatienceMs);
        const std::vector<uint32_t> onStack = view->highlightOf(view->lanes()[0]);
        const auto hotColumn = std::find_if(onStack.begin(), onStack.end(), [](uint32_t v) { return v > 0; });
        QVERIFY(hotColumn != onStack.end());
        const QImage withHot = view->grab().toImage();
        const auto isOrange = [](QColor c) {
            return c.red() > 150 && c.red() > c.green() + 40 && c.green() > c.blue() + 40;
        };
        QVERIFY(view->lanesPainted() > painted);
        const int hx = plot.left() + static_cast<int>(hotColumn - onStack.begin());
        const QRect lane = view->laneRect(view->lanes()[0]);
        bool orange = false;
        for (int py = lane.top(); py <= lane.bottom(); ++py) {
            QVERIFY(!isOrange(before.pixelColor(hx, py)));
            orange = orange || isOrange(withHot.pixelColor(hx, py));
        }
        QVERIFY(orange);
        // the thread filter and the size: painted again
        const int withHighlight = view->lanesPainted();
        view->setThreads({view->lanes()[1]});
        view->grab();
        const int filtered = view->lanesPainted();
        QVERIFY(filtered > withHighlight);
        view->grab();
        QCOMPARE(view->lanesPainted(), filtered); // (nothing changed)
        tab->resize(tab->width() - 40, tab->height());
        QTRY_VERIFY_WITH_TIMEOUT((view->grab(), view->lanesPainted() > filtered), kPatienceMs);
    }

    /// Comparing time ranges: the selection with the rest of the recording, then a baseline marked before
    /// with a later selection; each side holds exactly its range's samples (counted from the generated list),
    /// and in the main window the comparison opens as a tab.
    void compareTimeRanges() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        ProfileTab* tab = w.openFile(m_perf);
        QVERIFY(test::waitLoaded(tab));
        TimelinePanel* panel = tab->timeline();
        TimelineView* view = panel->view();
        QTRY_VERIFY_WITH_TIMEOUT(view->activityCurrent() && !view->lanes().empty(), kPatienceMs);
        QVERIFY(panel->compareButton()->isVisible());
        const auto hotIn = [&](TimeRange r, bool outside) {
            int64_t n = 0;
            for (const Sample& s : m_samples)
                n += s.hot && (s.timeNs >= r.begin && s.timeNs < r.end) != outside;
            return n;
        };
        const auto frameTotal = [](const Profile& p, std::string_view name) {
            int64_t sum = 0;
            for (NodeId n = 1; n < p.tree.size(); ++n)
                if (p.nodeName(n) == name)
                    sum += p.tree.total(0, n);
            return sum;
        };
        const int y = view->plotRect().top() + 4;
        // Without a selection there is nothing to compare.
        QVERIFY(!panel->compareSelectionWithRest());
        drag(view, view->timeToX(205 * kMs), view->timeToX(505 * kMs), y);
        const TimeRange first = *view->selection();
        const int64_t all = static_cast<int64_t>(m_samples.size());
        const int64_t inFirst = countIn(m_samples, first);

        QSignalSpy ready(tab, &ProfileTab::comparisonReady);
        const int tabsBefore = w.tabs()->count();
        QVERIFY(panel->compareSelectionWithRest());
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, kPatienceMs);
        auto before = ready[0][0].value<std::shared_ptr<const Profile>>();
        auto after = ready[0][2].value<std::shared_ptr<const Profile>>();
        QCOMPARE(before->tree.grandTotal(0), inFirst);
        QCOMPARE(after->tree.grandTotal(0), all - inFirst);
        QCOMPARE(frameTotal(*before, "hot"), hotIn(first, false));
        QCOMPARE(frameTotal(*after, "hot"), hotIn(first, true));
        QCOMPARE(ready[0][1].toString(), QStringLiteral("threads.perf [%1]").arg(formatTimelineRange(first)));
        QCOMPARE(ready[0][3].toString(), QStringLiteral("threads.perf [rest of the recording]"));
        // the window opens it as a comparison tab, named once by the file
        QCOMPARE(w.tabs()->count(), tabsBefore + 1);
        auto* compare = qobject_cast<CompareTab*>(w.tabs()->currentWidget());
        QVERIFY(compare);
        QCOMPARE(compare->state(), CompareTab::State::Loaded);
        QCOMPARE(compare->title(),
                 QStringLiteral("threads.perf: %1 ↔ rest of the recording").arg(formatTimelineRange(first)));

        // The first range as the baseline (drawn on the timeline), then a later selection against it.
        w.tabs()->setCurrentWidget(tab);
        QAction* mark = nullptr;
        for (QAction* a : panel->compareMenu()->actions())
            if (a->text() == QStringLiteral("Mark Selection as Baseline"))
                mark = a;
        QVERIFY(mark);
        Q_EMIT panel->compareMenu()->aboutToShow();
        QVERIFY(mark->isEnabled());
        QVERIFY(!panel->compareBaselineWithSelection()); // no baseline yet
        mark->trigger();
        QVERIFY(panel->baseline());
        QCOMPARE(view->baseline()->begin, first.begin);
        QVERIFY(!panel->compareBaselineWithSelection()); // the baseline is the selection
        drag(view, view->timeToX(600 * kMs), view->timeToX(950 * kMs), y);
        const TimeRange second = *view->selection();
        QVERIFY(panel->compareBaselineWithSelection());
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 2, kPatienceMs);
        before = ready[1][0].value<std::shared_ptr<const Profile>>();
        after = ready[1][2].value<std::shared_ptr<const Profile>>();
        QCOMPARE(before->tree.grandTotal(0), inFirst);
        QCOMPARE(after->tree.grandTotal(0), countIn(m_samples, second));
        QCOMPARE(frameTotal(*after, "hot"), hotIn(second, false));

        // With one thread shown, both sides hold only its samples, and the labels say so.
        const uint32_t worker = threadIndex(*tab->profile(), 101);
        tab->threadList()->showOnly(worker);
        QVERIFY(panel->compareBaselineWithSelection());
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 3, kPatienceMs);
        QCOMPARE(ready[2][0].value<std::shared_ptr<const Profile>>()->tree.grandTotal(0),
                 countIn(m_samples, first, 1));
        QCOMPARE(ready[2][2].value<std::shared_ptr<const Profile>>()->tree.grandTotal(0),
                 countIn(m_samples, second, 1));
        QVERIFY(ready[2][1].toString().endsWith(QStringLiteral(", 1 of 3 threads]")));
        QCOMPARE(w.tabs()->count(), tabsBefore + 3);
    }

    /// A system-wide profile: threads grouped by process, busiest first; a process of several threads has a
    /// header row with their summed activity that folds them away and back; a process of one thread has none.
    void processGroups() {
        struct Spec {
            const char* comm;
            int pid, tid, samples;
        };
        // server 90 samples (3 threads), db 40 (2 threads), client 35 (1 thread)
        const Spec specs[] = {{"server", 200, 200, 40}, {"srv-worker", 200, 201, 30},
                              {"srv-io", 200, 202, 20}, {"client", 300, 300, 35},
                              {"db", 400, 400, 25},     {"db-flush", 400, 401, 15}};
        QByteArray text;
        for (const Spec& sp : specs)
            for (int k = 0; k < sp.samples; ++k) {
                const int64_t abs = 5000 * 1000 * kMs + k * 10 * kMs + sp.tid * 1000; // 5000 s since boot
                char header[160];
                std::snprintf(header, sizeof header, "%s %d/%d [000] %lld.%06lld: 1 cpu-clock:\n", sp.comm,
                              sp.pid, sp.tid, static_cast<long long>(abs / 1000000000),
                              static_cast<long long>(abs % 1000000000 / 1000));
                text += header;
                text += "\t          404000 main (/bin/app)\n\n";
            }
        const QString path = m_dir.filePath(QStringLiteral("system.perf"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
        f.close();
        ProfileTab tab(path);
        tab.resize(1200, 800);
        tab.show();
        QVERIFY(test::waitLoaded(&tab));
        TimelineView* view = tab.timeline()->view();
        QTRY_VERIFY_WITH_TIMEOUT(view->activityCurrent() && !view->lanes().empty(), kPatienceMs);
        const Profile& p = *tab.profile();
        const auto idx = [&](int tid) {
            return threadIndex(p, tid);
        };
        QCOMPARE(view->groupedProcesses(), (std::vector<int64_t>{200, 400}));
        QCOMPARE(view->lanes(),
                 (std::vector<uint32_t>{idx(200), idx(201), idx(202), idx(400), idx(401), idx(300)}));
        // header, its threads below it, the next header, ...: rows in that order, top to bottom
        const std::vector<int> tops{view->processRect(200).top(),   view->laneRect(idx(200)).top(),
                                    view->laneRect(idx(202)).top(), view->processRect(400).top(),
                                    view->laneRect(idx(401)).top(), view->laneRect(idx(300)).top()};
        QVERIFY(std::is_sorted(tops.begin(), tops.end()));
        QCOMPARE(tops[1], tops[0] + view->processRect(200).height());
        QCOMPARE(view->processLabel(200), QStringLiteral("▾ server (200)"));
        // the header's activity is its threads' summed, bucket by bucket
        std::vector<uint32_t> sum(static_cast<std::size_t>(view->plotRect().width()), 0);
        for (int tid : {200, 201, 202}) {
            const std::vector<uint32_t> a = view->activityOf(idx(tid));
            QCOMPARE(a.size(), sum.size());
            for (std::size_t b = 0; b < a.size(); ++b)
                sum[b] += a[b];
        }
        QCOMPARE(view->processActivity(200), sum);
        QCOMPARE(std::accumulate(sum.begin(), sum.end(), 0u), 90u);
        // a click on the header's label folds the threads away (the header stays, summed); again unfolds
        const int y = view->processRect(200).center().y();
        QTest::mouseClick(view, Qt::LeftButton, {}, QPoint(10, y));
        QVERIFY(view->processCollapsed(200));
        QVERIFY(view->processLabel(200).startsWith(QStringLiteral("▸")));
        QCOMPARE(view->lanes(), (std::vector<uint32_t>{idx(400), idx(401), idx(300)}));
        QVERIFY(view->laneRect(idx(201)).isEmpty());
        QCOMPARE(view->processRect(400).top(), view->processRect(200).bottom() + 1);
        QCOMPARE(view->processActivity(200), sum);
        QVERIFY(tab.threadList()->selectedThreads().empty()); // folding is not filtering
        QTest::mouseClick(view, Qt::LeftButton, {}, QPoint(10, y));
        QVERIFY(!view->processCollapsed(200));
        QCOMPARE(view->lanes().size(), std::size_t{6});
        // a thread's label under a header still filters to that thread
        QTest::mouseClick(view, Qt::LeftButton, {}, view->labelRect(idx(401)).center());
        QCOMPARE(tab.threadList()->selectedThreads(), std::vector<uint32_t>{idx(401)});
        // the single-process profile of the other tests has no headers
        auto plain = openTab();
        QVERIFY(plain);
        QVERIFY(plain->timeline()->view()->groupedProcesses().empty());
    }

    void zoomIntoSelection() {
        auto tab = openTab();
        QVERIFY(tab);
        TimelineView* view = tab->timeline()->view();
        const int y = view->plotRect().top() + 4;
        drag(view, view->timeToX(400 * kMs), view->timeToX(600 * kMs), y);
        const TimeRange sel = *view->selection();
        QTest::mouseDClick(view, Qt::LeftButton, {}, QPoint(view->timeToX(500 * kMs), y));
        QCOMPARE(view->visibleRange().begin, sel.begin);
        QCOMPARE(view->visibleRange().end, sel.end);
        QVERIFY(view->selection()); // zooming keeps the range the chart shows
        // The zoomed activity has the range's samples spread over the whole width.
        QTRY_VERIFY_WITH_TIMEOUT(view->activityCurrent(), kPatienceMs);
        int64_t drawn = 0;
        for (uint32_t t : view->lanes())
            for (uint32_t v : view->activityOf(t))
                drawn += v;
        QCOMPARE(drawn, countIn(m_samples, sel));
        // Esc clears the selection first, then the zoom.
        QTest::keyClick(view, Qt::Key_Escape);
        QVERIFY(!view->selection());
        QVERIFY(view->zoomed());
        QTest::keyClick(view, Qt::Key_Escape);
        QVERIFY(!view->zoomed());
    }

    void stackChartOfOneThread() {
        auto tab = openTab();
        QVERIFY(tab);
        TimelinePanel* panel = tab->timeline();
        StackChartView* chart = panel->stackChart();
        QVERIFY(!chart->isVisible());
        panel->setStackChartVisible(true);
        QVERIFY(chart->isVisible());
        const Profile& p = *tab->profile();
        QCOMPARE(chart->thread(), threadIndex(p, 100)); // the busiest thread first
        QTRY_VERIFY_WITH_TIMEOUT(chart->current() && !chart->boxes().empty(), kPatienceMs);
        // main's samples come every 10 ms without a gap: one box per frame that stays on the stack, and one
        // "hot" box per hot sample, lasting until the next sample.
        std::vector<std::pair<int64_t, int64_t>> hot, outer;
        for (const StackBox& b : chart->boxes()) {
            const std::string_view name = p.nodeName(b.node);
            if (name == "hot")
                hot.emplace_back(b.begin, b.end);
            else if (b.row == 0)
                outer.emplace_back(b.begin, b.end);
        }
        // Boxes end at the end of the time span (just after the last sample).
        const int64_t span = panel->view()->visibleRange().end;
        QCOMPARE(span, 990 * kMs + 1);
        std::vector<std::pair<int64_t, int64_t>> expectedHot;
        for (const Sample& s : m_samples)
            if (s.hot)
                expectedHot.emplace_back(s.timeNs, std::min(s.timeNs + 10 * kMs, span));
        QCOMPARE(hot, expectedHot);
        QCOMPARE(outer.size(), std::size_t{1});
        QCOMPARE(outer[0], std::make_pair(int64_t{0}, span));
        // A known sample is drawn at its time: the box under the pixel of hot sample 33 (330 ms) is "hot".
        const int x = chart->timeToX(330 * kMs + 5 * kMs);
        const int depth = static_cast<int>(
            std::max_element(chart->boxes().begin(), chart->boxes().end(),
                             [](const StackBox& a, const StackBox& b) { return a.row < b.row; })
                ->row);
        const StackBox* box = chart->boxAt(QPoint(x, depth * chart->rowHeight() + 2));
        QVERIFY(box);
        QCOMPARE(p.nodeName(box->node), std::string_view("hot"));
        // A click on the worker's lane shows the worker: its samples (20 ms apart) from 203 ms.
        TimelineView* view = panel->view();
        const uint32_t worker = threadIndex(p, 101);
        QTest::mouseClick(view, Qt::LeftButton, {}, view->labelRect(worker).center());
        QCOMPARE(chart->thread(), worker);
        QTRY_VERIFY_WITH_TIMEOUT(chart->current() && !chart->boxes().empty(), kPatienceMs);
        QCOMPARE(chart->boxes().front().begin, 203 * kMs);
        QCOMPARE(chart->boxes().front().row, 0u);
    }

    void stackChartOfSelectedThreads() {
        auto tab = openTab();
        QVERIFY(tab);
        TimelinePanel* panel = tab->timeline();
        StackChartView* chart = panel->stackChart();
        panel->setStackChartVisible(true);
        const Profile& p = *tab->profile();
        const uint32_t main = threadIndex(p, 100), io = threadIndex(p, 102);
        // Uncheck the worker in the thread list: main and io are selected, and stacked busiest first.
        QTreeWidgetItem* all = tab->threadList()->tree()->topLevelItem(0);
        QTreeWidgetItem* workerItem = nullptr;
        for (int i = 0; i < all->childCount(); ++i)
            if (all->child(i)->data(3, Qt::UserRole).toLongLong() == 101) // the tid column
                workerItem = all->child(i);
        QVERIFY(workerItem);
        workerItem->setCheckState(0, Qt::Unchecked);
        QTRY_COMPARE_WITH_TIMEOUT(chart->threads(), (std::vector<uint32_t>{main, io}), kPatienceMs);
        QTRY_VERIFY_WITH_TIMEOUT(chart->current(), kPatienceMs);
        QCOMPARE(chart->bands().size(), std::size_t{2});
        const StackBand mainBand = chart->bands()[0], ioBand = chart->bands()[1];
        QCOMPARE(mainBand.thread, main);
        QCOMPARE(ioBand.thread, io);
        // Below the command's frame, main;compute;hot is three frames deep and main;wait two; io's band
        // starts below main's.
        QCOMPARE(mainBand.firstRow, 0u);
        QCOMPARE(mainBand.rows, 4u);
        QCOMPARE(ioBand.firstRow, 4u);
        QCOMPARE(ioBand.rows, 3u);
        // Each band holds exactly its thread's own stack chart, moved down to the band's rows; none of the
        // worker's samples is drawn.
        const TimeRange range = panel->view()->visibleRange();
        for (const StackBand& band : chart->bands()) {
            const auto own = stackBoxes(p, band.thread, range);
            QVERIFY(own);
            std::vector<std::tuple<int64_t, int64_t, NodeId, uint32_t>> expected, drawn;
            for (const StackBox& b : *own)
                expected.emplace_back(b.begin, b.end, b.node, b.row + band.firstRow);
            for (const StackBox& b : chart->boxes())
                if (b.row >= band.firstRow && b.row < band.firstRow + band.rows)
                    drawn.emplace_back(b.begin, b.end, b.node, b.row);
            QCOMPARE(drawn, expected);
        }
        int64_t ioSamplesDrawn = 0;
        for (const StackBox& b : chart->boxes())
            if (b.row == ioBand.firstRow + 2) {
                QCOMPARE(p.nodeName(b.node), std::string_view("wait"));
                ++ioSamplesDrawn;
            }
        QCOMPARE(ioSamplesDrawn, std::int64_t{1}); // io's samples are 50 ms apart without a gap: one box
        // A known sample at its pixel: io's sample at 507 ms is "wait" in io's last row, and main's
        // sample at 330 ms "hot" in main's.
        const int rh = chart->rowHeight();
        const StackBox* wait = chart->boxAt(
            QPoint(chart->timeToX(507 * kMs + kMs), static_cast<int>(ioBand.firstRow + 2) * rh + 2));
        QVERIFY(wait);
        QCOMPARE(p.nodeName(wait->node), std::string_view("wait"));
        QCOMPARE(chart->bandOfRow(wait->row)->thread, io);
        const StackBox* hot = chart->boxAt(QPoint(chart->timeToX(335 * kMs), 3 * rh + 2));
        QVERIFY(hot);
        QCOMPARE(p.nodeName(hot->node), std::string_view("hot"));
        QCOMPARE(chart->bandOfRow(hot->row)->thread, main);
        QVERIFY(!chart->bandOfRow(ioBand.firstRow + ioBand.rows));
        // Each band's thread is named in its first row of the label column (the chart draws at known pixels).
        const QImage image = chart->grab().toImage();
        bool ioLabelInk = false;
        for (int x = 6; x < 60 && !ioLabelInk; ++x)
            for (int y = static_cast<int>(ioBand.firstRow) * rh;
                 y < static_cast<int>(ioBand.firstRow + 1) * rh; ++y)
                if (image.pixelColor(x, y) != chart->palette().base().color())
                    ioLabelInk = true;
        QVERIFY(ioLabelInk);
        // All threads again (check the worker): one thread, the first of those stacked.
        workerItem->setCheckState(0, Qt::Checked);
        QTRY_COMPARE_WITH_TIMEOUT(chart->threads(), std::vector<uint32_t>{main}, kPatienceMs);
        QTRY_VERIFY_WITH_TIMEOUT(chart->current(), kPatienceMs);
        QCOMPARE(chart->bands().size(), std::size_t{1});
    }

    /// Off-CPU profiles: the stretch a thread waited (100 ms of sleep between two 10 ms bursts of samples in
    /// tests/data/offcpu/hotcold.perfscript) is a band of its own, full where it waited, absent elsewhere.
    void offCpuStretches() {
        auto tab =
            std::make_unique<ProfileTab>(QStringLiteral(SCORCH_TEST_DATA "/offcpu/hotcold.perfscript"));
        tab->resize(1200, 800);
        tab->show();
        QVERIFY(test::waitLoaded(tab.get()));
        TimelineView* view = tab->timeline()->view();
        // it opens drawn by wall time (the hot/cold chart)
        QTRY_VERIFY_WITH_TIMEOUT(tab->panel()->data(), kPatienceMs);
        QCOMPARE(static_cast<int>(tab->panel()->data()->costType), tab->profile()->costTypeIndex("wall"));
        QTRY_VERIFY_WITH_TIMEOUT(view->activityCurrent() && !view->lanes().empty() &&
                                     !view->offCpuOf(view->lanes().front()).empty(),
                                 kPatienceMs);
        const std::vector<uint32_t> off = view->offCpuOf(view->lanes().front());
        const int left = view->plotRect().left();
        QCOMPARE(off.size(), static_cast<std::size_t>(view->plotRect().width()));
        const auto at = [&](int64_t ns) {
            return off[static_cast<std::size_t>(view->timeToX(ns) - left)];
        };
        for (int64_t ms = 12; ms <= 108; ms += 4) // waiting from 10 ms to 110 ms after the first sample
            QVERIFY2(at(ms * kMs) >= 950, qPrintable(QString::number(ms)));
        for (int64_t ms : {0, 2, 5, 8, 112, 115, 118})
            QVERIFY2(at(ms * kMs) == 0, qPrintable(QString::number(ms)));
        // a profile without off-CPU time has no such band
        auto plain = openTab();
        QVERIFY(plain);
        QVERIFY(plain->timeline()->view()->offCpuOf(plain->timeline()->view()->lanes().front()).empty());
    }

    void noTimelineForFolded() {
        const QString path = m_dir.filePath(QStringLiteral("stacks.folded"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("main;compute;hot 3\nmain;wait 2\n");
        f.close();
        ProfileTab tab(path);
        tab.resize(1000, 700);
        tab.show();
        QVERIFY(test::waitLoaded(&tab));
        QCOMPARE(chartTotal(tab), 5);
        QVERIFY(!tab.timeline()->view()->hasTimeline());
        QVERIFY(!tab.timeline()->view()->isVisible());
        QVERIFY(tab.timeline()->note()->isVisible());
        QCOMPARE(tab.timeline()->note()->text(),
                 QStringLiteral("No timeline: folded stacks has no per-sample times"));
        QVERIFY(tab.timeline()->height() <= tab.timeline()->note()->sizeHint().height());
    }
};

QTEST_MAIN(TstTimeline)
#include "tst_timeline.moc"
