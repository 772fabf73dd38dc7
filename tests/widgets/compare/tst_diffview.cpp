// The comparison window, offscreen: synchronised zoom, selection, search and hover across the charts; the
// differential chart's colours at known frames (grew red, shrank blue, added/removed striped); the summary
// table's sorting, filtering and row clicks; `--diff` in the main window and on the command line.
#include "compare/compareview.h"
#include "compare/difffunctionmodel.h"
#include "comparedialog.h"
#include "comparetab.h"
#include "flame/breadcrumbbar.h"
#include "flame/searchbar.h"
#include "mainwindow.h"
#include "patience.h"
#include "profiletab.h"
#include "widgettestutil.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <cstdlib>
#include <set>

using namespace scorch;
using scorch::test::kPatienceMs;

namespace {

// a shrinks (-3), b grows (+4), gone is removed, new is added
const std::string kBeforeText = "m;a;x 10\nm;b 5\nm;gone 4\n";
const std::string kAfterText = "m;a;x 7\nm;b 9\nm;new 2\n";

std::shared_ptr<const Profile> shared(const std::string& folded) {
    return std::make_shared<const Profile>(test::fromFolded(folded));
}

/// The view's parts, found as a user's tools find them: by object name.
template <typename T>
T* part(const QWidget& v, const char* name) {
    T* w = v.findChild<T*>(QLatin1String(name));
    if (!w)
        qFatal("no child %s", name);
    return w;
}
FlameGraphView* chart(const QWidget& v, const char* side) { // "before", "after", "diff"
    return part<FlameGraphView>(v, (std::string(side) + "Chart").c_str());
}
QLabel* noticeOf(const QWidget& v, const char* side) {
    return part<QLabel>(v, (std::string(side) + "Notice").c_str());
}
/// The diff profile the charts show.
std::shared_ptr<const Profile> diffOf(const QWidget& v) {
    return chart(v, "diff")->data()->profile;
}

/// A compare view over the fixture, shown at a size where every frame is wide, animations off.
std::unique_ptr<CompareView> makeView() {
    auto view = std::make_unique<CompareView>();
    view->resize(1200, 800);
    view->show();
    view->setProfiles(shared(kBeforeText), shared(kAfterText), QStringLiteral("before"),
                      QStringLiteral("after"));
    for (const char* side : {"before", "after", "diff"})
        chart(*view, side)->setAnimationDuration(0);
    return view;
}

NodeId node(const CompareView& v, std::initializer_list<std::string_view> path) {
    const auto diff = diffOf(v);
    return test::nodeByPath(*diff, diff->tree, path);
}

bool redish(QRgb c) {
    return qRed(c) > qBlue(c) + 40 && qRed(c) > qGreen(c) + 20;
}
bool blueish(QRgb c) {
    return qBlue(c) > qRed(c) + 40;
}

/// Distinct colours along the second pixel row of a frame's rectangle (away from the label).
std::set<QRgb> rowColours(const QImage& image, const QRectF& r) {
    std::set<QRgb> out;
    const int y = static_cast<int>(r.top()) + 1;
    for (int x = static_cast<int>(r.left()) + 1; x < static_cast<int>(r.right()) - 1; ++x)
        out.insert(image.pixel(x, y) | 0xFF000000u);
    return out;
}

} // namespace

