// SourceView on a real recording with srclines (tests/data/perf/hot-srcline.perf) of tests/data/source/hot.c.
#include "apptestutil.h"
#include "flame/flamegraphpanel.h"
#include "profiletab.h"
#include "recordtestutil.h"
#include "scorch/builder.h"
#include "scorch/symbolizer.h"
#include "source/sourceview.h"
#include "source/sourceviewedit.h"
#include "tables/calltreemodel.h"

#include "tables/calltreetables.h"
#include "widgettestutil.h"
#include <QDir>
#include <QHeaderView>

#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTreeWidget>

#include <set>

using namespace scorch;

namespace {

const char* const kRecordedDir = "/tmp/scorch-fixture-build"; // where the fixture was built

FrameId frameNamed(const Profile& p, std::string_view name) {
    for (uint32_t id = 1; id < p.frames.size(); ++id)
        if (p.frameName(FrameId{id}) == name && p.frames[FrameId{id}].kind != FrameKind::Process)
            return FrameId{id};
    return {};
}

std::shared_ptr<const Profile> fixture() {
    return test::loadShared(test::testData(QStringLiteral("perf/hot-srcline.perf")));
}

QString sourceDir() {
    return test::testData(QStringLiteral("source"));
}

/// A profile whose line costs point at tests/data/source/hot.c itself: `hashing` spends 3 on line 8 and 1 on
/// line 15, called from `main` line 29.
std::shared_ptr<const Profile> directProfile() {
    TreeBuilder b;
    const uint32_t ct = b.costType("samples", CostUnit::Samples);
    const uint32_t t = b.thread("hot", 1, 1);
    const StringId file = b.strings().intern(sourceDir().toStdString() + "/hot.c");
    const FrameId stack[] = {b.frame("main"), b.frame("hashing")};
    auto add = [&](uint32_t line, int64_t n) {
        const CostValue c{ct, n};
        const SourceLine lines[] = {{file, 29}, {file, line}};
        b.addSample(t, stack, {&c, 1}, 1, lines);
    };
    add(8, 3);
    add(15, 1);
    return std::make_shared<const Profile>(b.finish({}));
}

/// Shows `view` `width` pixels wide with `function` of `profile` (the fixture, whose file is not at its
/// recorded path): true when it then says "not found".
bool showMissing(SourceView& view, int width, const std::shared_ptr<const Profile>& profile,
                 const char* function) {
    view.resize(width, 400);
    view.show();
    if (!QTest::qWaitForWindowExposed(&view))
        return false;
    view.setProfile(profile);
    view.showFrame(frameNamed(*profile, function));
    return view.state() == SourceView::State::NotFound;
}

} // namespace

class TestSourceView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void gutterAndHottestLine();
    void lineListScrolls();
    void notFoundThenMapping();
    void narrowViewListsLinesBelow();
    void definitionLineOnly();
    void relativePathSearchDirectory();
    void largeFileWindow();
    void noSourceInformation();
    void editorCommandExpansion();
    void defaultEditorCommand();
    void namesKeepTheirWidthBesideTheSourcePanel();
    void profileTabFollowsSelection();
    void debuginfodFetchesAMissingSource();
};

void TestSourceView::initTestCase() {
    QStandardPaths::setTestModeEnabled(true); // QSettings go to a test location, not the user's
    QCoreApplication::setOrganizationName(QStringLiteral("ScorchTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_sourceview"));
}

void TestSourceView::init() {
    QSettings().clear();
}

