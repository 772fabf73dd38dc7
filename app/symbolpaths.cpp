#include "symbolpaths.h"

#include "scorch/symbolizer.h"

#include <QFile>
#include <QSettings>

namespace scorch {

namespace {
constexpr auto kSearchKey = "symbols/searchPaths";
constexpr auto kDebugKey = "symbols/debugDirs";
constexpr auto kSysrootKey = "symbols/sysroot";
constexpr auto kDebuginfodKey = "symbols/debuginfod";

std::vector<std::string> encoded(const QStringList& dirs) {
    std::vector<std::string> out;
    for (const QString& d : dirs)
        out.push_back(QFile::encodeName(d).toStdString());
    return out;
}
} // namespace

SymbolPathsDialog::Paths loadSymbolPaths() {
    const QSettings s;
    SymbolPathsDialog::Paths p;
    p.searchPaths = s.value(QLatin1String(kSearchKey)).toStringList();
    p.debugDirs = s.value(QLatin1String(kDebugKey)).toStringList();
    p.sysroot = s.value(QLatin1String(kSysrootKey)).toString();
    // until set in the dialog, the servers of the environment (as gdb and perf use them)
    p.debuginfod = s.contains(QLatin1String(kDebuginfodKey))
                       ? s.value(QLatin1String(kDebuginfodKey)).toString()
                       : QString::fromLocal8Bit(qgetenv("DEBUGINFOD_URLS")).simplified();
    return p;
}

void saveSymbolPaths(const SymbolPathsDialog::Paths& paths) {
    QSettings s;
    s.setValue(QLatin1String(kSearchKey), paths.searchPaths);
    s.setValue(QLatin1String(kDebugKey), paths.debugDirs);
    s.setValue(QLatin1String(kSysrootKey), paths.sysroot);
    if (s.contains(QLatin1String(kDebuginfodKey)) ||
        paths.debuginfod != QString::fromLocal8Bit(qgetenv("DEBUGINFOD_URLS")).simplified())
        s.setValue(QLatin1String(kDebuginfodKey), paths.debuginfod); // else the environment's stays in use
}

ImportOptions withSymbolPaths(ImportOptions options) {
    const SymbolPathsDialog::Paths p = loadSymbolPaths();
    for (const std::string& d : encoded(p.searchPaths))
        options.symbolSearchPaths.push_back(d);
    for (const std::string& d : encoded(p.debugDirs))
        options.debugDirs.push_back(d);
    if (!p.sysroot.isEmpty())
        options.sysroot = QFile::encodeName(p.sysroot).toStdString();
    options.debuginfodUrls = p.debuginfod.toStdString();
    options.inflatedCopies = defaultInflatedCopies();
    return options;
}

} // namespace scorch
