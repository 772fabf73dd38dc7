// Source-line costs: the per-function analysis, the source file locator and perf script srclines.
#include "patience.h"
#include "scorch/builder.h"
#include "scorch/foldedwriter.h"
#include "scorch/sourcecost.h"
#include "scorch/sourcelocator.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <set>
#include <sstream>
#include <tuple>

using namespace scorch;

namespace {

FrameId frameNamed(const Profile& p, std::string_view name) {
    for (uint32_t id = 1; id < p.frames.size(); ++id)
        if (p.frameName(FrameId{id}) == name && p.frames[FrameId{id}].kind != FrameKind::Process)
            return FrameId{id};
    return {};
}

/// Expected line costs computed straight from perf script text with srclines: (function, file, line) ->
/// (self, total) in the event's period, total counting a sample once per (function, file, line).
using LineKey = std::tuple<std::string, std::string, uint32_t>;
std::map<LineKey, std::pair<int64_t, int64_t>> expectedLineCosts(const QByteArray& text) {
    std::map<LineKey, std::pair<int64_t, int64_t>> out;
    const QList<QByteArray> lines = text.split('\n');
    int64_t period = 0;
    std::vector<LineKey> stack; // leaf first
    std::string lastFunction;
    auto flush = [&] {
        std::set<LineKey> seen;
        for (std::size_t k = 0; k < stack.size(); ++k) {
            if (k == 0)
                out[stack[k]].first += period;
            if (seen.insert(stack[k]).second)
                out[stack[k]].second += period;
        }
        stack.clear();
    };
    for (const QByteArray& raw : lines) {
        const QByteArray line = raw.trimmed();
        if (line.isEmpty()) {
            flush();
            lastFunction.clear();
            continue;
        }
        if (!raw.startsWith(' ') && !raw.startsWith('\t')) { // header: "... PERIOD EVENT:"
            const QList<QByteArray> toks = line.simplified().split(' ');
            period = toks.at(toks.size() - 2).toLongLong();
            continue;
        }
        if (raw.startsWith('\t')) { // "ADDR SYMBOL (DSO)"
            const QList<QByteArray> toks = line.simplified().split(' ');
            lastFunction = toks.at(1).toStdString();
            continue;
        }
        const qsizetype colon = line.lastIndexOf(':'); // "  FILE:LINE" after a frame
        if (lastFunction.empty() || colon < 0)
            continue;
        stack.emplace_back(lastFunction, line.left(colon).toStdString(), line.mid(colon + 1).toUInt());
        lastFunction.clear();
    }
    flush();
    return out;
}

std::string folded(const Profile& p) {
    std::ostringstream out;
    writeFolded(p, {}, out);
    return out.str();
}

QString which(const char* program) {
    return QStandardPaths::findExecutable(QLatin1String(program));
}

} // namespace

class TestSourceCost : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // --- the analysis ---
    void linesSortedByCost();
    void recursionCountsOnce();
    void sameNameScope();
    void hottestWithoutSelf();
    void definitionOnly();
    void costTypeChoosesOrder();
    // --- perf script srclines ---
    void perfSrclineFixture();
    void perfSrclineKeepsCollapse();
    void perfSrclineForms();
    void perfSrclineRecordedHere();
    // --- locating files ---
    void locateRecordedAndRelative();
    void locateByMapping();
    void locateInSearchDirs();
    void locateNotFound();
    void mappingForChosenDirectory();
};

