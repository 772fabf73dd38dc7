// WelcomePage: what the window shows while no tab is open: Open…, Record / Attach…, Compare…, the recent
// files, and what Scorch opens.
#pragma once

#include <QStringList>
#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace scorch {

class WelcomePage final : public QWidget {
    Q_OBJECT
public:
    explicit WelcomePage(QWidget* parent = nullptr);

    /// Most recent first; the list is hidden while empty.
    void setRecentFiles(const QStringList& paths);
    QListWidget* recentList() const { return m_recent; }
    QPushButton* openButton() const { return m_open; }
    QPushButton* recordButton() const { return m_record; }
    QPushButton* compareButton() const { return m_compare; }
    /// The "Scorch opens …" text.
    QLabel* formatsLabel() const { return m_formats; }

Q_SIGNALS:
    void openRequested();
    void recordRequested();
    void compareRequested();
    void recentActivated(const QString& path);

private:
    QPushButton* m_open;
    QPushButton* m_record;
    QPushButton* m_compare;
    QLabel* m_recentTitle;
    QListWidget* m_recent;
    QLabel* m_formats;
};

} // namespace scorch
