// Symbolizer and RawProfileBuilder on real code: the test program in tests/native (linked into this test,
// -O2 -g, with an always-inlined function and a shared library). Addresses come from the running code and
// /proc/self/maps; expected lines from "SYMTEST:" markers in its sources.
#include "scorch/symbolizer.h"

#include "../native/symtest.h"
#include "testutil.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>

using namespace scorch;

namespace {

/// Where an address of this process lies: module file and file offset (the Symbolizer's contract).
struct Location {
    std::string path;
    uint64_t offset = 0;
};

Location locate(const void* address) {
    const auto a = reinterpret_cast<uint64_t>(address);
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        unsigned long long start = 0, end = 0, pgoff = 0;
        char perms[8] = {};
        int pathAt = 0;
        if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &pgoff, &pathAt) <
            4)
            continue;
        if (a >= start && a < end && pathAt > 0)
            return {line.substr(static_cast<std::size_t>(pathAt)), a - start + pgoff};
    }
    return {};
}

/// 1-based line of the "SYMTEST:<marker>" comment in a test program source.
uint32_t markerLine(const char* file, const char* marker) {
    std::ifstream in(std::string(SCORCH_SYMTEST_SOURCE_DIR) + '/' + file);
    const std::string tag = std::string("SYMTEST:") + marker;
    std::string line;
    for (uint32_t n = 1; std::getline(in, line); ++n)
        if (line.find(tag) != std::string::npos)
            return n;
    return 0;
}

bool endsWith(const std::string& s, const char* suffix) {
    return s.ends_with(suffix);
}

QString toQ(const std::string& s) {
    return QString::fromStdString(s);
}

std::vector<SymbolFrame> symbolizeOne(Symbolizer& sym, const Location& where, bool returnAddress) {
    const Symbolizer::Request r{sym.module(where.path), where.offset, returnAddress};
    return sym.symbolize({&r, 1}).front();
}

QByteArray bytesFromHex(const std::string& hex) {
    return QByteArray::fromHex(QByteArray::fromStdString(hex));
}

/// A copy of `source` in `dir` whose build-id differs in one byte.
QString copyWithOtherBuildId(const QString& source, const QString& dir) {
    QByteArray image = test::readAll(source);
    const QByteArray id = bytesFromHex(elfBuildId(source.toStdString()));
    const qsizetype at = image.indexOf(id);
    if (id.isEmpty() || at < 0)
        return {};
    image[at] = static_cast<char>(image[at] ^ 0x5a);
    const QString out = dir + u'/' + QFileInfo(source).fileName();
    QFile f(out);
    if (!f.open(QIODevice::WriteOnly) || f.write(image) != image.size())
        return {};
    return out;
}

/// The line-cost entry of (function name, line), or -1.
int lineEntry(const Profile& p, std::string_view function, uint32_t line) {
    for (std::size_t i = 0; i < p.lineCosts.size(); ++i)
        if (p.frameName(p.lineCosts.frame[i]) == function && p.lineCosts.line[i] == line)
            return static_cast<int>(i);
    return -1;
}

/// Every node as "a;b;c" -> (self, total) of cost type 0, and every line entry as "function file:line" ->
/// (self, total): what two profiles must agree on.
std::map<std::string, std::pair<int64_t, int64_t>> contents(const Profile& p) {
    std::map<std::string, std::pair<int64_t, int64_t>> out;
    for (NodeId n = 1; n < p.tree.size(); ++n) {
        std::string key;
        for (NodeId k : p.tree.path(n))
            key += std::string(p.nodeName(k)) + ';';
        out[key] = {p.tree.self(0, n), p.tree.total(0, n)};
    }
    for (std::size_t i = 0; i < p.lineCosts.size(); ++i) {
        const std::string key = std::string(p.frameName(p.lineCosts.frame[i])) + ' ' +
                                std::string(p.strings.view(p.lineCosts.file[i])) + ':' +
                                std::to_string(p.lineCosts.line[i]);
        out[key] = {p.lineCosts.self[0][i], p.lineCosts.total[0][i]};
    }
    return out;
}

} // namespace

class TestSymbolizer : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void functionNamesAreDemangled() {
        Symbolizer sym;
        const Location twice = locate(reinterpret_cast<const void*>(&symtest::Box<int>::twice));
        QVERIFY(!twice.path.empty());
        auto frames = symbolizeOne(sym, twice, false);
        QCOMPARE(frames.size(), std::size_t(1));
        QCOMPARE(toQ(frames[0].function), QStringLiteral("symtest::Box<int>::twice(int)"));
        QVERIFY(endsWith(frames[0].file, "symtest_main.cpp"));