void TestSourceView::gutterAndHottestLine() {
    SourceView view;
    view.resize(900, 160); // a few lines visible: showing the hottest line needs scrolling
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const auto profile = directProfile();
    view.setProfile(profile);
    view.showFrame(frameNamed(*profile, "hashing"));
    QCOMPARE(view.state(), SourceView::State::Shown);
    QCOMPARE(view.filePath(), sourceDir() + QStringLiteral("/hot.c"));
    QCOMPARE(view.location().rule, SourceRule::Recorded);
    SourceViewEdit* edit = view.editor();
    QVERIFY(edit->toPlainText().contains(QStringLiteral("unsigned long hashing(unsigned long n)")));
    // costs on lines 8 and 15 only: 3 of 4 and 1 of 4 samples, total = self for a leaf
    QCOMPARE(edit->cost(8).self, int64_t(3));
    QCOMPARE(edit->cost(15).self, int64_t(1));
    QCOMPARE(edit->gutterText(8), QStringLiteral("75.0%  75.0%"));
    QCOMPARE(edit->gutterText(15), QStringLiteral("25.0%  25.0%"));
    for (int line : {1, 7, 9, 14, 29})
        QVERIFY2(edit->gutterText(line).isEmpty(), qPrintable(QString::number(line)));
    QVERIFY(edit->selfHeat(8) != edit->selfHeat(15)); // hotter line, stronger colour
    QCOMPARE(edit->selfHeat(9), QColor(Qt::transparent));
    QCOMPARE(view.hottestLine(), 8);
    QCOMPARE(edit->currentLine(), 8);

    // main only calls: its line 29 carries total cost, no self; the view scrolls down to it
    view.showFrame(frameNamed(*profile, "main"));
    QCOMPARE(edit->currentLine(), 29);
    QVERIFY(edit->firstVisibleLine() > 1);
    QVERIFY(edit->firstVisibleLine() <= 29 && edit->lastVisibleLine() >= 29);
    QCOMPARE(edit->gutterText(29), QStringLiteral("  100.0%"));
    QVERIFY(edit->gutterText(8).isEmpty());
}

void TestSourceView::lineListScrolls() {
    SourceView view;
    view.resize(1000, 200);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const auto profile = fixture();
    SourceLocatorConfig config;
    config.mappings.push_back({kRecordedDir, sourceDir().toStdString()});
    view.setLocatorConfig(config);
    view.setProfile(profile);
    view.showFrame(frameNamed(*profile, "hashing"));
    QCOMPARE(view.state(), SourceView::State::Shown);
    const FunctionSource& fn = view.function();
    QVERIFY(fn.lines.size() >= 2);
    QTreeWidget* list = view.lineList();
    QCOMPARE(list->topLevelItemCount(), static_cast<int>(fn.lines.size()));
    // the list is sorted by cost, the view shows the first (hottest) line
    QCOMPARE(view.editor()->currentLine(), static_cast<int>(fn.lines[0].line));
    for (std::size_t i = 0; i + 1 < fn.lines.size(); ++i)
        QVERIFY(fn.lines[i].self[0] >= fn.lines[i + 1].self[0]);
    std::set<int> gutterLines;
    for (const FunctionLine& l : fn.lines) {
        QCOMPARE(view.editor()->cost(static_cast<int>(l.line)).self, l.self[0]);
        QVERIFY(!view.editor()->gutterText(static_cast<int>(l.line)).isEmpty());
    }
    // clicking the last row moves the cursor to its line
    QTreeWidgetItem* last = list->topLevelItem(list->topLevelItemCount() - 1);
    const QRect rect = list->visualItemRect(last);
    QVERIFY(rect.isValid());
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, rect.center());
    QCOMPARE(view.editor()->currentLine(), static_cast<int>(fn.lines.back().line));
    QVERIFY(view.editor()->firstVisibleLine() <= view.editor()->currentLine());
    QVERIFY(view.editor()->lastVisibleLine() >= view.editor()->currentLine());
}

// a narrow view (the window on a 1024-pixel screen) puts the line list under the "not found" panel, each
// as wide as the view, so that the list's columns are not clipped; a wide one puts it beside
void TestSourceView::narrowViewListsLinesBelow() {
    if (QFile::exists(QLatin1String(kRecordedDir) + QStringLiteral("/hot.c")))
        QSKIP("the fixture's build directory exists on this machine: the file would be found as recorded");
    SourceView view;
    const auto profile = fixture();
    QVERIFY(showMissing(view, 300, profile, "hashing"));
    QTreeWidget* list = view.lineList();
    QVERIFY(list->isVisible());
    const auto columnsFit = [&] {
        int sum = 0;
        for (int c = 0; c < list->columnCount(); ++c)
            sum += list->header()->sectionSize(c);
        return sum <= list->viewport()->width();
    };
    // the list's and the panel's rectangles in the view's coordinates
    const auto in = [&](QWidget* w) {
        return QRect(w->mapTo(&view, QPoint(0, 0)), w->size());
    };
    QVERIFY(in(list).top() > in(view.notFoundPanel()).bottom()); // below
    QVERIFY(columnsFit());
    view.resize(1000, 400);
    QTRY_VERIFY(in(list).left() > in(view.notFoundPanel()).right()); // beside
    QVERIFY(columnsFit());
}

