// Interactive flame graph SVG: well-formed XML, frames and their counts against the call tree, merging of
// narrow frames, icicle orientation, palettes, escaping, and the embedded script.
#include "exporttestutil.h"
#include "patience.h"

#include "scorch/export.h"
#include "scorch/flamecolors.h"
#include "scorch/flamelayout.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QXmlStreamReader>

#include <algorithm>
#include <cmath>
#include <set>

using namespace scorch;

namespace {

struct SvgFrame {
    QString title;
    double x = 0, y = 0, width = 0;
    QString fill, label;
    bool merged = false;
    double coldX = 0, coldWidth = 0; ///< hot/cold: the off-CPU part (rect class "c"), width 0 when none
    QString coldFill;
};

struct ParsedSvg {
    QString error;
    double width = 0, height = 0;
    QString script;
    QString title;
    std::vector<SvgFrame> frames;
};

/// Parses the SVG with QXmlStreamReader: any XML error is reported; frames are the <g> of g#frames.
ParsedSvg parse(const std::string& text) {
    ParsedSvg out;
    QXmlStreamReader xml(QByteArray::fromStdString(text));
    bool inFrames = false;
    SvgFrame* current = nullptr;
    QString textOf;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            const auto name = xml.name();
            const QXmlStreamAttributes a = xml.attributes();
            if (name == u"svg") {
                out.width = a.value(QStringLiteral("width")).toDouble();
                out.height = a.value(QStringLiteral("height")).toDouble();
            } else if (name == u"script") {
                out.script = xml.readElementText();
            } else if (name == u"g" && a.value(QStringLiteral("id")) == u"frames") {
                inFrames = true;
            } else if (name == u"g" && inFrames) {
                out.frames.emplace_back();
                current = &out.frames.back();
                current->merged = a.value(QStringLiteral("class")) == u"m";
            } else if (current && name == u"title") {
                current->title = xml.readElementText();
            } else if (current && name == u"rect" && a.value(QStringLiteral("class")) == u"c") {
                current->coldX = a.value(QStringLiteral("x")).toDouble();
                current->coldWidth = a.value(QStringLiteral("width")).toDouble();
                current->coldFill = a.value(QStringLiteral("fill")).toString();
            } else if (current && name == u"rect") {
                current->x = a.value(QStringLiteral("x")).toDouble();
                current->y = a.value(QStringLiteral("y")).toDouble();
                current->width = a.value(QStringLiteral("width")).toDouble();
                current->fill = a.value(QStringLiteral("fill")).toString();
            } else if (current && name == u"text") {
                current->label = xml.readElementText();
            } else if (name == u"text" && a.value(QStringLiteral("id")) == u"title") {
                out.title = xml.readElementText();
            }
        } else if (xml.isEndElement() && xml.name() == u"g") {
            if (current)
                current = nullptr;
            else
                inFrames = false;
        }
    }
    if (xml.hasError())
        out.error = xml.errorString() + QStringLiteral(" at line ") + QString::number(xml.lineNumber());
    return out;
}

std::string svgOf(const Profile& p, const SvgOptions& o = {}) {
    return test::written([&](std::ostream& out) { writeFlameGraphSvg(p, o, out); });
}

/// Runs the SVG's script under node with tests/data/svg/harness.js (a stand-in for the browser DOM) and
/// returns the state after each action; empty when node is not installed.
QJsonArray runScript(const ParsedSvg& svg, const QJsonArray& actions) {
    const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
    if (node.isEmpty())
        return {};
    QTemporaryDir dir;
    QJsonArray frames;
    for (const SvgFrame& f : svg.frames)
        frames.append(QJsonObject{{QStringLiteral("title"), f.title},
                                  {QStringLiteral("x"), f.x},
                                  {QStringLiteral("y"), f.y},
                                  {QStringLiteral("width"), f.width},
                                  {QStringLiteral("fill"), f.fill},
                                  {QStringLiteral("label"), f.label},
                                  {QStringLiteral("merged"), f.merged}});
    auto write = [&](const QString& name, const QByteArray& bytes) {
        QFile file(dir.filePath(name));
        file.open(QIODevice::WriteOnly);
        file.write(bytes);
        return file.fileName();
    };
    QProcess p;
    p.start(node, {test::testData(QStringLiteral("svg/harness.js")),
                   write(QStringLiteral("script.js"), svg.script.toUtf8()),
                   write(QStringLiteral("frames.json"), QJsonDocument(frames).toJson()),
                   write(QStringLiteral("actions.json"), QJsonDocument(actions).toJson())});
    p.waitForFinished(scorch::test::kPatienceMs);
    if (p.exitCode() != 0)
        qWarning() << p.readAllStandardError();
    QJsonArray states;
    for (const QByteArray& line : p.readAllStandardOutput().split('\n'))
        if (!line.isEmpty())
            states.append(QJsonDocument::fromJson(line).object());
    return states;
}

