// The real MainWindow, offscreen: loading (success, corrupt input, cancel), summary, selection sync,
// export and drag and drop.
#include "apptestutil.h"
#include "flame/flamegraphpanel.h"
#include "largefolded.h"
#include "mainwindow.h"
#include "patience.h"
#include "profilefilters.h"
#include "profiletab.h"
#include "summarybar.h"
#include "tables/calltreemodel.h"
#include "tables/calltreetables.h"
#include "threadlist.h"
#include "welcomepage.h"
#include "widgettestutil.h"

#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QRandomGenerator>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>
#include <QTreeWidget>
#include <QUrl>

#include <atomic>
#include <chrono>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace scorch;
using scorch::test::findRow;
using scorch::test::kPatienceMs;
using scorch::test::largeFoldedBlock;
using scorch::test::waitLoaded;
using scorch::test::writeLargeFolded;

namespace {

QString fixture() {
    return QStringLiteral(SCORCH_TEST_DATA "/gui/small.folded");
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

/// Writes `blocks` copies of `block` into a named pipe on a thread of its own: `held` of them at once, the
/// rest after finish(). Never blocks the test: the destructor gives up on a reader that went away.
class PipeWriter {
public:
    PipeWriter(const QString& path, const QByteArray& block, int held, int blocks)
        : m_thread([this, name = QFile::encodeName(path), block, held, blocks] {
            // O_RDWR: opening does not wait for the reader (Linux); the reader sees the end of the input
            // when this end is closed
            const int fd = ::open(name.constData(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
            if (fd < 0)
                return;
            for (int i = 0; i < blocks && !m_abort; ++i) {
                while (i == held && !m_released && !m_abort)
                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
                for (qsizetype at = 0; at < block.size() && !m_abort;) {
                    const ssize_t n =
                        ::write(fd, block.constData() + at, static_cast<std::size_t>(block.size() - at));
                    if (n > 0) {
                        at += n;
                    } else {
                        pollfd p{fd, POLLOUT, 0};
                        ::poll(&p, 1, 50);
                    }
                }
            }
            ::close(fd);
        }) {}
    ~PipeWriter() {
        m_abort = true; // a test that got this far had all of it read, or failed
        m_thread.join();
    }
    PipeWriter(const PipeWriter&) = delete;
    PipeWriter& operator=(const PipeWriter&) = delete;
    /// Lets the rest of the blocks go.
    void release() { m_released = true; }

private:
    std::atomic<bool> m_released{false}, m_abort{false};
    std::thread m_thread;
};

/// 1234567 -> "1,234,567" (how formatCost writes counts).
QString grouped(qint64 value) {
    QString digits = QString::number(value);
    for (qsizetype i = digits.size() - 3; i > 0; i -= 3)
        digits.insert(i, QLatin1Char(','));
    return digits;
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true); // settings go to a test location
        QCoreApplication::setOrganizationName(QStringLiteral("ScorchTest"));
        QCoreApplication::setApplicationName(QStringLiteral("ScorchTest"));
        QSettings().clear();
    }

    void opensFixtureInTab() {
        MainWindow w;
        w.show();
        ProfileTab* tab = w.openFile(fixture());
        QCOMPARE(w.tabCount(), 1);
        QVERIFY(waitLoaded(tab));
        QCOMPARE(w.tabs()->tabText(0), QStringLiteral("small.folded"));
        QVERIFY(w.windowTitle().contains(QStringLiteral("small.folded")));
        QCOMPARE(tab->summary()->totalText(), QStringLiteral("56")); // sum of the fixture's counts
        QCOMPARE(tab->tables()->topDownModel()->rowCount(), 2);
        QVERIFY(!w.progressBar()->isVisible());
        QCOMPARE(w.recentFiles().value(0), QFileInfo(fixture()).absoluteFilePath());
    }

    void corruptFileShowsErrorInTab() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("corrupt.data"));
        QByteArray noise(4096, '\0');
        QRandomGenerator random(42);
        for (char& c : noise)
            c = static_cast<char>(random.bounded(256));
        QVERIFY(writeFile(path, noise));
        MainWindow w;
        w.show();
        ProfileTab* good = w.openFile(fixture());
        ProfileTab* bad = w.openFile(path);
        QTRY_COMPARE_WITH_TIMEOUT(bad->state(), ProfileTab::State::Failed, kPatienceMs);
        QVERIFY2(bad->messageText().contains(QStringLiteral("corrupt.data")), qPrintable(bad->messageText()));
        QVERIFY(QApplication::activeModalWidget() == nullptr);
        QVERIFY(waitLoaded(good)); // the other tab is not disturbed
        QCOMPARE(w.tabCount(), 2);
    }

