// Issue 15: recordings opened as on another machine. A program with a shared library of its own is built
// here, recorded with perf (frame pointers and --call-graph dwarf), and its files moved away: found again
// through --symbol-path, a sysroot, relative recorded paths, or a real debuginfod server on 127.0.0.1, the
// recording gives the same stacks as before the move. The Symbols report says where each module was found.
#include "recordtestutil.h"
#include "scorch/import.h"
#include "scorch/sourcelocator.h"
#include "scorch/symbolizer.h"
#include "testutil.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <mutex>

using namespace scorch;
using namespace scorch::test;

namespace {

const ModuleReport* moduleNamed(const Profile& p, const QString& fileName) {
    for (const ModuleReport& m : p.meta.modules)
        if (QFileInfo(QString::fromStdString(m.path)).fileName() == fileName)
            return &m;
    return nullptr;
}

/// lineCosts entries in source file `fileName`.
std::size_t linesIn(const Profile& p, const QString& fileName) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < p.lineCosts.size(); ++i)
        n += QFileInfo(QString::fromStdString(std::string(p.strings.view(p.lineCosts.file[i])))).fileName() ==
                     fileName
                 ? 1
                 : 0;
    return n;
}

} // namespace

class TestOtherHosts : public QObject {
    Q_OBJECT

    bool m_recording = false;
    QTemporaryDir m_probe;

private Q_SLOTS:
    void initTestCase() {
        m_recording =
            canRecord(m_probe.path()) && !QStandardPaths::findExecutable(QStringLiteral("cc")).isEmpty();
    }

