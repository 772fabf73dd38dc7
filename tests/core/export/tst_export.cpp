// speedscope writer: schema rules and round trips over every corpus input; atomic file writing;
// FileOutputBuffer.
#include "exporttestutil.h"
#include "patience.h"

#include "scorch/export.h"
#include "scorch/fileoutput.h"
#include "scorch/foldedwriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <linux/magic.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <thread>
#include <unistd.h>

using namespace scorch;

namespace {

/// Checks the speedscope file-format rules on `json`; returns a description of the first violation.
QString schemaViolation(const QByteArray& json) {
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        return QStringLiteral("not JSON: ") + error.errorString();
    const QJsonObject root = doc.object();
    if (root.value(QStringLiteral("$schema")).toString() !=
        QStringLiteral("https://www.speedscope.app/file-format-schema.json"))
        return QStringLiteral("$schema");
    const QJsonArray frames =
        root.value(QStringLiteral("shared")).toObject().value(QStringLiteral("frames")).toArray();
    for (const QJsonValue& f : frames) {
        const QJsonObject o = f.toObject();
        if (!o.value(QStringLiteral("name")).isString())
            return QStringLiteral("frame without a name");
        if (o.contains(QStringLiteral("file")) && !o.value(QStringLiteral("file")).isString())
            return QStringLiteral("file is not a string");
        if (o.contains(QStringLiteral("line")) && !o.value(QStringLiteral("line")).isDouble())
            return QStringLiteral("line is not a number");
    }
    const QJsonArray profiles = root.value(QStringLiteral("profiles")).toArray();
    if (profiles.isEmpty())
        return QStringLiteral("no profiles");
    const QStringList units = {QStringLiteral("none"),         QStringLiteral("nanoseconds"),
                               QStringLiteral("microseconds"), QStringLiteral("milliseconds"),
                               QStringLiteral("seconds"),      QStringLiteral("bytes")};
    for (const QJsonValue& pv : profiles) {
        const QJsonObject p = pv.toObject();
        if (p.value(QStringLiteral("type")).toString() != QStringLiteral("sampled"))
            return QStringLiteral("profile type");
        if (!p.value(QStringLiteral("name")).isString())
            return QStringLiteral("profile name");
        if (!units.contains(p.value(QStringLiteral("unit")).toString()))
            return QStringLiteral("unit");
        const QJsonArray samples = p.value(QStringLiteral("samples")).toArray();
        const QJsonArray weights = p.value(QStringLiteral("weights")).toArray();
        if (samples.size() != weights.size())
            return QStringLiteral("%1 samples, %2 weights").arg(samples.size()).arg(weights.size());
        double sum = 0;
        for (const QJsonValue& w : weights) {
            if (!w.isDouble())
                return QStringLiteral("weight is not a number");
            sum += w.toDouble();
        }
        for (const QJsonValue& s : samples) {
            if (!s.isArray() || s.toArray().isEmpty())
                return QStringLiteral("sample is not a non-empty array");
            for (const QJsonValue& i : s.toArray())
                if (!i.isDouble() || i.toDouble() < 0 || i.toDouble() >= frames.size() ||
                    i.toDouble() != std::floor(i.toDouble()))
                    return QStringLiteral("frame index %1 out of range").arg(i.toDouble());
        }
        if (p.value(QStringLiteral("startValue")).toDouble() != 0 ||
            std::abs(p.value(QStringLiteral("endValue")).toDouble() - sum) >
                1e-6 * std::max(1.0, std::abs(sum)))
            return QStringLiteral("startValue/endValue do not span the weights");
    }
    return {};
}

/// Bytes of `size` that vary with the position (a misplaced or repeated piece shows).
std::string patterned(std::size_t size, std::size_t seed) {
    std::string bytes(size, '\0');
    for (std::size_t i = 0; i < size; ++i)
        bytes[i] = static_cast<char>('a' + (i * 7 + seed + i / 4096) % 26);
    return bytes;
}

/// Bytes the file system holds for the file (its blocks, not its size).
long long allocatedBytes(int fd) {
    struct stat st {};
    return fstat(fd, &st) == 0 ? static_cast<long long>(st.st_blocks) * 512 : -1;
}

Profile reimport(const std::string& bytes, const std::string& name) {
    return importProfile(memoryByteSource(bytes, name), name);
}

} // namespace

