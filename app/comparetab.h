// CompareTab: a before/after comparison in a main window tab. Loads both files off the GUI thread (two
// ProfileLoaders, one progress bar each, one Cancel), or takes two profiles that are already open, then
// shows a CompareView.
#pragma once

#include "scorch/diff.h"

#include <QString>
#include <QWidget>

#include <memory>

class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;

namespace scorch {

class CompareView;
class ProfileLoader;

class CompareTab final : public QWidget {
    Q_OBJECT
public:
    enum class State { Loading, Loaded, Failed, Cancelled };

    /// Starts loading both files at once.
    CompareTab(const QString& beforePath, const QString& afterPath, QWidget* parent = nullptr);
    /// Compares two profiles that are already loaded (two open tabs).
    CompareTab(std::shared_ptr<const Profile> before, const QString& beforePath,
               std::shared_ptr<const Profile> after, const QString& afterPath, QWidget* parent = nullptr,
               const DiffOptions& options = {});
    ~CompareTab() override;

    /// "before.txt ↔ after.txt", for the tab title.
    QString title() const;
    QString beforePath() const { return m_paths[0]; }
    QString afterPath() const { return m_paths[1]; }
    State state() const { return m_state; }
    /// The loading / error / cancelled text.
    QString messageText() const;
    QProgressBar* progressBar(int side) const { return m_bars[side]; }
    CompareView* view() const { return m_view; }

    void cancelLoad();
    /// Normalise / strip hex; before the files have loaded, applied once they have.
    void setDiffOptions(const DiffOptions& options);
    const DiffOptions& diffOptions() const { return m_options; }

Q_SIGNALS:
    void stateChanged(scorch::CompareTab::State state);

private:
    void init();
    void onLoaded(int side, std::shared_ptr<const Profile> profile);
    void fail(const QString& text, State state);
    void setState(State state);

    QString m_paths[2];
    std::shared_ptr<const Profile> m_profiles[2];
    DiffOptions m_options;
    ProfileLoader* m_loaders[2] = {nullptr, nullptr};
    State m_state = State::Loading;
    QStackedWidget* m_stack;
    QWidget* m_loadPage;
    QLabel* m_message;
    QWidget* m_progressBox;
    QProgressBar* m_bars[2];
    QPushButton* m_cancel;
    CompareView* m_view;
};

} // namespace scorch
