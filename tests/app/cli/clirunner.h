// Runs the real scorch binary for the command-line tests.
#pragma once

#include "patience.h"

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <fstream>
#include <string>

struct CliResult {
    int exitCode = -1;
    QByteArray out, err;
};

inline CliResult runScorch(const QStringList& args, const QByteArray& stdinData = {}) {
    QProcess p;
    p.setProgram(QString::fromUtf8(SCORCH_BINARY));
    p.setArguments(args);
    p.start();
    if (!p.waitForStarted())
        return {};
    if (!stdinData.isEmpty())
        p.write(stdinData);
    p.closeWriteChannel();
    if (!p.waitForFinished(scorch::test::kPatienceMs)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

/// Runs `perf record -q ARGS` (ARGS end with `-o OUT -- PROGRAM ...`): true when perf recorded (exit code 0);
/// false when perf cannot record here (the caller skips with a message).
inline bool perfRecord(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral("perf"), QStringList{QStringLiteral("record"), QStringLiteral("-q")} + args);
    return p.waitForFinished(scorch::test::kPatienceMs) && p.exitStatus() == QProcess::NormalExit &&
           p.exitCode() == 0;
}

/// The state letter of /proc/PID/stat (R, S, D, T for stopped, Z, ...); '?' when there is no such process.
inline char procState(qint64 pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat;
    std::getline(in, stat);
    const std::size_t close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() ? stat[close + 2] : '?';
}