void TestSourceView::notFoundThenMapping() {
    if (QFile::exists(QLatin1String(kRecordedDir) + QStringLiteral("/hot.c")))
        QSKIP("the fixture's build directory exists on this machine: the file would be found as recorded");
    SourceView view;
    const auto profile = fixture();
    QVERIFY(showMissing(view, 900, profile, "summing"));
    QVERIFY(view.notFoundPanel()->isVisible());
    QVERIFY(view.chooseDirectoryButton()->isVisible());
    QVERIFY(view.notFoundLabel()->text().contains(QLatin1String(kRecordedDir) + QStringLiteral("/hot.c")));
    QVERIFY(view.filePath().isEmpty());
    QVERIFY(view.lineList()->isVisible()); // the hot lines are listed even without the file
    QCOMPARE(view.lineList()->topLevelItemCount(), static_cast<int>(view.function().lines.size()));

    SourceView other; // another tab's view, made before the choice
    other.setProfile(profile);

    // choosing tests/data/source maps the recorded directory onto it, and remembers it
    view.addSourceDirectory(sourceDir());
    QCOMPARE(view.state(), SourceView::State::Shown);
    QVERIFY(!view.notFoundPanel()->isVisible());
    QCOMPARE(view.location().rule, SourceRule::Mapping);
    QCOMPARE(view.filePath(), sourceDir() + QStringLiteral("/hot.c"));
    QVERIFY(view.infoLabel()->text().contains(QStringLiteral("path mapping")));
    const int line = view.editor()->currentLine();
    QVERIFY2(line >= 21 && line <= 22, qPrintable(QString::number(line))); // summing's loop
    const SourceLocatorConfig saved = SourceView::loadLocatorConfig();
    QCOMPARE(saved.mappings.size(), std::size_t(1));
    QCOMPARE(saved.mappings[0].from, std::string(kRecordedDir));
    QCOMPARE(QString::fromStdString(saved.mappings[0].to), sourceDir());

    other.showFrame(frameNamed(*profile, "main")); // the other view follows the saved choice
    QCOMPARE(other.state(), SourceView::State::Shown);
    // a new view starts with the saved mapping
    SourceView again;
    again.setProfile(profile);
    again.showFrame(frameNamed(*profile, "main"));
    QCOMPARE(again.state(), SourceView::State::Shown);
    QCOMPARE(again.editor()->currentLine() >= 29 && again.editor()->currentLine() <= 30, true);
}