QString nameOf(const SvgFrame& f) {
    return f.title.left(f.title.lastIndexOf(QStringLiteral(" (")));
}

} // namespace

class TestExportSvg : public QObject {
    Q_OBJECT
private Q_SLOTS:
    /// A real perf recording: every frame's title names a node of the tree with its total and percentage,
    /// its width is that share of the image, and the roots span the whole width.
    void framesMatchTheTree() {
        SCORCH_REQUIRE_CORPUS();
        const Profile p =
            importProfile((test::corpusDir() +
                           QStringLiteral("/perf-script/inputs/flamegraph/test/perf-vertx-stacks-01.txt"))
                              .toStdString());
        SvgOptions o;
        o.title = "vert.x <test> & more";
        const ParsedSvg svg = parse(svgOf(p, o));
        QVERIFY2(svg.error.isEmpty(), qPrintable(svg.error));
        QCOMPARE(svg.title, QStringLiteral("vert.x <test> & more"));
        QCOMPARE(svg.width, 1200.0);
        const double full = 1180, grand = static_cast<double>(p.tree.grandTotal(0));
        std::multimap<QString, int64_t> totals;
        for (NodeId n = 1; n < p.tree.size(); ++n)
            totals.emplace(QString::fromUtf8(p.nodeName(n)), p.tree.total(0, n));
        double rootWidth = 0, bottom = 0;
        for (const SvgFrame& f : svg.frames)
            bottom = std::max(bottom, f.y);
        std::size_t drawn = 0;
        for (const SvgFrame& f : svg.frames) {
            QVERIFY2(f.width >= 0.1 - 1e-3, qPrintable(f.title));
            if (f.y == bottom)
                rootWidth += f.width;
            if (f.merged)
                continue;
            ++drawn;
            bool found = false;
            for (auto [it, end] = totals.equal_range(nameOf(f)); it != end && !found; ++it) {
                const QString count = QString::fromStdString(formatCost(it->second, p.costTypes[0]));
                const QString pct = QString::number(100.0 * static_cast<double>(it->second) / grand, 'f', 2);
                found = f.title.contains(QStringLiteral("(") + count) &&
                        f.title.endsWith(pct + QStringLiteral("%)")) &&
                        std::abs(f.width - full * static_cast<double>(it->second) / grand) < 0.01;
            }
            QVERIFY2(found, qPrintable(f.title));
            if (!f.label.isEmpty()) // labels are the name or its start with ".."
                QVERIFY(nameOf(f).startsWith(f.label.endsWith(QStringLiteral("..")) ? f.label.chopped(2)
                                                                                    : f.label));
        }
        QVERIFY(std::abs(rootWidth - full) < 0.01);
        QVERIFY(drawn > 100);
        QVERIFY(svg.script.contains(QStringLiteral("function scorchInit")));
        QVERIFY(svg.script.contains(QStringLiteral("\"Matched: \"")));
        QVERIFY(!svg.script.contains(QStringLiteral("@"))); // every placeholder was filled in
    }

