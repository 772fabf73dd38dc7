// The native perf.data reader: committed fixtures checked against `perf script` output recorded with them,
// recordings made here (frame pointers and --call-graph dwarf) compared with `perf script` on the same file,
// the corpus file, truncated and corrupt files, cancellation, progressive snapshots and the fallback.
#include "patience.h"
#include "perf/perfreader.h"
#include "recordtestutil.h"
#include "scorch/analysis.h"
#include "scorch/bytesource.h"
#include "scorch/foldedwriter.h"
#include "scorch/import.h"
#include "scorch/perfdata.h"
#include "scorch/samples.h"
#include "scorch/symbolizer.h"
#include "testutil.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <bit>
#include <cctype>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <tuple>

using namespace scorch;
using scorch::test::canRecord;
using scorch::test::collapsed;
using scorch::test::run;
using scorch::test::ScopedHome;
using scorch::test::writeFile;

namespace {

struct Stack {
    int64_t tid = -1;
    std::vector<uint64_t> ips;
};

/// `perf script -F tid,ip` output: a line with the tid, then one address per line, a blank line after each.
std::vector<Stack> parsePerfScript(const QByteArray& text) {
    std::vector<Stack> out;
    bool open = false;
    for (const QByteArray& raw : text.split('\n')) {
        const QByteArray line = raw.trimmed();
        if (line.isEmpty()) {
            open = false;
            continue;
        }
        if (!open) {
            out.push_back({line.toLongLong(), {}});
            open = true;
        } else {
            out.back().ips.push_back(line.split(' ').front().toULongLong(nullptr, 16));
        }
    }
    return out;
}

std::vector<Stack> ourStacks(const QString& path) {
    std::vector<Stack> out;
    forEachPerfDataSample(path.toStdString(), [&](int64_t, int64_t tid, std::span<const uint64_t> ips) {
        out.push_back({tid, {ips.begin(), ips.end()}});
    });
    return out;
}

struct Agreement {
    std::size_t samples = 0, same = 0, perfIsPrefix = 0;
};

/// Compares stacks sample by sample. Caller frames may differ by one: perf's DWARF unwinder reports
/// return address - 1. perf's libunwind ends some stacks with an address -1 (not a frame): ignored.
Agreement compare(const std::vector<Stack>& ours, const std::vector<Stack>& perf) {
    Agreement a;
    a.samples = perf.size();
    if (ours.size() != perf.size())
        return a;
    for (std::size_t i = 0; i < perf.size(); ++i) {
        std::vector<uint64_t> theirs = perf[i].ips;
        if (!theirs.empty() && theirs.back() == UINT64_MAX)
            theirs.pop_back();
        const std::vector<uint64_t>& mine = ours[i].ips;
        if (ours[i].tid != perf[i].tid || mine.size() < theirs.size())
            continue;
        bool prefix = true;
        for (std::size_t k = 0; k < theirs.size() && prefix; ++k)
            prefix = mine[k] == theirs[k] || mine[k] == theirs[k] + 1;
        if (prefix && mine.size() == theirs.size())
            ++a.same;
        else if (prefix)
            ++a.perfIsPrefix;
    }
    return a;
}

QString fixture(const char* name) {
    return QStringLiteral(SCORCH_PERF_FIXTURES "/") + QLatin1String(name);
}

QByteArray perfScript(const QString& file) {
    QProcess p;
    p.start(QStringLiteral("perf"), {QStringLiteral("script"), QStringLiteral("-F"), QStringLiteral("tid,ip"),
                                     QStringLiteral("--no-inline"), QStringLiteral("-i"), file});
    p.waitForFinished(scorch::test::kPatienceMs);
    return p.readAllStandardOutput();
}

/// perf report's "Event count" per event (`perf report --stdio --no-group`).
std::map<std::string, int64_t> perfReportEventCounts(const QString& file) {
    QProcess p;
    p.start(QStringLiteral("perf"), {QStringLiteral("report"), QStringLiteral("--stdio"),
                                     QStringLiteral("--no-group"), QStringLiteral("-i"), file});
    p.waitForFinished(scorch::test::kPatienceMs);
    std::map<std::string, int64_t> counts;
    std::string event;
    for (const QByteArray& line : p.readAllStandardOutput().split('\n')) {
        if (line.startsWith("# Samples:")) {
            const qsizetype open = line.indexOf('\''), close = line.lastIndexOf('\'');
            event = line.mid(open + 1, close - open - 1).toStdString();
        } else if (line.startsWith("# Event count (approx.):") && !event.empty()) {
            counts[event] = line.mid(line.indexOf(':') + 1).trimmed().toLongLong();
        }
    }
    return counts;
}

int64_t costTotal(const Profile& p, const std::string& name) {
    for (std::size_t t = 0; t < p.costTypes.size(); ++t)
        if (p.costTypes[t].name == name)
            return p.tree.grandTotal(t);
    return -1;
}

/// The bytes of perf.data `file` with its architecture (HEADER_ARCH) changed to arm64, and where its data
/// section is; empty when the file names no x86_64 architecture.
QByteArray markedArm64(const QString& file, uint64_t& dataOffset, uint64_t& dataSize) {
    QByteArray bytes = test::readAll(file);
    if (bytes.size() < 56)
        return {};
    std::memcpy(&dataOffset, bytes.constData() + 40, 8);
    std::memcpy(&dataSize, bytes.constData() + 48, 8);
    const qsizetype arch = bytes.indexOf(QByteArray("x86_64\0", 7), qsizetype(dataOffset + dataSize));
    if (arch <= 0)
        return {};
    bytes.replace(arch, 7, QByteArray("arm64\0\0", 7));
    return bytes;
}

/// The resident kB of this process's mapping of `path` (/proc/self/smaps), -1 when it has none.
long long mappedKb(const std::string& path) {
    QFile smaps(QStringLiteral("/proc/self/smaps"));
    if (!smaps.open(QIODevice::ReadOnly))
        return -1;
    QByteArray suffix(" ");
    suffix += QByteArray::fromStdString(path);
    bool inside = false;
    for (const QByteArray& line : smaps.readAll().split('\n')) {
        if (!line.isEmpty() && std::isxdigit(static_cast<unsigned char>(line[0])) && line.contains('-'))
            inside = line.endsWith(suffix);
        else if (inside && line.startsWith("Rss:"))
            return line.mid(4).trimmed().split(' ').front().toLongLong();
    }
    return -1;
}

std::string functionNames(const Profile& p) {
    std::string all;
    for (uint32_t f = 0; f < p.frames.size(); ++f)
        all += std::string(p.frameName(FrameId{f})) + "\n";
    return all;
}

} // namespace