        frames = symbolizeOne(sym, locate(reinterpret_cast<const void*>(&symtest_c_function)), false);
        QCOMPARE(toQ(frames.at(0).function), QStringLiteral("symtest_c_function"));

        frames = symbolizeOne(sym, locate(reinterpret_cast<const void*>(&symtest::outerFunction)), false);
        QCOMPARE(toQ(frames.at(0).function), QStringLiteral("symtest::outerFunction(int)"));
        QVERIFY(endsWith(frames[0].declFile, "symtest_main.cpp"));
        QCOMPARE(frames[0].declLine, markerLine("symtest_main.cpp", "outer-decl"));
        QVERIFY(!frames[0].inlined);
    }

    void inlineChainInExecutable() {
        const Location ret = locate(symtest::outerFunction(1));
        QVERIFY(!ret.path.empty());
        Symbolizer sym;
        const auto frames = symbolizeOne(sym, ret, true);
        QCOMPARE(frames.size(), std::size_t(2));
        // outermost first: the real function at the line of the inlined call, then the inlined function
        QCOMPARE(toQ(frames[0].function), QStringLiteral("symtest::outerFunction(int)"));
        QVERIFY(!frames[0].inlined);
        QVERIFY2(endsWith(frames[0].file, "symtest_main.cpp"), frames[0].file.c_str());
        QCOMPARE(frames[0].line, markerLine("symtest_main.cpp", "call-inlined"));
        QCOMPARE(toQ(frames[1].function), QStringLiteral("symtest::inlinedHelper"));
        QVERIFY(frames[1].inlined);
        QVERIFY(endsWith(frames[1].file, "symtest_main.cpp"));
        QCOMPARE(frames[1].line, markerLine("symtest_main.cpp", "call-capture"));

        // a return address is looked up at address - 1: the same as asking for that address directly
        const auto direct = symbolizeOne(sym, {ret.path, ret.offset - 1}, false);
        QCOMPARE(direct.size(), frames.size());
        QCOMPARE(direct[1].line, frames[1].line);

        SymbolizerOptions noInline;
        noInline.inlineFrames = false;
        Symbolizer flat(noInline);
        const auto one = symbolizeOne(flat, ret, true);
        QCOMPARE(one.size(), std::size_t(1));
        QCOMPARE(toQ(one[0].function), QStringLiteral("symtest::outerFunction(int)"));
        QCOMPARE(one[0].line, markerLine("symtest_main.cpp", "call-inlined"));
    }

    void inlineChainInSharedLibrary() {
        const Location ret = locate(symtest::libFunction(1));
        QVERIFY(endsWith(ret.path, "libscorch_symtest.so"));
        Symbolizer sym;
        const auto frames = symbolizeOne(sym, ret, true);
        QCOMPARE(frames.size(), std::size_t(2));
        QCOMPARE(toQ(frames[0].function), QStringLiteral("symtest::libFunction(int)"));
        QCOMPARE(frames[0].line, markerLine("symtest_lib.cpp", "lib-call-inlined"));
        QCOMPARE(toQ(frames[1].function), QStringLiteral("symtest::libInlined"));
        QVERIFY(frames[1].inlined);
        QCOMPARE(frames[1].line, markerLine("symtest_lib.cpp", "lib-call-capture"));

        const auto reports = sym.report();
        QCOMPARE(reports.size(), std::size_t(1));
        QCOMPARE(toQ(reports[0].resolvedPath), toQ(ret.path));
        QVERIFY(reports[0].hasSymbols);
        QVERIFY(reports[0].hasDebugInfo);
        QVERIFY2(reports[0].problem.empty(), reports[0].problem.c_str());
        QCOMPARE(reports[0].addresses, uint64_t(1));
        QCOMPARE(reports[0].unresolved, uint64_t(0));
    }

    void manyRequestsAcrossModulesInParallel() {
        const Location exe = locate(symtest::outerFunction(2));
        const Location lib = locate(symtest::libFunction(2));
        SymbolizerOptions options;
        options.threads = 4;
        Symbolizer sym(options);
        std::vector<Symbolizer::Request> requests;
        for (int i = 0; i < 50; ++i) {
            requests.push_back({sym.module(exe.path), exe.offset, true});
            requests.push_back({sym.module(lib.path), lib.offset, true});
        }
        requests.push_back({ModuleHandle{}, 1234, false});
        const auto result = sym.symbolize(requests);
        QCOMPARE(result.size(), requests.size());
        for (std::size_t i = 0; i + 1 < result.size(); ++i)
            QCOMPARE(toQ(result[i].at(0).function), i % 2 ? QStringLiteral("symtest::libFunction(int)")
                                                          : QStringLiteral("symtest::outerFunction(int)"));
        QCOMPARE(result.back().size(), std::size_t(1));
        QVERIFY(result.back()[0].function.empty());
        // unique addresses only, and the second call is answered from the cache
        const auto again = sym.symbolize(requests);
        QCOMPARE(again[1].at(1).line, result[1].at(1).line);
        for (const ModuleReport& r : sym.report())
            QCOMPARE(r.addresses, uint64_t(1));
    }

    void buildIdMismatchAndSearchPaths() {
        const QString lib = QString::fromUtf8(SCORCH_SYMTEST_LIB);
        const std::string realId = elfBuildId(lib.toStdString());
        QVERIFY(realId.size() >= 16);
        QTemporaryDir dir;
        const QString copy = copyWithOtherBuildId(lib, dir.path());
        QVERIFY(!copy.isEmpty());
        QVERIFY(elfBuildId(copy.toStdString()) != realId);
        const Location ret = locate(symtest::libFunction(3));

        { // the recorded path holds another build of the library: detected, nothing made up
            Symbolizer sym;
            const Symbolizer::Request r{sym.module(copy.toStdString(), realId), ret.offset, true};
            QVERIFY(sym.symbolize({&r, 1})[0][0].function.empty());
            const ModuleReport rep = sym.report().at(0);
            QVERIFY2(rep.problem.starts_with("build-id mismatch"), rep.problem.c_str());
            QVERIFY(rep.resolvedPath.empty());
            QCOMPARE(rep.unresolved, uint64_t(1));
        }
        { // ... and the right file is found by name in a search path
            SymbolizerOptions options;
            options.searchPaths = {QFileInfo(lib).absolutePath().toStdString()};
            Symbolizer sym(options);
            const Symbolizer::Request r{sym.module(copy.toStdString(), realId), ret.offset, true};
            QCOMPARE(toQ(sym.symbolize({&r, 1})[0][0].function), QStringLiteral("symtest::libFunction(int)"));
            QCOMPARE(toQ(sym.report().at(0).resolvedPath), lib);
        }
        { // without a recorded build-id the file at the path is taken as it is
            Symbolizer sym;
            const Symbolizer::Request r{sym.module(copy.toStdString()), ret.offset, true};
            QCOMPARE(toQ(sym.symbolize({&r, 1})[0][0].function), QStringLiteral("symtest::libFunction(int)"));
        }
    }

    void missingModuleIsReported() {
        Symbolizer sym;
        const Symbolizer::Request r{sym.module("/nonexistent/dir/libgone.so", "0123abcd"), 0x1234, false};
        const auto frames = sym.symbolize({&r, 1});
        QCOMPARE(frames[0].size(), std::size_t(1));
        QVERIFY(frames[0][0].function.empty());
        const ModuleReport rep = sym.report().at(0);
        QCOMPARE(toQ(rep.path), QStringLiteral("/nonexistent/dir/libgone.so"));
        QCOMPARE(toQ(rep.problem), QStringLiteral("not found"));
        QCOMPARE(rep.addresses, uint64_t(1));
        QCOMPARE(rep.unresolved, uint64_t(1));
    }

    void separateDebugInfoByBuildId() {
        const QString objcopy = QStandardPaths::findExecutable(QStringLiteral("objcopy"));
        if (objcopy.isEmpty())
            QSKIP("objcopy (binutils) not installed");
        const QString lib = QString::fromUtf8(SCORCH_SYMTEST_LIB);
        const std::string id = elfBuildId(lib.toStdString());
        QTemporaryDir dir;
        const QString debugDir = dir.path() + QStringLiteral("/debug");
        const QString idDir = debugDir + QStringLiteral("/.build-id/") + toQ(id.substr(0, 2));
        QVERIFY(QDir().mkpath(idDir));
        const QString debugFile = idDir + u'/' + toQ(id.substr(2)) + QStringLiteral(".debug");
        const QString stripped = dir.path() + QStringLiteral("/libscorch_symtest.so");
        QCOMPARE(QProcess::execute(objcopy, {QStringLiteral("--only-keep-debug"), lib, debugFile}), 0);
        QCOMPARE(QProcess::execute(objcopy, {QStringLiteral("--strip-debug"), lib, stripped}), 0);
        QCOMPARE(toQ(elfBuildId(stripped.toStdString())), toQ(id));
        const Location ret = locate(symtest::libFunction(4));

        { // no debug directory: function names from the symbol table, no lines, and that is reported
            SymbolizerOptions options;
            options.debugDirs = {};
            Symbolizer sym(options);
            const Symbolizer::Request r{sym.module(stripped.toStdString(), id), ret.offset, true};
            const auto frames = sym.symbolize({&r, 1})[0];
            QCOMPARE(frames.size(), std::size_t(1));
            QCOMPARE(toQ(frames[0].function), QStringLiteral("symtest::libFunction(int)"));
            QCOMPARE(frames[0].line, 0u);
            const ModuleReport rep = sym.report().at(0);
            QVERIFY(rep.hasSymbols);
            QVERIFY(!rep.hasDebugInfo);
            QCOMPARE(toQ(rep.problem), QStringLiteral("no debug info"));
        }
        { // the debug directory gives inline frames and lines again
            SymbolizerOptions options;
            options.debugDirs = {debugDir.toStdString()};
            Symbolizer sym(options);
            const Symbolizer::Request r{sym.module(stripped.toStdString(), id), ret.offset, true};
            const auto frames = sym.symbolize({&r, 1})[0];
            QCOMPARE(frames.size(), std::size_t(2));
            QCOMPARE(frames[1].line, markerLine("symtest_lib.cpp", "lib-call-capture"));
            QVERIFY(sym.report().at(0).hasDebugInfo);
            QVERIFY(sym.report().at(0).problem.empty());
        }
        { // the binary is gone: its debug file alone cannot map file offsets (its segments have no file
          // layout), so the module is reported as not found rather than symbolized at wrong addresses
            SymbolizerOptions options;
            options.debugDirs = {debugDir.toStdString()};
            Symbolizer sym(options);
            const Symbolizer::Request r{sym.module("/gone/libscorch_symtest.so", id), ret.offset, true};
            QVERIFY(sym.symbolize({&r, 1})[0].at(0).function.empty());
            QCOMPARE(toQ(sym.report().at(0).problem), QStringLiteral("not found"));
        }
        { // a binary in the build-id directory (debuginfod-style link, perf's cache) is found by build-id
            QVERIFY(QFile::copy(stripped, debugFile.left(debugFile.size() - 6)));
            SymbolizerOptions options;
            options.debugDirs = {debugDir.toStdString()};
            Symbolizer sym(options);
            const Symbolizer::Request r{sym.module("/gone/libscorch_symtest.so", id), ret.offset, true};
            const auto frames = sym.symbolize({&r, 1})[0];
            QCOMPARE(frames.size(), std::size_t(2));
            QCOMPARE(toQ(frames[0].function), QStringLiteral("symtest::libFunction(int)"));
            QCOMPARE(frames[1].line, markerLine("symtest_lib.cpp", "lib-call-capture"));
        }
    }

    void kernelSymbolsFromKallsyms() {
        SymbolizerOptions options;
        options.kallsyms = test::testData(QStringLiteral("native/kallsyms")).toStdString();
        Symbolizer sym(options);
        const ModuleHandle k = sym.kernel();
        QCOMPARE(toQ(std::string(sym.modulePath(k))), QStringLiteral("[kernel.kallsyms]"));
        const std::vector<Symbolizer::Request> requests = {
            {k, 0xffffffff81000150, false}, // in do_syscall_64
            {k, 0xffffffff81000200, true},  // return address at helper_static's start: the call was before it
            {k, 0xffffffff81000250, false}, // helper_static
            {k, 0xffffffff81000350, false}, // a data symbol: not a function
            {k, 0xffffffffc0001010, false}, // module symbol
            {k, 0xffffffff80000000, false}, // below every symbol
        };
        const auto r = sym.symbolize(requests);
        QCOMPARE(toQ(r[0][0].function), QStringLiteral("do_syscall_64"));
        QCOMPARE(toQ(r[1][0].function), QStringLiteral("do_syscall_64"));
        QCOMPARE(toQ(r[2][0].function), QStringLiteral("helper_static"));
        QVERIFY(r[3][0].function.empty());
        QCOMPARE(toQ(r[4][0].function), QStringLiteral("ext4_fill_super"));
        QVERIFY(r[5][0].function.empty());
        const ModuleReport rep = sym.report().at(0);
        QVERIFY(rep.hasSymbols);
        QVERIFY(rep.problem.empty());
        QCOMPARE(rep.addresses, uint64_t(6));
        QCOMPARE(rep.unresolved, uint64_t(2));
    }

    void kernelProblems() {
        { // kptr_restrict: all addresses zero
            SymbolizerOptions options;
            options.kallsyms = test::testData(QStringLiteral("native/kallsyms-hidden")).toStdString();
            Symbolizer sym(options);
            const Symbolizer::Request r{sym.kernel(), 0xffffffff81000150, false};
            QVERIFY(sym.symbolize({&r, 1})[0][0].function.empty());
            QVERIFY2(sym.report()[0].problem.find("kptr_restrict") != std::string::npos,
                     sym.report()[0].problem.c_str());
        }
        { // kallsyms of another kernel than the recorded one is not used
            QTemporaryDir dir;
            const QString notes = dir.path() + QStringLiteral("/notes");
            QByteArray bytes;
            auto word = [&](uint32_t v) {
                bytes.append(reinterpret_cast<const char*>(&v), 4);
            };
            word(4), word(2), word(1), bytes.append("GNU\0", 4),
                bytes.append("\xaa\xbb\0\0", 4); // other note
            word(4), word(4), word(3), bytes.append("GNU\0", 4), bytes.append("\x12\x34\x56\x78", 4);
            QFile f(notes);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(bytes);
            f.close();
            SymbolizerOptions options;
            options.kallsyms = test::testData(QStringLiteral("native/kallsyms")).toStdString();
            options.kernelNotes = notes.toStdString();
            Symbolizer sym(options);
            const Symbolizer::Request same{sym.kernel("12345678"), 0xffffffff81000150, false};
            QCOMPARE(toQ(sym.symbolize({&same, 1})[0][0].function), QStringLiteral("do_syscall_64"));
            const Symbolizer::Request other{sym.kernel("87654321"), 0xffffffff81000150, false};
            QVERIFY(sym.symbolize({&other, 1})[0][0].function.empty());
            const auto reports = sym.report();
            QCOMPARE(reports.size(), std::size_t(2));
            QVERIFY(reports[0].problem.empty());
            QVERIFY2(reports[1].problem.starts_with("build-id mismatch (running kernel has 12345678"),
                     reports[1].problem.c_str());
        }
    }

    void jitSymbolsFromPerfMap() {
        SymbolizerOptions options;
        options.jitMapDir = test::testData(QStringLiteral("native")).toStdString();
        Symbolizer sym(options);
        const ModuleHandle jit = sym.jitMap(4242);
        QVERIFY(std::string(sym.modulePath(jit)).ends_with("/perf-4242.map"));
        const std::vector<Symbolizer::Request> requests = {
            {jit, 0x7f0000002010, false}, // Interpreter (0x prefixed line)
            {jit, 0x7f0000001010, false}, // a later line replaced the first one at this start
            {jit, 0x7f0000001030, false}, // beyond the replacement's size
            {jit, 0x7f0000003008, false}, // name with spaces
            {jit, 0x7f0000004000, false}, // nothing there
        };
        const auto r = sym.symbolize(requests);
        QCOMPARE(toQ(r[0][0].function), QStringLiteral("Interpreter"));
        QCOMPARE(toQ(r[1][0].function), QStringLiteral("Replaced"));
        QVERIFY(r[2][0].function.empty());
        QCOMPARE(toQ(r[3][0].function), QStringLiteral("LazyCompile:~fib /app/fib.js:12"));
        QVERIFY(r[4][0].function.empty());

        const Symbolizer::Request missing{sym.jitMap(99999999), 0x1000, false};
        QVERIFY(sym.symbolize({&missing, 1})[0][0].function.empty());
        QCOMPARE(toQ(sym.report().at(1).problem), QStringLiteral("not found"));
    }

    void rawProfileAggregatesInlinesAndLines() {
        const Location exe =
            locate(symtest::outerFunction(5));                // in inlinedHelper, inlined into outerFunction
        const Location lib = locate(symtest::libFunction(5)); // in libInlined, inlined into libFunction
        const Location twice = locate(reinterpret_cast<const void*>(&symtest::Box<int>::twice));
        Symbolizer sym;
        RawProfileBuilder raw(sym);
        const uint32_t cpu = raw.costType("cpu-clock", CostUnit::Nanoseconds);
        const uint32_t worker = raw.thread("worker", 100, 101);
        const ModuleHandle me = sym.module(exe.path), ml = sym.module(lib.path);
        const ModuleHandle gone = sym.module("/nonexistent/libgone.so");
        // leaf first, as unwinders deliver them; two unresolved callers in the same missing library
        const RawFrame a[] = {
            {me, twice.offset, false}, {me, exe.offset, true}, {gone, 0x10, true}, {gone, 0x20, true}};
        const RawFrame b[] = {
            {ml, lib.offset, true}, {me, exe.offset, true}, {gone, 0x10, true}, {gone, 0x20, true}};
        const CostValue ca{cpu, 1000}, cb{cpu, 500};
        for (int i = 0; i < 3; ++i)
            raw.addSample(worker, a, {&ca, 1}, 1.0 + i);

        const Profile first = raw.snapshot({});
        QCOMPARE(first.meta.samples, uint64_t(3));
        QCOMPARE(first.tree.grandTotal(0), int64_t(3000));

        for (int i = 0; i < 2; ++i)
            raw.addSample(worker, b, {&cb, 1}, 5.0);
        QCOMPARE(raw.samples(), uint64_t(5));
        const Profile p = raw.finish({});
        QCOMPARE(p.meta.samples, uint64_t(5));
        QCOMPARE(p.meta.timeStart.value_or(-1), 1.0);
        QCOMPARE(p.meta.timeEnd.value_or(-1), 5.0);
        QCOMPARE(p.threads.size(), std::size_t(1));
        QCOMPARE(p.threads[0].samples, uint64_t(5));
        QCOMPARE(p.tree.grandTotal(0), int64_t(4000));

        // one [libgone.so] frame for the two unresolved addresses; the inlined function as its own frame
        const NodeId helper = test::nodeByPath(
            p, p.tree, {"worker", "[libgone.so]", "symtest::outerFunction(int)", "symtest::inlinedHelper"});
        QVERIFY(helper != kRootNode);
        QCOMPARE(p.frames[p.tree.frame(helper)].kind, FrameKind::Inlined);
        QCOMPARE(p.frames[p.tree.frame(p.tree.parent(helper))].kind, FrameKind::Native);
        QCOMPARE(p.frames[p.tree.frame(p.tree.path(helper).at(1))].kind, FrameKind::Unknown);
        QCOMPARE(p.frames[p.tree.frame(p.tree.path(helper).at(0))].kind, FrameKind::Process);
        QCOMPARE(p.tree.total(0, helper), int64_t(4000));
        const NodeId twiceNode =
            test::nodeByPath(p, p.tree,
                             {"worker", "[libgone.so]", "symtest::outerFunction(int)",
                              "symtest::inlinedHelper", "symtest::Box<int>::twice(int)"});
        QVERIFY(twiceNode != kRootNode);
        QCOMPARE(p.tree.self(0, twiceNode), int64_t(3000));
        const NodeId libInlined =
            test::nodeByPath(p, p.tree,
                             {"worker", "[libgone.so]", "symtest::outerFunction(int)",
                              "symtest::inlinedHelper", "symtest::libFunction(int)", "symtest::libInlined"});
        QVERIFY(libInlined != kRootNode);
        QCOMPARE(p.tree.self(0, libInlined), int64_t(1000));
        QCOMPARE(p.strings.view(p.frames[p.tree.frame(libInlined)].module), std::string_view(lib.path));
        QVERIFY(p.strings.view(p.frames[p.tree.frame(libInlined)].file).ends_with("symtest_lib.cpp"));
        QCOMPARE(p.frames[p.tree.frame(libInlined)].line, 0u); // one node per function, lines go to lineCosts

        // per-line costs: the executing line of the leaf (self), the call lines of the callers (total)
        const int capture =
            lineEntry(p, "symtest::inlinedHelper", markerLine("symtest_main.cpp", "call-capture"));
        QVERIFY(capture >= 0);
        QCOMPARE(p.lineCosts.self[0][capture], int64_t(0));
        QCOMPARE(p.lineCosts.total[0][capture], int64_t(4000));
        QVERIFY(p.strings.view(p.lineCosts.file[capture]).ends_with("symtest_main.cpp"));
        const int call =
            lineEntry(p, "symtest::outerFunction(int)", markerLine("symtest_main.cpp", "call-inlined"));
        QVERIFY(call >= 0);
        QCOMPARE(p.lineCosts.total[0][call], int64_t(4000));
        const int libLine =
            lineEntry(p, "symtest::libInlined", markerLine("symtest_lib.cpp", "lib-call-capture"));
        QVERIFY(libLine >= 0);
        QCOMPARE(p.lineCosts.self[0][libLine], int64_t(1000));
        int64_t twiceSelf = 0;
        for (std::size_t i = 0; i < p.lineCosts.size(); ++i)
            if (p.frameName(p.lineCosts.frame[i]) == "symtest::Box<int>::twice(int)")
                twiceSelf += p.lineCosts.self[0][i];
        QCOMPARE(twiceSelf, int64_t(3000));

        // the missing library is a warning with its share of samples
        QCOMPARE(p.meta.warningCount, uint64_t(1));
        QCOMPARE(toQ(p.meta.warnings.at(0).message),
                 QStringLiteral("/nonexistent/libgone.so: not found (100.0% of samples): functions unknown"));

        // each unique address was symbolized once, across both snapshots
        const auto reports = sym.report();
        QCOMPARE(reports.at(me.value).addresses, uint64_t(2));
        QCOMPARE(reports.at(ml.value).addresses, uint64_t(1));
        QCOMPARE(reports.at(gone.value).addresses, uint64_t(2));
    }

    void rawProfileOptionsAndKinds() {
        SymbolizerOptions options;
        options.kallsyms = test::testData(QStringLiteral("native/kallsyms")).toStdString();
        options.jitMapDir = test::testData(QStringLiteral("native")).toStdString();
        Symbolizer sym(options);
        RawProfileOptions rawOptions;
        rawOptions.unresolvedAddresses = true;
        rawOptions.processRoot = false;
        RawProfileBuilder raw(sym, rawOptions);
        const uint32_t n = raw.costType("samples", CostUnit::Samples);
        const uint32_t t = raw.thread("node", 7, 7);
        const ModuleHandle k = sym.kernel(), jit = sym.jitMap(4242),
                           gone = sym.module("/nonexistent/libgone.so");
        const RawFrame stack[] = {{k, 0xffffffff81000150, false},
                                  {k, 0xffffffff81000350, true},
                                  {jit, 0x7f0000002010, true},
                                  {gone, 0x10, true},
                                  {gone, 0x20, true},
                                  {ModuleHandle{}, 0x1234, true}};
        const CostValue one{n, 1};
        raw.addSample(t, stack, {&one, 1});
        const Profile p = raw.finish({});
        const NodeId leaf =
            test::nodeByPath(p, p.tree,
                             {"[unknown]", "[libgone.so+0x20]", "[libgone.so+0x10]", "Interpreter",
                              "[kernel.kallsyms+0xffffffff81000350]", "do_syscall_64"});
        QVERIFY(leaf != kRootNode);
        const auto path = p.tree.path(leaf);
        const FrameKind expected[] = {FrameKind::Unknown, FrameKind::Unknown, FrameKind::Unknown,
                                      FrameKind::Jit,     FrameKind::Kernel,  FrameKind::Kernel};
        QCOMPARE(path.size(), std::size_t(6));
        for (std::size_t i = 0; i < path.size(); ++i)
            QCOMPARE(p.frames[p.tree.frame(path[i])].kind, expected[i]);
        QCOMPARE(p.strings.view(p.frames[p.tree.frame(leaf)].module), std::string_view("[kernel.kallsyms]"));
    }

    void rawProfileSnapshotWhileRecording() {
        // addSample from a recording thread while another thread takes snapshots
        const Location exe = locate(symtest::outerFunction(6));
        Symbolizer sym;
        RawProfileBuilder raw(sym);
        const uint32_t n = raw.costType("samples", CostUnit::Samples);
        const uint32_t t = raw.thread("main", 1, 1);
        const ModuleHandle me = sym.module(exe.path);
        std::atomic<bool> done{false};
        std::thread recorder([&] {
            for (uint64_t i = 0; i < 20000; ++i) {
                const RawFrame stack[] = {{me, exe.offset + (i % 64), true}, {me, exe.offset, true}};
                const CostValue one{n, 1};
                raw.addSample(t, stack, {&one, 1});
            }
            done = true;
        });
        uint64_t last = 0;
        do {
            const Profile p = raw.snapshot({});
            QVERIFY(p.meta.samples >= last);
            QCOMPARE(p.tree.grandTotal(0), static_cast<int64_t>(p.meta.samples));
            last = p.meta.samples;
        } while (!done);
        recorder.join();
        QCOMPARE(raw.finish({}).tree.grandTotal(0), int64_t(20000));

        std::atomic<bool> cancel{true};
        QVERIFY_THROWS_EXCEPTION(ImportCancelled, raw.snapshot({}, &cancel));
    }

    void rawProfileMatchesTreeBuilderAcrossSnapshots() {
        // random stacks over real addresses, added in batches with snapshots in between: the incremental
        // tree must end up equal to a TreeBuilder fed with the symbolized stacks in one go
        const Location exe = locate(symtest::outerFunction(7));
        const Location lib = locate(symtest::libFunction(7));
        const Location twice = locate(reinterpret_cast<const void*>(&symtest::Box<int>::twice));
        const Location cfun = locate(reinterpret_cast<const void*>(&symtest_c_function));
        Symbolizer sym;
        RawProfileBuilder raw(sym);
        const uint32_t cpu = raw.costType("cpu-clock", CostUnit::Nanoseconds);
        const uint32_t threads[] = {raw.thread("a", 1, 1), raw.thread("b", 1, 2)};
        const RawFrame pool[] = {{sym.module(exe.path), exe.offset, true},
                                 {sym.module(lib.path), lib.offset, true},
                                 {sym.module(twice.path), twice.offset + 1, true},
                                 {sym.module(cfun.path), cfun.offset, true},
                                 {sym.module("/nonexistent/libgone.so"), 0x40, true}};
        TreeBuilder ref;
        ref.costType("cpu-clock", CostUnit::Nanoseconds);
        const FrameId roots[] = {ref.frame("a", {}, FrameKind::Process),
                                 ref.frame("b", {}, FrameKind::Process)};
        ref.thread("a", 1, 1);
        ref.thread("b", 1, 2);
        uint64_t rng = 12345;
        auto next = [&] {
            return (rng = rng * 6364136223846793005ull + 1442695040888963407ull) >> 33;
        };
        for (int batch = 0; batch < 3; ++batch) {
            for (int i = 0; i < 300; ++i) {
                std::vector<RawFrame> leafFirst(1 + next() % 6);
                for (RawFrame& f : leafFirst)
                    f = pool[next() % 5];
                const uint32_t t = next() % 2;
                const CostValue c{cpu, static_cast<int64_t>(1 + next() % 100)};
                raw.addSample(threads[t], leafFirst, {&c, 1});

                std::vector<Symbolizer::Request> requests;
                for (const RawFrame& f : leafFirst)
                    requests.push_back({f.module, f.address, f.returnAddress});
                const auto frames = sym.symbolize(requests);
                std::vector<FrameId> path{roots[t]};
                std::vector<SourceLine> lines{{}};
                for (std::size_t k = frames.size(); k-- > 0;) {
                    const std::string module(sym.modulePath(leafFirst[k].module));
                    for (const SymbolFrame& x : frames[k]) {
                        Frame f;
                        if (x.function.empty()) { // e.g. the padding before symtest_c_function
                            f.name = ref.strings().intern("[" + module.substr(module.rfind('/') + 1) + "]");
                            f.module = ref.strings().intern(module);
                            f.kind = FrameKind::Unknown;
                            if (ref.frame(f) == path.back())
                                continue; // one frame per run of unresolved addresses
                            path.push_back(ref.frame(f));
                            lines.push_back({});
                            continue;
                        } else {
                            f.name = ref.strings().intern(x.function);
                            f.module = ref.strings().intern(module);
                            f.file = ref.strings().intern(x.declFile);
                            f.kind = x.inlined ? FrameKind::Inlined : FrameKind::Native;
                        }
                        path.push_back(ref.frame(f));
                        lines.push_back({ref.strings().intern(x.file), x.line});
                    }
                }
                ref.addSample(t, path, {&c, 1}, 1, lines);
            }
            const Profile snap = raw.snapshot({});
            QCOMPARE(snap.meta.samples, uint64_t(300 * (batch + 1)));
        }
        const Profile mine = raw.finish({});
        const Profile expected = ref.finish({});
        QCOMPARE(mine.tree.size(), expected.tree.size());
        QCOMPARE(mine.lineCosts.size(), expected.lineCosts.size());
        QVERIFY(mine.lineCosts.size() > 4);
        QVERIFY(contents(mine) == contents(expected));
        QCOMPARE(mine.threads.size(), std::size_t(2));
        QCOMPARE(mine.threads[0].samples + mine.threads[1].samples, uint64_t(900));
        QCOMPARE(mine.threads[0].samples, expected.threads[0].samples);
    }
};

QTEST_GUILESS_MAIN(TestSymbolizer)
#include "tst_symbolizer.moc"