    // The binaries moved elsewhere: found through --symbol-path or below a sysroot, the stacks equal those
    // at the recorded paths, for frame-pointer and DWARF recordings; relative recorded paths (`./bin/prog`)
    // are resolved against the recording's directory.
    void movedBinaries_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<bool>("sysroot");
        QTest::newRow("dwarf, symbol path") << QStringLiteral("dwarf") << false;
        QTest::newRow("dwarf, sysroot") << QStringLiteral("dwarf") << true;
        QTest::newRow("frame pointers, symbol path") << QStringLiteral("fp") << false;
        QTest::newRow("frame pointers, sysroot") << QStringLiteral("fp") << true;
    }
    void movedBinaries() {
        QFETCH(QString, mode);
        QFETCH(bool, sysroot);
        if (!m_recording)
            QSKIP("perf record or cc does not work here");
        QTemporaryDir dir, home;
        const ScopedHome scopedHome(home.path()); // no build-id cache that would hold the binaries
        const ScopedEnv noServers("DEBUGINFOD_URLS", QByteArray());
        WildProgram wild;
        const QString error = wild.build(dir.path(), mode == QLatin1String("fp"));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QString data = dir.filePath(QStringLiteral("wild.data"));
        QCOMPARE(wild.record(data, mode), 0);
        const Profile before = importProfile(data.toStdString());
        QVERIFY(before.meta.samples > 50);
        const std::string inPlace = collapsed(before);
        // frame pointers miss the caller of a leaf sampled before it set up its frame; DWARF does not
        const bool dwarf = mode == QLatin1String("dwarf");
        for (const char* leaf : {"wildLeaf", "progLeaf"}) {
            const std::string stack = dwarf ? std::string("main;drive;wildWork;") + leaf : std::string(leaf);
            QVERIFY2(inPlace.find(stack) != std::string::npos &&
                         inPlace.find("main;drive;") != std::string::npos,
                     inPlace.c_str());
        }
        const ModuleReport* atHome = moduleNamed(before, QStringLiteral("libwild.so"));
        QVERIFY(atHome);
        QCOMPARE(atHome->foundBy, std::string("recorded path"));
        QVERIFY(atHome->buildIdVerified && atHome->hasSymbols && atHome->hasDebugInfo &&
                atHome->hasUnwindInfo);
        QVERIFY2(describeModule(*atHome).starts_with("at its recorded path; build-id verified"),
                 describeModule(*atHome).c_str());

        // the same recording with relative paths: `./bin/...` in place of the absolute ones, same lengths
        QByteArray bytes = readAll(data);
        for (const QString& file : {wild.prog, wild.lib}) {
            const QByteArray absolute = file.toUtf8();
            QByteArray relative = "./bin/" + QFileInfo(file).fileName().toUtf8();
            relative.append(QByteArray(absolute.size() - relative.size(), '\0'));
            QVERIFY(bytes.contains(absolute + '\0'));
            bytes.replace(absolute + '\0', relative + '\0');
        }
        const QString relativeData = dir.filePath(QStringLiteral("relative.data"));
        QVERIFY(writeFile(relativeData, bytes));
        const Profile relativeProfile = importProfile(relativeData.toStdString());
        const std::string relative = collapsed(relativeProfile);
        QCOMPARE(moduleNamed(relativeProfile, QStringLiteral("wildprog"))->foundBy,
                 std::string("beside the recording"));

        ImportOptions options;
        QString movedTo;
        if (sysroot) { // the files below a root, at their recorded paths; the system's libraries there too
            const QString root = dir.filePath(QStringLiteral("root"));
            movedTo = root + wild.bin;
            QVERIFY(QDir().mkpath(QFileInfo(movedTo).path()));
            for (const char* top : {"usr", "lib", "lib64"})
                if (QFileInfo::exists(QStringLiteral("/") + QLatin1String(top)))
                    QVERIFY(QFile::link(QStringLiteral("/") + QLatin1String(top),
                                        root + QStringLiteral("/") + QLatin1String(top)));
            options.sysroot = root.toStdString();
        } else {
            movedTo = dir.filePath(QStringLiteral("elsewhere"));
            options.symbolSearchPaths = {movedTo.toStdString()};
        }
        QVERIFY(QDir().rename(wild.bin, movedTo));
        const Profile lostProfile = importProfile(data.toStdString());
        const std::string lost = collapsed(lostProfile);
        const Profile foundProfile = importProfile(data.toStdString(), options);
        const std::string found = collapsed(foundProfile);

        const double shareInPlace = shareReachingMain(inPlace), shareFound = shareReachingMain(found),
                     shareRelative = shareReachingMain(relative), shareLost = shareReachingMain(lost);
        qInfo("--call-graph %s, cost reaching main: %.1f%% at the recorded paths, %.1f%% moved and found "
              "through %s, %.1f%% through relative recorded paths, %.1f%% moved without it",
              qPrintable(mode), 100 * shareInPlace, 100 * shareFound, sysroot ? "--sysroot" : "--symbol-path",
              100 * shareRelative, 100 * shareLost);
        QVERIFY(shareInPlace > 0.9);
        QCOMPARE(found, inPlace);
        QCOMPARE(relative, inPlace);
        QVERIFY(found != lost);
        if (dwarf)
            QVERIFY(shareLost < shareInPlace); // without the file there is no CFI to unwind with

        // the Symbols report: where each was found, or everywhere it was looked for
        const ModuleReport* lib = moduleNamed(foundProfile, QStringLiteral("libwild.so"));
        QVERIFY(lib);
        QCOMPARE(lib->foundBy, std::string(sysroot ? "sysroot" : "symbol path"));
        QCOMPARE(QString::fromStdString(lib->resolvedPath), movedTo + QStringLiteral("/libwild.so"));
        QVERIFY(lib->buildIdVerified);
        const ModuleReport* gone = moduleNamed(lostProfile, QStringLiteral("libwild.so"));
        QVERIFY(gone);
        QVERIFY(gone->resolvedPath.empty());
        QVERIFY(!gone->searched.empty());
        QCOMPARE(QString::fromStdString(gone->searched.front()), wild.lib);
        const std::string text = describeModule(*gone);
        QVERIFY2(text.starts_with("not found; searched " + wild.lib.toStdString()), text.c_str());
        QVERIFY(gone->samples > 0 && gone->samples <= lostProfile.meta.samples);
    }

    // A debuginfod server on 127.0.0.1 serves the program and its library (unstripped). Here they are first
    // stripped of their debug info (source lines come from the server), then gone (the files themselves come
    // from it, and the DWARF unwinder reads their CFI there). Progress is reported, and cancel stops a
    // transfer.
    void debuginfodServer() {
        if (!m_recording)
            QSKIP("perf record or cc does not work here");
        if (QStandardPaths::findExecutable(QStringLiteral("debuginfod")).isEmpty())
            QSKIP("debuginfod is not installed (Debian package debuginfod)");
        QTemporaryDir dir, home, cache;
        const ScopedHome scopedHome(home.path());
        const ScopedEnv noServers("DEBUGINFOD_URLS", QByteArray());
        const ScopedEnv cachePath("DEBUGINFOD_CACHE_PATH", cache.path().toLocal8Bit());
        WildProgram wild;
        const QString error = wild.build(dir.path(), false);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QString data = dir.filePath(QStringLiteral("wild.data"));
        QCOMPARE(wild.record(data, QStringLiteral("dwarf")), 0);
        const Profile before = importProfile(data.toStdString());
        const std::string inPlace = collapsed(before);
        QVERIFY(shareReachingMain(inPlace) > 0.9);
        QVERIFY(linesIn(before, QStringLiteral("prog.c")) > 0);

        // the server's copies, then the local files without debug info (same build-ids)
        const QString served = dir.filePath(QStringLiteral("served"));
        QVERIFY(QDir().mkpath(served));
        QVERIFY(QFile::copy(wild.prog, served + QStringLiteral("/wildprog")));
        QVERIFY(QFile::copy(wild.lib, served + QStringLiteral("/libwild.so")));
        const std::string progId = elfBuildId(wild.prog.toStdString());
        QVERIFY(!progId.empty());
        QCOMPARE(run(QStringLiteral("strip"), {QStringLiteral("--strip-debug"), wild.prog, wild.lib}), 0);
        QCOMPARE(elfBuildId(wild.prog.toStdString()), progId);
        const Profile stripped = importProfile(data.toStdString());
        QCOMPARE(linesIn(stripped, QStringLiteral("prog.c")), std::size_t(0));
        QVERIFY(!moduleNamed(stripped, QStringLiteral("wildprog"))->hasDebugInfo);

        DebuginfodServer server;
        const QString started = server.start(served, dir.path(), QString::fromStdString(progId));
        if (!started.isEmpty())
            QSKIP(qPrintable(QStringLiteral("debuginfod cannot serve here: ") + started));
        ImportOptions options;
        options.debuginfodUrls = server.url().toStdString();
        std::mutex statusMutex;
        std::vector<std::string> statuses;
        ImportControl control;
        control.status = [&](const std::string& s) {
            std::lock_guard lock(statusMutex);
            statuses.push_back(s);
        };

        // debug info from the server: source lines again
        const Profile withDebugInfo = importProfile(data.toStdString(), options, control);
        QCOMPARE(collapsed(withDebugInfo), inPlace);
        QCOMPARE(linesIn(withDebugInfo, QStringLiteral("prog.c")), linesIn(before, QStringLiteral("prog.c")));
        const ModuleReport* prog = moduleNamed(withDebugInfo, QStringLiteral("wildprog"));
        QVERIFY(prog && prog->hasDebugInfo);
        QCOMPARE(prog->foundBy, std::string("recorded path"));
        QVERIFY2(QString::fromStdString(prog->debugFile).startsWith(cache.path()), prog->debugFile.c_str());
        QVERIFY(std::any_of(statuses.begin(), statuses.end(), [](const std::string& s) {
            return s.starts_with("debuginfod: fetching debug info of ") &&
                   s.find("wildprog") != std::string::npos;
        }));
        QVERIFY2(qgetenv("DEBUGINFOD_URLS").isNull(), "the environment is put back after a query");

        // a source file by the build-id of its module, for the source view
        const SourceLocation source = fetchSource(wild.source.toStdString(), progId, options.debuginfodUrls);
        QCOMPARE(source.rule, SourceRule::Debuginfod);
        QVERIFY2(QString::fromStdString(source.path).startsWith(cache.path()), source.path.c_str());
        QCOMPARE(readAll(QString::fromStdString(source.path)), readAll(wild.source));
        const SourceLocation unknown = fetchSource("/nowhere/else.c", progId, options.debuginfodUrls);
        QVERIFY(!unknown.found());
        QVERIFY2(unknown.detail.starts_with("not on "), unknown.detail.c_str());

        // the files gone: fetched, build-id verified, unwound and named as at home
        QVERIFY(QDir(wild.bin).removeRecursively());
        const Profile gone = importProfile(data.toStdString());
        QVERIFY(shareReachingMain(collapsed(gone)) < 0.5);
        const Profile fetched = importProfile(data.toStdString(), options);
        QCOMPARE(collapsed(fetched), inPlace);
        for (const QString& name : {QStringLiteral("wildprog"), QStringLiteral("libwild.so")}) {
            const ModuleReport* m = moduleNamed(fetched, name);
            QVERIFY(m);
            QCOMPARE(m->foundBy, std::string("debuginfod"));
            QVERIFY(m->buildIdVerified);
            QVERIFY2(QString::fromStdString(m->resolvedPath).startsWith(cache.path()),
                     m->resolvedPath.c_str());
            QVERIFY2(describeModule(*m).starts_with("found by debuginfod: " + cache.path().toStdString()),
                     describeModule(*m).c_str());
        }
        // what was looked at before asking the server is listed, the server last
        const ModuleReport* lib = moduleNamed(fetched, QStringLiteral("libwild.so"));
        QCOMPARE(QString::fromStdString(lib->searched.front()), wild.lib);
        QCOMPARE(QString::fromStdString(lib->searched.back()), QStringLiteral("debuginfod ") + server.url());

        // a server that has not got the file: not found, and the report says whom it asked
        QTemporaryDir otherCache;
        const ScopedEnv otherCachePath("DEBUGINFOD_CACHE_PATH", otherCache.path().toLocal8Bit());
        ImportOptions nowhere;
        nowhere.debuginfodUrls = "http://127.0.0.1:1";
        const Profile refused = importProfile(data.toStdString(), nowhere);
        const ModuleReport* missing = moduleNamed(refused, QStringLiteral("libwild.so"));
        QVERIFY(missing && missing->resolvedPath.empty());
        QVERIFY2(missing->problem.starts_with("not found (debuginfod: "), missing->problem.c_str());

        // cancel during a transfer (from its first progress report): the import stops as cancelled
        QTemporaryDir freshCache;
        const ScopedEnv freshCachePath("DEBUGINFOD_CACHE_PATH", freshCache.path().toLocal8Bit());
        std::atomic<bool> cancel{false};
        ImportControl cancelling;
        cancelling.cancel = &cancel;
        cancelling.status = [&](const std::string& s) {
            if (s.starts_with("debuginfod: fetching"))
                cancel = true;
        };
        QVERIFY_THROWS_EXCEPTION(ImportCancelled, importProfile(data.toStdString(), options, cancelling));
        QVERIFY(cancel.load());
    }
};

QTEST_GUILESS_MAIN(TestOtherHosts)
#include "tst_otherhosts.moc"
