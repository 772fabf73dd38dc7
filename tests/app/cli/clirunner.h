// Runs the real scorch binary for the command-line tests.
#pragma once

#include "patience.h"

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

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