class TestDiffView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("ScorchTest"));
        QCoreApplication::setApplicationName(QStringLiteral("ScorchDiffTest"));
    }

    void syncZoomAndSelection() {
        auto v = makeView();
        QTRY_VERIFY_WITH_TIMEOUT(v->isReady(), kPatienceMs);
        v->setMode(CompareView::Mode::SideBySide);
        FlameGraphView* before = chart(*v, "before");
        FlameGraphView* after = chart(*v, "after");
        FlameGraphView* diff = chart(*v, "diff");
        QTRY_VERIFY_WITH_TIMEOUT(before->isVisible() && before->width() > 300, kPatienceMs);
        const NodeId a = node(*v, {"m", "a"}), gone = node(*v, {"m", "gone"}), m = node(*v, {"m"});
        QVERIFY(a != kRootNode && gone != kRootNode);

        // click `a` on the before side: it is selected and zoomed there, and the other charts follow
        QTest::mouseClick(before, Qt::LeftButton, {}, before->nodeRect(a).center().toPoint());
        QCOMPARE(before->zoomRoot(), a);
        QCOMPARE(after->zoomRoot(), a);
        QCOMPARE(diff->zoomRoot(), a);
        QCOMPARE(after->selectedNode(), a);
        QCOMPARE(diff->selectedNode(), a);
        // the after chart shows a's after extent across its width
        QCOMPARE(after->visibleStart(), double(after->layout().offset(a)));
        QCOMPARE(after->visibleEnd() - after->visibleStart(), double(after->layout().width(a)));
        QCOMPARE(after->layout().width(a), int64_t(7));
        QCOMPARE(before->layout().width(a), int64_t(10));
        QVERIFY(noticeOf(*v, "after")->isHidden());
        QCOMPARE(part<BreadcrumbBar>(*v, "compareCrumbs")->path().back().text, QStringLiteral("a"));

        // a frame that exists only before: the after side zooms to its caller and says so
        before->resetZoom();
        QCOMPARE(after->zoomRoot(), kRootNode);
        QTest::mouseClick(before, Qt::LeftButton, {}, before->nodeRect(gone).center().toPoint());
        QCOMPARE(before->zoomRoot(), gone);
        QCOMPARE(after->zoomRoot(), m);
        QLabel* notice = noticeOf(*v, "after");
        QVERIFY(!notice->isHidden());
        QVERIFY2(notice->text().contains(QStringLiteral("gone")) &&
                     notice->text().contains(QStringLiteral("removed")),
                 qPrintable(notice->text()));
        QVERIFY(noticeOf(*v, "before")->isHidden());

        // keyboard selection on the after side moves the others' selection as well
        after->setFocus();
        after->selectNode(a);
        QCOMPARE(before->selectedNode(), a);
        QTest::keyClick(after, Qt::Key_Up); // flame: up goes to the heaviest child, x
        const NodeId x = node(*v, {"m", "a", "x"});
        QCOMPARE(after->selectedNode(), x);
        QCOMPARE(before->selectedNode(), x);
        QCOMPARE(diff->selectedNode(), x);
    }

    void syncSearchAndHover() {
        auto v = makeView();
        QTRY_VERIFY_WITH_TIMEOUT(v->isReady(), kPatienceMs);
        v->focusSearch();
        part<SearchBar>(*v, "compareSearch")->lineEdit()->setText(QStringLiteral("gone"));
        for (const char* side : {"before", "after", "diff"})
            QTRY_COMPARE_WITH_TIMEOUT(chart(*v, side)->search().pattern, std::string("gone"), kPatienceMs);

        FlameGraphView* diff = chart(*v, "diff");
        const NodeId b = node(*v, {"m", "b"});
        QTest::mouseMove(diff, diff->nodeRect(b).center().toPoint());
        QTRY_COMPARE_WITH_TIMEOUT(diff->hoveredNode(), std::optional<NodeId>(b), kPatienceMs);
        QCOMPARE(chart(*v, "before")->hoveredNode(), std::optional<NodeId>(b));
        QCOMPARE(chart(*v, "after")->hoveredNode(), std::optional<NodeId>(b));
        // the tooltip names both costs and the change
        const QString tip = diff->toolTipText(diff->nodeRect(b).center().toPoint());
        QVERIFY2(tip.contains(QStringLiteral(">5&nbsp;")) && tip.contains(QStringLiteral(">9&nbsp;")) &&
                     tip.contains(QStringLiteral("+4 (+80.0%)")),
                 qPrintable(tip));
    }

    void differentialColours() {
        auto v = makeView();
        QTRY_VERIFY_WITH_TIMEOUT(v->isReady(), kPatienceMs);
        FlameGraphView* diff = chart(*v, "diff");
        QTRY_VERIFY_WITH_TIMEOUT(diff->isVisible() && diff->width() > 600, kPatienceMs);
        const NodeId a = node(*v, {"m", "a"}), b = node(*v, {"m", "b"}), gone = node(*v, {"m", "gone"}),
                     added = node(*v, {"m", "new"});
        // after widths, removed stacks shown at their before width
        QCOMPARE(diff->layout().width(b), int64_t(9));
        QCOMPARE(diff->layout().width(gone), int64_t(4));
        const QImage image = diff->grab().toImage();
        const QRectF ra = diff->nodeRect(a), rb = diff->nodeRect(b), rg = diff->nodeRect(gone),
                     rn = diff->nodeRect(added);
        QVERIFY(!ra.isEmpty() && !rb.isEmpty() && !rg.isEmpty() && !rn.isEmpty());
        const qreal dpr = image.devicePixelRatio();
        auto at = [&](const QRectF& r) {
            return image.pixel(static_cast<int>((r.left() + 1) * dpr), static_cast<int>((r.top() + 1) * dpr));
        };
        QVERIFY2(redish(at(rb)), qPrintable(QColor::fromRgb(at(rb)).name()));  // grew
        QVERIFY2(blueish(at(ra)), qPrintable(QColor::fromRgb(at(ra)).name())); // shrank
        // added and removed: striped, two shades of red / blue
        const std::set<QRgb> addedColours = rowColours(image, rn), goneColours = rowColours(image, rg),
                             grewColours = rowColours(image, rb);
        QCOMPARE(addedColours.size(), std::size_t(2));
        QCOMPARE(goneColours.size(), std::size_t(2));
        QCOMPARE(grewColours.size(), std::size_t(1)); // a plain frame is one colour
        for (QRgb c : addedColours)
            QVERIFY(redish(c));
        for (QRgb c : goneColours)
            QVERIFY(blueish(c));
        // the larger change is the more intense: b (+4) is redder than new (+2)
        QVERIFY(qGreen(at(rb)) < qGreen(*addedColours.rbegin()));

        // hiding removed stacks takes them out of the chart
        v->setWidthBasis(DiffWidth::After, false);
        QCOMPARE(diff->layout().width(gone), int64_t(0));
        QVERIFY(diff->nodeRect(gone).isEmpty());
        // a noise floor of 5 greys b (+4)
        v->setWidthBasis(DiffWidth::After, true);
        v->setNoiseFloor({5, 0}, false);
        const QImage grey = diff->grab().toImage();
        const QRgb bGrey =
            grey.pixel(static_cast<int>((rb.left() + 1) * dpr), static_cast<int>((rb.top() + 1) * dpr));
        QCOMPARE(bGrey | 0xFF000000u, FlamePalette::neutralDiffColor() | 0xFF000000u);
        v->setNoiseFloor({5, 0}, true); // hide: b's +4 is noise, gone's -4 too
        QCOMPARE(diff->layout().width(b), int64_t(0));
        QCOMPARE(part<QTableView>(*v, "functions")->model()->rowCount(),
                 0); // no function changed by 5 or more
    }

    void summaryTable() {
        auto v = makeView();
        QTRY_VERIFY_WITH_TIMEOUT(v->isReady(), kPatienceMs);
        QVERIFY2(part<QLabel>(*v, "totals")->text().contains(QStringLiteral("0.947")), // 18 / 19
                 qPrintable(part<QLabel>(*v, "totals")->text()));
        // the default noise floor is 0.1% of the larger total (here under one sample: nothing is noise)
        const auto spins = v->findChildren<QDoubleSpinBox*>();
        QVERIFY(std::any_of(spins.begin(), spins.end(), [](const QDoubleSpinBox* b) {
            return b->suffix() == QStringLiteral(" %") && b->value() == 0.1;
        }));
        QAbstractItemModel* m = part<QTableView>(*v, "functions")->model();
        QCOMPARE(m->rowCount(), 6); // m a x b gone new
        auto name = [&](int row) {
            return m->index(row, DiffFunctionModel::Function).data().toString();
        };
        auto value = [&](int row, int column) {
            return m->index(row, column).data(DiffFunctionModel::SortRole).toLongLong();
        };
        // default: the biggest change first by total delta, whichever way it goes (ties: growth first)
        QCOMPARE(name(0), QStringLiteral("b"));
        QCOMPARE(name(5), QStringLiteral("m")); // -1
        for (int r = 1; r < m->rowCount(); ++r)
            QVERIFY(std::abs(value(r - 1, DiffFunctionModel::DeltaTotal)) >=
                    std::abs(value(r, DiffFunctionModel::DeltaTotal)));
        // a click on the Δ Self header sorts by it
        QHeaderView* header = part<QTableView>(*v, "functions")->horizontalHeader();
        const QPoint section(header->sectionViewportPosition(DiffFunctionModel::DeltaSelf) + 5,
                             header->height() / 2);
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, section);
        QCOMPARE(header->sortIndicatorSection(), int(DiffFunctionModel::DeltaSelf));
        const bool ascending = header->sortIndicatorOrder() == Qt::AscendingOrder;
        for (int r = 1; r < m->rowCount(); ++r) {
            const qint64 prev = std::abs(value(r - 1, DiffFunctionModel::DeltaSelf)),
                         cur = std::abs(value(r, DiffFunctionModel::DeltaSelf));
            QVERIFY(ascending ? prev <= cur : prev >= cur);
        }
        // improvements only
        auto* show = part<QComboBox>(*v, "showFunctions");
        show->setCurrentIndex(2);   // Improvements (shrank)
        QCOMPARE(m->rowCount(), 4); // m -1, a -3, x -3, gone -4
        for (int r = 0; r < m->rowCount(); ++r)
            QVERIFY(value(r, DiffFunctionModel::DeltaTotal) < 0);
        header->setSortIndicator(DiffFunctionModel::DeltaTotal, Qt::DescendingOrder);
        QCOMPARE(name(0), QStringLiteral("gone")); // the biggest shrink leads the improvements
        QCOMPARE(name(3), QStringLiteral("m"));
        show->setCurrentIndex(0); // All functions

        // clicking a row selects the function in the charts
        int rowB = -1;
        for (int r = 0; r < m->rowCount(); ++r)
            if (name(r) == QStringLiteral("b"))
                rowB = r;
        QVERIFY(rowB >= 0);
        QTableView* table = part<QTableView>(*v, "functions");
        table->setFocus(); // focus alone (Qt makes a row current) selects nothing
        QTRY_VERIFY_WITH_TIMEOUT(table->hasFocus(), kPatienceMs);
        QCOMPARE(chart(*v, "diff")->selectedNode(), kRootNode);
        const QRect cell = table->visualRect(m->index(rowB, 0));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        const NodeId b = node(*v, {"m", "b"});
        QCOMPARE(chart(*v, "diff")->selectedNode(), b);
        QCOMPARE(chart(*v, "before")->selectedNode(), b);
        // a frame selected in a chart selects its function's row
        const NodeId gone = node(*v, {"m", "gone"});
        chart(*v, "before")->selectNode(gone);
        QCOMPARE(name(table->currentIndex().row()), QStringLiteral("gone"));
        QCOMPARE(chart(*v, "diff")->selectedNode(), gone); // and nothing else moved
        table->setCurrentIndex(m->index(rowB, 0));
        QCOMPARE(chart(*v, "diff")->selectedNode(), gone);
        // the keys move through the table and the charts follow
        QTest::keyClick(table, rowB + 1 < m->rowCount() ? Qt::Key_Down : Qt::Key_Up);
        const QString next = name(table->currentIndex().row());
        QVERIFY(next != QStringLiteral("b"));
        const FlameGraphView* diff = chart(*v, "diff");
        QCOMPARE(diffOf(*v)->nodeName(diff->selectedNode()), std::string_view(next.toStdString()));
    }

    void normalizeRebuilds() {
        auto v = makeView();
        QTRY_VERIFY_WITH_TIMEOUT(v->isReady(), kPatienceMs);
        const NodeId a = node(*v, {"m", "a"});
        v->zoomAll(a);
        QCOMPARE(chart(*v, "diff")->zoomRoot(), a);
        DiffOptions o;
        o.normalize = true;
        v->setDiffOptions(o);
        QVERIFY(!v->isReady());
        QTRY_VERIFY_WITH_TIMEOUT(v->isReady(), kPatienceMs);
        // the same stacks: the zoom stays where it was, in every chart
        for (const char* side : {"before", "after", "diff"})
            QCOMPARE(chart(*v, side)->zoomRoot(), a);
        QCOMPARE(diffOf(*v)->tree.grandTotal(scorch::kBefore),
                 int64_t(9 + 4 + 3)); // per stack floor(n * 18 / 19)
        QCOMPARE(diffOf(*v)->tree.grandTotal(scorch::kAfter), int64_t(18));
    }

    void cancelComparison() {
        // 50 MB of folded stacks: the load runs long enough to be cancelled
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("large.folded"));
        {
            QByteArray block;
            for (int i = 0; block.size() < (1 << 20); ++i)
                block += "main;worker_" + QByteArray::number(i % 97) + ";leaf_" + QByteArray::number(i % 13) +
                         " 3\n";
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            for (int i = 0; i < 50; ++i)
                QCOMPARE(f.write(block), block.size());
        }
        MainWindow w;
        w.show();
        w.openArguments({QStringLiteral("--diff"), path, path});
        auto* tab = qobject_cast<CompareTab*>(w.tabs()->currentWidget());
        QVERIFY(tab);
        QCOMPARE(tab->state(), CompareTab::State::Loading);
        QVERIFY(tab->progressBar(0)->isVisible() && tab->progressBar(1)->isVisible());
        auto* cancel = tab->findChild<QPushButton*>();
        QVERIFY(cancel && cancel->isVisible());
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(tab->state(), CompareTab::State::Cancelled, kPatienceMs);
        QVERIFY2(tab->messageText().contains(QStringLiteral("cancelled")), qPrintable(tab->messageText()));
        QVERIFY(!tab->progressBar(0)->isVisible());
        QVERIFY(!tab->view()->isReady());
    }

    void moduleMatching() {
        // `parse` in two libraries on both sides: apart by default, one frame when modules are ignored
        auto sample = [](int period, const char* module) {
            return "prog 10/10 [000] 1.000001: " + std::to_string(period) +
                   " cycles:\n\t    401000 parse+0x10 (" + module + ")\n\t    401100 main+0x5 (/bin/p)\n\n";
        };
        auto before = std::make_shared<const Profile>(
            test::fromText(sample(10, "/opt/a/libjson.so") + sample(6, "/opt/a/libxml.so")));
        auto after = std::make_shared<const Profile>(
            test::fromText(sample(4, "/usr/lib/libjson.so") + sample(9, "/opt/a/libxml.so")));
        CompareView v;
        v.setProfiles(before, after, QStringLiteral("a"), QStringLiteral("b"));
        QTRY_VERIFY_WITH_TIMEOUT(v.isReady(), kPatienceMs);
        auto parseFrames = [&] {
            const auto diff = diffOf(v);
            const Profile& d = *diff;
            int count = 0;
            d.tree.forEachChild(node(v, {"prog", "main"}), [&](NodeId) { ++count; });
            return count;
        };
        QVERIFY(part<QLabel>(v, "totals")->text().contains(QStringLiteral("function and module")));
        QCOMPARE(parseFrames(), 2);
        QVERIFY(part<QCheckBox>(v, "matchModules")->isChecked());
        part<QCheckBox>(v, "matchModules")->click();
        QTRY_VERIFY_WITH_TIMEOUT(v.isReady(), kPatienceMs);
        QCOMPARE(parseFrames(), 1);
        QVERIFY(part<QLabel>(v, "totals")->text().contains(QStringLiteral("function name")));
    }

    void diffArgumentOpensComparison() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString before = dir.filePath(QStringLiteral("before.folded")),
                      after = dir.filePath(QStringLiteral("after.folded"));
        for (const auto& [path, text] : {std::pair<QString, std::string>{before, kBeforeText},
                                         std::pair<QString, std::string>{after, kAfterText}}) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text.data(), static_cast<qint64>(text.size()));
        }
        MainWindow w;
        w.openArguments({QStringLiteral("--diff"), before, after});
        QCOMPARE(w.tabs()->count(), 1);
        auto* tab = qobject_cast<CompareTab*>(w.tabs()->currentWidget());
        QVERIFY(tab);
        QCOMPARE(tab->title(), QStringLiteral("before.folded ↔ after.folded"));
        QTRY_COMPARE_WITH_TIMEOUT(tab->state(), CompareTab::State::Loaded, kPatienceMs);
        QTRY_VERIFY_WITH_TIMEOUT(tab->view()->isReady(), kPatienceMs);
        QCOMPARE(diffOf(*tab->view())->tree.grandTotal(kDelta), int64_t(-1));
        QVERIFY(w.windowTitle().contains(QStringLiteral("↔")));

        // a missing file: the tab says which one, and the window survives
        w.openArguments({QStringLiteral("--diff"), before, dir.filePath(QStringLiteral("missing.folded"))});
        auto* bad = qobject_cast<CompareTab*>(w.tabs()->currentWidget());
        QVERIFY(bad && bad != tab);
        QTRY_COMPARE_WITH_TIMEOUT(bad->state(), CompareTab::State::Failed, kPatienceMs);
        QVERIFY2(bad->messageText().contains(QStringLiteral("missing.folded")),
                 qPrintable(bad->messageText()));
        Q_EMIT w.tabs()->tabCloseRequested(w.tabs()->indexOf(bad));
        QCOMPARE(w.tabs()->count(), 1);

        // File > Compare… offers the open tabs, the last two preselected: two loaded profiles, no reload
        auto* t1 = w.openFile(before);
        auto* t2 = w.openFile(after);
        QTRY_VERIFY_WITH_TIMEOUT(t1->state() == ProfileTab::State::Loaded &&
                                     t2->state() == ProfileTab::State::Loaded,
                                 kPatienceMs);
        QAction* compareAction = nullptr;
        for (QAction* menu : w.menuBar()->actions())
            for (QAction* a : menu->menu() ? menu->menu()->actions() : QList<QAction*>())
                if (a->text() == QStringLiteral("&Compare…"))
                    compareAction = a;
        QVERIFY(compareAction);
        bool accepted = false;
        QTimer::singleShot(0, this, [&] {
            auto* dialog = qobject_cast<CompareDialog*>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            accepted = dialog->before().profile == t1->profile() && dialog->after().profile == t2->profile();
            dialog->accept();
        });
        const int tabsBefore = w.tabs()->count();
        compareAction->trigger();
        QVERIFY(accepted);
        QCOMPARE(w.tabs()->count(), tabsBefore + 1);
        auto* fromTabs = qobject_cast<CompareTab*>(w.tabs()->currentWidget());
        QVERIFY(fromTabs);
        QCOMPARE(fromTabs->state(), CompareTab::State::Loaded); // at once: the profiles were loaded
        QTRY_VERIFY_WITH_TIMEOUT(fromTabs->view()->isReady(), kPatienceMs);
        QCOMPARE(diffOf(*fromTabs->view())->tree.grandTotal(scorch::kAfter), int64_t(18));

        // with the options of `scorch diff`
        w.openArguments({QStringLiteral("--diff"), QStringLiteral("--normalize"), before, after});
        auto* normalized = qobject_cast<CompareTab*>(w.tabs()->currentWidget());
        QVERIFY(normalized && normalized != tab);
        QTRY_VERIFY_WITH_TIMEOUT(normalized->view()->isReady(), kPatienceMs);
        QVERIFY(part<QCheckBox>(*normalized->view(), "normalize")->isChecked());
        QCOMPARE(diffOf(*normalized->view())->tree.grandTotal(scorch::kBefore), int64_t(9 + 4 + 3));

        // the executable checks the arguments before it loads the GUI
        QProcess bogus;
        bogus.start(QStringLiteral(SCORCH_BINARY),
                    {QStringLiteral("--diff"), QStringLiteral("--bogus"), before, after});
        QVERIFY(bogus.waitForFinished(kPatienceMs));
        QCOMPARE(bogus.exitCode(), 2);
        QProcess p;
        p.start(QStringLiteral(SCORCH_BINARY), {QStringLiteral("--diff"), before});
        QVERIFY(p.waitForFinished(kPatienceMs));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(p.readAllStandardError().contains(
            "Usage: scorch --diff [--normalize] [--strip-hex] BEFORE AFTER"));
    }
};

QTEST_MAIN(TestDiffView)
#include "tst_diffview.moc"
