// Symbolizer on real code: the test program in tests/native (linked into this test,
// -O2 -g, with an always-inlined function and a shared library). Addresses come from the running code and
// /proc/self/maps; expected lines from "SYMTEST:" markers in its sources.
#include "scorch/symbolizer.h"

#include "symbols/elfinflate.h"

#include "native/symtest.h"
#include "native/symtest_probe.h"
#include "patience.h"
#include "testutil.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

using namespace scorch;
using scorch::test::kPatienceMs;
using symtest::locate;
using symtest::Location;
using symtest::markerLine;
using symtest::toQ;

namespace {

bool endsWith(const std::string& s, const char* suffix) {
    return s.ends_with(suffix);
}

std::vector<SymbolFrame> symbolizeOne(Symbolizer& sym, const Location& where, bool returnAddress) {
    const Symbolizer::Request r{sym.module(where.path), where.offset, returnAddress};
    return sym.symbolize({&r, 1}).front();
}

QByteArray bytesFromHex(const std::string& hex) {
    return QByteArray::fromHex(QByteArray::fromStdString(hex));
}

/// `<debugDir>/.build-id/xx/yyyy.debug` for build-id `id`, its directory made; empty when it cannot be.
/// The sections of an ELF file flagged SHF_COMPRESSED; -1 when it is not a whole 64-bit ELF file.
int compressedSections(const QString& path) {
    const QByteArray image = test::readAll(path);
    Elf64_Ehdr eh;
    if (static_cast<std::size_t>(image.size()) < sizeof eh)
        return -1;
    std::memcpy(&eh, image.constData(), sizeof eh);
    if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_shoff + uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr) > static_cast<uint64_t>(image.size()))
        return -1;
    int n = 0;
    for (int i = 0; i < eh.e_shnum; ++i) {
        Elf64_Shdr sh;
        std::memcpy(&sh, image.constData() + eh.e_shoff + uint64_t(i) * sizeof sh, sizeof sh);
        n += (sh.sh_flags & SHF_COMPRESSED) ? 1 : 0;
    }
    return n;
}

/// The test library with its debug sections compressed by objcopy (`compression`: zlib or zstd), written to
/// `to`: an empty string, else why not (for QSKIP).
QString compressedTestLibrary(const QString& to, const QString& compression = QStringLiteral("zlib")) {
    const QString objcopy = symtest::objcopy();
    if (objcopy.isEmpty())
        return QStringLiteral("objcopy (binutils) not installed");
    if (QProcess::execute(objcopy, {QStringLiteral("--compress-debug-sections=") + compression,
                                    QString::fromUtf8(SCORCH_SYMTEST_LIB), to}) != 0)
        return QStringLiteral("this objcopy cannot compress debug sections with ") + compression;
    return {};
}

/// libFunction's return address symbolized in `copy`, a copy of the test library, with no debug directory
/// (from what the copy holds or its .gnu_debuglink names); `hasDebugInfo` as the module's report has it.
std::vector<SymbolFrame> symbolizeLibraryCopy(const QString& copy, bool& hasDebugInfo) {
    const Location ret = locate(symtest::libFunction(4));
    SymbolizerOptions options;
    options.debugDirs = {};
    Symbolizer sym(options);
    const Symbolizer::Request r{sym.module(copy.toStdString(), elfBuildId(SCORCH_SYMTEST_LIB)), ret.offset,
                                true};
    std::vector<SymbolFrame> frames = sym.symbolize({&r, 1})[0];
    hasDebugInfo = sym.report().at(0).hasDebugInfo;
    return frames;
}

QString buildIdDebugFile(const QString& debugDir, const std::string& id) {
    const QString idDir = debugDir + QStringLiteral("/.build-id/") + toQ(id.substr(0, 2));
    return QDir().mkpath(idDir) ? idDir + u'/' + toQ(id.substr(2)) + QStringLiteral(".debug") : QString();
}

/// `from` (a copy of the test library) split as distributions split binaries: its debug sections into
/// `<dir>/debug/.build-id/xx/yyyy.debug` for build-id `id`, the rest into `<dir>/libscorch_symtest.so`, whose
/// path is returned (empty when objcopy failed).
QString splitByBuildId(const QString& objcopy, const QString& from, const QString& dir,
                       const std::string& id) {
    const QString debugFile = buildIdDebugFile(dir + QStringLiteral("/debug"), id);
    const QString stripped = dir + QStringLiteral("/libscorch_symtest.so");
    if (debugFile.isEmpty() ||
        QProcess::execute(objcopy, {QStringLiteral("--only-keep-debug"), from, debugFile}) != 0 ||
        QProcess::execute(objcopy, {QStringLiteral("--strip-debug"), from, stripped}) != 0)
        return {};
    return stripped;
}

/// PT_LOAD segments of an ELF file (from `readelf -lW`), to turn virtual addresses into file offsets.
struct ElfFileInfoForTest {
    struct Load {
        uint64_t offset, vaddr, size;
    };
    std::vector<Load> loads;
    bool toOffset(uint64_t vaddr, uint64_t& offset) const {
        for (const Load& l : loads)
            if (vaddr >= l.vaddr && vaddr < l.vaddr + l.size) {
                offset = vaddr - l.vaddr + l.offset;
                return true;
            }
        return false;
    }
};