class TestExport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    /// FileOutputBuffer on ext4, written at the file's end: past the output's first MiB the file's blocks are
    /// reserved ahead of the writes (it holds more than its size needs, its size unchanged), and finish()
    /// gives back what was not written; the file has exactly the bytes written, in small and large pieces.
    /// Appending (O_APPEND) reserves too; writing over a file's middle does not (its blocks exist).
    void fileOutputReservesAhead() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        struct statfs fs {};
        QVERIFY(statfs(dir.path().toUtf8().constData(), &fs) == 0);
        if (fs.f_type != EXT4_SUPER_MAGIC)
            QSKIP("the temporary directory is not on ext4: FileOutputBuffer reserves blocks on ext4 only");
        const QByteArray path = dir.filePath(QStringLiteral("out")).toUtf8();
        const std::string first = patterned(3 << 20, 1), second = patterned(5 << 20, 2);

        int fd = open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        QVERIFY(fd >= 0);
        {
            FileOutputBuffer buffer(fd);
            QVERIFY(buffer.reservesAhead());
            std::ostream out(&buffer);
            for (std::size_t i = 0; i < first.size(); i += 1000) // small pieces, through the buffer
                out.write(first.data() + i,
                          static_cast<std::streamsize>(std::min<std::size_t>(1000, first.size() - i)));
            out.flush();
            QVERIFY(buffer.reservedAhead() > 0);
            QVERIFY2(allocatedBytes(fd) >= (64 << 20), QByteArray::number(allocatedBytes(fd)).constData());
            QCOMPARE(lseek(fd, 0, SEEK_END),
                     static_cast<off_t>(first.size())); // the size stays what was written
            QVERIFY(buffer.finish());
            QCOMPARE(buffer.reservedAhead(), 0u);
            QVERIFY2(allocatedBytes(fd) < static_cast<long long>(first.size()) + (1 << 20),
                     QByteArray::number(allocatedBytes(fd)).constData());
        }
        close(fd);
        QCOMPARE(test::readAll(QString::fromUtf8(path)), QByteArray::fromStdString(first));

        fd = open(path.constData(), O_WRONLY | O_APPEND | O_CLOEXEC);
        QVERIFY(fd >= 0);
        {
            FileOutputBuffer buffer(fd);
            QVERIFY(buffer.reservesAhead());
            std::ostream out(&buffer);
            out.write(second.data(),
                      static_cast<std::streamsize>(second.size())); // one large piece, directly
            QVERIFY(buffer.finish());
        } // the destructor's finish() after finish(): nothing more
        QVERIFY(allocatedBytes(fd) < static_cast<long long>(first.size() + second.size()) + (1 << 20));
        close(fd);
        QCOMPARE(test::readAll(QString::fromUtf8(path)), QByteArray::fromStdString(first + second));

        fd = open(path.constData(), O_WRONLY | O_CLOEXEC); // at offset 0 of an 8 MiB file
        QVERIFY(fd >= 0);
        {
            FileOutputBuffer buffer(fd);
            QVERIFY(!buffer.reservesAhead());
            std::ostream out(&buffer);
            out.write(second.data(), static_cast<std::streamsize>(second.size()));
        } // the destructor writes what is buffered
        close(fd);
        QCOMPARE(test::readAll(QString::fromUtf8(path)),
                 QByteArray::fromStdString(second + (first + second).substr(second.size())));
    }

    /// A failed write is kept (errno) and ends the writing; nothing is reserved on a device.
    void fileOutputWriteError() {
        const int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
        if (fd < 0)
            QSKIP("no /dev/full here");
        FileOutputBuffer buffer(fd);
        QVERIFY(!buffer.reservesAhead());
        std::ostream out(&buffer);
        const std::string bytes = patterned(2 << 20, 3);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        QVERIFY(!out);
        QVERIFY(!buffer.finish());
        QCOMPARE(buffer.error(), ENOSPC);
        close(fd);
    }

    /// Folded stacks written to a file through FileOutputBuffer (the command line's standard output,
    /// AtomicFile), formatted a MiB at a time and written by this thread: the same bytes as into a string
    /// (written by a second thread), over every importable corpus input, with and without comm-PID roots and
    /// annotations, after and before what the stream buffered.
    void foldedThroughAFileBufferIsTheSame() {
        SCORCH_REQUIRE_CORPUS();
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QByteArray path = dir.filePath(QStringLiteral("out.folded")).toUtf8();
        for (const QString& input : test::importableCorpusInputs()) {
            const Profile p = importProfile(input.toStdString());
            FoldedOptions plain, annotated;
            annotated.includePid = annotated.annotateKernel = annotated.annotateJit = true;
            for (const FoldedOptions& o : {plain, annotated}) {
                const std::string expected =
                    test::written([&](std::ostream& out) { writeFolded(p, o, out); });
                const int fd = open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                QVERIFY(fd >= 0);
                FileOutputBuffer buffer(fd);
                std::ostream out(&buffer);
                out << "before\n"; // buffered: written ahead of the formatted lines
                writeFolded(p, o, out);
                out << "after\n";
                QVERIFY(out.flush());
                QVERIFY(buffer.finish());
                close(fd);
                QVERIFY2(test::readAll(QString::fromUtf8(path)).toStdString() ==
                             "before\n" + expected + "after\n",
                         qPrintable(input));
            }
        }
    }

    /// Output of several MiB through a FileOutputBuffer: a buffer written whenever it passes 960 KiB, lines
    /// that make it pass anywhere, and single lines longer than the whole buffer (1 MiB), each line's count
    /// last; the same bytes as into a string.
    void foldedLongLinesThroughAFileBuffer() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QByteArray path = dir.filePath(QStringLiteral("out.folded")).toUtf8();
        const QString input = dir.filePath(QStringLiteral("long.folded"));
        { // stacks of 3000 to 60001 frames (under the importer's 65536; the deepest lines near 2 MB)
            QFile f(input);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            int n = 0;
            for (const int depth : {3000, 60001, 12345, 50000, 59999, 4096, 45000}) {
                QByteArray line = "main_" + QByteArray::number(n++);
                for (int i = 1; i < depth; ++i)
                    line += ";a_function_with_a_longer_name_" + QByteArray::number(i % 97);
                f.write(line + " " + QByteArray::number(depth) + "\n");
            }
        }
        const Profile p = importProfile(input.toStdString());
        const std::string expected = test::written([&](std::ostream& out) { writeFolded(p, {}, out); });
        QCOMPARE(static_cast<int>(std::count(expected.begin(), expected.end(), '\n')), 7);
        QVERIFY2(expected.size() > std::size_t(6) << 20, QByteArray::number(qulonglong(expected.size())));
        std::size_t longest = 0;
        for (std::size_t at = 0, nl; (nl = expected.find('\n', at)) != std::string::npos; at = nl + 1)
            longest = std::max(longest, nl - at);
        QVERIFY2(longest > std::size_t(1) << 20, QByteArray::number(qulonglong(longest)));
        const int fd = open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        QVERIFY(fd >= 0);
        {
            FileOutputBuffer buffer(fd);
            std::ostream out(&buffer);
            writeFolded(p, {}, out);
            QVERIFY(out.flush());
            QVERIFY(buffer.finish());
        }
        close(fd);
        QVERIFY(test::readAll(QString::fromUtf8(path)).toStdString() == expected);
    }

    /// A large write cut short (a signal while it waits for room in a pipe) goes on from where it stopped; a
    /// failed one (a full device) ends the writing with its errno.
    void writesResumeAfterAPartialWrite() {
        int fds[2];
        QVERIFY(pipe2(fds, O_CLOEXEC) == 0);
        const int capacity = fcntl(fds[1], F_GETPIPE_SZ);
        QVERIFY(capacity > 0);
        // a block of 16 pipes' worth, at least 1 MiB: written as it is, in one write() that the pipe cuts
        const std::string bytes = patterned(
            std::max<std::size_t>(std::size_t(16) * static_cast<std::size_t>(capacity), 1 << 20), 5);
        struct sigaction action {
        }, previous{};
        action.sa_handler = [](int) {
        }; // no SA_RESTART: the write returns what it wrote so far
        QVERIFY(sigaction(SIGUSR1, &action, &previous) == 0);
        std::atomic<bool> ok{false};
        std::thread writer([&] {
            FileOutputBuffer buffer(fds[1]);
            std::ostream out(&buffer);
            out << "head\n"; // buffered, then written before the block
            out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
            ok = out.flush() && buffer.finish();
        });
        // until the pipe is full: then the writer waits inside write() for room (each of its pages holds one
        // write's bytes, so the head's page holds 5)
        int queued = 0;
        QVERIFY(
            QTest::qWaitFor([&] { return ioctl(fds[0], FIONREAD, &queued) == 0 && queued > capacity - 4096; },
                            test::kPatienceMs));
        QVERIFY(pthread_kill(writer.native_handle(), SIGUSR1) == 0);
        std::string read;
        char chunk[65536];
        while (read.size() < bytes.size() + 5) {
            const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
            if (n < 0 && errno == EINTR)
                continue;
            QVERIFY(n > 0);
            read.append(chunk, static_cast<std::size_t>(n));
        }
        writer.join();
        sigaction(SIGUSR1, &previous, nullptr);
        close(fds[0]);
        close(fds[1]);
        QVERIFY(ok);
        QVERIFY(read == "head\n" + bytes);

        const int full = open("/dev/full", O_WRONLY | O_CLOEXEC);
        if (full < 0)
            QSKIP("no /dev/full here");
        FileOutputBuffer buffer(full);
        std::ostream out(&buffer);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        QVERIFY(!out);
        QCOMPARE(buffer.error(), ENOSPC);
        out.clear();
        out << "more";
        QVERIFY(!out.flush()); // nothing written after a failure
        QCOMPARE(buffer.error(), ENOSPC);
        close(full);
    }

    /// Every importable corpus input, every cost type: the speedscope output follows the schema rules and
    /// reads back with the same total and the same stacks; a cost type counting samples keeps the count.
    void speedscopeCorpusRoundTrip() {
        SCORCH_REQUIRE_CORPUS();
        const QStringList inputs = test::importableCorpusInputs();
        QVERIFY2(inputs.size() >= 30, qPrintable(QString::number(inputs.size())));
        int profiles = 0;
        for (const QString& input : inputs) {
            const Profile p = importProfile(input.toStdString());
            for (std::size_t t = 0; t < p.costTypes.size(); ++t) {
                SpeedscopeOptions o;
                o.costType = static_cast<int>(t);
                const bool counts = p.costTypes[t].unit == CostUnit::Samples;
                if (counts)
                    o.sampleCountType = o.costType;
                const std::string json =
                    test::written([&](std::ostream& out) { writeSpeedscope(p, o, out); });
                const QString where = input + QStringLiteral(" type ") + QString::number(t);
                const QString violation = schemaViolation(QByteArray::fromStdString(json));
                QVERIFY2(violation.isEmpty(), qPrintable(where + QStringLiteral(": ") + violation));
                if (test::stacksByName(p, t, 0).empty()) { // nothing to import back ("no samples found")
                    QVERIFY_THROWS_EXCEPTION(ImportError, reimport(json, "empty.speedscope.json"));
                    continue;
                }
                const Profile q = reimport(json, "roundtrip.speedscope.json");
                QCOMPARE(q.meta.format, Format::Speedscope);
                QCOMPARE(q.costTypes.size(), std::size_t{1});
                const int decimals = std::max(p.costTypes[t].decimals, q.costTypes[0].decimals);
                const auto scaled = [&](const Profile& x, std::size_t type) {
                    return x.tree.grandTotal(type) * pow10(decimals - x.costTypes[type].decimals);
                };
                QVERIFY2(scaled(p, t) == scaled(q, 0), qPrintable(where));
                QVERIFY2(test::stacksByName(p, t, decimals) == test::stacksByName(q, 0, decimals),
                         qPrintable(where));
                if (counts) // one entry per sample: the sample count survives too
                    QCOMPARE(static_cast<int64_t>(q.meta.samples), p.tree.grandTotal(t));
                if (p.costTypes[t].unit == CostUnit::Nanoseconds)
                    QCOMPARE(q.costTypes[0].unit, CostUnit::Nanoseconds);
                ++profiles;
            }
        }
        QVERIFY(profiles >= inputs.size());
    }

    /// speedscope files written by speedscope (evented and sampled, seconds and unitless) read back, are
    /// written again and read back the same: evented profiles become sampled ones of equal weights.
    void speedscopeOfSpeedscope() {
        SCORCH_REQUIRE_CORPUS();
        const QString dir = test::corpusDir() + QStringLiteral("/speedscope/inputs/speedscope/speedscope/");
        for (const char* name : {"0.0.1/simple.speedscope.json", "0.1.2/simple-sampled.speedscope.json"}) {
            const Profile p = importProfile((dir + QString::fromUtf8(name)).toStdString());
            SpeedscopeOptions o;
            o.name = "simple";
            const std::string once = test::written([&](std::ostream& out) { writeSpeedscope(p, o, out); });
            QVERIFY(QByteArray::fromStdString(once).contains("\"type\":\"sampled\""));
            const Profile q = reimport(once, "once.json");
            QCOMPARE(q.costTypes[0].name, p.costTypes[0].name);
            QCOMPARE(q.costTypes[0].unit, p.costTypes[0].unit);
            const std::string twice = test::written([&](std::ostream& out) { writeSpeedscope(q, o, out); });
            QCOMPARE(twice, once);
            QCOMPARE(test::stacksByName(q, 0, 3), test::stacksByName(p, 0, 3));
            QVERIFY(p.tree.grandTotal(0) > 0);
            QCOMPARE(q.tree.grandTotal(0), p.tree.grandTotal(0));
        }
    }

    /// Threads stay apart: one profile per thread, named after it, each with its own total.
    void speedscopeThreads() {
        SCORCH_REQUIRE_CORPUS();
        const Profile p =
            importProfile((test::corpusDir() +
                           QStringLiteral("/perf-script/inputs/speedscope/linux-perf/forks.linux-perf.txt"))
                              .toStdString());
        QVERIFY(p.threads.size() > 1);
        const std::string json = test::written([&](std::ostream& out) { writeSpeedscope(p, {}, out); });
        const QJsonArray profiles = QJsonDocument::fromJson(QByteArray::fromStdString(json))
                                        .object()
                                        .value(QStringLiteral("profiles"))
                                        .toArray();
        std::map<uint32_t, int64_t> perThread;
        for (std::size_t e = 0; e < p.threadCosts.node.size(); ++e)
            perThread[p.threadCosts.thread[e]] += p.threadCosts.cost[0][e];
        std::erase_if(perThread, [](const auto& kv) { return kv.second == 0; });
        QCOMPARE(profiles.size(), qsizetype(perThread.size()));
        int i = 0;
        for (const auto& [thread, total] : perThread) {
            const QJsonObject o = profiles[i++].toObject();
            QVERIFY(o.value(QStringLiteral("name"))
                        .toString()
                        .startsWith(QString::fromStdString(p.threads[thread].name)));
            QCOMPARE(static_cast<int64_t>(o.value(QStringLiteral("endValue")).toDouble()), total);
        }
        const Profile q = reimport(json, "threads.json");
        QCOMPARE(q.threads.size(), perThread.size());
    }

    /// Frame details that speedscope can carry (file, line) survive; names needing escapes stay exact.
    void speedscopeFrameDetails() {
        const std::string text =
            "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":"
            "{\"frames\":[{\"name\":\"main\",\"file\":\"a.c\",\"line\":12},{\"name\":\"q\\\"uo\\\\te "
            "\\u00e9\\t\"}]},\"profiles\":[{\"type\":\"sampled\",\"name\":\"t\",\"unit\":\"milliseconds\","
            "\"startValue\":0,\"endValue\":5,\"samples\":[[0,1],[0]],\"weights\":[2,3]}]}";
        const Profile p = reimport(text, "details.json");
        const Profile q =
            reimport(test::written([&](std::ostream& out) { writeSpeedscope(p, {}, out); }), "details2.json");
        QCOMPARE(test::stacksByName(q, 0, 0), test::stacksByName(p, 0, 0));
        QCOMPARE(q.tree.grandTotal(0), 5'000'000); // ms -> ns, written as ns
        const NodeId main = test::nodeByPath(q, q.tree, {"main"});
        QVERIFY(main != kRootNode);
        QCOMPARE(q.strings.view(q.frames[q.tree.frame(main)].file), std::string_view("a.c"));
        QCOMPARE(q.frames[q.tree.frame(main)].line, 12u);
        QVERIFY(test::nodeByPath(q, q.tree, {"main", "q\"uo\\te \xc3\xa9\t"}) != kRootNode);
    }

    /// Samples without any frame (speedscope's empty stacks; Chrome samples whose frames are missing) are
    /// cost of the root: they count in the total, are written as empty stacks and read back (fuzz_export
    /// found the speedscope output of such a profile empty and unreadable).
    void emptyStacks() {
        const std::string text =
            "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":"
            "{\"frames\":[{\"name\":\"main\"}]},\"profiles\":[{\"type\":\"sampled\",\"name\":\"t\","
            "\"unit\":\"none\",\"startValue\":0,\"endValue\":5,\"samples\":[[0],[],[]],\"weights\":[2,3,4]}]"
            "}";
        const Profile p = reimport(text, "idle.json");
        QCOMPARE(p.tree.grandTotal(0), 9);
        QCOMPARE(p.tree.self(0, kRootNode), 7);
        const Profile q =
            reimport(test::written([&](std::ostream& out) { writeSpeedscope(p, {}, out); }), "idle2.json");
        QCOMPARE(q.tree.grandTotal(0), 9);
        QCOMPARE(q.tree.self(0, kRootNode), 7);
        QCOMPARE(test::stacksByName(q, 0, 0), test::stacksByName(p, 0, 0));
        const Profile r =
            reimport(test::written([&](std::ostream& out) { writePprof(p, {}, out); }), "idle.pb.gz");
        QCOMPARE(r.tree.grandTotal(0), 9);
        // a Chrome trace whose samples name no existing stack frame: all its cost on the root
        const std::string trace =
            "{\"traceEvents\":[],\"samples\":[{\"ts\":\"1000\",\"pid\":1,\"tid\":\"2\",\"weight\":\"1\","
            "\"sf\":7},{\"ts\":\"3000\",\"pid\":1,\"tid\":\"2\",\"weight\":\"1\",\"sf\":7}],"
            "\"stackFrames\":{}}";
        const Profile c = reimport(trace, "frameless.json");
        QVERIFY(c.tree.grandTotal(0) > 0);
        QCOMPARE(c.tree.self(0, kRootNode), c.tree.grandTotal(0));
        const Profile d = reimport(test::written([&](std::ostream& out) { writeSpeedscope(c, {}, out); }),
                                   "frameless2.json");
        QCOMPARE(d.tree.grandTotal(0), c.tree.grandTotal(0));
    }

    /// Invalid UTF-8 in a name still gives valid JSON (U+FFFD), and the file reads back.
    void speedscopeInvalidUtf8() {
        const Profile p = test::fromFolded("ma\xffin;f\xc3 3\n");
        const std::string json = test::written([&](std::ostream& out) { writeSpeedscope(p, {}, out); });
        QVERIFY(schemaViolation(QByteArray::fromStdString(json)).isEmpty());
        const Profile q = reimport(json, "utf8.json");
        QCOMPARE(q.tree.grandTotal(0), 3);
        QVERIFY(test::nodeByPath(q, q.tree, {"ma\xef\xbf\xbdin", "f\xef\xbf\xbd"}) != kRootNode);
    }

    /// Fractional folded counts keep their decimals; negative (differential) values survive.
    void speedscopeDecimalsAndSigns() {
        const Profile p = test::fromFolded("a;b 0.25\na;c 1.5\n");
        const Profile q =
            reimport(test::written([&](std::ostream& out) { writeSpeedscope(p, {}, out); }), "dec.json");
        QCOMPARE(test::stacksByName(q, 0, 3), test::stacksByName(p, 0, 3));
        QCOMPARE(q.costTypes[0].decimals, 3);
        QCOMPARE(q.tree.grandTotal(0), 1750);
    }

    /// writeFileAtomically: replaces the target in one step, refuses the input file (also through another
    /// path), leaves the old target and no temporary file behind when writing fails.
    void atomicWrite() {
        QTemporaryDir dir;
        const std::string input = dir.filePath(QStringLiteral("in.folded")).toStdString();
        const std::string target = dir.filePath(QStringLiteral("out.json")).toStdString();
        std::ofstream(input) << "a;b 1\n";
        std::ofstream(target) << "old";
        writeFileAtomically(target, input, [](std::ostream& out) { out << "new"; });
        QCOMPARE(test::readAll(QString::fromStdString(target)), QByteArray("new"));

        QVERIFY_THROWS_EXCEPTION(ExportError,
                                 writeFileAtomically(input, input, [](std::ostream& out) { out << "x"; }));
        const std::string other = dir.filePath(QStringLiteral("./sub/../in.folded")).toStdString();
        QDir(dir.path()).mkdir(QStringLiteral("sub"));
        QVERIFY_THROWS_EXCEPTION(ExportError,
                                 writeFileAtomically(other, input, [](std::ostream& out) { out << "x"; }));
        QCOMPARE(test::readAll(QString::fromStdString(input)), QByteArray("a;b 1\n"));

        QVERIFY_THROWS_EXCEPTION(ExportError, writeFileAtomically(target, input, [](std::ostream& out) {
                                     out << "partial";
                                     throw std::runtime_error("boom");
                                 }));
        QCOMPARE(test::readAll(QString::fromStdString(target)), QByteArray("new"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 2); // no temporary left
        QVERIFY_THROWS_EXCEPTION(ExportError,
                                 writeFileAtomically(dir.filePath(QStringLiteral("nodir/x")).toStdString(),
                                                     input, [](std::ostream&) {}));
    }
};

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
