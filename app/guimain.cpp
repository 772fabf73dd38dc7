// The GUI entry point, built as a loadable module (libscorch_gui.so) so that the headless commands of the
// scorch executable start without loading Qt at all.
#include "mainwindow.h"

#include <QApplication>
#include <QStringList>

#ifndef SCORCH_VERSION
#define SCORCH_VERSION "0.0.0"
#endif

extern "C" __attribute__((visibility("default"))) int scorch_gui_main(int argc, char** argv) {
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("Scorch"));
    QCoreApplication::setApplicationName(QStringLiteral("Scorch"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SCORCH_VERSION));
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.scorch.Scorch"));

    scorch::MainWindow window;
    QStringList files = QCoreApplication::arguments();
    files.removeFirst();
    window.openArguments(files);
    window.show();
    return app.exec();
}