ElfFileInfoForTest elfLoads(const QString& path) {
    ElfFileInfoForTest info;
    QProcess p;
    p.start(QStringLiteral("readelf"), {QStringLiteral("-lW"), path});
    if (!p.waitForFinished(kPatienceMs))
        return info;
    for (const QString& line : QString::fromUtf8(p.readAllStandardOutput()).split(u'\n')) {
        const QStringList f = line.simplified().split(u' ');
        if (f.size() >= 6 && f[0] == QStringLiteral("LOAD"))
            info.loads.push_back({f[1].toULongLong(nullptr, 16), f[2].toULongLong(nullptr, 16),
                                  f[4].toULongLong(nullptr, 16)});
    }
    return info;
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
        // forgotten: the two cached addresses (one a module) go; asked again, they are looked up again (the
        // same frames) but not counted again: the report counts distinct addresses
        QCOMPARE(sym.forgetAddresses(), std::size_t(2));
        QCOMPARE(sym.forgetAddresses(), std::size_t(0));
        const auto third = sym.symbolize(requests);
        for (std::size_t i = 0; i < result.size(); ++i) {
            QCOMPARE(third[i].size(), result[i].size());
            for (std::size_t k = 0; k < result[i].size(); ++k) {
                QCOMPARE(third[i][k].function, result[i][k].function);
                QCOMPARE(third[i][k].line, result[i][k].line);
            }
        }
        for (const ModuleReport& r : sym.report())
            QCOMPARE(r.addresses, uint64_t(1));
        QCOMPARE(sym.forgetAddresses(), std::size_t(2));
        // freed in the background: the same count at once; `then` hears it on the freeing thread, which the
        // next call joins; meanwhile the addresses are looked up again (the same frames, still counted once)
        sym.symbolize(requests);
        std::atomic<std::size_t> heard{0};
        QCOMPARE(sym.forgetAddressesInBackground([&](std::size_t n) { heard = n; }), std::size_t(2));
        const auto fourth = sym.symbolize(requests);
        for (std::size_t i = 0; i < result.size(); ++i) {
            QCOMPARE(fourth[i].size(), result[i].size());
            for (std::size_t k = 0; k < result[i].size(); ++k)
                QCOMPARE(fourth[i][k].function, result[i][k].function);
        }
        for (const ModuleReport& r : sym.report())
            QCOMPARE(r.addresses, uint64_t(1));
        QCOMPARE(sym.forgetAddressesInBackground(), std::size_t(2));
        QCOMPARE(heard.load(), std::size_t(2));
    }

    // closeIdleSessions() (the final build, once it asks no more): libdw's mappings of the module's file go
    // (the dynamic loader's stay), the report stays, and a later lookup opens a session again and finds the
    // same frames. forgetAddressesInBackground() closes them on its thread with IdleSessions::Close only.
    void idleSessionsClose() {
        const Location exe = locate(symtest::outerFunction(2));
        const int loaders = test::mappingsOf(exe.path);
        QVERIFY(loaders > 0);
        Symbolizer sym;
        const std::vector<Symbolizer::Request> requests{{sym.module(exe.path), exe.offset, true}};
        const auto first = sym.symbolize(requests, nullptr, 0, Symbolizer::Cache::Skip);
        QCOMPARE(toQ(first.at(0).at(0).function), QStringLiteral("symtest::outerFunction(int)"));
        QVERIFY(test::mappingsOf(exe.path) > loaders);
        sym.closeIdleSessions();
        QCOMPARE(test::mappingsOf(exe.path), loaders);
        QVERIFY(sym.report().at(0).hasDebugInfo);
        const auto again = sym.symbolize(requests, nullptr, 0, Symbolizer::Cache::Skip);
        QCOMPARE(again.at(0).size(), first.at(0).size());
        for (std::size_t k = 0; k < first[0].size(); ++k) {
            QCOMPARE(again[0][k].function, first[0][k].function);
            QCOMPARE(again[0][k].line, first[0][k].line);
        }
        QVERIFY(test::mappingsOf(exe.path) > loaders);

        std::atomic<bool> kept{false};
        sym.forgetAddressesInBackground([&](std::size_t) { kept = true; });
        QTRY_VERIFY_WITH_TIMEOUT(kept.load(), test::kPatienceMs); // (the thread's work is done)
        QVERIFY(test::mappingsOf(exe.path) > loaders);
        std::atomic<bool> closed{false};
        sym.forgetAddressesInBackground([&](std::size_t) { closed = true; }, Symbolizer::IdleSessions::Close);
        QTRY_VERIFY_WITH_TIMEOUT(closed.load(), test::kPatienceMs);
        QCOMPARE(test::mappingsOf(exe.path), loaders); // (closed before `then` runs)
        const auto third = sym.symbolize(requests, nullptr, 0, Symbolizer::Cache::Skip);
        QCOMPARE(third.at(0).size(), first.at(0).size());
        QCOMPARE(third[0][0].function, first[0][0].function);
    }

    void uncachedRequestsAreMovedNotKept() {
        // Cache::Skip (RawProfileBuilder asks each address once): the same frames as a cached call, counted
        // once, nothing kept; a cancelled call gives no results and counts nothing
        const Location exe = locate(symtest::outerFunction(2));
        const Location lib = locate(symtest::libFunction(2));
        SymbolizerOptions options;
        options.threads = 2;
        Symbolizer cached(options), uncached(options);
        std::vector<Symbolizer::Request> requests, again;
        for (Symbolizer* s : {&cached, &uncached}) {
            std::vector<Symbolizer::Request>& r = s == &cached ? requests : again;
            r.push_back({s->module(exe.path), exe.offset, true});
            r.push_back({s->module(lib.path), lib.offset, true});
            r.push_back({s->module(exe.path), exe.offset, true}); // the same address twice in one call
            r.push_back({ModuleHandle{}, 1234, false});
        }
        const std::atomic<bool> cancelled{true};
        QVERIFY(uncached.symbolize(again, &cancelled, 0, Symbolizer::Cache::Skip).empty());
        for (const ModuleReport& r : uncached.report())
            QCOMPARE(r.addresses, uint64_t(0));
        const auto want = cached.symbolize(requests);
        const auto got = uncached.symbolize(again, nullptr, 0, Symbolizer::Cache::Skip);
        QCOMPARE(got.size(), want.size());
        for (std::size_t i = 0; i < want.size(); ++i) {
            QCOMPARE(got[i].size(), want[i].size());
            for (std::size_t k = 0; k < want[i].size(); ++k) {
                QCOMPARE(got[i][k].function, want[i][k].function);
                QCOMPARE(got[i][k].file, want[i][k].file);
                QCOMPARE(got[i][k].line, want[i][k].line);
                QCOMPARE(got[i][k].inlined, want[i][k].inlined);
            }
        }
        QCOMPARE(toQ(got[2].at(0).function), QStringLiteral("symtest::outerFunction(int)"));
        for (const ModuleReport& r : uncached.report())
            QCOMPARE(r.addresses, uint64_t(1));
        QCOMPARE(cached.forgetAddresses(), std::size_t(2));
        QCOMPARE(uncached.forgetAddresses(), std::size_t(0));
    }

    // A return address and the instruction before it are one address to the symbolizer (it looks up the
    // call); asked in separate uncached calls (RawProfileBuilder's batches: which batch an address falls in
    // depends on timing), the report counts it once, whatever the batching (the report of fp-large.data
    // said 79440 or 79441 addresses for one module from one run to the next).
    void addressCountIndependentOfBatching() {
        const Location exe = locate(symtest::outerFunction(2));
        const Location lib = locate(symtest::libFunction(2));
        QVERIFY(exe.offset > 0);
        Symbolizer together, apart;
        const std::vector<Symbolizer::Request> both{{together.module(exe.path), exe.offset, true},
                                                    {together.module(exe.path), exe.offset - 1, false},
                                                    {together.module(lib.path), lib.offset, true}};
        const auto one = together.symbolize(both, nullptr, 0, Symbolizer::Cache::Skip);
        QCOMPARE(one.size(), std::size_t(3));
        QCOMPARE(toQ(one[1].at(0).function), QStringLiteral("symtest::outerFunction(int)"));
        std::vector<std::vector<SymbolFrame>> two;
        for (std::size_t i = 0; i < both.size(); ++i) {
            const std::vector<Symbolizer::Request> single{
                {apart.module(i < 2 ? exe.path : lib.path), both[i].address, both[i].returnAddress}};
            auto frames = apart.symbolize(single, nullptr, 0, Symbolizer::Cache::Skip);
            QCOMPARE(frames.size(), std::size_t(1));
            two.push_back(std::move(frames[0]));
        }
        for (std::size_t i = 0; i < one.size(); ++i) {
            QCOMPARE(two[i].size(), one[i].size());
            QCOMPARE(two[i][0].function, one[i][0].function);
        }
        for (const Symbolizer* s : {&together, &apart}) {
            const auto reports = s->report();
            QCOMPARE(reports.size(), std::size_t(2));
            for (const ModuleReport& r : reports)
                QCOMPARE(r.addresses, uint64_t(1));
        }
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

    // A debug file named by the module's .gnu_debuglink, beside the module or in its .debug directory, is
    // found by libdwfl's search by name (no debug directory holds it by build-id); where no such file exists
    // and no debuginfod server is set, that search is not asked at all: libdwfl would end it by loading
    // libdebuginfod and the 45 shared objects it needs (~10 ms) to ask no server.
    void debugFileByDebuglink() {
        const QString objcopy = symtest::objcopy();
        if (objcopy.isEmpty())
            QSKIP("objcopy (binutils) not installed");
        const QString lib = QString::fromUtf8(SCORCH_SYMTEST_LIB);
        for (const QString& sub : {QString(), QStringLiteral("/.debug")}) {
            QTemporaryDir dir;
            QVERIFY(QDir().mkpath(dir.path() + sub));
            const QString debugFile = dir.path() + sub + QStringLiteral("/libscorch_symtest.so.dbg");
            const QString stripped = dir.path() + QStringLiteral("/libscorch_symtest.so");
            QCOMPARE(QProcess::execute(objcopy, {QStringLiteral("--only-keep-debug"), lib, debugFile}), 0);
            QCOMPARE(QProcess::execute(objcopy,
                                       {QStringLiteral("--strip-debug"),
                                        QStringLiteral("--add-gnu-debuglink=") + debugFile, lib, stripped}),
                     0);
            bool hasDebugInfo = false;
            const auto frames = symbolizeLibraryCopy(stripped, hasDebugInfo);
            QCOMPARE(frames.size(), std::size_t(2));
            QCOMPARE(toQ(frames[0].function), QStringLiteral("symtest::libFunction(int)"));
            QCOMPARE(frames[1].line, markerLine("symtest_lib.cpp", "lib-call-capture"));
            QVERIFY(hasDebugInfo);
        }
    }

    void noDebuginfodLibraryWithoutServers() {
        if (!qEnvironmentVariableIsEmpty("DEBUGINFOD_URLS"))
            QSKIP("DEBUGINFOD_URLS is set: libdwfl asks those servers itself");
        const QString objcopy = symtest::objcopy();
        if (objcopy.isEmpty())
            QSKIP("objcopy (binutils) not installed");
        QTemporaryDir dir;
        const QString stripped = symtest::strippedTestLibrary(objcopy, dir.path());
        QVERIFY(!stripped.isEmpty());
        bool hasDebugInfo = true;
        const auto frames = symbolizeLibraryCopy(stripped, hasDebugInfo);
        QCOMPARE(toQ(frames.at(0).function), QStringLiteral("symtest::libFunction(int)"));
        QVERIFY(!hasDebugInfo);
        QFile maps(QStringLiteral("/proc/self/maps"));
        QVERIFY(maps.open(QIODevice::ReadOnly));
        QVERIFY2(!maps.readAll().contains("libdebuginfod"), "libdebuginfod was loaded");
    }

    // A debug file made by dwz's multifile mode (as Debian's dh_dwz and Fedora make them) names its
    // shared part by .gnu_debugaltlink: libdwfl asks the find_debuginfo callback for that file by a name
    // and no CRC, and the module's own build-id (what the callback searches the debug directories for)
    // would answer with the debug file itself. Names, inline frames, lines and declarations as from the
    // library as built.
    void dwzAltFileOfADebugFileFoundByBuildId() {
        const QString objcopy = symtest::objcopy();
        const QString dwz = QStandardPaths::findExecutable(QStringLiteral("dwz"));
        if (objcopy.isEmpty() || dwz.isEmpty())
            QSKIP("objcopy (binutils) or dwz not installed");
        const QString lib = QString::fromUtf8(SCORCH_SYMTEST_LIB);
        const std::string id = elfBuildId(lib.toStdString());
        QTemporaryDir dir;
        const QString a = dir.path() + QStringLiteral("/a.so"), b = dir.path() + QStringLiteral("/b.so");
        const QString common = dir.path() + QStringLiteral("/common.debug");
        QVERIFY(QFile::copy(lib, a) && QFile::copy(lib, b));
        // two copies share all their DWARF: dwz moves it into common.debug and links both to it
        QCOMPARE(QProcess::execute(dwz, {QStringLiteral("-m"), common, QStringLiteral("-M"), common, a, b}),
                 0);
        const QString debugDir = dir.path() + QStringLiteral("/debug");
        const QString stripped = splitByBuildId(objcopy, a, dir.path(), id);
        QVERIFY(!stripped.isEmpty());
        const Location ret = locate(symtest::libFunction(4));
        Symbolizer plain; // the library as built: the frames to expect
        const Symbolizer::Request asBuilt{plain.module(lib.toStdString(), id), ret.offset, true};
        const auto expected = plain.symbolize({&asBuilt, 1})[0];
        QCOMPARE(expected.size(), std::size_t(2));
        QVERIFY(!expected[1].function.empty() && expected[1].inlined && expected[1].declLine > 0);
        SymbolizerOptions options;
        options.debugDirs = {debugDir.toStdString()};
        Symbolizer sym(options);
        const Symbolizer::Request r{sym.module(stripped.toStdString(), id), ret.offset, true};
        const auto frames = sym.symbolize({&r, 1})[0];
        QCOMPARE(frames.size(), expected.size());
        for (std::size_t k = 0; k < frames.size(); ++k) {
            QCOMPARE(toQ(frames[k].function), toQ(expected[k].function));
            QCOMPARE(frames[k].inlined, expected[k].inlined);
            QCOMPARE(frames[k].line, expected[k].line);
            QCOMPARE(frames[k].declLine, expected[k].declLine);
            QCOMPARE(toQ(frames[k].declFile), toQ(expected[k].declFile));
        }
        QVERIFY(sym.report().at(0).hasDebugInfo);
    }

    void separateDebugInfoByBuildId() {
        const QString objcopy = symtest::objcopy();
        if (objcopy.isEmpty())
            QSKIP("objcopy (binutils) not installed");
        const QString lib = QString::fromUtf8(SCORCH_SYMTEST_LIB);
        const std::string id = elfBuildId(lib.toStdString());
        QTemporaryDir dir;
        const QString debugDir = dir.path() + QStringLiteral("/debug");
        const QString debugFile = buildIdDebugFile(debugDir, id);
        const QString stripped = splitByBuildId(objcopy, lib, dir.path(), id);
        QVERIFY(!stripped.isEmpty());
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

    void perfBuildIdCache() {
        // perf record copies what it saw into its build-id cache (~/.debug): the kernel's kallsyms, the
        // [vdso] image and the modules, each by build-id
        const QString lib = QString::fromUtf8(SCORCH_SYMTEST_LIB);
        const std::string libId = elfBuildId(lib.toStdString());
        QTemporaryDir cache;
        auto put = [&](const QString& source, const QString& relative) {
            const QString target = cache.path() + u'/' + relative;
            return QDir().mkpath(QFileInfo(target).absolutePath()) && QFile::copy(source, target);
        };
        QVERIFY(put(test::testData(QStringLiteral("native/kallsyms")),
                    QStringLiteral("[kernel.kallsyms]/00c0ffee/kallsyms")));
        QVERIFY(put(lib, QStringLiteral("[vdso]/") + toQ(libId) + QStringLiteral("/vdso")));
        QVERIFY(put(lib, QStringLiteral(".build-id/") + toQ(libId.substr(0, 2)) + u'/' +
                             toQ(libId.substr(2)) + QStringLiteral("/elf")));
        SymbolizerOptions options;
        options.buildIdCache = cache.path().toStdString();
        options.kallsyms = "/nonexistent/kallsyms";
        options.kernelNotes = "/nonexistent/notes"; // the running kernel's build-id unknown
        options.debugDirs.clear();
        Symbolizer sym(options);
        const Location ret = locate(symtest::libFunction(5));
        const std::vector<Symbolizer::Request> requests = {
            {sym.kernel("00c0ffee"), 0xffffffff81000150, false}, // the recorded kernel's table
            {sym.kernel("0badf00d"), 0xffffffff81000150, false}, // not cached: /proc path (missing)
            {sym.module("[vdso]", libId), ret.offset, true},     // the recorded vdso image
            {sym.module("/gone/libscorch_symtest.so", libId), ret.offset, true}, // deleted since recording
        };
        const auto r = sym.symbolize(requests);
        QCOMPARE(toQ(r[0][0].function), QStringLiteral("do_syscall_64"));
        QVERIFY(r[1][0].function.empty());
        QCOMPARE(toQ(r[2][0].function), QStringLiteral("symtest::libFunction(int)"));
        QCOMPARE(toQ(r[3][0].function), QStringLiteral("symtest::libFunction(int)"));
        const auto reports = sym.report();
        QVERIFY(toQ(reports[0].resolvedPath).endsWith(QStringLiteral("[kernel.kallsyms]/00c0ffee/kallsyms")));
        QVERIFY2(reports[1].problem.starts_with("cannot read /nonexistent/kallsyms"),
                 reports[1].problem.c_str());
        QVERIFY(toQ(reports[2].resolvedPath).endsWith(QStringLiteral("/vdso")));
        QVERIFY(toQ(reports[3].resolvedPath).endsWith(QStringLiteral("/elf")));

        // without the cache none of them is found
        options.buildIdCache.clear();
        Symbolizer none(options);
        const Symbolizer::Request vdso{none.module("[vdso]", libId), ret.offset, true};
        QVERIFY(none.symbolize({&vdso, 1})[0][0].function.empty());
    }

    void preloadLoadsModulesInTheBackground() {
        const Location exe = locate(symtest::outerFunction(3));
        const Location lib = locate(symtest::libFunction(3));
        SymbolizerOptions options;
        options.kallsyms = test::testData(QStringLiteral("native/kallsyms")).toStdString();
        std::vector<std::vector<SymbolFrame>> expected;
        {
            Symbolizer plain(options);
            const std::vector<Symbolizer::Request> requests = {{plain.module(exe.path), exe.offset, true},
                                                               {plain.module(lib.path), lib.offset, true},
                                                               {plain.kernel(), 0xffffffff81000150, false}};
            expected = plain.symbolize(requests);
        }
        Symbolizer sym(options);
        const std::vector<Symbolizer::Request> requests = {{sym.module(exe.path), exe.offset, true},
                                                           {sym.module(lib.path), lib.offset, true},
                                                           {sym.kernel(), 0xffffffff81000150, false}};
        for (const auto& r : requests) {
            sym.preload(r.module);
            sym.preload(r.module); // queued once
        }
        sym.preload(ModuleHandle{});   // no module: ignored
        sym.preload(sym.jitMap(4242)); // JIT maps are read on lookup
        const auto got = sym.symbolize(requests);
        QCOMPARE(got.size(), expected.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            QCOMPARE(got[i].size(), expected[i].size());
            for (std::size_t k = 0; k < got[i].size(); ++k) {
                QCOMPARE(toQ(got[i][k].function), toQ(expected[i][k].function));
                QCOMPARE(got[i][k].line, expected[i][k].line);
            }
        }
        QVERIFY(sym.report()[0].hasDebugInfo);
        // destroyed while modules are queued: waits for the one being loaded, skips the rest, never hangs
        for (int round = 0; round < 20; ++round) {
            Symbolizer quick(options);
            quick.preload(quick.module(lib.path));
            quick.preload(quick.module(exe.path));
            quick.preload(quick.kernel());
        }
    }

    void compressedDebugSections_data() {
        QTest::addColumn<QString>("compression");
        QTest::newRow("zlib") << QStringLiteral("zlib");
        QTest::newRow("zstd") << QStringLiteral("zstd");
    }

    void compressedDebugSections() {
        // Debian's -dbg packages compress their debug sections: the symbolizer reads an inflated copy in a
        // memfd shared by its sessions; frames are the same as from the uncompressed file
        QFETCH(QString, compression);
        const QString objcopy = symtest::objcopy();
        if (objcopy.isEmpty())
            QSKIP("objcopy (binutils) not installed");
        const QString lib = QString::fromUtf8(SCORCH_SYMTEST_LIB);
        const std::string id = elfBuildId(lib.toStdString());
        QTemporaryDir dir;
        const QString compressed = dir.path() + QStringLiteral("/libscorch_symtest.so");
        if (const QString why = compressedTestLibrary(compressed, compression); !why.isEmpty())
            QSKIP(qPrintable(why));
        QVERIFY(test::readAll(compressed) != test::readAll(lib));
        // and as a separate debug file, found by build-id, beside a stripped library
        const QString debugDir = dir.path() + QStringLiteral("/debug");
        const QString debugFile = buildIdDebugFile(debugDir, id);
        QVERIFY(!debugFile.isEmpty());
        const QString strippedDir = dir.path() + QStringLiteral("/stripped");
        QVERIFY(QDir().mkpath(strippedDir));
        const QString stripped = strippedDir + QStringLiteral("/libscorch_symtest.so");
        QCOMPARE(QProcess::execute(objcopy, {QStringLiteral("--only-keep-debug"),
                                             QStringLiteral("--compress-debug-sections=") + compression, lib,
                                             debugFile}),
                 0);
        QCOMPARE(QProcess::execute(objcopy, {QStringLiteral("--strip-debug"), lib, stripped}), 0);

        const std::vector<Location> where = {locate(symtest::libFunction(6)),
                                             locate(reinterpret_cast<const void*>(&symtest::libFunction))};
        auto frames = [&](const QString& path, const std::string& debugDirPath) {
            SymbolizerOptions options;
            options.debugDirs = {debugDirPath};
            options.threads = 2;
            Symbolizer sym(options);
            std::vector<Symbolizer::Request> requests;
            for (const Location& w : where)
                requests.push_back({sym.module(path.toStdString(), id), w.offset, &w == &where[0]});
            auto result = sym.symbolize(requests);
            // the copy is mapped while the symbolizer lives
            const bool inflated =
                test::readAll(QStringLiteral("/proc/self/maps")).contains("scorch-inflated:");
            return std::make_pair(result, inflated);
        };
        const auto [plain, plainInflated] = frames(lib, "/nonexistent");
        QVERIFY(!plainInflated);
        QVERIFY(plain[0].size() >= 2); // with the inline frame
        for (const QString& path : {compressed, stripped}) {
            const auto [got, inflated] = frames(path, debugDir.toStdString());
            QVERIFY2(inflated, qPrintable(path));
            QCOMPARE(got.size(), plain.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                QCOMPARE(got[i].size(), plain[i].size());
                for (std::size_t k = 0; k < got[i].size(); ++k) {
                    QCOMPARE(toQ(got[i][k].function), toQ(plain[i][k].function));
                    QCOMPARE(toQ(got[i][k].file), toQ(plain[i][k].file));
                    QCOMPARE(got[i][k].line, plain[i][k].line);
                    QCOMPARE(got[i][k].inlined, plain[i][k].inlined);
                }
            }
        }

        // a compressed section that does not inflate: no copy, libdw reads the file itself; no crash, and the
        // function still comes from the symbol table
        QByteArray image = test::readAll(compressed);
        const qsizetype at = image.size() / 2;
        for (qsizetype i = at; i < at + 64 && i < image.size(); ++i)
            image[i] = static_cast<char>(image[i] ^ 0xa5);
        const QString corrupt = dir.path() + QStringLiteral("/corrupt.so");
        QFile f(corrupt);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(image);
        f.close();
        SymbolizerOptions options;
        options.debugDirs.clear();
        Symbolizer sym(options);
        const Symbolizer::Request r{sym.module(corrupt.toStdString()), where[0].offset, true};
        const auto got = sym.symbolize({&r, 1});
        QCOMPARE(got.size(), std::size_t(1));
    }

    void inflatedCopiesAreKept() {
        // with SymbolizerOptions::inflatedCopies, the first run writes its inflated copy there and later runs
        // map that copy instead of inflating again; a broken copy is replaced, a changed file gets its own
        QTemporaryDir dir;
        const QString compressed = dir.path() + QStringLiteral("/libscorch_symtest.so");
        if (const QString why = compressedTestLibrary(compressed); !why.isEmpty())
            QSKIP(qPrintable(why));
        const QString keep = dir.path() + QStringLiteral("/cache/scorch/inflated"); // made when needed
        const std::vector<Location> where = {locate(symtest::libFunction(6)),
                                             locate(reinterpret_cast<const void*>(&symtest::libFunction))};
        struct Run {
            std::vector<std::vector<SymbolFrame>> frames;
            QByteArray maps; ///< /proc/self/maps while the symbolizer lived
        };
        auto run = [&](const std::string& inflatedCopies) {
            SymbolizerOptions options;
            options.debugDirs.clear();
            options.inflatedCopies = inflatedCopies;
            Symbolizer sym(options);
            std::vector<Symbolizer::Request> requests;
            for (const Location& w : where)
                requests.push_back({sym.module(compressed.toStdString()), w.offset, &w == &where[0]});
            Run r{sym.symbolize(requests), test::readAll(QStringLiteral("/proc/self/maps"))};
            return r;
        };
        auto same = [](const Run& a, const Run& b) {
            if (a.frames.size() != b.frames.size())
                return false;
            for (std::size_t i = 0; i < a.frames.size(); ++i) {
                if (a.frames[i].size() != b.frames[i].size())
                    return false;
                for (std::size_t k = 0; k < a.frames[i].size(); ++k)
                    if (a.frames[i][k].function != b.frames[i][k].function ||
                        a.frames[i][k].file != b.frames[i][k].file ||
                        a.frames[i][k].line != b.frames[i][k].line ||
                        a.frames[i][k].inlined != b.frames[i][k].inlined)
                        return false;
            }
            return true;
        };
        auto kept = [&] {
            return QDir(keep).entryInfoList(QDir::Files | QDir::Hidden, QDir::Name);
        };
        const Run memoryOnly = run({});
        QVERIFY(memoryOnly.maps.contains("scorch-inflated:"));
        QVERIFY(memoryOnly.frames[0].size() >= 2); // with the inline frame
        QVERIFY(!QFileInfo::exists(keep));

        const Run first = run(keep.toStdString());
        QVERIFY(first.maps.contains("scorch-inflated:"));
        QVERIFY(same(first, memoryOnly));
        QCOMPARE(kept().size(), 1);
        const QFileInfo copy = kept().front();
        QVERIFY2(copy.fileName().startsWith(QStringLiteral("v1-libscorch_symtest.so-")),
                 qPrintable(copy.fileName()));
        QCOMPARE(QFileInfo(keep).permissions() & (QFile::ReadGroup | QFile::ReadOther), QFile::Permissions());
        QVERIFY(compressedSections(compressed) > 0);
        QCOMPARE(compressedSections(copy.absoluteFilePath()), 0); // inflated
        const qint64 keptSize = copy.size();

        const Run second = run(keep.toStdString());
        QVERIFY(!second.maps.contains("scorch-inflated:")); // nothing inflated: the kept copy is mapped
        QVERIFY(second.maps.contains(copy.absoluteFilePath().toUtf8()));
        QVERIFY(same(second, memoryOnly));

        // a broken copy (cut short) is not used, and is written anew
        QVERIFY(QFile::resize(copy.absoluteFilePath(), 10));
        const Run third = run(keep.toStdString());
        QVERIFY(third.maps.contains("scorch-inflated:"));
        QVERIFY(same(third, memoryOnly));
        QCOMPARE(kept().size(), 1);
        QCOMPARE(kept().front().size(), keptSize);

        // the library changed (another modification time): a copy of its own
        QFile f(compressed);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(
            f.setFileTime(QDateTime::currentDateTimeUtc().addSecs(-3600), QFileDevice::FileModificationTime));
        f.close();
        const Run changed = run(keep.toStdString());
        QVERIFY(changed.maps.contains("scorch-inflated:"));
        QVERIFY(same(changed, memoryOnly));
        QCOMPARE(kept().size(), 2);
    }

    void inflatedCopiesOverTheLimitGo() {
        // above the size limit the least recently used copies are removed; using a copy makes it recent
        QTemporaryDir dir;
        QStringList files;
        for (const char* name : {"a.so", "b.so", "c.so"}) {
            files << dir.path() + u'/' + QLatin1String(name);
            if (const QString why = compressedTestLibrary(files.back()); !why.isEmpty())
                QSKIP(qPrintable(why));
        }
        const QString keep = dir.path() + QStringLiteral("/kept");
        auto open = [&](detail::InflatedElfCache& cache, const QString& path) {
            const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
            const int copy = fd >= 0 ? cache.open(path.toStdString(), fd, 1) : -1;
            if (fd >= 0)
                ::close(fd);
            if (copy >= 0)
                ::close(copy);
            return copy >= 0;
        };
        auto keptNames = [&] {
            QStringList names;
            for (const QFileInfo& i : QDir(keep).entryInfoList(QDir::Files | QDir::Hidden, QDir::Name))
                names << i.fileName().section(u'-', 1, 1);
            return names;
        };
        auto age = [&](const QString& name, int seconds) { // a kept copy's last use, `seconds` ago
            for (const QFileInfo& i : QDir(keep).entryInfoList(QDir::Files))
                if (i.fileName().section(u'-', 1, 1) == name) {
                    QFile f(i.absoluteFilePath());
                    return f.open(QIODevice::ReadWrite) &&
                           f.setFileTime(QDateTime::currentDateTimeUtc().addSecs(-seconds),
                                         QFileDevice::FileModificationTime);
                }
            return false;
        };
        qint64 one = 0;
        {
            detail::InflatedElfCache cache;
            cache.keepIn(keep.toStdString());
            QVERIFY(open(cache, files[0]));
            QVERIFY(open(cache, files[1]));
            QCOMPARE(keptNames(), QStringList({QStringLiteral("a.so"), QStringLiteral("b.so")}));
            one = QDir(keep).entryInfoList(QDir::Files).front().size();
        }
        QVERIFY(age(QStringLiteral("a.so"), 200));
        QVERIFY(age(QStringLiteral("b.so"), 100));
        { // a.so used again (the oldest before): b.so is now the least recently used
            detail::InflatedElfCache cache;
            cache.keepIn(keep.toStdString(), uint64_t(2 * one));
            QVERIFY(open(cache, files[0]));
        }
        QVERIFY(age(QStringLiteral("b.so"), 100));
        {
            detail::InflatedElfCache cache;
            cache.keepIn(keep.toStdString(), uint64_t(2 * one)); // room for two copies
            QVERIFY(open(cache, files[2]));
        }
        QCOMPARE(keptNames(), QStringList({QStringLiteral("a.so"), QStringLiteral("c.so")}));
    }

    void pltEntriesAreNamed() {
        // objdump names PLT entries after their relocations ("<name@plt>"): the symbolizer must agree, for
        // every entry of this test program
        const QString objdump = QStandardPaths::findExecutable(QStringLiteral("objdump"));
        if (objdump.isEmpty())
            QSKIP("objdump (binutils) not installed");
        const QString exe = QCoreApplication::applicationFilePath();
        QProcess p;
        p.start(objdump, {QStringLiteral("-d"), QStringLiteral("-j"), QStringLiteral(".plt"),
                          QStringLiteral("-j"), QStringLiteral(".plt.sec"), exe});
        QVERIFY(p.waitForFinished(kPatienceMs));
        const QString listing = QString::fromUtf8(p.readAllStandardOutput());
        static const QRegularExpression label(QStringLiteral("^([0-9a-f]+) <([^>]+)@plt>:$"),
                                              QRegularExpression::MultilineOption);
        const ElfFileInfoForTest info = elfLoads(exe);
        Symbolizer sym;
        const ModuleHandle module = sym.module(exe.toStdString());
        int checked = 0, exact = 0;
        for (auto it = label.globalMatch(listing); it.hasNext();) {
            const auto m = it.next();
            const uint64_t vaddr = m.captured(1).toULongLong(nullptr, 16) + 4; // inside the entry
            uint64_t offset = 0;
            QVERIFY(info.toOffset(vaddr, offset));
            const Symbolizer::Request r{module, offset, false};
            const std::string got = sym.symbolize({&r, 1})[0][0].function;
            const std::string mangled = m.captured(2).toStdString();
            QVERIFY2(got.ends_with("@plt"), (mangled + " -> " + got).c_str());
            if (mangled.starts_with("_Z")) { // demangled, as everywhere else
                QVERIFY2(!got.starts_with("_Z"), got.c_str());
            } else {
                QCOMPARE(toQ(got), toQ(mangled + "@plt")); // C functions: memcpy@plt
                ++exact;
            }
            ++checked;
        }
        QVERIFY2(checked >= 10, qPrintable(listing.left(2000)));
        QVERIFY(exact >= 3);
    }

    // Issue 15: Rust's v0 mangling (`_R...`) is demangled, legacy Rust names (`_ZN...17h<hash>E`) lose their
    // hash, as perf and Hotspot show them; C++ names are as before. A library made here with those symbol
    // names (no debug info: the names come from the symbol table).
    void rustSymbolsAreDemangled() {
        const QString cc = QStandardPaths::findExecutable(QStringLiteral("cc"));
        const QString nm = QStandardPaths::findExecutable(QStringLiteral("nm"));
        if (cc.isEmpty() || nm.isEmpty())
            QSKIP("cc or nm not installed");
        QTemporaryDir dir;
        const QString source = dir.filePath(QStringLiteral("rust.c"));
        const QString lib = dir.filePath(QStringLiteral("librustnames.so"));
        {
            QFile f(source);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("int v0(int x) __asm__(\"_RNvCskwGfYPst2Cb_3foo16example_function\");\n"
                    "int v0(int x) { return x + 1; }\n"
                    "int v0Method(int x) __asm__(\"_RNvMs_NtCs4fqI2P2rA04_4core3fmtNtB4_9Formatter3pad\");\n"
                    "int v0Method(int x) { return x + 2; }\n"
                    "int legacy(int x) __asm__(\"_ZN4core3fmt5write17h0123456789abcdefE\");\n"
                    "int legacy(int x) { return x * 3; }\n"
                    "int cpp(int x) __asm__(\"_ZN3foo3barEi\");\n"
                    "int cpp(int x) { return x * 5; }\n");
        }
        QCOMPARE(QProcess::execute(cc, {QStringLiteral("-O1"), QStringLiteral("-shared"),
                                        QStringLiteral("-fPIC"), QStringLiteral("-o"), lib, source}),
                 0);
        QProcess p;
        p.start(nm, {QStringLiteral("--defined-only"), lib});
        QVERIFY(p.waitForFinished(kPatienceMs));
        std::map<QString, uint64_t> address; // mangled name -> virtual address
        for (const QString& line : QString::fromUtf8(p.readAllStandardOutput()).split(u'\n')) {
            const QStringList f = line.simplified().split(u' ');
            if (f.size() == 3)
                address[f[2]] = f[0].toULongLong(nullptr, 16);
        }
        const ElfFileInfoForTest loads = elfLoads(lib);
        Symbolizer sym;
        const ModuleHandle module = sym.module(lib.toStdString());
        const std::vector<std::pair<const char*, const char*>> expected = {
            {"_RNvCskwGfYPst2Cb_3foo16example_function", "foo::example_function"},
            {"_RNvMs_NtCs4fqI2P2rA04_4core3fmtNtB4_9Formatter3pad", "<core::fmt::Formatter>::pad"},
            {"_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write"},
            {"_ZN3foo3barEi", "foo::bar(int)"},
        };
        for (const auto& [mangled, demangled] : expected) {
            const auto it = address.find(QString::fromLatin1(mangled));
            QVERIFY2(it != address.end(), mangled);
            uint64_t offset = 0;
            QVERIFY(loads.toOffset(it->second, offset));
            const Symbolizer::Request r{module, offset, false};
            const auto frames = sym.symbolize({&r, 1});
            QCOMPARE(toQ(frames.at(0).at(0).function), QString::fromLatin1(demangled));
        }
        // without demangling, the names stay as they are
        SymbolizerOptions raw;
        raw.demangle = false;
        Symbolizer rawSym(raw);
        uint64_t offset = 0;
        QVERIFY(loads.toOffset(address[QStringLiteral("_ZN4core3fmt5write17h0123456789abcdefE")], offset));
        const Symbolizer::Request r{rawSym.module(lib.toStdString()), offset, false};
        QCOMPARE(toQ(rawSym.symbolize({&r, 1}).at(0).at(0).function),
                 QStringLiteral("_ZN4core3fmt5write17h0123456789abcdefE"));
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
};

QTEST_GUILESS_MAIN(TestSymbolizer)
#include "tst_symbolizer.moc"