    /// The SVG draws the window's layout: its frames are FlameLayout's blocks at the image width (same
    /// level of detail: the same narrow frames merged), in the window's colours for the chosen scheme.
    void framesAreTheWindowLayout() {
        SCORCH_REQUIRE_CORPUS();
        const Profile p =
            importProfile((test::corpusDir() +
                           QStringLiteral("/perf-script/inputs/flamegraph/test/perf-vertx-stacks-01.txt"))
                              .toStdString());
        for (const FlameColorScheme scheme : {FlameColorScheme::Hot, FlameColorScheme::Module,
                                              FlameColorScheme::Kind, FlameColorScheme::Java}) {
            for (const int width : {300, 1200, 5000}) {
                SvgOptions o;
                o.palette = scheme;
                o.width = width;
                o.minWidth = 2; // the window's minimum frame width: narrow neighbours merge
                const ParsedSvg svg = parse(svgOf(p, o));
                QVERIFY2(svg.error.isEmpty(), qPrintable(svg.error));
                FlameLayout layout;
                layout.setTree(&p.tree, 0);
                FlameViewport vp;
                vp.end = static_cast<double>(p.tree.grandTotal(0));
                vp.pixelWidth = width - 20;
                vp.firstDepth = 1;
                vp.minFrameWidth = o.minWidth;
                const std::vector<FlameBlock> blocks = layout.blocks(vp);
                QCOMPARE(svg.frames.size(), blocks.size());
                std::size_t merged = 0, coloured = 0;
                for (std::size_t i = 0; i < blocks.size(); ++i) {
                    const FlameBlock& b = blocks[i];
                    const SvgFrame& f = svg.frames[i];
                    QVERIFY(std::abs(f.x - (10 + b.x)) < 1e-3);
                    QVERIFY(std::abs(f.width - b.width) < 1e-3);
                    QCOMPARE(f.merged, b.merged());
                    const FlameColors colors(&p, scheme);
                    if (b.merged()) {
                        ++merged;
                        QVERIFY(
                            f.title.startsWith(QString::number(b.count) + QStringLiteral(" narrow frames")));
                        QCOMPARE(f.fill.toStdString(), cssRgb(colors.mergedColor()));
                        continue;
                    }
                    QCOMPARE(nameOf(f), QString::fromUtf8(p.frameName(p.tree.frame(b.node))));
                    const Rgb fill = b.tiny ? colors.mergedColor() : colors.frameColor(p.tree.frame(b.node));
                    QCOMPARE(f.fill.toStdString(), cssRgb(fill));
                    coloured += b.tiny ? 0 : 1;
                }
                QVERIFY(coloured > 20);
                if (width == 300)
                    QVERIFY(merged > 0); // at 300 pixels narrow neighbours of this profile merge
            }
        }
    }

    /// 100 000 narrow siblings become one grey block of their combined width and count; nothing of them is
    /// drawn one by one, and the file stays small.
    void narrowFramesMerge() {
        std::string text = "root;big 100000\n";
        for (int i = 0; i < 100000; ++i)
            text += "root;f" + std::to_string(i) + ";g 1\n";
        const Profile p = test::fromFolded(text);
        const std::string out = svgOf(p);
        QVERIFY(out.size() < 20000);
        const ParsedSvg svg = parse(out);
        QVERIFY2(svg.error.isEmpty(), qPrintable(svg.error));
        QCOMPARE(svg.frames.size(), std::size_t{3});
        const SvgFrame& merged = svg.frames[2];
        QVERIFY(merged.merged);
        QCOMPARE(merged.fill, QStringLiteral("rgb(184,184,184)")); // the window's grey on white
        QVERIFY(
            merged.title.startsWith(QStringLiteral("100000 narrow frames merged (100,000 samples, 50.00%)")));
        QVERIFY(std::abs(merged.width - 590) < 0.01);
        QVERIFY(std::abs(merged.x - (10 + 590)) < 0.01);
        // --minwidth 0 draws every frame
        SvgOptions all;
        all.minWidth = 0;
        all.width = 100000;
        std::string small = "root;big 10\n";
        for (int i = 0; i < 1000; ++i)
            small += "root;f" + std::to_string(i) + " 1\n";
        QCOMPARE(parse(svgOf(test::fromFolded(small), all)).frames.size(), std::size_t{1002});
    }

