// Helpers for tests that record real programs with perf and open the recordings as if on another machine:
// environment overrides, running tools, a program with a shared library of its own built here, and a real
// debuginfod server on 127.0.0.1.
#pragma once

#include "patience.h"
#include "scorch/foldedwriter.h"
#include "scorch/profile.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <string>

namespace scorch::test {

/// An environment variable set (or, with a null value, removed) while this lives; restored after.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const QByteArray& value)
        : m_name(name)
        , m_had(qEnvironmentVariableIsSet(name))
        , m_old(qgetenv(name)) {
        if (value.isNull())
            qunsetenv(name);
        else
            qputenv(name, value);
    }
    ~ScopedEnv() {
        if (m_had)
            qputenv(m_name, m_old);
        else
            qunsetenv(m_name);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* m_name;
    bool m_had;
    QByteArray m_old;
};

/// HOME set to `dir` while it lives (perf's build-id cache, ~/.debug, is then empty), restored after.
class ScopedHome : public ScopedEnv {
public:
    explicit ScopedHome(const QString& dir)
        : ScopedEnv("HOME", dir.toLocal8Bit()) {}
};

/// Runs `program args` to its end; its exit code, -1 when it did not finish. `output`: its standard output.
inline int run(const QString& program, const QStringList& args, QByteArray* output = nullptr) {
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(kPatienceMs) || p.exitStatus() != QProcess::NormalExit)
        return -1;
    if (output)
        *output = p.readAllStandardOutput();
    return p.exitCode();
}

inline bool writeFile(const QString& path, const QByteArray& text) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}

/// Whether `perf record` works here (permissions, perf installed).
inline bool canRecord(const QString& dir) {
    return run(QStringLiteral("perf"),
               {QStringLiteral("record"), QStringLiteral("-q"), QStringLiteral("-e"),
                QStringLiteral("cpu-clock"), QStringLiteral("-o"), dir + QStringLiteral("/probe.data"),
                QStringLiteral("--"), QStringLiteral("true")}) == 0;
}

inline std::string collapsed(const Profile& p) {
    std::ostringstream out;
    writeFolded(p, {}, out);
    return out.str();
}

/// The share (0..1) of the folded lines' counts whose stacks have a `main` frame.
inline double shareReachingMain(const std::string& folded) {
    double all = 0, main = 0;
    std::istringstream in(folded);
    for (std::string line; std::getline(in, line);) {
        const std::size_t space = line.rfind(' ');
        if (space == std::string::npos)
            continue;
        const double count = std::stod(line.substr(space + 1));
        all += count;
        const std::string stack = ";" + line.substr(0, space) + ";";
        if (stack.find(";main;") != std::string::npos)
            main += count;
    }
    return all > 0 ? main / all : 0;
}

/// A program `wildprog` with a shared library of its own (`libwild.so`, found through its rpath), built
/// with -O2 -g in `bin`: main -> drive -> wildWork (library) -> wildLeaf (library) and -> progLeaf (program,
/// called back). `framePointers` builds it with frame pointers, else without.
struct WildProgram {
    QString bin, prog, lib, source;
    /// Builds it; an error text, empty on success.
    QString build(const QString& dir, bool framePointers) {
        bin = dir + QStringLiteral("/bin");
        prog = bin + QStringLiteral("/wildprog");
        lib = bin + QStringLiteral("/libwild.so");
        source = dir + QStringLiteral("/prog.c");
        const QString libSource = dir + QStringLiteral("/lib.c");
        if (!QDir().mkpath(bin) ||
            !writeFile(libSource, "__attribute__((noinline)) long wildLeaf(long n) {\n"
                                  "    long s = 0;\n"
                                  "    for (long i = 0; i < n; ++i) s += (i * 7) ^ (s >> 3);\n"
                                  "    return s;\n"
                                  "}\n"
                                  "__attribute__((noinline)) long wildWork(long n, long (*back)(long)) {\n"
                                  "    return wildLeaf(n) + back(n) + 1;\n"
                                  "}\n") ||
            !writeFile(source,
                       "#include <stdlib.h>\n"
                       "long wildWork(long, long (*)(long));\n"
                       "__attribute__((noinline)) long progLeaf(long n) {\n"
                       "    long s = 1;\n"
                       "    for (long i = 0; i < n; ++i) s = s * 31 + i;\n"
                       "    return s;\n"
                       "}\n"
                       "__attribute__((noinline)) long drive(long rounds) {\n"
                       "    long s = 0;\n"
                       "    for (long r = 0; r < rounds; ++r) s += wildWork(200000, progLeaf);\n"
                       "    return s;\n"
                       "}\n"
                       "int main(int argc, char** argv) { return (int)(drive(atol(argv[1])) & 1); }\n"))
            return QStringLiteral("cannot write the sources");
        const QStringList flags = {QStringLiteral("-O2"), QStringLiteral("-g"),
                                   framePointers ? QStringLiteral("-fno-omit-frame-pointer")
                                                 : QStringLiteral("-fomit-frame-pointer")};
        const QString cc = QStringLiteral("cc");
        if (run(cc, QStringList(flags) << QStringLiteral("-shared") << QStringLiteral("-fPIC")
                                       << QStringLiteral("-o") << lib << libSource) != 0 ||
            run(cc, QStringList(flags)
                        << QStringLiteral("-o") << prog << source << QStringLiteral("-L") + bin
                        << QStringLiteral("-lwild") << QStringLiteral("-Wl,-rpath,") + bin) != 0)
            return QStringLiteral("cc failed");
        return {};
    }
    /// Records `rounds` rounds into `data` with `perf record --call-graph MODE` (fp or dwarf); exit code.
    int record(const QString& data, const QString& mode, int rounds = 1500) const {
        return run(QStringLiteral("perf"),
                   {QStringLiteral("record"), QStringLiteral("-q"), QStringLiteral("-N"),
                    QStringLiteral("-e"), QStringLiteral("cpu-clock"), QStringLiteral("-F"),
                    QStringLiteral("1000"), QStringLiteral("--call-graph"), mode, QStringLiteral("-o"), data,
                    QStringLiteral("--"), prog, QString::number(rounds)});
    }
};