    void cancelLargeLoad() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("large.folded"));
        QVERIFY(writeLargeFolded(path, 50) > 0);
        MainWindow w;
        w.show();
        ProfileTab* tab = w.openFile(path);
        QVERIFY(w.cancelButton()->isVisible());
        QVERIFY(w.progressLabel()->text().contains(QStringLiteral("large.folded")));
        QTest::mouseClick(w.cancelButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(tab->state(), ProfileTab::State::Cancelled, kPatienceMs);
        QVERIFY2(tab->messageText().contains(QStringLiteral("Loading cancelled")),
                 qPrintable(tab->messageText()));
        QVERIFY(!w.progressBar()->isVisible());
    }

    void eventLoopRunsWhileImporting() {
        // The import runs on a worker thread: while it is under way (its input is a pipe this test holds
        // half-written, so it cannot end) the GUI thread goes on handling events, and the progress and
        // Cancel stay shown. How long the GUI thread is busy at a time is a figure of bench_responsiveness.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("large.folded"));
        QVERIFY(mkfifo(QFile::encodeName(path).constData(), 0600) == 0);
        qint64 blockSum = 0;
        const QByteArray block = largeFoldedBlock(blockSum);
        constexpr int kBlocks = 20;
        PipeWriter writer(path, block, kBlocks / 2, kBlocks);
        MainWindow w;
        w.show();
        ProfileTab* tab = w.openFile(path);
        int turnsWhileLoading = 0;
        QTimer tick;
        connect(&tick, &QTimer::timeout, this, [&] {
            if (tab->state() == ProfileTab::State::Loading)
                ++turnsWhileLoading;
        });
        tick.start(5);
        QTRY_VERIFY_WITH_TIMEOUT(turnsWhileLoading >= 3, kPatienceMs);
        QCOMPARE(tab->state(), ProfileTab::State::Loading);
        QVERIFY(w.cancelButton()->isVisible());
        QVERIFY(w.progressLabel()->text().contains(QStringLiteral("large.folded")));
        writer.release();
        QTRY_VERIFY_WITH_TIMEOUT(tab->state() != ProfileTab::State::Loading, kPatienceMs);
        tick.stop();
        QCOMPARE(tab->state(), ProfileTab::State::Loaded);
        QVERIFY(waitLoaded(tab));
        QCOMPARE(tab->summary()->totalText(), grouped(blockSum * kBlocks));
    }

    void closingLoadingTabDropsResult() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("large.folded"));
        QVERIFY(writeLargeFolded(path, 20) > 0);
        MainWindow w;
        w.openFile(path);
        w.openFile(path);
        w.tabs()->tabCloseRequested(0);
        QCOMPARE(w.tabCount(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(w.tab(0)->state(), ProfileTab::State::Loaded, kPatienceMs);
        QCOMPARE(w.tabCount(), 1);
    }

    void selectionFollowsBetweenTablesAndChart() {
        MainWindow w;
        w.show();
        ProfileTab* tab = w.openFile(fixture());
        QVERIFY(waitLoaded(tab));
        FlameGraphView* view = tab->panel()->view();
        const auto data = view->data();
        // Table -> chart: choose "io" in the flat function list.
        QTreeView* flat = tab->tables()->view(CallTreeTables::Functions);
        flat->setCurrentIndex(findRow(*flat->model(), QStringLiteral("io")));
        QVERIFY(view->selectedNode() != kRootNode);
        QCOMPARE(data->profile->nodeName(view->selectedNode()), std::string_view("io"));
        // Top-down row -> that very node.
        QTreeView* topDown = tab->tables()->view(CallTreeTables::TopDown);
        const QModelIndex main = findRow(*topDown->model(), QStringLiteral("main"));
        const QModelIndex helper = findRow(*topDown->model(), QStringLiteral("helper"), main);
        topDown->setCurrentIndex(helper);
        QCOMPARE(view->selectedNode(), static_cast<NodeId>(helper.data(NodeRole).toUInt()));
        // Chart -> tables: select main;run;recurse in the chart.
        NodeId recurse = kRootNode;
        for (NodeId n = 1; n < data->tree.size() && recurse == kRootNode; ++n)
            if (data->profile->nodeName(n) == "recurse")
                recurse = n;
        view->selectNode(recurse);
        QCOMPARE(topDown->currentIndex().data(NodeRole).toUInt(), recurse);
        QCOMPARE(flat->currentIndex().data().toString(), QStringLiteral("recurse"));
        // the bottom-up tree is built when its page is shown, and the function chosen before is current there
        QVERIFY(!tab->tables()->tableData()->bottomUp);
        tab->tables()->tabs()->setCurrentIndex(CallTreeTables::BottomUp);
        QTRY_VERIFY_WITH_TIMEOUT(tab->tables()->tableData()->bottomUp, kPatienceMs);
        QCOMPARE(tab->tables()->view(CallTreeTables::BottomUp)->currentIndex().data().toString(),
                 QStringLiteral("recurse"));
        // A caller row in the bottom-up tree selects that function in the chart and stays current (the
        // chart's answer does not bounce the table back to the top-level row).
        QTreeView* bottomUp = tab->tables()->view(CallTreeTables::BottomUp);
        const QModelIndex inner = findRow(*bottomUp->model(), QStringLiteral("inner"));
        const QModelIndex caller = bottomUp->model()->index(0, 0, inner);
        QCOMPARE(caller.data().toString(), QStringLiteral("compute"));
        bottomUp->setCurrentIndex(caller);
        QCOMPARE(data->profile->nodeName(view->selectedNode()), std::string_view("compute"));
        QCOMPARE(bottomUp->currentIndex(), caller);
    }

    void recentFilesMenu() {
        QSettings().remove(QStringLiteral("recentFiles"));
        MainWindow w;
        w.openFile(fixture());
        w.openFile(QStringLiteral(SCORCH_TEST_DATA "/gui/../gui/small.folded"));
        QCOMPARE(w.recentFiles(), QStringList{QFileInfo(fixture()).absoluteFilePath()}); // no duplicates
        MainWindow other; // a new window lists it in File > Open Recent
        QMenu* recent = other.findChild<QMenu*>(QStringLiteral("recentMenu"));
        QVERIFY(recent);
        QVERIFY(recent->isEnabled());
        QVERIFY(recent->actions().first()->text().contains(QStringLiteral("small.folded")));
        recent->actions().first()->trigger();
        QCOMPARE(other.tabCount(), 1);
        QVERIFY(waitLoaded(other.tab(0)));
    }

    // The welcome page: what Scorch opens (every format of the file dialog's filter), the actions, and the
    // recent files, one click from opening.
    void welcomePage() {
        QSettings().remove(QStringLiteral("recentFiles"));
        {
            MainWindow w;
            w.openFile(fixture());
        }
        MainWindow w;
        w.resize(1024, 700);
        w.show();
        WelcomePage* welcome = w.welcomePage();
        QVERIFY(welcome->isVisible());
        const QString formats = welcome->formatsLabel()->text();
        for (const QString& name : profileFormatNames())
            QVERIFY2(formats.contains(name), qPrintable(formats));
        QVERIFY(formats.contains(QStringLiteral("perf.data")) && formats.contains(QStringLiteral("pprof")));
        QVERIFY(welcome->openButton()->isVisible() && welcome->recordButton()->isVisible() &&
                welcome->compareButton()->isVisible());
        QCOMPARE(welcome->recentList()->count(), 1);
        QCOMPARE(welcome->recentList()->item(0)->data(Qt::UserRole).toString(),
                 QFileInfo(fixture()).absoluteFilePath());
        const QRect row = welcome->recentList()->visualItemRect(welcome->recentList()->item(0));
        QTest::mouseClick(welcome->recentList()->viewport(), Qt::LeftButton, {}, row.center());
        QCOMPARE(w.tabCount(), 1);
        QVERIFY(waitLoaded(w.tab(0)));
        QVERIFY(!welcome->isVisible());
        w.tabs()->tabCloseRequested(0);
        QVERIFY(welcome->isVisible()); // back when the last tab closes
    }

    // View > Reload (F5) loads the file again in the same place; a failed load offers Retry, which
    // succeeds once the file is good.
    void reloadAndRetry() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("changing.folded"));
        QVERIFY(writeFile(path, "main;a 3\n"));
        MainWindow w;
        w.show();
        w.openFile(fixture());
        ProfileTab* tab = w.openFile(path);
        QVERIFY(waitLoaded(tab));
        QCOMPARE(tab->summary()->totalText(), QStringLiteral("3"));
        QVERIFY(!tab->retryButton()->isVisible());
        QVERIFY(writeFile(path, "main;a 3\nmain;b 4\n"));
        QTest::keyClick(&w, Qt::Key_F5);
        QCOMPARE(w.tabCount(), 2);
        ProfileTab* reloaded = w.tab(1);
        QVERIFY(reloaded != nullptr && reloaded->path() == path);
        QCOMPARE(w.currentTab(), reloaded);
        QVERIFY(waitLoaded(reloaded));
        QCOMPARE(reloaded->summary()->totalText(), QStringLiteral("7"));

        QVERIFY(writeFile(path, QByteArray("\x00\x01 not a profile", 17)));
        ProfileTab* failed = w.reloadTab(1);
        QTRY_COMPARE_WITH_TIMEOUT(failed->state(), ProfileTab::State::Failed, kPatienceMs);
        QVERIFY(failed->retryButton()->isVisible());
        QVERIFY(writeFile(path, "main;c 5\n"));
        QTest::mouseClick(failed->retryButton(), Qt::LeftButton);
        QCOMPARE(w.tabCount(), 2);
        QVERIFY(waitLoaded(w.tab(1)));
        QCOMPARE(w.tab(1)->summary()->totalText(), QStringLiteral("5"));
        QCOMPARE(w.tab(0)->path(), fixture()); // the other tab stays where it was
    }

    // The thread list shows every name in full (its panel takes the width they need, up to a third of the
    // window), and "Show Only This Thread" keeps one thread.
    void threadNamesReadable() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("threads.perf"));
        QByteArray text;
        const char* names[] = {"a-rather-long-worker-thread-name", "io", "swapper"};
        for (int t = 0; t < 3; ++t)
            for (int i = 0; i <= t; ++i)
                text += QByteArray(names[t]) + ' ' + QByteArray::number(100 + t) + " 1." +
                        QByteArray::number(i) + ": 1 cycles:\n\t1 hot (/bin/x)\n\t2 main (/bin/x)\n\n";
        QVERIFY(writeFile(path, text));
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        ProfileTab* tab = w.openFile(path);
        QVERIFY(waitLoaded(tab));
        QTreeWidget* tree = tab->threadList()->tree();
        QTRY_VERIFY_WITH_TIMEOUT(tree->isVisible(), kPatienceMs);
        const QTreeWidgetItem* all = tree->topLevelItem(0);
        QCOMPARE(all->childCount(), 3);
        for (int i = 0; i < all->childCount(); ++i) {
            const QTreeWidgetItem* item = all->child(i);
            const QRect cell = tree->visualItemRect(item);
            const int needed = tree->fontMetrics().horizontalAdvance(item->text(0));
            // the text starts after the indentation and the check box; it must fit in the name column
            QVERIFY2(tree->columnWidth(0) - 2 * tree->indentation() - 20 >= needed,
                     qPrintable(QStringLiteral("%1: column %2, text %3")
                                    .arg(item->text(0))
                                    .arg(tree->columnWidth(0))
                                    .arg(needed)));
            QVERIFY(cell.isValid());
        }
        QCOMPARE(tab->threadList()->selectedThreads(), std::vector<uint32_t>{});
        tab->threadList()->showOnly(1);
        QCOMPARE(tab->threadList()->selectedThreads(), std::vector<uint32_t>{1});
        tab->threadList()->showOnly(1); // stays: not a toggle
        QCOMPARE(tab->threadList()->selectedThreads(), std::vector<uint32_t>{1});
    }

    void shortcutsDialog() {
        MainWindow w;
        QMenu* help = nullptr;
        for (QAction* a : w.menuBar()->actions())
            if (a->text() == QStringLiteral("&Help"))
                help = a->menu();
        QVERIFY(help);
        QDialog* dialog = w.showShortcuts();
        auto* table = dialog->findChild<QTableWidget*>(QStringLiteral("shortcuts"));
        QVERIFY(table);
        QStringList keys;
        for (int r = 0; r < table->rowCount(); ++r)
            keys << table->item(r, 0)->text();
        QVERIFY2(keys.join(QLatin1Char('|')).contains(QStringLiteral("F3")),
                 qPrintable(keys.join(QLatin1Char('|'))));
        QVERIFY(keys.join(QLatin1Char('|')).contains(QStringLiteral("F5")));
        dialog->close();
    }

    void exportWritesFilesAndProtectsInput() {
        QTemporaryDir dir;
        const QString input = dir.filePath(QStringLiteral("input.folded"));
        const QByteArray original = readAll(fixture());
        QVERIFY(writeFile(input, original));
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        ProfileTab* tab = w.openFile(input);
        QVERIFY(waitLoaded(tab));

        const QString error = w.exportCurrent(ExportKind::Folded, input);
        QVERIFY(error.contains(QStringLiteral("input.folded")));
        QCOMPARE(readAll(input), original);

        const QString folded = dir.filePath(QStringLiteral("out.folded"));
        QCOMPARE(w.exportCurrent(ExportKind::Folded, folded), QString());
        QStringList expected = QString::fromUtf8(original).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        expected.sort();
        QCOMPARE(QString::fromUtf8(readAll(folded)).split(QLatin1Char('\n'), Qt::SkipEmptyParts), expected);

        // The selected frame's stacks: main;run;compute and below.
        FlameGraphView* view = tab->panel()->view();
        const auto data = view->data();
        NodeId compute = kRootNode;
        for (NodeId n = 1; n < data->tree.size(); ++n)
            if (data->profile->nodeName(n) == "compute" &&
                data->profile->nodeName(data->tree.parent(n)) == "run")
                compute = n;
        QVERIFY(compute != kRootNode);
        view->selectNode(compute);
        const QString subtree = dir.filePath(QStringLiteral("subtree.folded"));
        QCOMPARE(w.exportCurrent(ExportKind::FoldedSelection, subtree), QString());
        QCOMPARE(readAll(subtree), QByteArray("main;run;compute 10\nmain;run;compute;inner 20\n"));

        const QString svg = dir.filePath(QStringLiteral("chart.svg"));
        QCOMPARE(w.exportCurrent(ExportKind::Svg, svg), QString());
        QVERIFY(readAll(svg).contains("<svg"));
        const QString png = dir.filePath(QStringLiteral("chart.png"));
        QCOMPARE(w.exportCurrent(ExportKind::Png, png), QString());
        const QImage image(png);
        QVERIFY(!image.isNull());
        // the chart as shown, cropped to the rows that hold frames (tst_exporter checks the crop)
        QCOMPARE(image.size(),
                 QSize(view->width(), std::min(view->height(), std::max(20, view->chartHeight()))));
    }

    void tablesFollowCostTypeThreadsAndTransforms() {
        const QString path = QStringLiteral(
            SCORCH_CORPUS_DIR "/perf-script/inputs/flamegraph/test/perf-cycles-instructions-01.txt");
        if (!QFile::exists(path))
            QSKIP("corpus file perf-cycles-instructions-01.txt not found under SCORCH_CORPUS_DIR");
        MainWindow w;
        w.show();
        ProfileTab* tab = w.openFile(path);
        QVERIFY(waitLoaded(tab));
        const Profile& profile = *tab->profile();
        QVERIFY(profile.costTypes.size() > 1);
        QVERIFY(tab->summary()->costTypeBox()->isVisibleTo(tab));
        // Cost type selector -> chart -> tables and summary.
        tab->summary()->costTypeBox()->setCurrentIndex(1);
        QVERIFY(waitLoaded(tab));
        QCOMPARE(tab->panel()->data()->costType, std::size_t(1));
        QCOMPARE(tab->tables()->tableData()->functions->costType, std::size_t(1));
        QCOMPARE(tab->summary()->totalText(),
                 QString::fromStdString(formatCost(profile.tree.grandTotal(1), profile.costTypes[1])));
        // Uncheck the busiest thread: chart and tables sum over the others.
        QTreeWidget* threads = tab->threadList()->tree();
        QTreeWidgetItem* all = threads->topLevelItem(0);
        QVERIFY(all->childCount() > 1);
        for (int i = 1; i < all->childCount(); ++i) // busiest first
            QVERIFY(all->child(i - 1)->text(1).toLongLong() >= all->child(i)->text(1).toLongLong());
        uint64_t busiest = 0;
        for (const ThreadInfo& t : profile.threads)
            busiest = std::max(busiest, t.samples);
        QCOMPARE(all->child(0)->text(1), QString::number(busiest));
        all->child(0)->setCheckState(0, Qt::Unchecked);
        QTRY_VERIFY_WITH_TIMEOUT(!tab->panel()->data()->threads.empty(), kPatienceMs);
        QVERIFY(waitLoaded(tab));
        const auto data = tab->panel()->data();
        QCOMPARE(static_cast<int>(data->threads.size()), all->childCount() - 1);
        QVERIFY(data->tree.grandTotal(1) < profile.tree.grandTotal(1));
        QCOMPARE(tab->tables()->tableData()->topDown->grandTotal, data->tree.grandTotal(1));
        QVERIFY(tab->summary()->totalText().contains(QStringLiteral(" of ")));
        // A transform from the chart reaches the tables: focus on the first root's first child.
        const NodeId root = data->tree.children(kRootNode)[0];
        const FrameId focus = data->tree.frame(data->tree.children(root)[0]);
        tab->panel()->addTransform({TreeTransform::Kind::Focus, focus});
        QTRY_VERIFY_WITH_TIMEOUT(!tab->panel()->data()->transforms.empty(),
                                 kPatienceMs); // derived off the GUI thread
        QVERIFY(waitLoaded(tab));
        const QModelIndex first = tab->tables()->topDownModel()->index(0, 0);
        QCOMPARE(tab->tables()->topDownModel()->rowCount(), 1);
        QCOMPARE(first.data(FrameRole).toUInt(), focus.value);
    }

    void smallScreenGetsTheWholeScreen() {
        // No saved geometry, and the offscreen screen (800x600) is smaller than 1280x800: the window takes
        // all of it instead of 90 %.
        QSettings().remove(QStringLiteral("window/geometry"));
        const QScreen* screen = QGuiApplication::primaryScreen();
        QVERIFY(screen);
        const QSize available = screen->availableSize();
        if (available.width() >= 1280 && available.height() >= 800)
            QSKIP("the screen is not small");
        MainWindow w;
        QCOMPARE(w.size(), available);
        w.show();
        QVERIFY(w.windowState() & Qt::WindowMaximized);
        // a size set before showing wins (as the other tests set theirs)
        QSettings().remove(QStringLiteral("window/geometry"));
        MainWindow sized;
        sized.resize(1600, 1000);
        sized.show();
        QVERIFY(!(sized.windowState() & Qt::WindowMaximized));
        QCOMPARE(sized.size(), QSize(1600, 1000));
    }

    void geometryPersists() {
        {
            MainWindow w;
            w.resize(900, 700);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            w.close();
        }
        MainWindow again;
        QCOMPARE(again.size(), QSize(900, 700));
    }

    void dropOpensFiles() {
        MainWindow w;
        w.show();
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(fixture())});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&w, &drop);
        QCOMPARE(w.tabCount(), 1);
        QVERIFY(waitLoaded(w.tab(0)));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
