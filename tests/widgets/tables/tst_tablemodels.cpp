// Table models over real imports: QAbstractItemModelTester on every model and proxy, values checked
// against numbers computed here directly from folded text.
#include "patience.h"
#include "tables/calltreemodel.h"
#include "tables/calltreetables.h"
#include "tables/costdelegate.h"
#include "tables/functionlistmodel.h"
#include "tables/modeldata.h"
#include "widgettestutil.h"

#include "scorch/import.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QPainter>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QStyleOptionViewItem>
#include <QTest>

#include <QTreeView>
#include <atomic>

#include <functional>
#include <map>
#include <set>

using namespace scorch;
using scorch::test::findRow;
using scorch::test::kPatienceMs;

namespace {

struct Expected {
    std::map<QString, qlonglong> self, total;
    qlonglong grand = 0;
};

/// Self and total per function straight from `stack count` lines (total: once per line, recursion too).
Expected fromFolded(const QString& path) {
    Expected e;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return e;
    while (!f.atEnd()) {
        const QString line = QString::fromUtf8(f.readLine()).trimmed();
        const qsizetype space = line.lastIndexOf(QLatin1Char(' '));
        if (line.isEmpty() || space < 0)
            continue;
        const qlonglong count = line.mid(space + 1).toLongLong();
        const QStringList frames = line.left(space).split(QLatin1Char(';'));
        e.self[frames.last()] += count;
        const std::set<QString> unique(frames.begin(), frames.end());
        for (const QString& fn : unique)
            e.total[fn] += count;
        e.grand += count;
    }
    return e;
}

std::shared_ptr<const ChartData> load(const QString& path) {
    auto profile = std::make_shared<const Profile>(importProfile(path.toStdString()));
    return ChartData::fromProfile(profile);
}

QString fixture() {
    return QStringLiteral(SCORCH_TEST_DATA "/gui/small.folded");
}

qlonglong cost(const QAbstractItemModel& m, const QModelIndex& row, CostColumn column) {
    return m.index(row.row(), static_cast<int>(column), row.parent()).data(SortRole).toLongLong();
}

} // namespace

class TestModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void topDownMatchesFolded() {
        const auto chart = load(fixture());
        TopDownModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTableData(TreeTableData::topDown(chart));
        QCOMPARE(model.rowCount(), 2); // main, other
        QCOMPARE(model.columnCount(), static_cast<int>(CostColumn::Count));
        const QModelIndex main = model.index(0, 0); // heaviest first
        QCOMPARE(main.data().toString(), QStringLiteral("main"));
        QCOMPARE(cost(model, main, CostColumn::Total), 51);
        QCOMPARE(cost(model, main, CostColumn::Self), 0);
        const QModelIndex run = findRow(model, QStringLiteral("run"), main);
        QVERIFY(run.isValid());
        QCOMPARE(model.rowCount(run), 3); // compute, io, recurse
        QCOMPARE(run.parent(), main);
        const QModelIndex compute = findRow(model, QStringLiteral("compute"), run);
        QCOMPARE(cost(model, compute, CostColumn::Self), 10);
        QCOMPARE(cost(model, compute, CostColumn::Total), 30);
        QCOMPARE(
            model.index(compute.row(), static_cast<int>(CostColumn::TotalPercent), run).data().toString(),
            QStringLiteral("53.6%"));
        // indexOfNode round-trips through the node id.
        const NodeId node = model.nodeOf(compute);
        QCOMPARE(model.indexOfNode(node), compute);
        QCOMPARE(chart->profile->nodeName(node), std::string_view("compute"));
    }

    void functionListMatchesFolded() {
        const auto chart = load(fixture());
        const Expected e = fromFolded(fixture());
        FunctionListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTableData(FunctionTableData::build(chart));
        QCOMPARE(model.rowCount(), static_cast<int>(e.total.size()));
        for (int r = 0; r < model.rowCount(); ++r) {
            const QModelIndex i = model.index(r, 0);
            const QString name = i.data().toString();
            QCOMPARE(cost(model, i, CostColumn::Self), e.self.count(name) ? e.self.at(name) : 0);
            QCOMPARE(cost(model, i, CostColumn::Total), e.total.at(name));
        }
        // Recursion counts once: recurse is on 6 samples' stacks, 2 of them its own.
        const QModelIndex recurse = findRow(model, QStringLiteral("recurse"));
        QCOMPARE(cost(model, recurse, CostColumn::Total), 6);
        QCOMPARE(cost(model, recurse, CostColumn::Self), 2);
        QCOMPARE(model.index(recurse.row(), static_cast<int>(CostColumn::SelfPercent))
                     .data(FractionRole)
                     .toDouble(),
                 2.0 / 56.0);
    }

    void bottomUpListsSelfCost() {
        const auto chart = load(fixture());
        const Expected e = fromFolded(fixture());
        BottomUpModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTableData(TreeTableData::bottomUp(chart));
        QCOMPARE(model.rowCount(), static_cast<int>(e.self.size()));
        for (const auto& [name, self] : e.self) {
            const QModelIndex row = findRow(model, name);
            QVERIFY2(row.isValid(), qPrintable(name));
            QCOMPARE(cost(model, row, CostColumn::Self), self);
        }
        // inner's callers: compute, which is called from run (20) and helper (3).
        const QModelIndex inner = findRow(model, QStringLiteral("inner"));
        QCOMPARE(model.rowCount(inner), 1);
        const QModelIndex compute = model.index(0, 0, inner);
        QCOMPARE(compute.data().toString(), QStringLiteral("compute"));
        QCOMPARE(cost(model, findRow(model, QStringLiteral("run"), compute), CostColumn::Self), 20);
        QCOMPARE(cost(model, findRow(model, QStringLiteral("helper"), compute), CostColumn::Self), 3);
        QCOMPARE(model.indexOfFrame(model.tableData()->tree->frame(model.nodeOf(inner))), inner);
    }

    void sortingAndRecursiveFiltering() {
        const auto chart = load(fixture());
        const Expected e = fromFolded(fixture());
        CallTreeTables tables;
        for (int p = 0; p < CallTreeTables::PageCount; ++p)
            new QAbstractItemModelTester(tables.proxy(static_cast<CallTreeTables::Page>(p)),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest, &tables);
        tables.setTableData(TableData::build(chart));
        QSortFilterProxyModel* flat = tables.proxy(CallTreeTables::Functions);
        // Default: by self, descending.
        QCOMPARE(flat->index(0, 0).data().toString(), QStringLiteral("inner"));
        flat->sort(static_cast<int>(CostColumn::Total), Qt::DescendingOrder);
        QCOMPARE(flat->index(0, 0).data().toString(), QStringLiteral("main"));
        for (int r = 1; r < flat->rowCount(); ++r)
            QVERIFY(cost(*flat, flat->index(r - 1, 0), CostColumn::Total) >=
                    cost(*flat, flat->index(r, 0), CostColumn::Total));
        flat->sort(static_cast<int>(CostColumn::Function), Qt::AscendingOrder);
        QStringList names;
        for (int r = 0; r < flat->rowCount(); ++r)
            names << flat->index(r, 0).data().toString();
        QStringList sorted = names;
        sorted.sort();
        QCOMPARE(names, sorted);
        QCOMPARE(names.size(), static_cast<int>(e.total.size()));

        tables.setFilter(QStringLiteral("LEAF")); // case-insensitive
        QSortFilterProxyModel* topDown = tables.proxy(CallTreeTables::TopDown);
        QCOMPARE(topDown->rowCount(), 1); // "other" has no leaf below it
        QModelIndex i = topDown->index(0, 0);
        QStringList path;
        while (i.isValid()) {
            path << i.data().toString();
            QCOMPARE(topDown->rowCount(i), i.data().toString() == QStringLiteral("leaf") ? 0 : 1);
            i = topDown->index(0, 0, i);
        }
        QCOMPARE(path, QStringList({QStringLiteral("main"), QStringLiteral("run"), QStringLiteral("recurse"),
                                    QStringLiteral("recurse"), QStringLiteral("leaf")}));
        QCOMPARE(flat->rowCount(), 1);
        tables.setFilter(QString());
        QCOMPARE(topDown->rowCount(), 2);
        // Typing filters after a pause.
        QTest::keyClicks(tables.filterEdit(), QStringLiteral("parse"));
        QCOMPARE(topDown->rowCount(), 2);
        QTRY_COMPARE_WITH_TIMEOUT(flat->rowCount(), 1, kPatienceMs);
        QCOMPARE(topDown->rowCount(), 1);
    }

    void tablesSelectAndReport() {
        const auto chart = load(fixture());
        CallTreeTables tables;
        tables.setTableData(TableData::build(chart));
        QSignalSpy nodes(&tables, &CallTreeTables::nodeActivated);
        QSignalSpy functions(&tables, &CallTreeTables::functionActivated);
        // Programmatic selection of "inner": its heaviest node (main;run;compute;inner) and its rows.
        FrameId frame{};
        for (NodeId n = 1; n < chart->tree.size(); ++n)
            if (chart->profile->nodeName(n) == "inner")
                frame = chart->tree.frame(n);
        tables.selectFunction(frame);
        QCOMPARE(nodes.size(), 0);
        QCOMPARE(functions.size(), 0);
        const QModelIndex td = tables.view(CallTreeTables::TopDown)->currentIndex();
        QCOMPARE(td.data().toString(), QStringLiteral("inner"));
        QCOMPARE(cost(*td.model(), td, CostColumn::Total), 20); // the heavier of the two call sites
        QCOMPARE(td.parent().data().toString(), QStringLiteral("compute"));
        QCOMPARE(tables.view(CallTreeTables::BottomUp)->currentIndex().data().toString(),
                 QStringLiteral("inner"));
        QCOMPARE(tables.view(CallTreeTables::Functions)->currentIndex().data().toString(),
                 QStringLiteral("inner"));
        // A user selection reports the function / node.
        QTreeView* flat = tables.view(CallTreeTables::Functions);
        const QModelIndex io = findRow(*flat->model(), QStringLiteral("io"));
        flat->setCurrentIndex(io);
        QCOMPARE(functions.size(), 1);
        QCOMPARE(chart->profile->frameName(functions.at(0).at(0).value<FrameId>()), std::string_view("io"));
        QTreeView* topDown = tables.view(CallTreeTables::TopDown);
        topDown->setCurrentIndex(topDown->model()->index(0, 0));
        QCOMPARE(nodes.size(), 1);
        QCOMPARE(chart->profile->nodeName(nodes.at(0).at(0).value<NodeId>()), std::string_view("main"));
    }

    /// The function selected is selected again in a bottom-up tree built later for the same profile, and
    /// forgotten when another profile is shown (its frame ids mean other functions).
    void selectionKeptForLaterBottomUpOfTheSameProfileOnly() {
        const auto chart = load(fixture());
        CallTreeTables tables;
        tables.setTableData(TableData::build(chart, nullptr, false));
        FrameId frame{};
        for (NodeId n = 1; n < chart->tree.size(); ++n)
            if (chart->profile->nodeName(n) == "inner")
                frame = chart->tree.frame(n);
        tables.selectFunction(frame);
        QTreeView* bottomUp = tables.view(CallTreeTables::BottomUp);
        QVERIFY(!bottomUp->currentIndex().isValid()); // not built
        tables.setBottomUp(TableData::build(chart)->bottomUp);
        QCOMPARE(bottomUp->currentIndex().data().toString(), QStringLiteral("inner"));

        const auto other = load(fixture()); // the same file loaded again: another profile
        tables.setTableData(TableData::build(other, nullptr, false));
        tables.setBottomUp(TableData::build(other)->bottomUp);
        QVERIFY(bottomUp->model()->rowCount() > 0);
        QVERIFY(!bottomUp->currentIndex().isValid());
    }

    void threadSubsetAndCostTypeFollowChart() {
        const QString path =
            QStringLiteral(SCORCH_CORPUS_DIR "/perf-script/inputs/flamegraph/test/perf-vertx-stacks-01.txt");
        if (!QFile::exists(path))
            QSKIP("corpus file perf-vertx-stacks-01.txt not found under SCORCH_CORPUS_DIR");
        auto profile = std::make_shared<const Profile>(importProfile(path.toStdString()));
        QVERIFY(profile->threads.size() > 1);
        const auto all = ChartData::fromProfile(profile);
        const auto one = ChartData::derive(profile, 0, {0}, {});
        FunctionListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        TopDownModel tree;
        QAbstractItemModelTester treeTester(&tree, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTableData(FunctionTableData::build(all));
        tree.setTableData(TreeTableData::topDown(all));
        const int allRows = model.rowCount();
        model.setTableData(FunctionTableData::build(one));
        tree.setTableData(TreeTableData::topDown(one));
        QVERIFY(model.rowCount() < allRows);
        QCOMPARE(model.tableData()->grandTotal, static_cast<int64_t>(profile->threads[0].samples));
        // Nodes without cost in the subset are hidden: every top-down row has a non-zero total.
        qlonglong sum = 0;
        for (int r = 0; r < tree.rowCount(); ++r) {
            QVERIFY(cost(tree, tree.index(r, 0), CostColumn::Total) != 0);
            sum += cost(tree, tree.index(r, 0), CostColumn::Total);
        }
        QCOMPARE(sum, static_cast<qlonglong>(profile->threads[0].samples));
    }

    /// The tables feed a thread-filtered tree to the core analyses: the bottom-up tree and the function
    /// list then account for exactly the filtered cost.
    void analysesOfAFilteredTree() {
        const QString path =
            QStringLiteral(SCORCH_CORPUS_DIR "/perf-script/inputs/flamegraph/test/perf-vertx-stacks-01.txt");
        if (!QFile::exists(path))
            QSKIP("corpus file perf-vertx-stacks-01.txt not found under SCORCH_CORPUS_DIR");
        auto profile = std::make_shared<const Profile>(importProfile(path.toStdString()));
        QVERIFY(profile->threads.size() > 2);
        const auto chart = ChartData::derive(profile, 0, {0, 2}, {});
        const int64_t filtered = chart->tree.grandTotal(0);
        QCOMPARE(filtered,
                 int64_t(profile->threads[0].samples + profile->threads[2].samples)); // no period: 1 each
        QCOMPARE(bottomUpTree(*profile, chart->tree).grandTotal(0), filtered);
        int64_t selfSum = 0;
        for (const FunctionCost& fc : functionCosts(*profile, chart->tree))
            selfSum += fc.self[0];
        QCOMPARE(selfSum, filtered);
    }

    // C++ names are shown short in every table (the method stays readable); the tooltip, sorting and the
    // filter box use the full name.
    void longCppNamesShownShort() {
        const std::string full =
            "std::__detail::_Executor<char const*, std::allocator<std::__cxx11::sub_match<char "
            "const*> >, std::__cxx11::regex_traits<char>, true>::_M_dfs(_Match_mode, long)";
        const std::string other = "std::vector<int, std::allocator<int> >::_M_realloc_insert(int&&)";
        auto profile = std::make_shared<const Profile>(
            scorch::test::fromFolded("main;" + full + " 7\nmain;" + other + " 3\n"));
        const auto chart = ChartData::fromProfile(profile);
        CallTreeTables tables;
        tables.setTableData(TableData::build(chart));
        const QString shortName = QStringLiteral("std::__detail::_Executor<…>::_M_dfs(…)");
        for (auto page : {CallTreeTables::Functions, CallTreeTables::BottomUp}) {
            QTreeView* view = tables.view(page);
            const QModelIndex row = findRow(*view->model(), shortName);
            QVERIFY2(row.isValid(), "the short name is on display");
            QVERIFY(row.data(Qt::ToolTipRole).toString().startsWith(QString::fromStdString(full)));
            QCOMPARE(row.data(SortRole).toString(), QString::fromStdString(full));
            QCOMPARE(view->textElideMode(), Qt::ElideLeft); // a clipped name keeps its end (the method)
        }
        // A template argument that the short name hides still finds the function.
        auto* filter = tables.findChild<QLineEdit*>();
        QVERIFY(filter);
        filter->setText(QStringLiteral("regex_traits"));
        QTreeView* flat = tables.view(CallTreeTables::Functions);
        QTRY_COMPARE_WITH_TIMEOUT(flat->model()->rowCount(), 1, 10000);
        QCOMPARE(flat->model()->index(0, 0).data().toString(), shortName);
    }

    void corpusPerfScript() {
        const QString input =
            QStringLiteral(SCORCH_CORPUS_DIR "/perf-script/inputs/flamegraph/test/perf-funcab-cmd-01.txt");
        const QString folded = QStringLiteral(
            SCORCH_CORPUS_DIR
            "/perf-script/expected/flamegraph/test/results/perf-funcab-cmd-01-collapsed-pid.txt");
        if (!QFile::exists(input) || !QFile::exists(folded))
            QSKIP("corpus perf-funcab-cmd-01 (input or expected collapse) not found under SCORCH_CORPUS_DIR");
        const auto chart = load(input);
        const Expected e = fromFolded(folded);
        // built under a cancel flag: the same tables while it is not set, none once it is
        std::atomic<bool> cancel{false};
        const auto data = TableData::build(chart, &cancel);
        QVERIFY(data);
        cancel = true;
        QVERIFY(!TableData::build(chart, &cancel));
        QVERIFY(!TreeTableData::bottomUp(chart, &cancel));
        QVERIFY(!FunctionTableData::build(chart, &cancel));
        TopDownModel topDown;
        BottomUpModel bottomUp;
        FunctionListModel functions;
        QAbstractItemModelTester t1(&topDown, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&bottomUp, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t3(&functions, QAbstractItemModelTester::FailureReportingMode::QtTest);
        topDown.setTableData(data->topDown);
        bottomUp.setTableData(data->bottomUp);
        functions.setTableData(data->functions);
        QCOMPARE(data->functions->grandTotal, e.grand);
        QCOMPARE(e.grand, 169);
        for (const char* name : {"func_a", "func_b", "main", "__libc_start_main"}) {
            const QString fn = QString::fromLatin1(name);
            const QModelIndex row = findRow(functions, fn);
            QVERIFY2(row.isValid(), name);
            QCOMPARE(cost(functions, row, CostColumn::Self), e.self.count(fn) ? e.self.at(fn) : 0);
            QCOMPARE(cost(functions, row, CostColumn::Total), e.total.at(fn));
        }
        QCOMPARE(bottomUp.rowCount(), 2); // func_a, func_b
        QCOMPARE(topDown.rowCount(), 1);  // func_ab (the process)
        QCOMPARE(cost(topDown, topDown.index(0, 0), CostColumn::Total), 169);
    }

    /// The tables sort their cost columns by the costs themselves (CostSortSource), not through QVariants:
    /// every page, every cost column, both orders, in the order a plain QSortFilterProxyModel over the
    /// same model gives (ties keep the model's order in both), at every level of the trees.
    void costColumnsSortedAsByTheirSortRole() {
        const QString input =
            QStringLiteral(SCORCH_CORPUS_DIR "/perf-script/inputs/flamegraph/test/perf-vertx-stacks-01.txt");
        if (!QFile::exists(input))
            QSKIP("corpus perf-vertx-stacks-01.txt not found under SCORCH_CORPUS_DIR");
        CallTreeTables tables;
        tables.setTableData(TableData::build(load(input)));
        for (int p = 0; p < CallTreeTables::PageCount; ++p) {
            QSortFilterProxyModel* ours = tables.proxy(static_cast<CallTreeTables::Page>(p));
            QSortFilterProxyModel plain;
            plain.setSourceModel(ours->sourceModel());
            plain.setSortRole(SortRole);
            QVERIFY2(ours->rowCount() > (p == CallTreeTables::TopDown ? 0 : 20),
                     std::to_string(ours->rowCount()).c_str());
            for (const CostColumn c :
                 {CostColumn::Self, CostColumn::SelfPercent, CostColumn::Total, CostColumn::TotalPercent}) {
                for (const Qt::SortOrder order : {Qt::DescendingOrder, Qt::AscendingOrder}) {
                    ours->sort(static_cast<int>(c), order);
                    plain.sort(static_cast<int>(c), order);
                    // the rows of each level, as source rows, in both proxies (two levels down)
                    std::function<void(const QModelIndex&, const QModelIndex&, int)> same =
                        [&](const QModelIndex& a, const QModelIndex& b, int depth) {
                            QCOMPARE(ours->rowCount(a), plain.rowCount(b));
                            for (int r = 0; r < ours->rowCount(a); ++r) {
                                const QModelIndex x = ours->index(r, 0, a), y = plain.index(r, 0, b);
                                QCOMPARE(ours->mapToSource(x), plain.mapToSource(y));
                                if (depth < 2 && r < 5)
                                    same(x, y, depth + 1);
                            }
                        };
                    same({}, {}, 0);
                    if (QTest::currentTestFailed())
                        return;
                }
            }
        }
    }

    void delegateDrawsNegativeBarsInAnotherColour() {
        QStandardItemModel model(1, 2);
        model.setData(model.index(0, 0), 0.5, FractionRole);
        model.setData(model.index(0, 1), -0.5, FractionRole);
        CostDelegate delegate;
        QTreeView view; // gives the delegate a style
        QImage image(200, 20, QImage::Format_ARGB32);
        for (int c = 0; c < 2; ++c) {
            image.fill(Qt::white);
            QPainter p(&image);
            QStyleOptionViewItem option;
            option.initFrom(&view);
            option.widget = &view;
            option.rect = QRect(0, 0, 200, 20);
            delegate.paint(&p, option, model.index(0, c));
            p.end();
            const QColor left = image.pixelColor(20, 10), right = image.pixelColor(180, 10);
            if (c == 0) { // positive: bar on the left half, warm
                QVERIFY(left.red() > left.blue());
                QCOMPARE(right, QColor(Qt::white));
            } else { // negative: bar on the right half, cold
                QVERIFY(right.blue() > right.red());
                QCOMPARE(left, QColor(Qt::white));
            }
        }
    }
};

QTEST_MAIN(TestModels)
#include "tst_tablemodels.moc"
