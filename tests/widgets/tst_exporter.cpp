// File > Export in the formats of `scorch convert` and `scorch svg`: the menu actions, and what the written
// files read back as (through the main window, as the menu runs them).
#include "exporter.h"
#include "flamegraphpanel.h"
#include "mainwindow.h"
#include "patience.h"
#include "profiletab.h"
#include "widgettestutil.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QMenu>
#include <QTemporaryDir>
#include <QXmlStreamReader>

using namespace scorch;
using scorch::test::kPatienceMs;

namespace {

bool waitLoaded(ProfileTab* tab) {
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < kPatienceMs) {
        if (tab->state() == ProfileTab::State::Loaded && tab->panel()->data())
            return true;
        QTest::qWait(10);
    }
    return false;
}

} // namespace

class TestExporter : public QObject {
    Q_OBJECT
private Q_SLOTS:
    /// One action per format, in the order of exportFormats(); each runs the callback with its kind.
    void menuActions() {
        QMenu menu;
        std::vector<ExportKind> chosen;
        addExportActions(&menu, [&](ExportKind kind) { chosen.push_back(kind); });
        QStringList texts;
        for (QAction* a : menu.actions())
            if (!a->isSeparator()) {
                texts << a->text();
                a->trigger();
            }
        QCOMPARE(texts.size(), qsizetype(exportFormats().size()));
        QCOMPARE(chosen.size(), exportFormats().size());
        for (std::size_t i = 0; i < chosen.size(); ++i)
            QCOMPARE(chosen[i], exportFormats()[i].kind);
        for (const char* wanted : {"speedscope", "pprof", "Interactive SVG", "Folded", "PNG"})
            QVERIFY2(texts.join(u'|').remove(u'&').contains(QString::fromUtf8(wanted), Qt::CaseInsensitive),
                     wanted);
        QCOMPARE(exportFormat(ExportKind::Speedscope).suffix, ".speedscope.json");
    }

    /// speedscope, pprof and interactive SVG files of the opened profile: they read back with the same total
    /// (the SVG is well-formed and titled after the file), and the input is never written.
    void profileFormats() {
        QTemporaryDir dir;
        const QString input = dir.filePath(QStringLiteral("input.folded"));
        QVERIFY(QFile::copy(test::flameFixture("simple.folded"), input));
        const Profile original = importProfile(input.toStdString());
        MainWindow w;
        w.resize(1000, 700);
        w.show();
        ProfileTab* tab = w.openFile(input);
        QVERIFY(waitLoaded(tab));

        for (ExportKind kind : {ExportKind::Speedscope, ExportKind::Pprof, ExportKind::InteractiveSvg})
            QVERIFY(w.exportCurrent(kind, input).contains(QStringLiteral("input.folded")));
        QCOMPARE(importProfile(input.toStdString()).tree.grandTotal(0), original.tree.grandTotal(0));

        const QString json = dir.filePath(QStringLiteral("out.speedscope.json"));
        QCOMPARE(w.exportCurrent(ExportKind::Speedscope, json), QString());
        const Profile fromJson = importProfile(json.toStdString());
        QCOMPARE(fromJson.meta.format, std::string("speedscope"));
        QCOMPARE(fromJson.tree.grandTotal(0), original.tree.grandTotal(0));

        const QString pb = dir.filePath(QStringLiteral("out.pb.gz"));
        QCOMPARE(w.exportCurrent(ExportKind::Pprof, pb), QString());
        QVERIFY(test::readAll(pb).startsWith("\x1f\x8b"));
        const Profile fromPprof = importProfile(pb.toStdString());
        QCOMPARE(fromPprof.tree.grandTotal(0), original.tree.grandTotal(0));

        const QString svg = dir.filePath(QStringLiteral("out.svg"));
        QCOMPARE(w.exportCurrent(ExportKind::InteractiveSvg, svg), QString());
        const QByteArray bytes = test::readAll(svg);
        QXmlStreamReader xml(bytes);
        while (!xml.atEnd())
            xml.readNext();
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(bytes.contains("<text id=\"title\"") && bytes.contains(">input.folded</text>"));
        QVERIFY(bytes.contains("function scorchInit"));
    }
};

QTEST_MAIN(TestExporter)
#include "tst_exporter.moc"
