// MainWindow: tabs of opened profiles, File menu (open, recent, export, quit), drag and drop, the load
// progress in the status bar, persisted geometry.
#pragma once

#include "exporter.h"
#include "scorch/diff.h"

#include <QMainWindow>
#include <QStringList>

class QDialog;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTabWidget;

namespace scorch {

class CompareTab;
class ProfileTab;
class RecordDialog;
class SymbolPathsDialog;
class WelcomePage;

class MainWindow final : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens `path` in a new tab (loading starts at once) and makes it current.
    ProfileTab* openFile(const QString& path);
    void openFiles(const QStringList& paths);
    /// The command line's files: `FILE...`, or `--diff [--normalize] [--strip-hex] BEFORE AFTER [FILE...]`
    /// (the comparison in front).
    void openArguments(QStringList arguments);
    /// Opens a comparison of two files in a new tab (both load at once) and makes it current.
    CompareTab* openComparison(const QString& before, const QString& after, const DiffOptions& options = {});

    int tabCount() const;
    ProfileTab* tab(int index) const;
    ProfileTab* currentTab() const;
    QTabWidget* tabs() const { return m_tabs; }

    /// Exports the current tab to `target`; returns an error message or an empty string.
    QString exportCurrent(ExportKind kind, const QString& target);

    /// File > Record…: the record dialog (created once, non-modal); finished recordings open in tabs.
    RecordDialog* showRecordDialog();
    /// File > Symbol Paths…: edits the saved symbol paths (window-modal; saved on OK).
    SymbolPathsDialog* showSymbolPathsDialog();

    /// View > Reload (F5), and Retry on a failed or cancelled tab: loads the tab's file again in its place.
    ProfileTab* reloadTab(int index);
    /// What the window shows while no tab is open.
    WelcomePage* welcomePage() const { return m_welcome; }
    /// Help > Keyboard Shortcuts: the shortcuts of the window, as a table (non-modal).
    QDialog* showShortcuts();

    QStringList recentFiles() const;
    QProgressBar* progressBar() const { return m_progress; }
    QLabel* progressLabel() const { return m_progressLabel; }
    QPushButton* cancelButton() const { return m_cancel; }

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createFileMenu();
    void createViewMenu();
    void createHelpMenu();
    ProfileTab* insertProfileTab(const QString& path, int index);
    void createStatusWidgets();
    void showOpenDialog();
    void showCompareDialog();
    CompareTab* addComparison(CompareTab* tab);
    void showExportDialog(ExportKind kind);
    void closeTab(int index);
    void addRecent(const QString& path);
    void updateRecentMenu();
    void updateStatus();
    void restoreSettings();
    void saveSettings() const;

    QStackedWidget* m_central;
    WelcomePage* m_welcome;
    QTabWidget* m_tabs;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_exportMenu = nullptr;
    QWidget* m_progressBox = nullptr;
    QLabel* m_progressLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    RecordDialog* m_recordDialog = nullptr;
    /// On a small screen without saved geometry: the size given in restoreSettings(), maximized when first
    /// shown unless the size was changed before (a caller's resize() wins).
    QSize m_smallScreenSize;
};

} // namespace scorch