void TestSourceCost::linesSortedByCost() {
    TreeBuilder b;
    const uint32_t ct = b.costType("samples", CostUnit::Samples);
    const uint32_t t = b.thread("t", 1, 1);
    const FrameId main = b.frame("main"), work = b.frame("work");
    const StringId file = b.strings().intern("/src/a.c");
    const FrameId stack[] = {main, work};
    auto add = [&](uint32_t mainLine, uint32_t workLine, int64_t n) {
        const CostValue c{ct, n};
        const SourceLine lines[] = {{file, mainLine}, {file, workLine}};
        b.addSample(t, stack, {&c, 1}, 1, lines);
    };
    add(10, 3, 5);
    add(10, 4, 7);
    add(11, 4, 2);
    const Profile p = b.finish({});

    const FunctionSource w = functionSource(p, frameNamed(p, "work"));
    QCOMPARE(w.lines.size(), std::size_t(2));
    QCOMPARE(w.lines[0].line, 4u); // 7 + 2
    QCOMPARE(w.lines[0].self[0], int64_t(9));
    QCOMPARE(w.lines[1].line, 3u);
    QCOMPARE(w.lines[1].self[0], int64_t(5));
    QCOMPARE(w.hottest(), 0);
    QCOMPARE(p.strings.view(w.primaryFile()), std::string_view("/src/a.c"));
    QCOMPARE(w.primaryLine(), 4u);
    QCOMPARE(w.files.size(), std::size_t(1));
    QCOMPARE(w.files[0].self, int64_t(14));

    const FunctionSource m = functionSource(p, frameNamed(p, "main"));
    QCOMPARE(m.lines.size(), std::size_t(2));
    QCOMPARE(m.lines[0].line, 10u); // a caller: no self cost, sorted by total
    QCOMPARE(m.lines[0].self[0], int64_t(0));
    QCOMPARE(m.lines[0].total[0], int64_t(12));
    QCOMPARE(m.lines[1].total[0], int64_t(2));
    const auto inFile = linesInFile(m, m.primaryFile());
    QCOMPARE(inFile.size(), std::size_t(2));
    QCOMPARE(inFile[0]->line, 10u);
    QCOMPARE(inFile[1]->line, 11u);
}

void TestSourceCost::recursionCountsOnce() {
    TreeBuilder b;
    const uint32_t ct = b.costType("samples", CostUnit::Samples);
    const uint32_t t = b.thread("t", 1, 1);
    const FrameId f = b.frame("fib");
    const StringId file = b.strings().intern("fib.c");
    const FrameId stack[] = {f, f, f};
    const SourceLine lines[] = {{file, 5}, {file, 5}, {file, 3}};
    const CostValue c{ct, 4};
    b.addSample(t, stack, {&c, 1}, 1, lines);
    const Profile p = b.finish({});
    const FunctionSource s = functionSource(p, frameNamed(p, "fib"));
    QCOMPARE(s.lines.size(), std::size_t(2));
    QCOMPARE(s.lines[0].line, 3u);
    QCOMPARE(s.lines[0].self[0], int64_t(4));
    QCOMPARE(s.lines[1].line, 5u);
    QCOMPARE(s.lines[1].total[0], int64_t(4)); // twice on the stack, counted once
}

void TestSourceCost::sameNameScope() {
    TreeBuilder b;
    const uint32_t ct = b.costType("samples", CostUnit::Samples);
    const uint32_t t = b.thread("t", 1, 1);
    const StringId file = b.strings().intern("x.c");
    const FrameId a =
        b.frame(Frame{b.strings().intern("f"), b.strings().intern("lib.so"), {}, 0, FrameKind::Native});
    const FrameId inl =
        b.frame(Frame{b.strings().intern("f"), b.strings().intern("lib.so"), {}, 0, FrameKind::Inlined});
    const FrameId other =
        b.frame(Frame{b.strings().intern("f"), b.strings().intern("other.so"), {}, 0, FrameKind::Native});
    const CostValue c{ct, 1};
    for (FrameId fr : {a, inl, other}) {
        const SourceLine line{file, 7};
        b.addSample(t, std::span<const FrameId>(&fr, 1), {&c, 1}, 1, std::span<const SourceLine>(&line, 1));
    }
    const Profile p = b.finish({});
    FrameId native;
    for (uint32_t id = 1; id < p.frames.size(); ++id)
        if (p.frameName(FrameId{id}) == "f" && p.frames[FrameId{id}].kind == FrameKind::Native &&
            p.strings.view(p.frames[FrameId{id}].module) == "lib.so")
            native = FrameId{id};
    const FunctionSource all = functionSource(p, native, 0, FunctionScope::SameName);
    QCOMPARE(all.frames.size(), std::size_t(2)); // native + inlined of lib.so, not other.so
    QCOMPARE(all.lines.size(), std::size_t(1));
    QCOMPARE(all.lines[0].self[0], int64_t(2));
    const FunctionSource one = functionSource(p, native, 0, FunctionScope::Frame);
    QCOMPARE(one.lines[0].self[0], int64_t(1));
}