/// A real `debuginfod` server on 127.0.0.1 serving the ELF files below a directory, started by the test and
/// stopped with it.
class DebuginfodServer {
public:
    ~DebuginfodServer() {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(kPatienceMs);
        }
    }

    /// Starts serving `dir` (its database in `dbDir`) and waits until build-id `probeId` (hex) is served as
    /// an executable, i.e. the first scan is done. An error text, empty once it serves.
    QString start(const QString& dir, const QString& dbDir, const QString& probeId) {
        for (int attempt = 0; attempt < 5; ++attempt) { // a port taken between choosing it and the bind
            const int port = freePort();
            if (port <= 0)
                return QStringLiteral("no free port on 127.0.0.1");
            m_process.start(QStringLiteral("debuginfod"),
                            {QStringLiteral("-F"), dir, QStringLiteral("-p"), QString::number(port),
                             QStringLiteral("-d"), dbDir + QStringLiteral("/db.sqlite"), QStringLiteral("-t"),
                             QStringLiteral("0")});
            if (!m_process.waitForStarted(kPatienceMs))
                return QStringLiteral("debuginfod does not start: ") + m_process.errorString();
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kPatienceMs);
            while (m_process.state() == QProcess::Running && std::chrono::steady_clock::now() < deadline) {
                if (httpStatus(port, "/buildid/" + probeId.toStdString() + "/executable") == 200) {
                    m_url = QStringLiteral("http://127.0.0.1:%1").arg(port);
                    return {};
                }
                m_process.waitForFinished(100); // a pause between probes, or the server's end
            }
            if (m_process.state() == QProcess::Running) {
                m_process.kill();
                m_process.waitForFinished(kPatienceMs);
                return QStringLiteral("debuginfod did not serve the file within the patience");
            }
        }
        return QStringLiteral("debuginfod exited: ") +
               QString::fromLocal8Bit(m_process.readAllStandardError());
    }
    QString url() const { return m_url; }

    /// The HTTP status of GET `path` on 127.0.0.1:`port`; 0 when nothing answers.
    static int httpStatus(int port, const std::string& path) {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return 0;
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<uint16_t>(port));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        int status = 0;
        if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
            const std::string request = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
            if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
                static_cast<ssize_t>(request.size())) {
                char head[64] = {};
                std::size_t got = 0;
                while (got < 12) {
                    const ssize_t n = ::recv(fd, head + got, sizeof head - 1 - got, 0);
                    if (n <= 0)
                        break;
                    got += static_cast<std::size_t>(n);
                }
                if (got >= 12 && std::string_view(head, 5) == "HTTP/")
                    status = std::atoi(head + 9);
            }
        }
        ::close(fd);
        return status;
    }

private:
    static int freePort() {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return -1;
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof address;
        int port = -1;
        if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0)
            port = ntohs(address.sin_port);
        ::close(fd);
        return port;
    }

    QProcess m_process;
    QString m_url;
};

} // namespace scorch::test
