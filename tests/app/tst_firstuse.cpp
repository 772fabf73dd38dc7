// What a newcomer meets first in a profile tab (issue 17): the banner of serious warnings on a truncated
// perf.data (dismissable, "All Warnings…" opens the list), the Summary page (recording facts, duration in
// human units, samples, warnings without a meaningless line 0, top functions) and the thread list's filter
// box when the threads do not fit.
#include "apptestutil.h"
#include "common/contrast.h"
#include "common/qtprofile.h"
#include "flame/flamegraphview.h"
#include "patience.h"
#include "profiletab.h"
#include "scorch/analysis.h"
#include "scorch/warningkind.h"
#include "summarybar.h"
#include "summarypage.h"

#include "scorch/symbolizer.h"
#include "tables/calltreetables.h"
#include "testutil.h"
#include "threadlist.h"
#include "timeline/timelinepanel.h"
#include "warningbanner.h"
#include "widgettestutil.h"

#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeView>
#include <QTreeWidget>

#include <cstring>
#include <memory>

using namespace scorch;
using scorch::test::findRow;
using scorch::test::kPatienceMs;
using scorch::test::waitLoaded;

namespace {

QString perfFixture() {
    return scorch::test::testData(QStringLiteral("perfdata/fp-two-events.data"));
}

bool writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

/// The fixture cut inside its data section: the samples before the cut load, with a truncation warning.
QString cutPerfData(const QTemporaryDir& dir) {
    const QByteArray whole = scorch::test::readAll(perfFixture());
    uint64_t dataOffset = 0, dataSize = 0;
    std::memcpy(&dataOffset, whole.constData() + 40, 8);
    std::memcpy(&dataSize, whole.constData() + 48, 8);
    const QString path = dir.filePath(QStringLiteral("cut.data"));
    return writeFile(path, whole.left(qsizetype(dataOffset + dataSize - 50))) ? path : QString();
}

/// perf script text with `threads` threads named worker-N (pid 100, tid 1000+N), N+1 samples each.
QByteArray manyThreads(int threads) {
    QByteArray text;
    for (int t = 0; t < threads; ++t)
        for (int s = 0; s <= t; ++s)
            text += QStringLiteral(
                        "worker-%1 100/%2 1.%3: 1000 cpu-clock:\n\t1 work%4 (/bin/w)\n\t2 main (/bin/w)\n\n")
                        .arg(t)
                        .arg(1000 + t)
                        .arg(t * 100 + s, 6, 10, QLatin1Char('0'))
                        .arg(t % 3)
                        .toUtf8();
    return text;
}

/// A profile tab loading `path`, shown at the smallest window size the issue names.
std::unique_ptr<ProfileTab> shownTab(const QString& path) {
    auto tab = std::make_unique<ProfileTab>(path);
    tab->resize(1024, 700);
    tab->show();
    return tab;
}

} // namespace

