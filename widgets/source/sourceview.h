// SourceView: the source of the selected function, read-only, with per-line self/total costs in the gutter,
// scrolled to its hottest line, and the function's lines sorted by cost beside it. Finds files through
// SourceLocator (recorded path, path mappings, search directories; persisted in QSettings), shows a "source
// not found" panel with a button to choose the directory, and opens the file in an external editor.
#pragma once

#include "common/backgroundjob.h"
#include "scorch/profile.h"
#include "scorch/sourcecost.h"
#include "scorch/sourcelocator.h"

#include <QHash>
#include <QWidget>

#include <memory>

class QLabel;
class QPushButton;
class QSplitter;
class QStackedWidget;
class QTreeWidget;
class QTreeWidgetItem;

namespace scorch {

class SourceViewEdit;

class SourceView final : public QWidget {
    Q_OBJECT
public:
    enum class State {
        Empty,    ///< no function selected
        NoSource, ///< the function has no file information
        NotFound, ///< the file is known but was not found on this machine
        Shown,    ///< the file is shown
    };

    explicit SourceView(QWidget* parent = nullptr);
    ~SourceView() override;

    /// The profile whose lineCosts are shown, and which cost type sorts and colours the lines.
    void setProfile(std::shared_ptr<const Profile> profile, std::size_t costType = 0);
    /// The same profile's frames with other costs (a time range's slice, scorch/samples.h sliceProfile with
    /// its details): keeps the function shown, the cost type and the files found, and shows these costs.
    void setCosts(std::shared_ptr<const Profile> profile);
    /// Shows the source of the function of `frame` (all frames of the same name and module).
    void showFrame(FrameId frame);
    /// Shows a line of one of the function's files (the lines list does this on click).
    void showLine(StringId file, uint32_t line);

    State state() const { return m_state; }
    FrameId frame() const { return m_frame; }
    const FunctionSource& function() const { return m_function; }
    /// The file as the profile recorded it, and where it was found (empty when not found).
    QString recordedPath() const;
    QString filePath() const;
    const SourceLocation& location() const { return m_location; }
    /// The hottest line of the function in the shown file (0 without line costs).
    int hottestLine() const;

    SourceViewEdit* editor() const { return m_edit; }
    QTreeWidget* lineList() const { return m_lines; }
    QWidget* notFoundPanel() const { return m_notFound; }
    QLabel* notFoundLabel() const { return m_notFoundText; }
    QLabel* infoLabel() const { return m_info; }
    QPushButton* chooseDirectoryButton() const { return m_choose; }

    // --- where sources are looked for (shared by all views, saved in QSettings) ---
    const SourceLocatorConfig& locatorConfig() const { return m_config; }
    void setLocatorConfig(const SourceLocatorConfig& config);
    /// A directory chosen for the missing file: adds a path mapping when a trailing part of the recorded path
    /// is below `dir` (so its sibling files are found too), else a search directory; saves and re-locates.
    void addSourceDirectory(const QString& dir);
    /// debuginfod servers (space-separated URLs): a file not found on this machine is fetched from them by
    /// the build-id of the function's module (off the GUI thread; the panel says so meanwhile). Empty = none.
    void setDebuginfodUrls(const QString& urls);
    static SourceLocatorConfig loadLocatorConfig();
    static void saveLocatorConfig(const SourceLocatorConfig& config);

    // --- external editor ---
    /// The command template: arguments split like a shell would (quotes), {file} and {line} replaced.
    QString editorCommand() const { return m_editorCommand; }
    void setEditorCommand(const QString& command);
    /// From $VISUAL or $EDITOR ("EDITOR +{line} {file}", with the right flags for a few known editors), else
    /// "xdg-open {file}".
    static QString defaultEditorCommand();
    /// Program and arguments of `command` for a file and line; {file} is appended when the template has none.
    static QStringList expandEditorCommand(const QString& command, const QString& file, int line);
    /// Starts the editor detached on the shown file at the cursor line; false when it could not start.
    bool openInEditor();

Q_SIGNALS:
    void stateChanged(scorch::SourceView::State state);

protected:
    /// A narrow view puts the line list under the file instead of beside it.
    void resizeEvent(QResizeEvent* event) override;

private:
    void relocate();
    void showFile(StringId file, uint32_t line);
    void fillLineList();
    void onLineClicked(QTreeWidgetItem* item);
    void chooseDirectory();
    void editEditorCommand();
    void setState(State state);
    void loadText(const QByteArray& bytes, int target);
    QString costText(int64_t value) const;
    /// Build-ids of the modules of the shown function's frames (from the Symbols report), hex.
    std::vector<std::string> moduleBuildIds() const;
    void fetchFromDebuginfod(const QString& key, const std::string& recorded, std::vector<std::string> ids);

    std::shared_ptr<const Profile> m_profile;
    std::size_t m_costType = 0;
    FrameId m_frame;
    FunctionSource m_function;
    StringId m_file;     // the recorded file being shown (or missing)
    uint32_t m_line = 0; // the line to show in it
    SourceLocation m_location;
    QString m_loadedPath;  // the file the editor holds (maybe a window of it)
    int m_loadedLines = 0; // lines of that file
    SourceLocatorConfig m_config;
    QHash<QString, SourceLocation> m_located; // recorded path -> where it was found with m_config
    QString m_debuginfodUrls;
    QHash<QString, SourceLocation> m_fetched; // recorded path -> what debuginfod gave (detail: why not)
    QString m_fetching;                       // the recorded path being fetched; empty when none
    BackgroundJob m_fetch{this};
    QString m_editorCommand;
    State m_state = State::Empty;

    QLabel* m_title;
    QLabel* m_info;
    QPushButton* m_openEditor;
    QPushButton* m_editorSettings;
    QStackedWidget* m_stack;
    QLabel* m_empty;
    QSplitter* m_split;          // the file (or the not-found panel) | the function's lines
    QStackedWidget* m_fileStack; // m_edit or m_notFound
    QWidget* m_notFound;
    QLabel* m_notFoundText;
    QPushButton* m_choose;
    SourceViewEdit* m_edit;
    QTreeWidget* m_lines;
};

} // namespace scorch
