// File > Export in the formats of `scorch convert` and `scorch svg`: the menu actions, and what the written
// files read back as (through the main window, as the menu runs them).
#include "apptestutil.h"
#include "exporter.h"
#include "exporttestutil.h"
#include "flame/flamegraphpanel.h"
#include "mainwindow.h"
#include "profiletab.h"
#include "widgettestutil.h"

#include "scorch/import.h"

#include <QApplication>
#include <QFile>
#include <QImage>
#include <QMenu>
#include <QTemporaryDir>
#include <QXmlStreamReader>

#include <map>
#include <set>

using namespace scorch;

namespace {
bool writeBytes(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}
} // namespace

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
        QCOMPARE(fromJson.meta.format, Format::Speedscope);
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

    /// PNG and SVG of the chart as shown are cropped to the rows that hold frames, also when zoomed on a
    /// shallow part of a deep profile.
    void chartExportsAreCropped() {
        QTemporaryDir dir;
        MainWindow w;
        w.resize(1024, 900);
        w.show();
        ProfileTab* tab = w.openFile(QStringLiteral(SCORCH_TEST_DATA "/gui/small.folded"));
        QVERIFY(waitLoaded(tab));
        FlameGraphView* view = tab->panel()->view();
        view->setAnimationDuration(0);
        const int row = view->rowHeight();
        const QString png = dir.filePath(QStringLiteral("chart.png"));
        QCOMPARE(w.exportCurrent(ExportKind::Png, png), QString());
        QImage image(png);
        QCOMPARE(image.height(), 6 * row);        // all, main, run, recurse, recurse, leaf
        QVERIFY(view->height() > image.height()); // the view is taller: its blank top is cropped
        // Zoomed on "other" (other;compute): three rows.
        view->zoomTo(test::nodeByPath(*view->data(), {"other"}));
        QCOMPARE(w.exportCurrent(ExportKind::Png, png), QString());
        image = QImage(png);
        QCOMPARE(image.height(), std::max(20, 3 * row));
        QCOMPARE(image.width(), view->width());
        const QString svg = dir.filePath(QStringLiteral("chart.svg"));
        QCOMPARE(w.exportCurrent(ExportKind::Svg, svg), QString());
        const QByteArray svgText = test::readAll(svg);
        QVERIFY2(svgText.contains(QStringLiteral("viewBox=\"0 0 %1 %2\"")
                                      .arg(view->width())
                                      .arg(std::max(20, 3 * row))
                                      .toUtf8()),
                 svgText.left(600).constData());
    }

    /// The interactive SVG merges frames narrower than a pixel at its width (400 siblings of half a pixel
    /// each become merged runs), so a deep recording does not write tens of thousands of invisible frames.
    void interactiveSvgMergesSubPixelFrames() {
        QTemporaryDir dir;
        const QString input = dir.filePath(QStringLiteral("narrow.folded"));
        QByteArray text = "main;big 2000\n";
        for (int i = 0; i < 400; ++i)
            text += "main;tiny" + QByteArray::number(i) + " 1\n";
        QVERIFY(writeBytes(input, text));
        MainWindow w;
        w.resize(1000, 700);
        w.show();
        QVERIFY(waitLoaded(w.openFile(input)));
        const QString svg = dir.filePath(QStringLiteral("narrow.svg"));
        QCOMPARE(w.exportCurrent(ExportKind::InteractiveSvg, svg), QString());
        const QByteArray bytes = test::readAll(svg);
        QVERIFY(bytes.contains("narrow frames merged"));
        QXmlStreamReader xml(bytes);
        int frames = 0, narrow = 0;
        bool merged = false;
        while (!xml.atEnd()) {
            xml.readNext();
            if (!xml.isStartElement())
                continue;
            if (xml.name() == QStringLiteral("g"))
                merged = xml.attributes().value(QStringLiteral("class")) == QStringLiteral("m");
            else if (xml.name() == QStringLiteral("rect") &&
                     xml.attributes().value(QStringLiteral("height")) == QStringLiteral("15")) {
                ++frames;
                if (!merged && xml.attributes().value(QStringLiteral("width")).toDouble() < 1.0)
                    ++narrow;
            }
        }
        QVERIFY(frames >= 3); // all, main, big and the merged run(s)
        QVERIFY(frames < 50); // not 400 tiny ones
        QCOMPARE(narrow, 0);
    }

    /// File > Export > Interactive SVG colours frames as the window shows them: for each colour scheme, the
    /// fill of the exported frames equals the pixel the flame graph paints for the same frame.
    void svgColoursAreTheWindows() {
        SCORCH_REQUIRE_CORPUS();
        QTemporaryDir dir;
        const QString input = test::corpusDir() +
                              QStringLiteral("/perf-script/inputs/flamegraph/test/perf-vertx-stacks-01.txt");
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        ProfileTab* tab = w.openFile(input);
        QVERIFY(waitLoaded(tab));
        FlameGraphView* view = tab->panel()->view();
        const auto data = tab->panel()->data();
        const CallTree& tree = data->tree;
        // frames whose name occurs once and that are wide enough on screen to show their fill
        std::map<std::string, int> seen;
        for (NodeId n = 1; n < tree.size(); ++n)
            ++seen[std::string(data->profile->nodeName(n))];
        std::vector<NodeId> named;
        for (NodeId n = 1; n < tree.size() && named.size() < 12; ++n)
            if (seen[std::string(data->profile->nodeName(n))] == 1 && view->nodeRect(n).width() > 40)
                named.push_back(n);
        QVERIFY(named.size() >= 6);

        for (const auto scheme : {FlameGraphView::ColorScheme::Hot, FlameGraphView::ColorScheme::Module,
                                  FlameGraphView::ColorScheme::Kind, FlameGraphView::ColorScheme::System}) {
            tab->panel()->setColorScheme(scheme);
            const QImage shown = view->renderImage(view->size());
            const QString svg = dir.filePath(QStringLiteral("colours.svg"));
            QCOMPARE(w.exportCurrent(ExportKind::InteractiveSvg, svg), QString());
            std::map<QString, QString> fills; // frame name -> fill
            QXmlStreamReader xml(test::readAll(svg));
            QString title;
            while (!xml.atEnd()) {
                xml.readNext();
                if (xml.isStartElement() && xml.name() == u"title")
                    title = xml.readElementText();
                else if (xml.isStartElement() && xml.name() == u"rect" && !title.isEmpty())
                    fills[title.left(title.lastIndexOf(QStringLiteral(" (")))] =
                        xml.attributes().value(QStringLiteral("fill")).toString();
            }
            QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
            std::set<QString> distinct;
            for (NodeId n : named) {
                const QString name = QString::fromUtf8(data->profile->nodeName(n));
                const QRectF r = view->nodeRect(n);
                const QRgb pixel =
                    shown.pixel(QPoint(static_cast<int>(r.right()) - 3, static_cast<int>(r.top()) + 2));
                const QString expected =
                    QStringLiteral("rgb(%1,%2,%3)").arg(qRed(pixel)).arg(qGreen(pixel)).arg(qBlue(pixel));
                QVERIFY2(fills.count(name), qPrintable(name));
                QCOMPARE(fills[name], expected);
                distinct.insert(expected);
            }
            QVERIFY(distinct.size() >= 3); // the frames really are coloured apart
        }
    }
};

QTEST_MAIN(TestExporter)
#include "tst_exporter.moc"