void TestSourceCost::hottestWithoutSelf() {
    // a function that only calls: the hottest line is the call line with the largest total
    const Profile p = test::fromText("prog 1 1.0: 1 cycles:\n"
                                     "\t1 leaf (/bin/prog)\n"
                                     "  /s/p.c:3\n"
                                     "\t2 caller (/bin/prog)\n"
                                     "  /s/p.c:20\n"
                                     "\n"
                                     "prog 1 2.0: 1 cycles:\n"
                                     "\t1 leaf (/bin/prog)\n"
                                     "  /s/p.c:3\n"
                                     "\t3 caller (/bin/prog)\n"
                                     "  /s/p.c:22\n"
                                     "\n"
                                     "prog 1 3.0: 1 cycles:\n"
                                     "\t1 leaf (/bin/prog)\n"
                                     "  /s/p.c:3\n"
                                     "\t3 caller (/bin/prog)\n"
                                     "  /s/p.c:22\n"
                                     "\n",
                                     "mem.perf");
    QCOMPARE(p.meta.warningCount, uint64_t(0));
    const FunctionSource s = functionSource(p, frameNamed(p, "caller"));
    QCOMPARE(s.lines.size(), std::size_t(2));
    QCOMPARE(s.primaryLine(), 22u);
    QCOMPARE(s.lines[0].total[0], int64_t(2));
    QCOMPARE(s.lines[0].self[0], int64_t(0));
}

void TestSourceCost::definitionOnly() {
    TreeBuilder b;
    const uint32_t ct = b.costType("samples", CostUnit::Samples);
    const uint32_t t = b.thread("t", 1, 1);
    const FrameId f = b.frame(
        Frame{b.strings().intern("draw"), {}, b.strings().intern("/web/app.js"), 42, FrameKind::Native});
    const CostValue c{ct, 3};
    b.addSample(t, std::span<const FrameId>(&f, 1), {&c, 1});
    const Profile p = b.finish({});
    const FunctionSource s = functionSource(p, frameNamed(p, "draw"));
    QVERIFY(!s.hasLineCosts());
    QCOMPARE(s.hottest(), -1);
    QCOMPARE(p.strings.view(s.primaryFile()), std::string_view("/web/app.js"));
    QCOMPARE(s.primaryLine(), 42u);

    // speedscope frames carry file and line: the same holds for a real import
    const Profile sp =
        test::fromText("{\"$schema\":\"https://www.speedscope.app/"
                       "file-format-schema.json\",\"shared\":{\"frames\":[{\"name\":"
                       "\"a\",\"file\":\"src/"
                       "a.ts\",\"line\":12},{\"name\":\"b\"}]},\"profiles\":[{\"type\":\"sampled\",\"name\":"
                       "\"p\",\"unit\":\"none\",\"startValue\":0,\"endValue\":2,\"samples\":[[0,1],[0]],"
                       "\"weights\":[1,1]}]}",
                       "x.speedscope.json");
    const FunctionSource a = functionSource(sp, frameNamed(sp, "a"));
    QCOMPARE(sp.strings.view(a.primaryFile()), std::string_view("src/a.ts"));
    QCOMPARE(a.primaryLine(), 12u);
    QVERIFY(!a.hasLineCosts());
    const FunctionSource none = functionSource(sp, frameNamed(sp, "b"));
    QVERIFY(!none.primaryFile());
    QCOMPARE(none.primaryLine(), 0u);
}