class TestFirstUse : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void seriousWarningsAreClassified() {
        QCOMPARE(warningKind("the file is truncated: a record at byte offset 7 is cut off; the profile holds "
                             "the samples before it"),
                 WarningKind::Truncated);
        QCOMPARE(warningKind("12 events were lost while recording (perf could not keep up)"),
                 WarningKind::Lost);
        QCOMPARE(warningKind("3 samples were lost while recording"), WarningKind::Lost);
        QCOMPARE(warningKind("/usr/bin/x: not found (62.5% of samples): functions unknown"),
                 WarningKind::Symbols);
        QCOMPARE(warningKind("/usr/bin/x: not found (1.2% of samples): functions unknown"),
                 WarningKind::Note);
        // Names without file:line read fine however hot the module; nameless addresses count by the samples
        // spent in them; a build-id mismatch by the module's share, whether its names resolved or not.
        QCOMPARE(warningKind("/usr/lib/libstdc++.so.6: no debug info (62.6% of samples): file:line unknown"),
                 WarningKind::Note);
        QCOMPARE(
            warningKind("/usr/lib/libstdc++.so.6: no debug info (62.6% of samples): file:line unknown, 4 "
                        "of 13 addresses without a function name, 0.4% of the samples spent in them"),
            WarningKind::Note);
        QCOMPARE(warningKind("/usr/bin/python3: no debug info (22.4% of samples): file:line unknown, 691 of "
                             "1363 addresses without a function name, 18.0% of the samples spent in them"),
                 WarningKind::Symbols);
        QCOMPARE(warningKind("/usr/bin/y: build-id mismatch (recorded ab, found cd) (30.0% of samples): "
                             "file:line unknown"),
                 WarningKind::Symbols);
        QCOMPARE(warningKind("40 of 100 --call-graph dwarf samples could not be unwound"),
                 WarningKind::Unwind);
        QCOMPARE(warningKind("2 of 100 --call-graph dwarf samples could not be unwound"), WarningKind::Note);
        QCOMPARE(warningKind("unrecognized line: foo"), WarningKind::Note);
    }

    /// A dark palette: the banner's tint, the comparison's red/blue deltas and the source gutter's text on
    /// its heat colours keep a readable contrast (WCAG 4.5:1), as they do on a light one.
    void readableOnDarkAndLightPalettes() {
        for (const QColor window : {QColor(239, 239, 239), QColor(42, 42, 46)}) {
            const QColor text = relativeLuminance(window) < 0.5 ? QColor(240, 240, 240) : QColor(10, 10, 10);
            QVERIFY(contrastRatio(WarningBanner::tint(window), text) >= 4.5);
            for (const QColor signal : {QColor(190, 20, 20), QColor(20, 80, 200), QColor(0xb0, 0x10, 0x10)})
                QVERIFY2(contrastRatio(readableOn(signal, window), window) >= 4.5, qPrintable(signal.name()));
        }
        for (const QColor heat :
             {QColor(226, 62, 40), QColor(240, 170, 50), QColor(42, 42, 46), QColor(250, 250, 250)})
            QVERIFY(contrastRatio(readableTextOn(heat), heat) >= 4.5);
        // The banner follows the palette it is shown with: dark amber under light text on a dark palette.
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(42, 42, 46));
        dark.setColor(QPalette::WindowText, QColor(240, 240, 240));
        WarningBanner banner;
        banner.setPalette(dark);
        ProfileMeta meta;
        meta.warn("3 samples were lost while recording");
        banner.setMeta(meta);
        banner.resize(600, 80);
        banner.show();
        QVERIFY(QTest::qWaitForWindowExposed(&banner));
        const QImage shot = banner.grab().toImage();
        const QColor fill = shot.pixelColor(shot.width() / 2, shot.height() - 3);
        QVERIFY2(relativeLuminance(fill) < 0.2, qPrintable(fill.name()));
        QVERIFY(contrastRatio(fill, dark.color(QPalette::WindowText)) >= 4.5);
    }

    void truncatedPerfDataShowsABanner() {
        QTemporaryDir dir;
        const QString path = cutPerfData(dir);
        QVERIFY(!path.isEmpty());
        ProfileTab tab(path);
        tab.resize(1024, 700);
        tab.show();
        QVERIFY(waitLoaded(&tab));
        WarningBanner* banner = tab.warningBanner();
        QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), kPatienceMs);
        QVERIFY2(banner->text().contains(QStringLiteral("The file is truncated.")),
                 qPrintable(banner->text()));
        QVERIFY(banner->text().contains(QStringLiteral("byte offset")));          // what happened, where
        QVERIFY(banner->text().contains(QStringLiteral("Copy the file again")));  // and what to do
        QVERIFY(banner->geometry().bottom() < tab.pages()->geometry().top() + 1); // above the chart
        // The truncation is also the first warning on the Summary page, without a "line 0:".
        banner->detailsButton()->click();
        QCOMPARE(tab.pages()->currentWidget(), static_cast<QWidget*>(tab.summaryPage()));
        QTRY_VERIFY_WITH_TIMEOUT(tab.summaryPage()->complete(), kPatienceMs);
        const QString summary = tab.summaryPage()->text();
        QVERIFY2(summary.contains(QStringLiteral("the file is truncated")), qPrintable(summary));
        QVERIFY(!summary.contains(QStringLiteral("line 0")));
        // Dismissed, it stays away for the same warnings (a progressive snapshot sets them again).
        banner->closeButton()->click();
        QVERIFY(!banner->isVisible());
        banner->setMeta(tab.profile()->meta);
        QVERIFY(!banner->isVisible());
        QVERIFY(banner->text().isEmpty());
    }

    void noBannerWithoutSeriousWarnings() {
        ProfileTab tab(scorch::test::testData(QStringLiteral("gui/small.folded")));
        tab.show();
        QVERIFY(waitLoaded(&tab));
        QVERIFY(!tab.warningBanner()->isVisible());
        QVERIFY(tab.warningBanner()->text().isEmpty());
        // The same banner fed a lost-samples warning shows it with its advice.
        ProfileMeta meta;
        meta.warn("3 samples were lost while recording");
        tab.warningBanner()->setMeta(meta);
        QVERIFY(tab.warningBanner()->isVisible());
        QVERIFY(tab.warningBanner()->text().contains(QStringLiteral("lower frequency")));
    }

    void summaryPageSaysWhatWasRecorded() {
        ProfileTab tab(perfFixture());
        tab.resize(1024, 700);
        tab.show();
        QVERIFY(waitLoaded(&tab));
        QTRY_VERIFY_WITH_TIMEOUT(tab.summaryPage()->complete(), kPatienceMs);
        const Profile& p = *tab.profile();
        const QString text = tab.summaryPage()->text();
        QVERIFY2(text.contains(QStringLiteral("perf version")), qPrintable(text)); // the recording's facts
        QVERIFY(text.contains(QStringLiteral("Host")));
        QVERIFY(text.contains(QStringLiteral("Duration")));
        // The Symbols report: each module with its share and where its file was found (or sought)
        QVERIFY(!p.meta.modules.empty());
        QVERIFY2(text.contains(QStringLiteral("\nSymbols\n")), qPrintable(text));
        for (const ModuleReport& m : p.meta.modules)
            QVERIFY2(
                text.contains(QString::fromStdString(
                    m.path + (m.buildId.empty() ? "" : " build-id " + m.buildId) + "\n" + describeModule(m))),
                qPrintable(text));
        // The duration in human units: four significant digits and a time unit, no raw nanosecond count.
        QVERIFY(p.meta.timeStart && p.meta.timeEnd);
        const QString duration = SummaryPage::durationText(*p.meta.timeEnd - *p.meta.timeStart);
        QVERIFY2(QRegularExpression(QStringLiteral("^\\d{1,4}(\\.\\d{1,3})? (s|ms|µs|ns)$"))
                     .match(duration)
                     .hasMatch(),
                 qPrintable(duration));
        QVERIFY(text.contains(duration));
        QCOMPARE(SummaryPage::durationText(14.49), QStringLiteral("14.49 s"));
        QCOMPARE(SummaryPage::durationText(0.0023), QStringLiteral("2.3 ms"));
        QVERIFY(text.contains(QLocale().toString(static_cast<qulonglong>(p.meta.samples))));
        for (std::size_t t = 0; t < p.costTypes.size(); ++t) { // every event with its total, named once
            const QString name = QString::fromStdString(p.costTypes[t].name);
            const QString value = QString::fromStdString(formatCost(p.tree.grandTotal(t), p.costTypes[t]));
            QVERIFY2(text.contains(value), qPrintable(value));
            QVERIFY2(value.endsWith(QLatin1Char(' ') + name)
                         ? !text.contains(name + QStringLiteral(": ") + value)
                         : text.contains(name + QStringLiteral(": ") + value),
                     qPrintable(text));
        }
        // The busiest threads with their sample counts in words ("1 sample", "3 samples"), busiest first.
        {
            QTemporaryDir dir;
            const QString path = dir.filePath(QStringLiteral("threads.perf"));
            QVERIFY(writeFile(path, manyThreads(3)));
            const auto threads = shownTab(path);
            QVERIFY(waitLoaded(threads.get()));
            QTRY_VERIFY_WITH_TIMEOUT(threads->summaryPage()->complete(), kPatienceMs);
            const QString summary = threads->summaryPage()->text();
            QVERIFY2(!summary.contains(QStringLiteral("sample(s)")), qPrintable(summary));
            const qsizetype three = summary.indexOf(QStringLiteral("3 samples\nworker-2"));
            const qsizetype one = summary.indexOf(QStringLiteral("1 sample\nworker-0"));
            QVERIFY2(three > 0 && one > three, qPrintable(summary));
        }
        QCOMPARE(sampleCount(1234), QLocale().toString(1234) + QStringLiteral(" samples"));
        // The top functions by self cost: the heaviest function of the profile heads the list.
        const std::vector<FunctionCost> top = topFunctions(p, 0, 1);
        QVERIFY(!top.empty());
        const qsizetype heading = text.indexOf(QStringLiteral("Top functions by self"));
        QVERIFY(heading >= 0);
        QVERIFY(text.indexOf(frameShortName(p, top.front().frame), heading) > heading);
        // The summary bar's warning count opens the list.
        if (p.meta.warningCount > 0) {
            tab.pages()->setCurrentIndex(0);
            QVERIFY(!tab.summary()->warningsLabel()->toolTip().contains(QStringLiteral("line 0")));
            Q_EMIT tab.summary()->warningsLabel()->linkActivated(QStringLiteral("#warnings"));
            QCOMPARE(tab.pages()->currentWidget(), static_cast<QWidget*>(tab.summaryPage()));
        }
    }

    void threadFilterWhenThreadsDoNotFit() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("threads.perf"));
        QVERIFY(writeFile(path, manyThreads(60)));
        const auto tab = shownTab(path);
        QVERIFY(waitLoaded(tab.get()));
        QCOMPARE(tab->profile()->threads.size(), std::size_t(60));
        ThreadList* list = tab->threadList();
        QTRY_VERIFY_WITH_TIMEOUT(list->filterBox()->isVisible(), kPatienceMs); // 60 rows in under 700 px
        QSignalSpy changed(list, &ThreadList::threadsChanged);
        list->filterBox()->setText(QStringLiteral("worker-4"));
        QTreeWidgetItem* all = list->tree()->topLevelItem(0);
        const auto shownNames = [all] {
            QStringList names;
            for (int i = 0; i < all->childCount(); ++i)
                if (!all->child(i)->isHidden())
                    names << all->child(i)->text(0);
            return names;
        };
        QCOMPARE(shownNames().size(), 11); // worker-4 and worker-40 .. worker-49
        for (const QString& name : shownNames())
            QVERIFY(name.startsWith(QStringLiteral("worker-4")));
        QVERIFY(list->selectedThreads().empty()); // filtering does not change what is summed
        list->showOnlyMatching();
        QCOMPARE(list->selectedThreads().size(), std::size_t(11));
        QCOMPARE(changed.count(), 1);
        // A TID matches too; an empty filter shows every thread again.
        list->filterBox()->setText(QStringLiteral("1007"));
        QCOMPARE(shownNames(), QStringList{QStringLiteral("worker-7")});
        list->filterBox()->clear();
        QCOMPARE(shownNames().size(), 60);

        // Two threads fit: no filter box.
        const QString two = dir.filePath(QStringLiteral("two.perf"));
        QVERIFY(writeFile(two, manyThreads(2)));
        const auto small = shownTab(two);
        QVERIFY(waitLoaded(small.get()));
        QVERIFY(small->threadList()->isVisible());
        QVERIFY(!small->threadList()->filterBox()->isVisible());
    }

    void chartKeepsTheRoomOnASmallScreen() {
        // Twelve threads want eight timeline lanes; at 1024x700 that would leave the flame graph a few rows.
        // The timeline gets at most 30 % of the height below the banner, and the chart more than it.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("threads.perf"));
        QVERIFY(writeFile(path, manyThreads(12)));
        const auto tab = shownTab(path);
        QVERIFY(waitLoaded(tab.get()));
        TimelinePanel* timeline = tab->timeline();
        QVERIFY(timeline->isVisible());
        QVERIFY(timeline->sizeHint().height() > 200); // what it would take if it could
        const int column = timeline->height() + tab->chartTabs()->height() + tab->tables()->height();
        QVERIFY2(timeline->height() <= column * 3 / 10 + 8,
                 qPrintable(QStringLiteral("timeline %1 of %2 px").arg(timeline->height()).arg(column)));
        QVERIFY(tab->chartTabs()->height() > timeline->height());
        QVERIFY(tab->panel()->view()->height() >= 8 * tab->panel()->view()->rowHeight());
    }

    void selectionKeptAcrossTableTabs() {
        ProfileTab tab(scorch::test::testData(QStringLiteral("gui/small.folded")));
        tab.resize(1024, 700);
        tab.show();
        QVERIFY(waitLoaded(&tab));
        CallTreeTables* tables = tab.tables();
        FlameGraphView* chart = tab.panel()->view();
        const auto current = [tables](CallTreeTables::Page page) {
            return tables->view(page)->currentIndex().data().toString();
        };
        // A function chosen in the top-down tree is the current row of the other two tables.
        QTreeView* topDown = tables->view(CallTreeTables::TopDown);
        const QModelIndex main = findRow(*topDown->model(), QStringLiteral("main"));
        const QModelIndex run = findRow(*topDown->model(), QStringLiteral("run"), main);
        topDown->setCurrentIndex(findRow(*topDown->model(), QStringLiteral("io"), run));
        for (const auto page : {CallTreeTables::BottomUp, CallTreeTables::Functions}) {
            tables->tabs()->setCurrentIndex(page); // (the bottom-up tree is built when first shown)
            QTRY_COMPARE_WITH_TIMEOUT(current(page), QStringLiteral("io"), kPatienceMs);
        }
        // One chosen in the function list moves the top-down tree and the bottom-up tree to it.
        QTreeView* functions = tables->view(CallTreeTables::Functions);
        functions->setCurrentIndex(findRow(*functions->model(), QStringLiteral("parse")));
        QCOMPARE(current(CallTreeTables::TopDown), QStringLiteral("parse"));
        QCOMPARE(current(CallTreeTables::BottomUp), QStringLiteral("parse"));
        QCOMPARE(tab.profile()->nodeName(chart->selectedNode()), std::string_view("parse"));
        // A function without self cost has no bottom-up row: focusing that table (which makes its first row
        // current) does not move the selection to another function.
        tables->tabs()->setCurrentIndex(CallTreeTables::TopDown);
        topDown->setCurrentIndex(main);
        QCOMPARE(tab.profile()->nodeName(chart->selectedNode()), std::string_view("main"));
        tables->tabs()->setCurrentIndex(CallTreeTables::BottomUp);
        QTreeView* bottomUp = tables->view(CallTreeTables::BottomUp);
        bottomUp->setFocus(Qt::TabFocusReason);
        QTRY_VERIFY_WITH_TIMEOUT(bottomUp->hasFocus() || !tab.window()->isActiveWindow(), kPatienceMs);
        QCOMPARE(tab.profile()->nodeName(chart->selectedNode()), std::string_view("main"));
        QCOMPARE(current(CallTreeTables::TopDown), QStringLiteral("main"));
    }
};

QTEST_MAIN(TestFirstUse)
#include "tst_firstuse.moc"
