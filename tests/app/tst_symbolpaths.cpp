// File > Symbol Paths…: the dialog edits the lists, the main window saves them, and every import that
// follows gets them (ProfileLoader builds its ImportOptions with withSymbolPaths()).
#include "mainwindow.h"
#include "symbolpaths.h"
#include "symbolpathsdialog.h"

#include <QApplication>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

using namespace scorch;

class TestSymbolPaths : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true); // QSettings go to a throwaway test location
        QCoreApplication::setOrganizationName(QStringLiteral("ScorchTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_symbolpaths"));
        QSettings().clear();
    }

    void dialogEditsTheLists() {
        SymbolPathsDialog::Paths start;
        start.searchPaths = {QStringLiteral("/opt/app/lib")};
        start.sysroot = QStringLiteral("/srv/target-root/");
        SymbolPathsDialog dialog(start);
        SymbolPathsDialog::Paths p = dialog.paths();
        QCOMPARE(p.searchPaths, start.searchPaths);
        QVERIFY(p.debugDirs.isEmpty());
        QCOMPARE(p.sysroot, QStringLiteral("/srv/target-root")); // cleaned
        dialog.addSearchPath(QStringLiteral("/opt/app/lib/"));   // the same directory: not twice
        dialog.addSearchPath(QString());                         // nothing chosen
        dialog.addSearchPath(QStringLiteral("/opt/other"));
        dialog.addDebugDir(QStringLiteral("/opt/debug"));
        p = dialog.paths();
        QCOMPARE(p.searchPaths, (QStringList{QStringLiteral("/opt/app/lib"), QStringLiteral("/opt/other")}));
        QCOMPARE(p.debugDirs, QStringList{QStringLiteral("/opt/debug")});
        // Remove takes the selected entries
        auto* list = dialog.findChild<QListWidget*>(QStringLiteral("searchPaths"));
        QVERIFY(list);
        list->item(0)->setSelected(true);
        const auto buttons = dialog.findChildren<QPushButton*>();
        QPushButton* remove = nullptr;
        for (QPushButton* b : buttons)
            if (b->text() == QStringLiteral("Remove") && b->isEnabled())
                remove = b;
        QVERIFY(remove);
        remove->click();
        QCOMPARE(dialog.paths().searchPaths, QStringList{QStringLiteral("/opt/other")});
        dialog.findChild<QLineEdit*>(QStringLiteral("sysroot"))->clear();
        QVERIFY(dialog.paths().sysroot.isEmpty());
    }

    void savedPathsReachTheImports() {
        QSettings().clear();
        QVERIFY(withSymbolPaths({}).symbolSearchPaths.empty());
        MainWindow window;
        SymbolPathsDialog* dialog = window.showSymbolPathsDialog();
        QVERIFY(dialog && dialog->isVisible());
        dialog->addSearchPath(QStringLiteral("/opt/app/lib"));
        dialog->addDebugDir(QStringLiteral("/opt/debug"));
        dialog->findChild<QLineEdit*>(QStringLiteral("sysroot"))->setText(QStringLiteral("/srv/root"));
        dialog->accept();
        const ImportOptions o = withSymbolPaths({});
        QCOMPARE(o.symbolSearchPaths, std::vector<std::string>{"/opt/app/lib"});
        QCOMPARE(o.debugDirs, std::vector<std::string>{"/opt/debug"});
        QCOMPARE(o.sysroot, std::string("/srv/root"));
        QVERIFY(o.debuginfodUrls.empty()); // none in this test's environment
        // Cancel keeps what was saved
        SymbolPathsDialog* again = window.showSymbolPathsDialog();
        QCOMPARE(again->paths(), loadSymbolPaths());
        again->addSearchPath(QStringLiteral("/elsewhere"));
        again->reject();
        QCOMPARE(loadSymbolPaths().searchPaths, QStringList{QStringLiteral("/opt/app/lib")});
    }

    // debuginfod servers: $DEBUGINFOD_URLS until set in the dialog; then the dialog's, also when emptied
    void debuginfodServers() {
        QSettings().clear();
        qputenv("DEBUGINFOD_URLS", "http://127.0.0.1:8002  https://debuginfod.example");
        QCOMPARE(loadSymbolPaths().debuginfod,
                 QStringLiteral("http://127.0.0.1:8002 https://debuginfod.example"));
        QCOMPARE(withSymbolPaths({}).debuginfodUrls,
                 std::string("http://127.0.0.1:8002 https://debuginfod.example"));
        saveSymbolPaths(loadSymbolPaths()); // unchanged: the environment stays in charge
        qputenv("DEBUGINFOD_URLS", "http://127.0.0.1:9000");
        QCOMPARE(withSymbolPaths({}).debuginfodUrls, std::string("http://127.0.0.1:9000"));

        MainWindow window;
        SymbolPathsDialog* dialog = window.showSymbolPathsDialog();
        auto* servers = dialog->findChild<QLineEdit*>(QStringLiteral("debuginfod"));
        QVERIFY(servers);
        QCOMPARE(servers->text(), QStringLiteral("http://127.0.0.1:9000"));
        servers->clear(); // none, whatever the environment says
        dialog->accept();
        QVERIFY(withSymbolPaths({}).debuginfodUrls.empty());
        qunsetenv("DEBUGINFOD_URLS");
        SymbolPathsDialog* again = window.showSymbolPathsDialog();
        again->findChild<QLineEdit*>(QStringLiteral("debuginfod"))->setText(QStringLiteral(" http://h:1 "));
        again->accept();
        QCOMPARE(withSymbolPaths({}).debuginfodUrls, std::string("http://h:1"));
    }
};

QTEST_MAIN(TestSymbolPaths)
#include "tst_symbolpaths.moc"