void TestSourceCost::costTypeChoosesOrder() {
    TreeBuilder b;
    const uint32_t cycles = b.costType("cycles", CostUnit::Period);
    const uint32_t misses = b.costType("misses", CostUnit::Period);
    const uint32_t t = b.thread("t", 1, 1);
    const FrameId f = b.frame("f");
    const StringId file = b.strings().intern("f.c");
    const CostValue c1{cycles, 100}, c2{misses, 7};
    const SourceLine l1{file, 1}, l2{file, 2};
    b.addSample(t, std::span<const FrameId>(&f, 1), {&c1, 1}, 1, std::span<const SourceLine>(&l1, 1));
    b.addSample(t, std::span<const FrameId>(&f, 1), {&c2, 1}, 1, std::span<const SourceLine>(&l2, 1));
    const Profile p = b.finish({});
    QCOMPARE(functionSource(p, frameNamed(p, "f"), 0).primaryLine(), 1u);
    QCOMPARE(functionSource(p, frameNamed(p, "f"), 1).primaryLine(), 2u);
    QCOMPARE(functionSource(p, frameNamed(p, "f"), 99).costType, std::size_t(1)); // clamped
}

void TestSourceCost::perfSrclineFixture() {
    // tests/data/perf/hot-srcline.perf: `perf record -g` of tests/data/source/hot.c (built -O0 -g with frame
    // pointers in /tmp/scorch-fixture-build), `perf script -F ...,srcline --full-source-path`.
    const QString path = test::testData(QStringLiteral("perf/hot-srcline.perf"));
    const Profile p = importProfile(path.toStdString());
    QCOMPARE(p.meta.warningCount, uint64_t(0));
    QVERIFY(p.lineCosts.size() > 0);
    const auto expected = expectedLineCosts(test::readAll(path));
    QVERIFY(expected.size() >= 6);
    std::size_t checked = 0;
    for (const auto& [key, costs] : expected) {
        const auto& [function, file, line] = key;
        const FunctionSource s = functionSource(p, frameNamed(p, function), 0, FunctionScope::Frame);
        const auto it = std::find_if(s.lines.begin(), s.lines.end(),
                                     [&, &file = file, line = line](const FunctionLine& l) {
                                         return p.strings.view(l.file) == file && l.line == line;
                                     });
        QVERIFY2(it != s.lines.end(), (function + " " + file + ":" + std::to_string(line)).c_str());
        QCOMPARE(it->self[0], costs.first);
        QCOMPARE(it->total[0], costs.second);
        ++checked;
    }
    QCOMPARE(p.lineCosts.size(), checked); // nothing more than the text says

    // What the program says: main calls hashing on line 29 and summing on line 30 of hot.c; the hot lines of
    // hashing are in its loop (14-15) or in the inlined mix (7-9); summing's in its loop (21-22).
    const std::string_view hotC = "/tmp/scorch-fixture-build/hot.c";
    const FunctionSource m = functionSource(p, frameNamed(p, "main"));
    std::set<uint32_t> mainLines;
    for (const FunctionLine& l : m.lines) {
        QCOMPARE(p.strings.view(l.file), hotC);
        mainLines.insert(l.line);
    }
    QCOMPARE(mainLines, (std::set<uint32_t>{29, 30}));
    const FunctionSource h = functionSource(p, frameNamed(p, "hashing"));
    QVERIFY(h.hasLineCosts());
    QCOMPARE(p.strings.view(h.primaryFile()), hotC);
    QVERIFY2((h.primaryLine() >= 7 && h.primaryLine() <= 9) ||
                 (h.primaryLine() >= 14 && h.primaryLine() <= 15),
             std::to_string(h.primaryLine()).c_str());
    const FunctionSource s = functionSource(p, frameNamed(p, "summing"));
    QVERIFY(s.primaryLine() >= 21 && s.primaryLine() <= 22);
    // frames stay one per function: srclines do not split them
    const FrameId hashing = frameNamed(p, "hashing");
    QCOMPARE(s.frames.size(), std::size_t(1));
    QCOMPARE(functionSource(p, hashing).frames.size(), std::size_t(1));
}