void TestSourceView::definitionLineOnly() {
    // speedscope frames carry the definition line; no per-line costs
    const std::string json =
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{"
        "\"frames\":[{\"name\":\"summing\",\"file\":\"" +
        sourceDir().toStdString() +
        "/hot.c\",\"line\":19}]},\"profiles\":[{\"type\":\"sampled\",\"name\":\"p\","
        "\"unit\":\"none\",\"startValue\":0,\"endValue\":1,\"samples\":[[0]],"
        "\"weights\":[1]}]}";
    const auto profile = std::make_shared<const Profile>(test::fromText(json, "x.speedscope.json"));
    SourceView view;
    view.resize(800, 300);
    view.show();
    view.setProfile(profile);
    view.showFrame(frameNamed(*profile, "summing"));
    QCOMPARE(view.state(), SourceView::State::Shown);
    QCOMPARE(view.editor()->currentLine(), 19);
    QVERIFY(!view.editor()->hasCosts());
    QVERIFY(view.infoLabel()->isVisible());
    QVERIFY(view.infoLabel()->text().contains(QStringLiteral("no per-line costs")));
    QVERIFY(!view.lineList()->isVisible());
}

void TestSourceView::relativePathSearchDirectory() {
    // perf script without --full-source-path records bare file names
    const auto profile = std::make_shared<const Profile>(test::fromText("hot 1 1.0: 1 cycles:\n"
                                                                        "\t1 summing (/bin/hot)\n"
                                                                        "  hot.c:22\n"
                                                                        "\t2 main (/bin/hot)\n"
                                                                        "  hot.c:30\n\n",
                                                                        "relative.perf"));
    SourceView view;
    view.setProfile(profile);
    view.showFrame(frameNamed(*profile, "summing"));
    QCOMPARE(view.state(), SourceView::State::NotFound);
    QCOMPARE(view.recordedPath(), QStringLiteral("hot.c"));
    view.addSourceDirectory(sourceDir()); // no prefix to map: becomes a search directory
    QCOMPARE(view.state(), SourceView::State::Shown);
    QCOMPARE(view.location().rule, SourceRule::SearchDirSuffix);
    QCOMPARE(view.locatorConfig().searchDirs.size(), std::size_t(1));
    QVERIFY(view.locatorConfig().mappings.empty());
    QCOMPARE(view.editor()->currentLine(), 22);
    QCOMPARE(view.lineList()->currentItem()->data(0, Qt::DisplayRole).toString(), QStringLiteral("line 22"));
    QCOMPARE(SourceView::loadLocatorConfig().searchDirs.front(), sourceDir().toStdString());
}

void TestSourceView::largeFileWindow() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("big.c"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QByteArray text;
    for (int i = 1; i <= 100000; ++i)
        text += "int v" + QByteArray::number(i) + " = f(" + QByteArray::number(i) + ");\n";
    f.write(text);
    f.close();
    TreeBuilder b;
    const uint32_t ct = b.costType("samples", CostUnit::Samples);
    const uint32_t t = b.thread("t", 1, 1);
    const StringId file = b.strings().intern(path.toStdString());
    const FrameId fn = b.frame("big");
    for (auto [line, n] : {std::pair<uint32_t, int64_t>{80000, 5}, {80010, 2}, {10, 1}}) {
        const CostValue c{ct, n};
        const SourceLine where{file, line};
        b.addSample(t, std::span<const FrameId>(&fn, 1), {&c, 1}, 1, std::span<const SourceLine>(&where, 1));
    }
    const auto profile = std::make_shared<const Profile>(b.finish({}));
    SourceView view;
    view.resize(900, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setProfile(profile);
    view.showFrame(frameNamed(*profile, "big"));
    QCOMPARE(view.state(), SourceView::State::Shown);
    SourceViewEdit* edit = view.editor();
    QCOMPARE(edit->currentLine(), 80000);
    QVERIFY(edit->firstLine() > 1 && edit->lastLine() < 100000); // a window, not the whole file
    QVERIFY(edit->firstLine() <= 80000 && edit->lastLine() >= 80010);
    QCOMPARE(edit->textCursor().block().text(), QStringLiteral("int v80000 = f(80000);"));
    QVERIFY(edit->firstVisibleLine() <= 80000 && edit->lastVisibleLine() >= 80000);
    QCOMPARE(edit->gutterText(80000), QStringLiteral("62.5%  62.5%"));
    QVERIFY(view.infoLabel()->text().contains(QStringLiteral("of 100000")));
    // a line outside the window loads the part of the file around it
    view.showLine(file, 10);
    QCOMPARE(edit->currentLine(), 10);
    QCOMPARE(edit->textCursor().block().text(), QStringLiteral("int v10 = f(10);"));
    QCOMPARE(edit->firstLine(), 1);
}

void TestSourceView::noSourceInformation() {
    const auto profile = std::make_shared<const Profile>(test::fromFolded("main;work 3\n"));
    SourceView view;
    view.setProfile(profile);
    view.showFrame(frameNamed(*profile, "work"));
    QCOMPARE(view.state(), SourceView::State::NoSource);
    QVERIFY(view.filePath().isEmpty());
    QVERIFY(!view.openInEditor());
}

void TestSourceView::editorCommandExpansion() {
    const QString file = QStringLiteral("/src/my dir/a.c");
    QCOMPARE(SourceView::expandEditorCommand(QStringLiteral("vim +{line} {file}"), file, 12),
             (QStringList{QStringLiteral("vim"), QStringLiteral("+12"), file}));
    QCOMPARE(SourceView::expandEditorCommand(QStringLiteral("code -g {file}:{line}"), file, 7),
             (QStringList{QStringLiteral("code"), QStringLiteral("-g"), file + QStringLiteral(":7")}));
    // quotes group arguments; a template without {file} gets the file appended
    QCOMPARE(SourceView::expandEditorCommand(QStringLiteral("\"/opt/my editor/ed\" --line={line}"), file, 3),
             (QStringList{QStringLiteral("/opt/my editor/ed"), QStringLiteral("--line=3"), file}));
    // a file name that looks like a placeholder or holds shell characters is passed through untouched
    const QString odd = QStringLiteral("/tmp/$(rm -rf x);{line}.c");
    QCOMPARE(SourceView::expandEditorCommand(QStringLiteral("xdg-open {file}"), odd, 4),
             (QStringList{QStringLiteral("xdg-open"), QStringLiteral("/tmp/$(rm -rf x);{line}.c")}));
    QCOMPARE(SourceView::expandEditorCommand(QStringLiteral("ed +{line} {file}"), file, 0).at(1),
             QStringLiteral("+1"));
    QVERIFY(SourceView::expandEditorCommand(QStringLiteral("   "), file, 1).isEmpty());
}

void TestSourceView::defaultEditorCommand() {
    const QByteArray visual = qgetenv("VISUAL"), editor = qgetenv("EDITOR");
    qunsetenv("VISUAL");
    qunsetenv("EDITOR");
    QCOMPARE(SourceView::defaultEditorCommand(), QStringLiteral("xdg-open {file}"));
    qputenv("EDITOR", "nvim");
    QCOMPARE(SourceView::defaultEditorCommand(), QStringLiteral("nvim +{line} {file}"));
    qputenv("VISUAL", "/usr/bin/code --wait");
    QCOMPARE(SourceView::defaultEditorCommand(), QStringLiteral("/usr/bin/code --wait -g {file}:{line}"));
    QCOMPARE(SourceView::expandEditorCommand(SourceView::defaultEditorCommand(), QStringLiteral("/a.c"), 5),
             (QStringList{QStringLiteral("/usr/bin/code"), QStringLiteral("--wait"), QStringLiteral("-g"),
                          QStringLiteral("/a.c:5")}));
    // the view starts with the default and keeps what the user sets
    SourceView view;
    QCOMPARE(view.editorCommand(), QStringLiteral("/usr/bin/code --wait -g {file}:{line}"));
    view.setEditorCommand(QStringLiteral("gedit +{line} {file}"));
    QCOMPARE(SourceView().editorCommand(), QStringLiteral("gedit +{line} {file}"));
    auto restore = [](const char* name, const QByteArray& value) {
        if (value.isNull())
            qunsetenv(name);
        else
            qputenv(name, value);
    };
    restore("VISUAL", visual);
    restore("EDITOR", editor);
}

// At the size a newcomer's window has, with the source panel present, function names keep at least 40% of
// every table's width and the source panel less than half of the tables' row.
void TestSourceView::namesKeepTheirWidthBesideTheSourcePanel() {
    for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
        ProfileTab tab(test::testData(QStringLiteral("perf/hot-srcline.perf")));
        tab.resize(size);
        tab.show();
        QTRY_VERIFY_WITH_TIMEOUT(tab.state() == ProfileTab::State::Loaded && tab.tables()->tableData() &&
                                     tab.tables()->tableData()->chart == tab.panel()->data(),
                                 30000);
        QVERIFY(tab.sourceView()->isVisible());
        QVERIFY(tab.sourceView()->width() < tab.tables()->width());
        for (auto page : {CallTreeTables::TopDown, CallTreeTables::BottomUp, CallTreeTables::Functions}) {
            QTreeView* view = tab.tables()->view(page);
            tab.tables()->tabs()->setCurrentWidget(view);
            const int name = view->header()->sectionSize(static_cast<int>(CostColumn::Function));
            QVERIFY2(name * 5 >= view->viewport()->width() * 2,
                     qPrintable(QStringLiteral("%1x%2 page %3: name column %4 of %5 px")
                                    .arg(size.width())
                                    .arg(size.height())
                                    .arg(page)
                                    .arg(name)
                                    .arg(view->viewport()->width())));
            // The numbers are not cut: each cost column is as wide as its widest visible text.
            for (int c = static_cast<int>(CostColumn::Self); c < static_cast<int>(CostColumn::Count); ++c)
                if (!view->isColumnHidden(c))
                    QVERIFY(view->header()->sectionSize(c) >=
                            static_cast<const QAbstractItemView*>(view)->sizeHintForColumn(c));
        }
    }
}

void TestSourceView::profileTabFollowsSelection() {
    SourceLocatorConfig config;
    config.mappings.push_back({kRecordedDir, sourceDir().toStdString()});
    SourceView::saveLocatorConfig(config); // as a user's earlier choice
    ProfileTab tab(test::testData(QStringLiteral("perf/hot-srcline.perf")));
    tab.resize(1400, 900);
    tab.show();
    QVERIFY(test::waitLoaded(&tab));
    SourceView* source = tab.sourceView();
    QVERIFY(source->isVisible()); // the profile has line costs
    QCOMPARE(source->state(), SourceView::State::Empty);

    // selecting a function in the flat table shows its source
    QTreeView* functions = tab.tables()->view(CallTreeTables::Functions);
    tab.tables()->tabs()->setCurrentWidget(functions);
    const QModelIndex summing = test::findRow(*functions->model(), QStringLiteral("summing"));
    QVERIFY(summing.isValid());
    functions->setCurrentIndex(summing);
    QCOMPARE(source->state(), SourceView::State::Shown);
    QVERIFY(source->function().hasLineCosts());
    QCOMPARE(QString::fromStdString(std::string(tab.profile()->frameName(source->frame()))),
             QStringLiteral("summing"));
    QCOMPARE(source->filePath(), sourceDir() + QStringLiteral("/hot.c"));

    // "Show Source" in the flame graph's context menu on main
    const auto data = tab.panel()->data();
    const NodeId mainNode = test::nodeByPath(*data, {"hot", "__libc_start_call_main", "main"});
    QVERIFY(mainNode != kRootNode);
    std::unique_ptr<QMenu> menu(tab.panel()->view()->createContextMenu(mainNode, tab.panel()->view()));
    QAction* show = menu->findChild<QAction*>(QStringLiteral("showSource"));
    QVERIFY(show);
    show->trigger();
    QCOMPARE(QString::fromStdString(std::string(tab.profile()->frameName(source->frame()))),
             QStringLiteral("main"));
    QVERIFY(source->editor()->currentLine() == 29 || source->editor()->currentLine() == 30);

    // and in a table's context menu
    std::unique_ptr<QMenu> tableMenu(
        tab.tables()->createContextMenu(CallTreeTables::Functions, summing, tab.tables()));
    QAction* tableShow = tableMenu->findChild<QAction*>(QStringLiteral("showSource"));
    QVERIFY(tableShow);
    tableShow->trigger();
    QCOMPARE(QString::fromStdString(std::string(tab.profile()->frameName(source->frame()))),
             QStringLiteral("summing"));

    // a folded profile has no line costs: the panel stays hidden until asked for
    ProfileTab folded(test::flameFixture("simple.folded"));
    folded.show();
    QVERIFY(test::waitLoaded(&folded));
    QVERIFY(!folded.sourceView()->isVisible());

    // frames that know their definition (speedscope) show it without being asked
    QTemporaryDir dir;
    const QString json = dir.filePath(QStringLiteral("def.speedscope.json"));
    QFile f(json);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[{"
            "\"name\":\"summing\",\"file\":\"" +
            sourceDir().toUtf8() +
            "/hot.c\",\"line\":19}]},\"profiles\":[{\"type\":\"sampled\",\"name\":\"p\",\"unit\":"
            "\"none\",\"startValue\":0,\"endValue\":1,\"samples\":[[0]],\"weights\":[1]}]}");
    f.close();
    ProfileTab speedscope(json);
    speedscope.show();
    QVERIFY(test::waitLoaded(&speedscope));
    QVERIFY(speedscope.sourceView()->isVisible());
    QSettings().clear();
}

// A source file not on this machine is fetched from a debuginfod server by the build-id of the function's
// module (the Symbols report of the profile names it), off the GUI thread, and shown. The server (real, on
// 127.0.0.1, serving a program built here) reads sources from their recorded paths, so the file is fetched
// once while it exists (into libdebuginfod's cache, as a first fetch would) and then moved away: the view
// then gets it through libdebuginfod from that cache.
void TestSourceView::debuginfodFetchesAMissingSource() {
    if (QStandardPaths::findExecutable(QStringLiteral("debuginfod")).isEmpty() ||
        QStandardPaths::findExecutable(QStringLiteral("cc")).isEmpty())
        QSKIP("debuginfod or cc is not installed");
    QTemporaryDir dir, cache;
    const test::ScopedEnv cachePath("DEBUGINFOD_CACHE_PATH", cache.path().toLocal8Bit());
    const QString src = dir.filePath(QStringLiteral("src")), bin = dir.filePath(QStringLiteral("bin"));
    QVERIFY(QDir().mkpath(src) && QDir().mkpath(bin));
    const QString source = src + QStringLiteral("/fetched.c"), program = bin + QStringLiteral("/fetched");
    QVERIFY(test::writeFile(source, "int fetchedWork(int n) {\n"
                                    "    int s = 0;\n"
                                    "    for (int i = 0; i < n; ++i) s += i * 3;\n"
                                    "    return s;\n"
                                    "}\n"
                                    "int main(void) { return fetchedWork(10) & 1; }\n"));
    QCOMPARE(test::run(QStringLiteral("cc"),
                       {QStringLiteral("-g"), QStringLiteral("-O0"), QStringLiteral("-o"), program, source}),
             0);
    const std::string id = elfBuildId(program.toStdString());
    QVERIFY(!id.empty());
    test::DebuginfodServer server;
    const QString started = server.start(bin, dir.path(), QString::fromStdString(id));
    if (!started.isEmpty())
        QSKIP(qPrintable(QStringLiteral("debuginfod cannot serve here: ") + started));
    QVERIFY(fetchSource(source.toStdString(), id, server.url().toStdString()).found());
    QVERIFY(QDir().rename(src, dir.filePath(QStringLiteral("moved"))));

    TreeBuilder b;
    const uint32_t ct = b.costType("samples", CostUnit::Samples);
    const uint32_t t = b.thread("fetched", 1, 1);
    const StringId file = b.strings().intern(source.toStdString());
    const FrameId stack[] = {b.frame("main", program.toStdString()),
                             b.frame("fetchedWork", program.toStdString())};
    const CostValue c{ct, 5};
    const SourceLine lines[] = {{file, 6}, {file, 3}};
    b.addSample(t, stack, {&c, 1}, 1, lines);
    ProfileMeta meta;
    ModuleReport module;
    module.path = program.toStdString();
    module.buildId = id;
    module.samples = 1;
    meta.modules.push_back(module);
    const auto profile = std::make_shared<const Profile>(b.finish(std::move(meta)));

    SourceView view;
    view.resize(900, 500);
    view.show();
    view.setProfile(profile);
    view.showFrame(frameNamed(*profile, "fetchedWork"));
    QCOMPARE(view.state(), SourceView::State::NotFound); // no servers yet: not found
    QVERIFY(!view.notFoundLabel()->text().contains(QStringLiteral("debuginfod")));
    view.setDebuginfodUrls(server.url());
    QTRY_COMPARE_WITH_TIMEOUT(view.state(), SourceView::State::Shown, test::kPatienceMs);
    QVERIFY2(view.editor()->toPlainText().contains(QStringLiteral("for (int i = 0; i < n; ++i) s += i * 3;")),
             qPrintable(view.editor()->toPlainText()));
    QVERIFY2(view.infoLabel()->text().contains(QStringLiteral("debuginfod")),
             qPrintable(view.infoLabel()->text()));
    // a file the server has not got: the panel says what debuginfod answered
    const QString other = dir.filePath(QStringLiteral("moved/other.c"));
    TreeBuilder b2;
    const uint32_t ct2 = b2.costType("samples", CostUnit::Samples);
    const StringId file2 = b2.strings().intern(other.toStdString());
    const FrameId stack2[] = {b2.frame("elsewhere", program.toStdString())};
    const CostValue c2{ct2, 1};
    const SourceLine lines2[] = {{file2, 1}};
    b2.addSample(b2.thread("t", 1, 1), stack2, {&c2, 1}, 1, lines2);
    ProfileMeta meta2;
    meta2.modules.push_back(module);
    const auto profile2 = std::make_shared<const Profile>(b2.finish(std::move(meta2)));
    view.setProfile(profile2);
    view.showFrame(frameNamed(*profile2, "elsewhere"));
    QTRY_VERIFY_WITH_TIMEOUT(view.notFoundLabel()->text().contains(QStringLiteral("debuginfod: not on ")),
                             test::kPatienceMs);
    QCOMPARE(view.state(), SourceView::State::NotFound);
}

QTEST_MAIN(TestSourceView)
#include "tst_sourceview.moc"