    /// A profile of a million samples over 200 000 distinct deep stacks stays a browser-sized file.
    void millionSamples() {
        std::string text;
        uint64_t seed = 1;
        for (int i = 0; i < 200000; ++i) {
            std::string stack = "main";
            for (int d = 0; d < 20; ++d) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                stack += ";fn" + std::to_string((seed >> 33) % (d < 3 ? 4 : 50));
            }
            text += stack + " 5\n";
        }
        const Profile p = test::fromFolded(text);
        QCOMPARE(p.tree.grandTotal(0), 1'000'000);
        const std::string out = svgOf(p);
        const ParsedSvg svg = parse(out);
        QVERIFY2(svg.error.isEmpty(), qPrintable(svg.error));
        QVERIFY2(out.size() < 8'000'000, qPrintable(QString::number(out.size())));
        QVERIFY(svg.frames.size() < 40000);
        QVERIFY(p.tree.size() > 1'000'000); // ... while the tree has millions of nodes
    }

    /// Costs that saturate (a corrupt or hostile input) still give a well-formed SVG: positions saturate
    /// instead of overflowing (found by fuzz_export; the ASan/UBSan suite runs this test).
    void saturatedCosts() {
        const Profile p = test::fromFolded("a;b 9223372036854775807\na;c 900000000000000000\na;d 1\n");
        const ParsedSvg svg = parse(svgOf(p));
        QVERIFY(!svg.frames.empty());
    }

    /// --inverted puts the roots at the top: y grows with depth instead of shrinking.
    void icicle() {
        const Profile p = test::fromFolded("a;b;c 2\na;d 1\n");
        SvgOptions o;
        const ParsedSvg flame = parse(svgOf(p, o));
        o.inverted = true;
        const ParsedSvg icicle = parse(svgOf(p, o));
        auto yOf = [](const ParsedSvg& s, const QString& name) {
            for (const SvgFrame& f : s.frames)
                if (nameOf(f) == name)
                    return f.y;
            return -1.0;
        };
        QVERIFY(yOf(flame, QStringLiteral("a")) > yOf(flame, QStringLiteral("b")));
        QVERIFY(yOf(flame, QStringLiteral("b")) > yOf(flame, QStringLiteral("c")));
        QVERIFY(yOf(icicle, QStringLiteral("a")) < yOf(icicle, QStringLiteral("b")));
        QVERIFY(yOf(icicle, QStringLiteral("b")) < yOf(icicle, QStringLiteral("c")));
        QVERIFY(icicle.script.contains(QStringLiteral("INVERTED = true")));
        QVERIFY(flame.script.contains(QStringLiteral("INVERTED = false")));
    }

    /// Every palette gives well-formed output; colours are deterministic per name, differ between palettes,
    /// and the java palette tells kernel, inlined, JIT and C++ frames apart.
    void palettes() {
        const Profile p = importProfile(test::testData(QStringLiteral("perf/two-events.perf")).toStdString());
        std::set<QString> firstFills;
        for (std::string_view name : {"hot", "module", "kind", "system", "diff", "mem", "io", "java", "js",
                                      "red", "green", "blue", "aqua", "yellow", "purple", "orange"}) {
            SvgOptions o;
            QVERIFY(svgPaletteFromName(name, o.palette));
            QVERIFY(svgPaletteNames().find(name) != std::string_view::npos);
            const std::string a = svgOf(p, o);
            QCOMPARE(svgOf(p, o), a);
            const ParsedSvg svg = parse(a);
            QVERIFY2(svg.error.isEmpty(), qPrintable(svg.error));
            QVERIFY(!svg.frames.empty());
            firstFills.insert(svg.frames.front().fill);
        }
        QVERIFY(firstFills.size() >= 13);
        SvgPalette none;
        QVERIFY(!svgPaletteFromName("rainbow", none));

        const Profile q = test::fromText("java 1 1.0: 1 cpu-clock:\n"
                                         "\t1 A->B (/tmp/perf-1.map)\n"
                                         "\t2 std::vector<int>::push_back (/usr/lib/libx.so)\n"
                                         "\t3 do_syscall_64 ([kernel.kallsyms])\n\n",
                                         "java.perf");
        SvgOptions o;
        o.palette = SvgPalette::Java;
        std::map<QString, QString> fills;
        for (const SvgFrame& f : parse(svgOf(q, o)).frames)
            fills[nameOf(f)] = f.fill;
        auto hue = [](const QString& rgb) { // degrees, from "rgb(r,g,b)"
            const QStringList c = rgb.mid(4, rgb.size() - 5).split(u',');
            const double r = c[0].toDouble(), g = c[1].toDouble(), b = c[2].toDouble();
            const double hi = std::max({r, g, b}), lo = std::min({r, g, b});
            if (hi == lo)
                return 0.0;
            double h = hi == r   ? std::fmod((g - b) / (hi - lo), 6.0)
                       : hi == g ? (b - r) / (hi - lo) + 2
                                 : (r - g) / (hi - lo) + 4;
            h *= 60;
            return h < 0 ? h + 360 : h;
        };
        QVERIFY(hue(fills[QStringLiteral("do_syscall_64")]) < 45); // kernel: orange
        QVERIFY(hue(fills[QStringLiteral("B")]) > 160);            // inlined: aqua
        QVERIFY(hue(fills[QStringLiteral("A")]) > 80);             // JIT: green
        QVERIFY(hue(fills[QStringLiteral("A")]) < 140);
        QVERIFY(hue(fills[QStringLiteral("std::vector<int>::push_back")]) >= 45); // C++: yellow
    }

    /// Names with markup characters, control characters and invalid UTF-8 still give well-formed XML.
    void escaping() {
        const Profile p = test::fromFolded("<main> & \"x\";f\x01g\xff;'q' 3\n");
        SvgOptions o;
        o.title = "t\xfe<";
        const ParsedSvg svg = parse(svgOf(p, o));
        QVERIFY2(svg.error.isEmpty(), qPrintable(svg.error));
        QCOMPARE(svg.frames.size(), std::size_t{3});
        QCOMPARE(nameOf(svg.frames[0]), QStringLiteral("<main> & \"x\""));
        QCOMPARE(nameOf(svg.frames[1]), QStringLiteral("f\ufffdg\ufffd"));
    }

    /// The embedded script, run under node against a stand-in DOM: clicking a frame zooms to it (its
    /// descendants scale up, its ancestors span the width dimmed, everything else hides), search reports the
    /// matched share of the view counting nested matches once, reset zoom and Esc restore the layout.
    void scriptZoomAndSearch() {
        const Profile p =
            test::fromFolded("a;b 2\na;c 1\na;c;d 1\na;c;c 2\n"); // total 6: b 2, c 4 (c;d 1, c;c 2)
        const ParsedSvg svg = parse(svgOf(p));
        QVERIFY2(svg.error.isEmpty(), qPrintable(svg.error));
        std::map<QString, int> index;
        for (std::size_t i = 0; i < svg.frames.size(); ++i)
            if (!index.count(nameOf(svg.frames[i])))
                index[nameOf(svg.frames[i])] = static_cast<int>(i); // the first c is the outer one (preorder)
        QCOMPARE(svg.frames.size(), std::size_t{5});
        const int a = index[QStringLiteral("a")], b = index[QStringLiteral("b")],
                  c = index[QStringLiteral("c")], d = index[QStringLiteral("d")];
        const QJsonArray actions = {QJsonObject{{QStringLiteral("click"), c}},
                                    QJsonObject{{QStringLiteral("search"), QStringLiteral("^c$")}},
                                    QJsonObject{{QStringLiteral("resetZoom"), true}},
                                    QJsonObject{{QStringLiteral("search"), QStringLiteral("d|b")}},
                                    QJsonObject{{QStringLiteral("click"), d}},
                                    QJsonObject{{QStringLiteral("key"), QStringLiteral("Escape")}},
                                    QJsonObject{{QStringLiteral("resetSearch"), true}}};
        const QJsonArray states = runScript(svg, actions);
        if (states.isEmpty() && QStandardPaths::findExecutable(QStringLiteral("node")).isEmpty())
            QSKIP("node is not installed: the SVG script is not run");
        QCOMPARE(states.size(), actions.size());
        auto frame = [&](int state, int i) {
            return states[state][QStringLiteral("frames")][i].toObject();
        };
        auto near = [](double x, double y) {
            return std::abs(x - y) < 0.01;
        };
        // zoomed to c (4 of 6): c spans the width, d is 1/4 of it, b hides, a is a dimmed ancestor
        QVERIFY(near(frame(0, c)[QStringLiteral("x")].toDouble(), 10));
        QVERIFY(near(frame(0, c)[QStringLiteral("width")].toDouble(), 1180));
        QVERIFY(near(frame(0, d)[QStringLiteral("width")].toDouble(), 1180 / 4.0));
        QCOMPARE(frame(0, b)[QStringLiteral("display")].toString(), QStringLiteral("none"));
        QCOMPARE(frame(0, a)[QStringLiteral("display")].toString(), QString());
        QCOMPARE(frame(0, a)[QStringLiteral("opacity")].toString(), QStringLiteral("0.6"));
        QVERIFY(near(frame(0, a)[QStringLiteral("width")].toDouble(), 1180));
        // c and the nested c;c match: the view is covered once
        QCOMPARE(states[1][QStringLiteral("matched")].toString(), QStringLiteral("Matched: 100.0%"));
        QCOMPARE(frame(1, c)[QStringLiteral("fill")].toString(), QStringLiteral("rgb(230,0,230)"));
        // reset zoom: the search is re-applied to the whole graph, c covers 4 of 6
        QVERIFY(near(frame(2, b)[QStringLiteral("width")].toDouble(), svg.frames[b].width));
        QCOMPARE(frame(2, b)[QStringLiteral("display")].toString(), QString());
        QCOMPARE(states[2][QStringLiteral("matched")].toString(), QStringLiteral("Matched: 66.7%"));
        QCOMPARE(states[3][QStringLiteral("matched")].toString(),
                 QStringLiteral("Matched: 50.0%")); // b 2 + d 1
        QCOMPARE(states[4][QStringLiteral("matched")].toString(),
                 QStringLiteral("Matched: 100.0%"));                                         // zoomed to d
        QVERIFY(near(frame(5, c)[QStringLiteral("width")].toDouble(), svg.frames[c].width)); // Esc
        QVERIFY(!states[6][QStringLiteral("matchedShown")].toBool());
        QCOMPARE(frame(6, b)[QStringLiteral("fill")].toString(), svg.frames[b].fill);
        // labels are recomputed for the zoomed width
        QVERIFY(frame(4, d)[QStringLiteral("label")].toString() == QStringLiteral("d"));
    }

    /// Hot/cold (an off-CPU profile drawn by wall time): each frame with off-CPU time has a second, blue rect
    /// over the right share of its box, as the window draws it; drawn by cpu-clock, none.
    void hotCold() {
        const Profile p = test::fromText(
            test::readAll(test::testData(QStringLiteral("offcpu/hotcold.perfscript"))).toStdString(),
            "hotcold.perfscript");
        const int wall = p.costTypeIndex("wall"), off = p.costTypeIndex("off-cpu");
        QVERIFY(wall >= 0 && off >= 0);
        SvgOptions o;
        o.costType = wall;
        const ParsedSvg svg = parse(svgOf(p, o));
        QVERIFY2(svg.error.isEmpty(), qPrintable(svg.error));
        FlameColors colors(&p, FlameColorScheme::Hot);
        colors.setHotCold(&p.tree, static_cast<std::size_t>(wall));
        int cold = 0;
        for (const SvgFrame& f : svg.frames) {
            const QString name = nameOf(f);
            NodeId node = kRootNode;
            for (NodeId n = 1; n < p.tree.size(); ++n)
                if (QString::fromStdString(std::string(p.frameName(p.tree.frame(n)))) == name)
                    node = n;
            if (node == kRootNode || f.merged)
                continue;
            const double share = colors.coldShare(node);
            if (share <= 0) {
                QCOMPARE(f.coldWidth, 0.0);
                continue;
            }
            ++cold;
            QVERIFY2(std::abs(f.coldWidth - f.width * share) < 0.01, qPrintable(name));
            QVERIFY(std::abs(f.coldX + f.coldWidth - (f.x + f.width)) < 0.01); // at the right end
            QCOMPARE(f.coldFill, QString::fromStdString(cssRgb(colors.coldColor(p.tree.frame(node)))));
        }
        QVERIFY(cold >= 3); // main, sleepy, schedule, [blocked: S]
        o.costType = p.costTypeIndex("cpu-clock");
        for (const SvgFrame& f : parse(svgOf(p, o)).frames)
            QCOMPARE(f.coldWidth, 0.0);
    }

    /// An empty profile gives a valid image that says so.
    void empty() {
        const Profile p = test::fromFolded("a 0\n");
        const std::string out = svgOf(p);
        const ParsedSvg svg = parse(out);
        QVERIFY2(svg.error.isEmpty(), qPrintable(svg.error));
        QVERIFY(svg.frames.empty());
        QVERIFY(out.find("No samples") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestExportSvg)
#include "tst_exportsvg.moc"