void TestSourceCost::perfSrclineKeepsCollapse() {
    // srclines change nothing in the call tree: the same text without them collapses identically
    const QByteArray text = test::readAll(test::testData(QStringLiteral("perf/hot-srcline.perf")));
    QByteArray stripped;
    for (const QByteArray& line : text.split('\n'))
        if (!line.startsWith("  "))
            stripped += line + '\n';
    const Profile with = test::fromText(text.toStdString(), "a.perf");
    const Profile without = test::fromText(stripped.toStdString(), "b.perf");
    QVERIFY(without.lineCosts.size() == 0);
    QCOMPARE(folded(with), folded(without));
    QVERIFY(!folded(with).empty());
}

void TestSourceCost::perfSrclineForms() {
    const Profile p = test::fromText("prog 7/7 1.5: 10 cycles:\n"
                                     "\tffffffff81000130 entry_SYSCALL_64 ([kernel.kallsyms])\n"
                                     "  [kernel.kallsyms][ffffffff81000130]\n"
                                     "\t1200 inner->outer (/bin/prog)\n" // old perf inline chain
                                     "  /s/in.h:4 (discriminator 2)\n"
                                     "\t1300 [unknown] (/bin/prog)\n"
                                     "  ??:0\n"
                                     "\t1400 main (/bin/prog)\n"
                                     "  rel/main.c:9\n"
                                     "\n",
                                     "forms.perf");
    QCOMPARE(p.meta.warningCount, uint64_t(0));
    QCOMPARE(p.lineCosts.size(), std::size_t(2));
    // the chain "inner->outer" has outer innermost (the Perl script's order): the srcline is outer's
    const FunctionSource outer = functionSource(p, frameNamed(p, "outer"));
    QCOMPARE(outer.primaryLine(), 4u);
    QCOMPARE(p.strings.view(outer.primaryFile()), std::string_view("/s/in.h"));
    QCOMPARE(outer.lines[0].self[0], int64_t(0)); // the kernel frame is the leaf
    QVERIFY(!functionSource(p, frameNamed(p, "inner")).hasLineCosts());
    const FunctionSource m = functionSource(p, frameNamed(p, "main"));
    QCOMPARE(m.primaryLine(), 9u);
    QCOMPARE(p.strings.view(m.primaryFile()), std::string_view("rel/main.c"));
    QCOMPARE(m.lines[0].total[0], int64_t(10));

    // a srcline-looking line not after a frame line is still an unrecognized line
    const Profile bad =
        test::fromText("prog 7/7 1.5: 10 cycles:\n  /s/x.c:3\n\t1 f (/bin/prog)\n\n", "bad.perf");
    QCOMPARE(bad.meta.warningCount, uint64_t(1));
    QCOMPARE(bad.lineCosts.size(), std::size_t(0));
}