class TestPerfData : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    bool m_recording = false;
    QString m_fp, m_dwarf;

    QString record(const QString& name, const QStringList& callGraph, int frequency, int thousands) {
        const QString out = m_dir.filePath(name);
        QStringList args = {QStringLiteral("record"),    QStringLiteral("-q"), QStringLiteral("-e"),
                            QStringLiteral("cpu-clock"), QStringLiteral("-F"), QString::number(frequency)};
        args << callGraph << QStringLiteral("-o") << out << QStringLiteral("--")
             << QStringLiteral(SCORCH_PERFPROG) << QString::number(thousands);
        QProcess p;
        p.start(QStringLiteral("perf"), args);
        if (!p.waitForFinished(scorch::test::kPatienceMs) || p.exitCode() != 0)
            return {};
        return out;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_recording = canRecord(m_dir.path());
        if (!m_recording) {
            qWarning("perf record does not work here: recordings made in the test are skipped");
            return;
        }
        m_fp = record(QStringLiteral("fp.data"), {QStringLiteral("-g")}, 2000, 100);
        m_dwarf = record(QStringLiteral("dwarf.data"),
                         {QStringLiteral("--call-graph"), QStringLiteral("dwarf")}, 1000, 60);
        QVERIFY(!m_fp.isEmpty());
        QVERIFY(!m_dwarf.isEmpty());
    }

    void fixtures_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("two events") << QStringLiteral("fp-two-events");
        QTest::newRow("zstd records") << QStringLiteral("fp-zstd");
        QTest::newRow("pipe mode") << QStringLiteral("fp-pipe");
    }
    // Committed recordings of scorch_perfprog with the `perf script -F tid,ip` output perf gave for them.
    void fixtures() {
        QFETCH(QString, name);
        const std::vector<Stack> perf =
            parsePerfScript(test::readAll(fixture((name + QStringLiteral(".script")).toUtf8().constData())));
        QVERIFY(!perf.empty());
        const QString data = fixture((name + QStringLiteral(".data")).toUtf8().constData());
        const std::vector<Stack> ours = ourStacks(data);
        QCOMPARE(ours.size(), perf.size());
        const Agreement a = compare(ours, perf);
        QCOMPARE(a.same, perf.size());
        const Profile p = importProfile(data.toStdString());
        QCOMPARE(p.meta.samples, uint64_t(perf.size()));
        QCOMPARE(p.meta.format, Format::PerfData);
        if (name == QLatin1String("fp-two-events")) { // one sample and one period cost type per event
            QVERIFY(p.costTypeIndex("cpu-clock") >= 0);
            QVERIFY(p.costTypeIndex("task-clock") >= 0);
            QVERIFY(p.costTypeIndex("task-clock samples") >= 0);
        }
        bool hasHost = false;
        for (const auto& [key, value] : p.meta.recording)
            hasHost = hasHost || (key == "hostname" && !value.empty());
        QVERIFY(hasHost || name == QLatin1String("fp-pipe"));
    }

    // ImportOptions::symbolize = false reads nothing from this machine: one `[module]` frame per module, no
    // function names, no per-module lookup warnings; the samples and costs are the same.
    void withoutSymbolization() {
        const std::string data = fixture("fp-two-events.data").toStdString();
        ImportOptions offline;
        offline.symbolize = false;
        const Profile raw = importProfile(data, offline);
        const Profile named = importProfile(data);
        QCOMPARE(raw.meta.samples, named.meta.samples);
        QCOMPARE(raw.tree.grandTotal(0), named.tree.grandTotal(0));
        bool libcModuleFrame = false;
        for (NodeId n = 1; n < raw.tree.size(); ++n) {
            const std::string_view name = raw.nodeName(n);
            QVERIFY2(name != "__libc_start_call_main", "a function was named without symbolization");
            libcModuleFrame = libcModuleFrame || name == "[libc.so.6]";
        }
        QVERIFY(libcModuleFrame);
    }

    // perf record of /usr/bin/true on CentOS 7 (perf 3.10, --call-graph dwarf), gzipped, from Hotspot's
    // tests.
    void corpusFile() {
        if (!test::haveCorpus())
            QSKIP("corpus not available");
        const QString path =
            test::corpusDir() +
            QStringLiteral("/other/perf-data/inputs/hotspot/file_content/perf.data.true.v2.gz");
        const Profile p = importProfile(path.toStdString());
        QCOMPARE(p.meta.compression, std::string("gzip"));
        QCOMPARE(p.meta.samples, uint64_t(1)); // `perf script` on the file prints one sample of `true`
        QCOMPARE(p.threads.size(), std::size_t(1));
        QCOMPARE(p.threads[0].name, std::string("true"));
        QCOMPARE(p.threads[0].tid, int64_t(28388));
        std::map<std::string, std::string> rec(p.meta.recording.begin(), p.meta.recording.end());
        QCOMPARE(rec["hostname"], std::string("centos7"));
        QCOMPARE(rec["os release"], std::string("3.10.0-123.6.3.el7.x86_64"));
        QVERIFY(rec["command line"].find("--call-graph dwarf,8192 true") != std::string::npos);
    }

    void framePointerRecording() {
        if (m_fp.isEmpty())
            QSKIP("perf record does not work here");
        const Profile p = importProfile(m_fp.toStdString());
        QVERIFY(p.meta.samples > 200);
        const std::string names = functionNames(p);
        // (not `middle`: sampled in the leaf warmLeaf, the frame-pointer chain skips its caller, in perf too)
        for (const char* f : {"hotLeaf", "warmLeaf", "driveWork", "main"})
            QVERIFY2(names.find(f) != std::string::npos, f);
        const auto top = topFunctions(p, 0, 1);
        QCOMPARE(std::string(p.frameName(top.front().frame)).substr(0, 7), std::string("hotLeaf"));
        const Agreement a = compare(ourStacks(m_fp), parsePerfScript(perfScript(m_fp)));
        qInfo("frame pointers: %zu of %zu samples have perf script's stack", a.same, a.samples);
        QVERIFY(a.samples > 200);
        QVERIFY(a.same * 100 >= a.samples * 99);
    }

    // A time range's source-line and instruction costs and those of the rest of the recording add up to
    // the whole recording's, entry by entry, for ranges of one sample (whose stacks are listed and walked,
    // against the pass over all the profile's stacks for the rest).
    void rangeDetailsAddUp() {
        if (m_fp.isEmpty())
            QSKIP("perf record does not work here");
        const Profile p = importProfile(m_fp.toStdString());
        QVERIFY(p.samples && hasSliceDetails(p));
        const std::size_t n = p.samples->size();
        // (a range of fewer samples than a quarter of the stacks lists its stacks; hotLeaf's and warmLeaf's
        // loops alone are more than four instructions, each a stack)
        QVERIFY2(p.stacks.size() > 4, std::to_string(p.stacks.size()).c_str());
        using Key = std::tuple<uint32_t, uint64_t, uint64_t>; // (frame, file or module, line or offset)
        using Sums = std::map<Key, std::vector<int64_t>>;     // self and total per cost type
        const auto sums = [](const Profile& q) {
            Sums out;
            const LineCosts& lc = q.lineCosts;
            for (std::size_t e = 0; e < lc.size(); ++e)
                for (std::size_t t = 0; t < lc.self.size(); ++t) {
                    std::vector<int64_t>& v = out[{lc.frame[e].value, lc.file[e].value, lc.line[e]}];
                    v.push_back(lc.self[t][e]);
                    v.push_back(lc.total[t][e]);
                }
            const AddressCosts& ac = q.addressCosts;
            for (std::size_t e = 0; e < ac.size(); ++e)
                for (std::size_t t = 0; t < ac.self.size(); ++t)
                    out[{ac.frame[e].value, uint64_t{1} << 40 | ac.module[e], ac.offset[e]}].push_back(
                        ac.self[t][e]);
            return out;
        };
        const Sums all = sums(p);
        QVERIFY(!all.empty());
        const auto rangeOf = [&](std::size_t first, std::size_t count) {
            SliceRequest req;
            req.range = {p.samples->time(first), p.samples->time(first + count - 1) + 1};
            req.details = true;
            return req;
        };
        // A sample whose stack has no line and no instruction cost (its leaf in the kernel, or at an address
        // without a function name: the recording's first and last samples may be) gives nothing to compare:
        // from each position, the nearest sample inward that has them is checked.
        const auto withDetails = [&](std::size_t at, bool forward) {
            for (std::size_t i = at; i < n; i = forward ? i + 1 : i - 1) {
                const std::optional<TimeSlice> one = sliceSamples(p, rangeOf(i, 1));
                if (one && one->samples == 1 && !sums(sliceProfile(p, *one)).empty())
                    return i;
                if (!forward && i == 0)
                    break;
            }
            return n;
        };
        const auto check = [&](std::size_t first, std::size_t count) {
            SliceRequest req = rangeOf(first, count);
            const std::optional<TimeSlice> in = sliceSamples(p, req);
            req.outside = true;
            const std::optional<TimeSlice> rest = sliceSamples(p, req);
            QVERIFY(in && rest && in->hasDetails && rest->hasDetails);
            QVERIFY(in->samples >= count && in->samples * 4 < p.stacks.size());
            Sums sum = sums(sliceProfile(p, *in));
            QVERIFY(!sum.empty());
            for (const auto& [key, v] : sums(sliceProfile(p, *rest))) {
                std::vector<int64_t>& s = sum[key];
                s.resize(v.size(), 0);
                for (std::size_t i = 0; i < v.size(); ++i)
                    s[i] += v[i];
            }
            for (auto it = sum.begin(); it != sum.end();) // (entries with no cost: not in the whole's either)
                it = std::all_of(it->second.begin(), it->second.end(), [](int64_t x) { return x == 0; })
                         ? sum.erase(it)
                         : std::next(it);
            Sums whole = all;
            for (auto it = whole.begin(); it != whole.end();)
                it = std::all_of(it->second.begin(), it->second.end(), [](int64_t x) { return x == 0; })
                         ? whole.erase(it)
                         : std::next(it);
            QVERIFY(sum == whole);
        };
        for (const auto& [at, forward] : {std::pair{std::size_t{0}, true}, std::pair{n / 5, true},
                                          std::pair{n / 2, true}, std::pair{n - 1, false}}) {
            const std::size_t i = withDetails(at, forward);
            QVERIFY2(i < n, "no sample with line or instruction costs");
            check(i, 1);
        }
    }

    void dwarfRecording() {
        if (m_dwarf.isEmpty())
            QSKIP("perf record does not work here");
        const Profile p = importProfile(m_dwarf.toStdString());
        QVERIFY(p.meta.samples > 100);
        // warmLeaf is reached only through middle -> driveWork -> main: the unwound stacks must show it.
        const std::string names = functionNames(p);
        for (const char* f : {"hotLeaf", "warmLeaf", "middle", "driveWork", "main", "inlinedMix"})
            QVERIFY2(names.find(f) != std::string::npos, f);
        QVERIFY(test::nodeByPath(p, p.tree, {"scorch_perfprog", "main", "driveWork", "middle", "warmLeaf"}) ||
                names.find("__libc_start") != std::string::npos);
        const Agreement a = compare(ourStacks(m_dwarf), parsePerfScript(perfScript(m_dwarf)));
        // perf (libunwind) stops at __libc_start_call_main where libdw continues to _start: there perf's
        // stack is a prefix of ours.
        qInfo("dwarf: %zu of %zu samples have perf script's stack, %zu more extend it", a.same, a.samples,
              a.perfIsPrefix);
        QVERIFY(a.samples > 100);
        QVERIFY((a.same + a.perfIsPrefix) * 100 >= a.samples * 99);
    }

    void dwarfFastPathMatchesLibdw() {
        // The cached CFI rules (the fast path) unwind what they can and hand the rest to libdw's unwinder.
        // Sample by sample, on the same recording: SCORCH_LIBDW_UNWIND=1 sends every sample through libdw,
        // SCORCH_FAST_UNWIND_ONLY=1 never uses libdw (a sample the fast path hands over keeps its leaf only).
        if (m_dwarf.isEmpty())
            QSKIP("perf record does not work here");
        auto collapse = [&](const char* env) {
            QProcess p;
            QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
            environment.remove(QStringLiteral("SCORCH_LIBDW_UNWIND"));
            environment.remove(QStringLiteral("SCORCH_FAST_UNWIND_ONLY"));
            if (env)
                environment.insert(QString::fromLatin1(env), QStringLiteral("1"));
            p.setProcessEnvironment(environment);
            p.start(QStringLiteral(SCORCH_BINARY),
                    {QStringLiteral("collapse"), QStringLiteral("--addrs"), m_dwarf});
            const bool ok = p.waitForFinished(scorch::test::kPatienceMs) && p.exitCode() == 0;
            return ok ? p.readAllStandardOutput() : QByteArray();
        };
        const QByteArray both = collapse(nullptr);
        const QByteArray libdw = collapse("SCORCH_LIBDW_UNWIND");
        const QByteArray fastOnly = collapse("SCORCH_FAST_UNWIND_ONLY");
        // Together they give exactly libdw's stacks.
        QVERIFY(both.count('\n') >= 2); // main -> driveWork -> hotLeaf, and -> middle -> warmLeaf
        QCOMPARE(both, libdw);
        // The fast path alone unwinds every sample of the test program's own code (driveWork and what it
        // calls: rsp/rbp-based frames): those stacks, with their sample counts, are libdw's.
        const QList<QByteArray> fastLines = fastOnly.split('\n');
        int own = 0;
        for (const QByteArray& line : libdw.split('\n')) {
            if (!line.contains("driveWork"))
                continue;
            ++own;
            QVERIFY2(fastLines.contains(line), line.constData());
        }
        QVERIFY2(own >= 2, libdw.constData());
    }

    void symbolPaths() {
        // the recording names the test program by its build path; with a sysroot that holds nothing the
        // program is not found, and a search directory finds it again by file name (build-id verified)
        if (m_fp.isEmpty())
            QSKIP("perf record does not work here");
        QTemporaryDir emptyRoot;
        const QString programDir = QFileInfo(QStringLiteral(SCORCH_PERFPROG)).absolutePath();
        // perf record also copied the program into its build-id cache (~/.debug), where it would be found:
        // a HOME without one
        const ScopedHome home(emptyRoot.path());
        ImportOptions options;
        options.sysroot = emptyRoot.path().toStdString();
        const std::string lost = functionNames(importProfile(m_fp.toStdString(), options));
        QVERIFY2(lost.find("hotLeaf") == std::string::npos, lost.c_str());
        options.symbolSearchPaths = {programDir.toStdString()};
        const std::string found = functionNames(importProfile(m_fp.toStdString(), options));
        QVERIFY2(found.find("hotLeaf") != std::string::npos, found.c_str());

        // the same from the command line
        auto info = [&](const QStringList& args, bool withFile = true) {
            QProcess p;
            p.setProcessEnvironment(QProcessEnvironment::systemEnvironment()); // with the HOME above
            p.start(QStringLiteral(SCORCH_BINARY), QStringList{QStringLiteral("info")}
                                                       << args
                                                       << (withFile ? QStringList{m_fp} : QStringList{}));
            p.waitForFinished(scorch::test::kPatienceMs);
            return std::make_pair(p.exitCode(), p.readAllStandardOutput() + p.readAllStandardError());
        };
        const auto [lostCode, lostOut] = info({QStringLiteral("--sysroot"), emptyRoot.path()});
        QCOMPARE(lostCode, 0);
        QVERIFY2(!lostOut.contains("hotLeaf"), lostOut.constData());
        const auto [foundCode, foundOut] = info(
            {QStringLiteral("--sysroot=") + emptyRoot.path(), QStringLiteral("--symbol-path"), programDir});
        QCOMPARE(foundCode, 0);
        QVERIFY2(foundOut.contains("hotLeaf"), foundOut.constData());
        const auto [badCode, badOut] = info({QStringLiteral("--debug-dir")}, false);
        QCOMPARE(badCode, 2);
        QVERIFY2(badOut.contains("--debug-dir needs a directory"), badOut.constData());
    }

    void pipeModeBuildIdRecords() {
        // `perf record -o - | perf inject -b` gives a pipe-mode stream with build-id records (type 67).
        // Record a copy of the test program, then change the copy's build-id: the module must be reported
        // as a build-id mismatch instead of being symbolized from the wrong file.
        if (!m_recording)
            QSKIP("perf record does not work here");
        QTemporaryDir dir;
        const QString program = dir.filePath(QStringLiteral("perfprog-copy"));
        QVERIFY(QFile::copy(QStringLiteral(SCORCH_PERFPROG), program));
        QVERIFY(QFile::setPermissions(program, QFile::permissions(program) | QFileDevice::ExeOwner));
        const QString out = dir.filePath(QStringLiteral("pipe.data"));
        QProcess record, inject;
        record.setStandardOutputProcess(&inject);
        inject.setStandardOutputFile(out);
        record.start(QStringLiteral("perf"),
                     {QStringLiteral("record"), QStringLiteral("-q"), QStringLiteral("-e"),
                      QStringLiteral("cpu-clock"), QStringLiteral("-F"), QStringLiteral("2000"),
                      QStringLiteral("-g"), QStringLiteral("-o"), QStringLiteral("-"), QStringLiteral("--"),
                      program, QStringLiteral("30")});
        inject.start(QStringLiteral("perf"), {QStringLiteral("inject"), QStringLiteral("-b")});
        QVERIFY(record.waitForFinished(scorch::test::kPatienceMs) &&
                inject.waitForFinished(scorch::test::kPatienceMs));
        if (inject.exitCode() != 0 || QFileInfo(out).size() < 1000)
            QSKIP("perf inject -b does not work here");
        const QByteArray bytes = test::readAll(out);
        QVERIFY2(bytes.startsWith("PERFILE2") && bytes.mid(8, 8) == QByteArray("\x10\0\0\0\0\0\0\0", 8),
                 "not a pipe-mode file");
        // perf copied the program into its build-id cache, where it would be found: a HOME without one
        const ScopedHome home(dir.path());
        const Profile before = importProfile(out.toStdString());
        QVERIFY2(functionNames(before).find("hotLeaf") != std::string::npos, functionNames(before).c_str());
        // another build of the program at the recorded path
        QByteArray image = test::readAll(program);
        const QByteArray id =
            QByteArray::fromHex(QByteArray::fromStdString(elfBuildId(program.toStdString())));
        const qsizetype at = image.indexOf(id);
        QVERIFY(!id.isEmpty() && at > 0);
        image[at] = static_cast<char>(image[at] ^ 0x5a);
        QFile f(program);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(image);
        f.close();
        const Profile after = importProfile(out.toStdString());
        QVERIFY2(functionNames(after).find("hotLeaf") == std::string::npos, functionNames(after).c_str());
        bool mismatch = false;
        for (const ImportWarning& w : after.meta.warnings)
            mismatch = mismatch || (w.message.find("perfprog-copy: build-id mismatch") != std::string::npos);
        QVERIFY(mismatch);
    }

    // A file is parsed in its mapping or read() into buffers (ImportOptions::fileAccess): the same profile,
    // warnings and errors, also with buffers so small that records cross them (DWARF samples carry 8 KB of
    // stack), compressed records among them, and a file cut in its data section.
    void readOrMappedAlike() {
        const QByteArray twoEvents = test::readAll(fixture("fp-two-events.data"));
        uint64_t dataOffset = 0, dataSize = 0;
        std::memcpy(&dataOffset, twoEvents.constData() + 40, 8);
        std::memcpy(&dataSize, twoEvents.constData() + 48, 8);
        const QString cutPath = m_dir.filePath(QStringLiteral("cut-read.data"));
        {
            QFile f(cutPath);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(twoEvents.left(qsizetype(dataOffset + dataSize - 50)));
        }
        const auto folded = [](const Profile& p) {
            std::ostringstream out;
            writeFolded(p, {}, out);
            return out.str();
        };
        QStringList files = {fixture("fp-zstd.data"), fixture("fp-two-events.data"), fixture("fp-pipe.data"),
                             cutPath};
        if (!m_fp.isEmpty())
            files << m_fp << m_dwarf;
        for (const QString& file : files) {
            const auto open = [&](ImportOptions::FileAccess access, std::size_t buffer) {
                ImportOptions o;
                o.fileAccess = access;
                o.chunkBytes = buffer;
                return importProfile(file.toStdString(), o);
            };
            const Profile mapped = open(ImportOptions::FileAccess::Map, 4u << 20);
            QVERIFY(mapped.meta.samples > 0);
            for (const std::size_t buffer : {std::size_t(4096), std::size_t(4u << 20)}) {
                const Profile read = open(ImportOptions::FileAccess::Read, buffer);
                QCOMPARE(read.meta.samples, mapped.meta.samples);
                QCOMPARE(folded(read), folded(mapped));
                QCOMPARE(read.threads.size(), mapped.threads.size());
                QCOMPARE(read.meta.modules.size(), mapped.meta.modules.size());
                QCOMPARE(read.meta.warnings.size(), mapped.meta.warnings.size());
                for (std::size_t w = 0; w < read.meta.warnings.size(); ++w)
                    QCOMPARE(read.meta.warnings[w].message, mapped.meta.warnings[w].message);
            }
        }
    }

    void truncatedAndCorrupt() {
        const QByteArray whole = test::readAll(fixture("fp-two-events.data"));
        QVERIFY(whole.size() > 1000);
        uint64_t dataOffset = 0, dataSize = 0;
        std::memcpy(&dataOffset, whole.constData() + 40, 8);
        std::memcpy(&dataSize, whole.constData() + 48, 8);
        const QString cutPath = m_dir.filePath(QStringLiteral("cut.data"));
        const auto write = [&](const QByteArray& bytes) {
            QFile f(cutPath);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(bytes);
        };
        const auto noop = [](int64_t, int64_t, std::span<const uint64_t>) {
        };
        // Every cut either reads what comes before it and says the file is truncated, or fails naming where.
        for (qsizetype cut = 1; cut < whole.size(); cut += cut < 300 ? 5 : 37) {
            write(whole.left(cut));
            try {
                const ProfileMeta meta = forEachPerfDataSample(cutPath.toStdString(), noop);
                bool named = false;
                for (const ImportWarning& w : meta.warnings)
                    named = named || w.message.find("truncated") != std::string::npos;
                QVERIFY2(named, QByteArray::number(cut));
            } catch (const ImportError& e) {
                const std::string what = e.what();
                QVERIFY2(what.starts_with(cutPath.toStdString() + ": "), e.what());
                QVERIFY2(what.find("byte offset") != std::string::npos || cut < 16, e.what());
            }
        }
        // Through the importer: a cut inside the data section keeps the samples before it, with a warning.
        const qsizetype middle = qsizetype(dataOffset + dataSize - 50);
        const Profile cut =
            importProfile(memoryByteSource(whole.left(middle).toStdString(), "cut.data"), "cut.data");
        QVERIFY(cut.meta.samples > 0);
        QVERIFY2(cut.meta.warnings.front().message.find("truncated") != std::string::npos,
                 cut.meta.warnings.front().message.c_str());
        QVERIFY_THROWS_EXCEPTION(
            ImportError, importProfile(memoryByteSource(whole.left(50).toStdString(), "h.data"), "h.data"));
        // A record with size 0 at the start of the data section.
        std::string corrupt(whole.constData(), static_cast<std::size_t>(whole.size()));
        corrupt[dataOffset + 6] = 0;
        corrupt[dataOffset + 7] = 0;
        try {
            importProfile(memoryByteSource(corrupt, "bad.data"), "bad.data");
            QFAIL("a zero-sized record was accepted");
        } catch (const ImportError& e) {
            QVERIFY2(std::string(e.what()).find("byte offset " + std::to_string(dataOffset)) !=
                         std::string::npos,
                     e.what());
        }
        // Random damage never crashes or hangs.
        std::mt19937 rng(5);
        for (int round = 0; round < 300; ++round) {
            QByteArray damaged = whole;
            for (int k = 0; k < 4; ++k)
                damaged[qsizetype(rng() % uint32_t(damaged.size()))] = static_cast<char>(rng());
            write(damaged);
            try {
                (void)forEachPerfDataSample(cutPath.toStdString(), noop);
            } catch (const ImportError&) {
            }
        }
    }

    void cancelAndProgress() {
        const QString path = m_fp.isEmpty() ? fixture("fp-two-events.data") : m_fp;
        std::atomic<bool> cancel{true};
        ImportControl stop;
        stop.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(ImportCancelled, importProfile(path.toStdString(), {}, stop));

        uint64_t lastDone = 0, total = 0;
        std::vector<uint64_t> partialSamples;
        ImportControl control;
        control.progress = [&](uint64_t done, uint64_t t) {
            QVERIFY(done >= lastDone);
            lastDone = done;
            total = t;
        };
        control.partialInterval = 0; // every progress step
        control.partialShare = 1;
        control.partial = [&](Profile&& p) {
            partialSamples.push_back(p.meta.samples);
        };
        const Profile p = importProfile(path.toStdString(), {}, control);
        QCOMPARE(lastDone, total);
        QCOMPARE(total, uint64_t(QFileInfo(path).size()));
        // Snapshots come once samples were flushed (perf's rounds) and a progress step follows: how many
        // depends on how perf wrote the rounds, so only their content is checked here.
        for (uint64_t n : partialSamples)
            QVERIFY(n > 0 && n <= p.meta.samples);
    }

    // Once its records are read, the file's pages leave the process (they stay in the page cache): the
    // profile is built without the input resident beside it. (Before, what was read since the last 64 MiB
    // step stayed: all of any recording under 64 MiB, 49 MB of fp-large's peak.)
    void filePagesDroppedOnceRead() {
        const QString path = m_fp.isEmpty() ? fixture("fp-two-events.data") : m_fp;
        const std::string file = QFileInfo(path).canonicalFilePath().toStdString();
        long long whileReading = -1, atTheEnd = -1;
        ImportControl control;
        control.progress = [&](uint64_t done, uint64_t total) {
            (done < total ? whileReading : atTheEnd) = mappedKb(file);
        };
        const Profile p = importProfile(path.toStdString(), {}, control);
        QVERIFY(p.meta.samples > 0);
        QVERIFY2(whileReading > 0, "the file's mapping was not seen resident while read");
        QCOMPARE(atTheEnd, 0LL);
    }

    // perf.data is read from its memory mapping: a recording cut short while read (`perf record -o` the same
    // file again) is an error naming the file and where its bytes went missing, not the SIGBUS that reading
    // the lost pages raises. The cut is made at the first progress step inside the records, at a page
    // boundary before the reader's position.
    void fileShrinkingWhileReadIsAnError() {
        if (m_fp.isEmpty())
            QSKIP("perf record does not work here");
        const QString path = m_dir.filePath(QStringLiteral("shrinking.data"));
        QFile::remove(path);
        QVERIFY(QFile::copy(m_fp, path));
        const auto size = static_cast<uint64_t>(QFileInfo(path).size());
        uint64_t kept = 0;
        ImportControl control;
        control.progress = [&](uint64_t done, uint64_t) {
            if (kept == 0 && done >= 8192 && done < size) {
                kept = (done - 4096) & ~uint64_t(4095);
                QVERIFY(QFile::resize(path, static_cast<qint64>(kept)));
            }
        };
        try {
            importProfile(path.toStdString(), {}, control);
            QFAIL("a recording cut short while read was accepted");
        } catch (const ImportError& e) {
            const std::string what = e.what();
            const std::string head =
                path.toStdString() + ": the file shrank while it was read (its bytes from offset ";
            QVERIFY2(what.starts_with(head), e.what());
            const uint64_t lost = std::stoull(what.substr(head.size()));
            QVERIFY2(lost % 4096 == 0 && lost >= kept && lost < size, e.what());
        }
        QVERIFY2(kept > 0, "no progress step inside the records");
    }

    // Snapshots take at most ImportControl::partialShare of the reading's time: the wait after one is its
    // cost times (1 - share) / share, and never below partialInterval.
    void partialWaitKeepsTheShare() {
        ImportControl control;
        QCOMPARE(control.partialInterval, 0.5);
        QCOMPARE(control.partialShare, 0.25);
        QCOMPARE(detail::partialWait(control, 0.1), 0.5);     // a small snapshot: the interval
        QCOMPARE(detail::partialWait(control, 0.6), 0.6 * 3); // fp-large's: three times its cost
        control.partialShare = 1;                             // (as the tests ask: every step)
        control.partialInterval = 0;
        QCOMPARE(detail::partialWait(control, 0.6), 0.0);
        control.partialShare = 0; // (kept above 1%)
        QCOMPARE(detail::partialWait(control, 0.5), 0.5 * 99);
        control.partialShare = 2;
        QCOMPARE(detail::partialWait(control, 0.5), 0.0);
    }

    // Issue 15: `perf record -c N` (a fixed period: the samples carry no PERF_SAMPLE_PERIOD): every sample
    // stands for N events, as perf report counts them.
    void fixedPeriodRecording() {
        if (!m_recording)
            QSKIP("perf record does not work here");
        const QString out = m_dir.filePath(QStringLiteral("fixed.data"));
        if (run(QStringLiteral("perf"),
                {QStringLiteral("record"), QStringLiteral("-q"), QStringLiteral("-c"),
                 QStringLiteral("100000"), QStringLiteral("-e"), QStringLiteral("cpu-clock"),
                 QStringLiteral("-o"), out, QStringLiteral("--"), QStringLiteral(SCORCH_PERFPROG),
                 QStringLiteral("40")}) != 0)
            QSKIP("perf record -c does not work here");
        const Profile p = importProfile(out.toStdString());
        QVERIFY(p.meta.samples > 20);
        QCOMPARE(costTotal(p, "cpu-clock samples"), int64_t(p.meta.samples));
        QCOMPARE(costTotal(p, "cpu-clock"), int64_t(p.meta.samples) * 100000);
        const auto perf = perfReportEventCounts(out);
        QVERIFY(perf.contains("cpu-clock"));
        QCOMPARE(costTotal(p, "cpu-clock"), perf.at("cpu-clock"));
    }

    // Issue 15: `perf record -e '{a,b}:S'` (PERF_SAMPLE_READ groups, the leader samples and reads every
    // counter of the group): each event of the group is a cost type of its own, with the growth of its
    // counter between samples, as perf report counts them. Software events, which every machine has.
    void readGroupRecording() {
        if (!m_recording)
            QSKIP("perf record does not work here");
        const QString out = m_dir.filePath(QStringLiteral("group.data"));
        if (run(QStringLiteral("perf"),
                {QStringLiteral("record"), QStringLiteral("-q"), QStringLiteral("-e"),
                 QStringLiteral("{cpu-clock,task-clock}:S"), QStringLiteral("-o"), out, QStringLiteral("--"),
                 QStringLiteral(SCORCH_PERFPROG), QStringLiteral("40")}) != 0)
            QSKIP("perf record of an event group does not work here");
        const Profile p = importProfile(out.toStdString());
        QVERIFY(p.meta.samples > 20);
        const auto perf = perfReportEventCounts(out);
        QVERIFY(perf.contains("cpu-clock") && perf.contains("task-clock"));
        QVERIFY(perf.at("task-clock") > 0);
        QCOMPARE(costTotal(p, "cpu-clock"), perf.at("cpu-clock"));
        QCOMPARE(costTotal(p, "task-clock"), perf.at("task-clock"));
        // the group's counters are read at the same samples: both sit in the same functions
        const auto top = topFunctions(p, 0, 1);
        QCOMPARE(std::string(p.frameName(top.front().frame)).substr(0, 7), std::string("hotLeaf"));
        QVERIFY(costTotal(p, "task-clock samples") > 20);
    }

    // Issue 15: a file that perf script reads without finding a sample in it (perf.data version 1 files
    // did so): the message names the file and says what to do, not "no samples found in perf script input"
    // about a temporary file. Made from the --call-graph dwarf recording: marked arm64 (so it goes through
    // perf script) with its data section cut before the first sample.
    void fallbackWithoutSamples() {
        if (m_dwarf.isEmpty())
            QSKIP("perf record does not work here");
        uint64_t dataOffset = 0, dataSize = 0;
        QByteArray bytes = markedArm64(m_dwarf, dataOffset, dataSize);
        QVERIFY(!bytes.isEmpty());
        uint64_t pos = dataOffset;
        while (pos + 8 <= dataOffset + dataSize) {
            uint32_t type = 0;
            uint16_t size = 0;
            std::memcpy(&type, bytes.constData() + pos, 4);
            std::memcpy(&size, bytes.constData() + pos + 6, 2);
            if (type == 9 || size == 0) // PERF_RECORD_SAMPLE
                break;
            pos += size;
        }
        const uint64_t cut = pos - dataOffset;
        QVERIFY(cut > 0);
        // the feature sections follow the data: moved up with it, their offsets too
        const uint64_t shift = dataSize - cut;
        bytes.remove(qsizetype(dataOffset + cut), qsizetype(shift));
        std::memcpy(bytes.data() + 48, &cut, 8);
        int features = 0;
        for (int i = 0; i < 32; ++i)
            features += std::popcount(static_cast<unsigned char>(bytes[72 + i]));
        for (int i = 0; i < features; ++i) {
            const qsizetype at = qsizetype(dataOffset + cut) + 16 * i;
            uint64_t offset = 0;
            std::memcpy(&offset, bytes.constData() + at, 8);
            offset -= shift;
            std::memcpy(bytes.data() + at, &offset, 8);
        }
        const QString path = m_dir.filePath(QStringLiteral("nosamples.data"));
        QVERIFY(writeFile(path, bytes));
        QByteArray perfOut;
        if (run(QStringLiteral("perf"), {QStringLiteral("script"), QStringLiteral("-i"), path}, &perfOut) !=
                0 ||
            !perfOut.trimmed().isEmpty())
            QSKIP("this perf does not read the cut file as one without samples");
        try {
            importProfile(path.toStdString());
            QFAIL("imported a file without samples");
        } catch (const ImportError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find(path.toStdString() + ": ") != std::string::npos, e.what());
            QVERIFY2(what.find("script read no samples from it") != std::string::npos, e.what());
            QVERIFY2(what.find("perf script -i " + path.toStdString() + " > ") != std::string::npos,
                     e.what());
            QVERIFY2(what.find("scorch-perfscript") == std::string::npos, e.what());
            QVERIFY2(what.find("perf script input") == std::string::npos, e.what());
        }
    }

    // Issue 15: `perf archive` output beside a perf.data (perf.data.tar.bz2) supplies the recorded binaries
    // that are gone from their paths. A copy of the test program is recorded, archived and deleted (with
    // perf's build-id cache, which would hold it too): the archive names its frames as before.
    void perfArchiveBeside() {
        if (!m_recording)
            QSKIP("perf record does not work here");
        QTemporaryDir dir, home;
        const ScopedHome scopedHome(home.path());
        const QString program = dir.filePath(QStringLiteral("perfprog-archived"));
        QVERIFY(QFile::copy(QStringLiteral(SCORCH_PERFPROG), program));
        const QString data = dir.filePath(QStringLiteral("archived.data"));
        QCOMPARE(
            run(QStringLiteral("perf"), {QStringLiteral("record"), QStringLiteral("-q"), QStringLiteral("-e"),
                                         QStringLiteral("cpu-clock"), QStringLiteral("-F"),
                                         QStringLiteral("2000"), QStringLiteral("-g"), QStringLiteral("-o"),
                                         data, QStringLiteral("--"), program, QStringLiteral("40")}),
            0);
        const std::string inPlace = collapsed(importProfile(data.toStdString()));
        QVERIFY2(inPlace.find("hotLeaf") != std::string::npos, inPlace.c_str());
        if (run(QStringLiteral("perf"), {QStringLiteral("archive"), data}) != 0 ||
            !QFileInfo::exists(data + QStringLiteral(".tar.bz2")))
            QSKIP("perf archive does not work here");
        // a bundle of the recording and the archive's tree, as sent from another machine
        const QString tree = dir.filePath(QStringLiteral("tree"));
        QVERIFY(QDir().mkpath(tree));
        QCOMPARE(run(QStringLiteral("tar"),
                     {QStringLiteral("-xf"), data + QStringLiteral(".tar.bz2"), QStringLiteral("-C"), tree}),
                 0);
        const QString bundle = dir.filePath(QStringLiteral("bundle.tar.bz2"));
        QCOMPARE(run(QStringLiteral("tar"),
                     {QStringLiteral("-cjf"), bundle, QStringLiteral("-C"), dir.path(),
                      QFileInfo(data).fileName(), QStringLiteral("-C"), tree, QStringLiteral(".")}),
                 0);
        QVERIFY(QFile::remove(program));
        QVERIFY(QDir(home.filePath(QStringLiteral(".debug"))).removeRecursively());
        const Profile archived = importProfile(data.toStdString());
        QCOMPARE(collapsed(archived), inPlace);
        // the archive opened directly: its recording beside it
        const Profile direct = importProfile((data + QStringLiteral(".tar.bz2")).toStdString());
        QCOMPARE(collapsed(direct), inPlace);
        QCOMPARE(direct.meta.source, data.toStdString());
        // the bundle opened directly: the perf.data inside, named by the binaries inside
        const Profile bundled = importProfile(bundle.toStdString());
        QCOMPARE(collapsed(bundled), inPlace);
        QCOMPARE(bundled.meta.source, bundle.toStdString());
        QVERIFY(std::find(bundled.meta.recording.begin(), bundled.meta.recording.end(),
                          std::make_pair(
                              std::string("opened from"),
                              (bundle + QStringLiteral(": ") + QFileInfo(data).fileName()).toStdString())) !=
                bundled.meta.recording.end());
        const auto note =
            std::find(archived.meta.recording.begin(), archived.meta.recording.end(),
                      std::make_pair(std::string("perf archive"), (data + ".tar.bz2").toStdString()));
        QVERIFY(note != archived.meta.recording.end());
        // the archive without its recording: an error that says what to open
        const QString alone = dir.filePath(QStringLiteral("alone.data.tar.bz2"));
        QVERIFY(QFile::copy(data + QStringLiteral(".tar.bz2"), alone));
        try {
            importProfile(alone.toStdString());
            QFAIL("an archive without samples opened");
        } catch (const ImportError& e) {
            const std::string what = e.what();
            QVERIFY2(
                what.starts_with(alone.toStdString() + ": a perf archive holds the binaries of a recording"),
                e.what());
            QVERIFY2(what.find(dir.filePath(QStringLiteral("alone.data")).toStdString()) != std::string::npos,
                     e.what());
        }
        // without the archive the program's frames are not named
        QVERIFY(QFile::remove(data + QStringLiteral(".tar.bz2")));
        const std::string lost = collapsed(importProfile(data.toStdString()));
        QVERIFY2(lost.find("hotLeaf") == std::string::npos, lost.c_str());
    }

    // A --call-graph dwarf file of another architecture goes through `perf script`, and says so.
    void fallback() {
        if (m_dwarf.isEmpty())
            QSKIP("perf record does not work here");
        uint64_t dataOffset = 0, dataSize = 0;
        QByteArray bytes = markedArm64(m_dwarf, dataOffset, dataSize);
        QVERIFY(!bytes.isEmpty());
        const QString path = m_dir.filePath(QStringLiteral("arm64.data"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
        f.close();
        try {
            const Profile p = importProfile(path.toStdString());
            QVERIFY(p.meta.samples > 0);
            QVERIFY2(p.meta.warnings.front().message.find("perf script") != std::string::npos,
                     p.meta.warnings.front().message.c_str());
            QCOMPARE(p.meta.format, Format::PerfDataPerfScript);
        } catch (const ImportError& e) { // perf itself may refuse the file: the message says both
            QVERIFY2(std::string(e.what()).find("falling back to perf script failed") != std::string::npos,
                     e.what());
        }
        // Without perf: a clear error.
        qputenv("SCORCH_PERF", "/nonexistent/perf");
        try {
            importProfile(path.toStdString());
            qunsetenv("SCORCH_PERF");
            QFAIL("imported without perf");
        } catch (const ImportError& e) {
            qunsetenv("SCORCH_PERF");
            const std::string what = e.what();
            QVERIFY2(what.find("architecture arm64") != std::string::npos, e.what());
            QVERIFY2(what.find("/nonexistent/perf") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestPerfData)
#include "tst_perfdata.moc"
