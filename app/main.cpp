// The scorch executable: headless subcommands run without Qt; anything else opens the GUI.
#include "cli.h"
#include "mainwindow.h"

#include <QApplication>
#include <QStringList>
#include <QThreadPool>

#include <algorithm>
#include <cstdio>
#include <string_view>

#ifndef SCORCH_VERSION
#define SCORCH_VERSION "0.0.0"
#endif

int main(int argc, char** argv) {
    // Headless commands first: `scorch collapse/info` never need a display.
    if (scorch::cli::isHeadlessCommand(argc, argv))
        return scorch::cli::run(argc, argv);
    if (argc >= 2 && std::string_view(argv[1]) == "--diff") {
        std::fputs("scorch: comparison view not implemented yet\n", stderr);
        return 2;
    }

    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("Scorch"));
    QCoreApplication::setApplicationName(QStringLiteral("Scorch"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SCORCH_VERSION));
    QGuiApplication::setDesktopFileName(QStringLiteral("scorch"));
    // Imports and table builds run on the global pool; keep a couple of slots free for table builds
    // while several large files load.
    QThreadPool::globalInstance()->setMaxThreadCount(std::max(4, QThread::idealThreadCount()));

    scorch::MainWindow window;
    QStringList files = QCoreApplication::arguments();
    files.removeFirst();
    window.openFiles(files);
    window.show();
    return app.exec();
}