void TestSourceCost::perfSrclineRecordedHere() {
    const QString perf = which("perf"), cc = which("cc");
    if (perf.isEmpty() || cc.isEmpty())
        QSKIP("perf or cc is not installed: recording test skipped");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString src = dir.filePath(QStringLiteral("tiny.c"));
    QFile f(src);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("static volatile unsigned long sink;\n"                             // 1
            "__attribute__((noinline)) unsigned long spin(unsigned long n) {\n" // 2
            "    unsigned long s = 0;\n"                                        // 3
            "    for (unsigned long i = 0; i < n; ++i)\n"                       // 4
            "        s += i * i ^ (s >> 3);\n"                                  // 5
            "    return s;\n"                                                   // 6
            "}\n"                                                               // 7
            "int main(void) {\n"                                                // 8
            "    for (int k = 0; k < 20; ++k)\n"                                // 9
            "        sink += spin(3000000);\n"                                  // 10
            "    return 0;\n"                                                   // 11
            "}\n");
    f.close();
    const QString exe = dir.filePath(QStringLiteral("tiny")),
                  data = dir.filePath(QStringLiteral("perf.data"));
    auto run = [](const QString& program, const QStringList& args, QByteArray* out = nullptr) {
        QProcess p;
        p.start(program, args);
        if (!p.waitForFinished(scorch::test::kPatienceMs) || p.exitStatus() != QProcess::NormalExit ||
            p.exitCode() != 0)
            return false;
        if (out)
            *out = p.readAllStandardOutput();
        return true;
    };
    QVERIFY(run(cc, {QStringLiteral("-g"), QStringLiteral("-O0"), QStringLiteral("-fno-omit-frame-pointer"),
                     src, QStringLiteral("-o"), exe}));
    if (!run(perf, {QStringLiteral("record"), QStringLiteral("-q"), QStringLiteral("-F"),
                    QStringLiteral("999"), QStringLiteral("-g"), QStringLiteral("-o"), data, exe}))
        QSKIP("perf record failed here (perf_event_paranoid or no PMU access): recording test skipped");
    QByteArray text;
    QVERIFY(run(perf,
                {QStringLiteral("script"), QStringLiteral("-i"), data, QStringLiteral("-F"),
                 QStringLiteral("+srcline"), QStringLiteral("--full-source-path")},
                &text));
    const Profile p = test::fromText(text.toStdString(), "recorded.perf");
    const FrameId spin = frameNamed(p, "spin");
    QVERIFY(spin.value != 0);
    const FunctionSource s = functionSource(p, spin);
    QVERIFY(s.hasLineCosts());
    QCOMPARE(QString::fromUtf8(p.strings.view(s.primaryFile())), src);
    QVERIFY2(s.primaryLine() >= 3 && s.primaryLine() <= 6, std::to_string(s.primaryLine()).c_str());
    QVERIFY(s.lines[0].self[0] > 0);
    const FunctionSource m = functionSource(p, frameNamed(p, "main"));
    QVERIFY(m.hasLineCosts());
    QCOMPARE(m.primaryLine(), 10u); // the call of spin
}

void TestSourceCost::locateRecordedAndRelative() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("proj/src")));
    const QString file = dir.filePath(QStringLiteral("proj/src/a.c"));
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    SourceLocatorConfig cfg;
    SourceLocation loc = locateSource(file.toStdString(), cfg);
    QCOMPARE(loc.rule, SourceRule::Recorded);
    QCOMPARE(QString::fromStdString(loc.path), file);
    cfg.baseDir = dir.filePath(QStringLiteral("proj")).toStdString();
    loc = locateSource("./src/a.c", cfg);
    QCOMPARE(loc.rule, SourceRule::Recorded);
    QCOMPARE(QString::fromStdString(loc.path), file);
    // a directory is no source file
    QCOMPARE(locateSource(dir.filePath(QStringLiteral("proj/src")).toStdString(), {}).rule,
             SourceRule::NotFound);
    QCOMPARE(sourceRuleName(SourceRule::Recorded), std::string_view("recorded path"));
}

void TestSourceCost::locateByMapping() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("checkout/lib")));
    const QString file = dir.filePath(QStringLiteral("checkout/lib/b.c"));
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    SourceLocatorConfig cfg;
    cfg.mappings.push_back({"/build/foo", dir.filePath(QStringLiteral("nothing")).toStdString()});
    cfg.mappings.push_back({"/build/proj/", dir.filePath(QStringLiteral("checkout")).toStdString()});
    const SourceLocation loc = locateSource("/build/proj/lib/b.c", cfg);
    QCOMPARE(loc.rule, SourceRule::Mapping);
    QCOMPARE(QString::fromStdString(loc.path), file);
    QVERIFY(loc.detail.starts_with("/build/proj/ -> "));
    // prefixes match whole components only
    QCOMPARE(applyMapping("/build/project/lib/b.c", {"/build/proj", "/x"}), std::string());
    QCOMPARE(applyMapping("/build/proj/lib/b.c", {"/build/proj", "/x/"}), std::string("/x/lib/b.c"));
    QCOMPARE(locateSource("/build/project/lib/b.c", cfg).rule, SourceRule::NotFound);
}

