// SymbolPathsDialog: where Scorch looks for the binaries and debug info that name the raw addresses of
// perf.data files and Scorch recordings, besides the recorded paths, /usr/lib/debug and perf's build-id
// cache: directories searched for a module by its file name, more debug-info directories and a sysroot
// (a recording from another system whose files were copied below one directory). The dialog edits the
// lists; the caller stores them and applies them to the files it opens next.
#pragma once

#include <QDialog>
#include <QStringList>

class QLineEdit;
class QListWidget;

namespace scorch {

class SymbolPathsDialog final : public QDialog {
    Q_OBJECT
public:
    struct Paths {
        QStringList searchPaths;
        QStringList debugDirs;
        QString sysroot;
        /// debuginfod server URLs, space-separated; never saved = $DEBUGINFOD_URLS (see loadSymbolPaths)
        QString debuginfod;
        friend bool operator==(const Paths&, const Paths&) = default;
    };

    explicit SymbolPathsDialog(const Paths& paths, QWidget* parent = nullptr);
    Paths paths() const;

    /// What the Add… buttons do after their directory dialog (also for tests): appends `dir` unless it is
    /// empty or listed already.
    void addSearchPath(const QString& dir);
    void addDebugDir(const QString& dir);

private:
    QWidget* listEditor(QListWidget* list, const QString& what);
    static void addTo(QListWidget* list, const QString& dir);

    QListWidget* m_search;
    QListWidget* m_debug;
    QLineEdit* m_sysroot;
    QLineEdit* m_debuginfod;
};

} // namespace scorch
