// File > Export in the formats of `scorch convert` and `scorch svg`: the menu actions, and what the written
// files read back as (through the main window, as the menu runs them).
#include "apptestutil.h"
#include "exporter.h"
#include "exporttestutil.h"
#include "flame/flamegraphpanel.h"
#include "mainwindow.h"
#include "profiletab.h"
#include "widgettestutil.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QMenu>
#include <QTemporaryDir>
#include <QXmlStreamReader>

using namespace scorch;

using scorch::test::waitLoaded;

namespace {

/// Every stack (frame names, root first) with its cost, as text: a writer that lost or reshaped stacks shows
/// up, not only one that lost cost. Names as the profile holds them: the folded writer's spelling of a
/// perf process root (`worker thread 2` as `worker_thread_2`) depends on the frame kind, which speedscope
/// does not keep.
QString folded(const Profile& p, int costType = 0) {
    QString out;
    for (const auto& [stack, cost] : test::stacksByName(p, costType, p.costTypes[costType].decimals))
        out += QString::fromStdString(stack).replace(QChar(0x1f), QLatin1Char(';')) + u' ' +
               QString::number(cost) + u'\n';
    return out;
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

    /// A perf profile with three threads, two events and kernel frames, exported through the window as
    /// speedscope (the shown event) and pprof (every event): each reads back with the same stacks and counts.
    void roundTripKeepsEveryStack() {
        QTemporaryDir dir;
        const QString input = test::testData(QStringLiteral("perf/two-events.perf"));
        const Profile original = importProfile(input.toStdString());
        QCOMPARE(original.costTypes.size(), std::size_t(2));
        MainWindow w;
        ProfileTab* tab = w.openFile(input);
        QVERIFY(waitLoaded(tab));

        const QString json = dir.filePath(QStringLiteral("out.speedscope.json"));
        QCOMPARE(w.exportCurrent(ExportKind::Speedscope, json), QString());
        QCOMPARE(folded(importProfile(json.toStdString())), folded(original));

        const QString pb = dir.filePath(QStringLiteral("out.pb.gz"));
        QCOMPARE(w.exportCurrent(ExportKind::Pprof, pb), QString());
        const Profile fromPprof = importProfile(pb.toStdString());
        QCOMPARE(fromPprof.costTypes.size(), original.costTypes.size());
        for (int type = 0; type < 2; ++type) {
            QCOMPARE(fromPprof.costTypes[type].name, original.costTypes[type].name);
            QCOMPARE(folded(fromPprof, type), folded(original, type));
        }
    }

    /// speedscope, pprof and interactive SVG files of the opened profile: they read back with the same
    /// stacks and counts (the SVG is well-formed and titled after the file), and the input is never written.
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
        QCOMPARE(folded(fromJson), folded(original));

        const QString pb = dir.filePath(QStringLiteral("out.pb.gz"));
        QCOMPARE(w.exportCurrent(ExportKind::Pprof, pb), QString());
        QVERIFY(test::readAll(pb).startsWith("\x1f\x8b"));
        const Profile fromPprof = importProfile(pb.toStdString());
        QCOMPARE(folded(fromPprof), folded(original));

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