void TestSourceCost::locateInSearchDirs() {
    QTemporaryDir dir;
    const QDir root(dir.path());
    for (const char* sub : {"s1/deep/x/util", "s1/other/util", "s2/a/b/util"})
        QVERIFY(root.mkpath(QLatin1String(sub)));
    for (const char* file :
         {"s1/deep/x/util/str.c", "s1/other/util/str.c", "s1/other/str.c", "s2/a/b/util/str.c"}) {
        QFile f(root.filePath(QLatin1String(file)));
        QVERIFY(f.open(QIODevice::WriteOnly));
    }
    SourceLocatorConfig cfg;
    cfg.searchDirs = {root.filePath(QStringLiteral("s2/a")).toStdString()};
    // trailing components: s2/a + b/util/str.c
    SourceLocation loc = locateSource("/old/tree/b/util/str.c", cfg);
    QCOMPARE(loc.rule, SourceRule::SearchDirSuffix);
    QCOMPARE(QString::fromStdString(loc.path), root.filePath(QStringLiteral("s2/a/b/util/str.c")));
    QCOMPARE(QString::fromStdString(loc.detail), root.filePath(QStringLiteral("s2/a")));
    // by name below s1: the candidate sharing "x/util/str.c" beats ".../util/str.c" and "other/str.c"
    cfg.searchDirs = {root.filePath(QStringLiteral("s1")).toStdString()};
    loc = locateSource("/elsewhere/x/util/str.c", cfg);
    QCOMPARE(loc.rule, SourceRule::SearchDirName);
    QCOMPARE(QString::fromStdString(loc.path), root.filePath(QStringLiteral("s1/deep/x/util/str.c")));
    // ".." components are never joined onto a search directory
    loc = locateSource("../../../etc/str.c", cfg);
    QVERIFY(loc.path.find("..") == std::string::npos);
    // the scan is bounded
    cfg.maxScannedEntries = 1;
    QCOMPARE(locateSource("/elsewhere/x/util/str.c", cfg).rule, SourceRule::NotFound);
}

void TestSourceCost::locateNotFound() {
    SourceLocatorConfig cfg;
    cfg.searchDirs = {"/nonexistent-scorch-dir"};
    cfg.mappings = {{"/a", "/nonexistent-scorch-dir"}};
    const SourceLocation loc = locateSource("/a/b.c", cfg);
    QVERIFY(!loc.found());
    QVERIFY(loc.path.empty());
    QVERIFY(!locateSource("", cfg).found());
}

void TestSourceCost::mappingForChosenDirectory() {
    QTemporaryDir dir;
    const QDir root(dir.path());
    QVERIFY(root.mkpath(QStringLiteral("mine/src/core")));
    QFile f(root.filePath(QStringLiteral("mine/src/core/m.c")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    const std::string chosen = root.filePath(QStringLiteral("mine/src")).toStdString();
    const PathMapping m = mappingForDirectory("/ci/build/src/core/m.c", chosen);
    QCOMPARE(m.from, std::string("/ci/build/src"));
    QCOMPARE(m.to, chosen);
    QCOMPARE(applyMapping("/ci/build/src/core/m.c", m),
             root.filePath(QStringLiteral("mine/src/core/m.c")).toStdString());
    QVERIFY(mappingForDirectory("/ci/build/src/core/absent.c", chosen).from.empty());
    QVERIFY(mappingForDirectory("core/m.c", chosen).from.empty()); // relative: no prefix to map
}

QTEST_GUILESS_MAIN(TestSourceCost)
#include "tst_sourcecost.moc"
