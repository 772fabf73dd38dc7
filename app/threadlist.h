// ThreadList: the threads/processes of a profile with checkboxes; "All threads" (the default) merges all.
#pragma once

#include "scorch/profile.h"

#include <QWidget>

#include <cstdint>
#include <vector>

class QLineEdit;
class QTimer;
class QTreeWidget;
class QTreeWidgetItem;

namespace scorch {

class ThreadList final : public QWidget {
    Q_OBJECT
public:
    explicit ThreadList(QWidget* parent = nullptr);

    void setProfile(const Profile& profile);
    /// Checked threads (indices into profile.threads); empty when all are checked.
    std::vector<uint32_t> selectedThreads() const;
    /// Checks only `thread` (a click on its timeline lane); when it already is the only one, checks all.
    void toggleOnly(uint32_t thread);
    /// Checks only `thread` ("Show Only This Thread" in the context menu).
    void showOnly(uint32_t thread);
    /// The width that shows every thread name in full beside the number columns (after setProfile).
    int preferredWidth() const;
    QTreeWidget* tree() const { return m_tree; }
    /// The filter box above the list, shown when the threads do not fit in the list's height.
    QLineEdit* filterBox() const { return m_filter; }
    /// Checks only the threads the filter box shows ("Show Only Matching Threads").
    void showOnlyMatching();

protected:
    void resizeEvent(QResizeEvent* event) override;

Q_SIGNALS:
    /// The checked set changed (coalesced: one signal per burst of clicks).
    void threadsChanged(std::vector<uint32_t> threads);

private:
    void itemChanged();
    void settle();
    void showContextMenu(const QPoint& pos);
    void applyFilter();
    void updateFilterVisibility();

    QLineEdit* m_filter;
    QTreeWidget* m_tree;
    QTreeWidgetItem* m_all = nullptr;
    QTimer* m_settle;
    std::vector<uint32_t> m_last;
};

} // namespace scorch
