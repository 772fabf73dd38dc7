// CompareDialog: File > Compare… — picks "before" and "after", each an open tab or a file.
#pragma once

#include "scorch/profile.h"

#include <QDialog>
#include <QList>
#include <QString>

#include <memory>

class QComboBox;
class QDialogButtonBox;

namespace scorch {

class CompareDialog final : public QDialog {
    Q_OBJECT
public:
    /// One side of the comparison: a loaded profile (an open tab) or a file still to load.
    struct Source {
        QString path;
        std::shared_ptr<const Profile> profile; ///< null: load `path`
    };

    /// `openTabs`: the loaded tabs, offered first; the last two are preselected (before, after).
    explicit CompareDialog(QList<Source> openTabs, QWidget* parent = nullptr);

    Source before() const { return source(0); }
    Source after() const { return source(1); }

private:
    Source source(int side) const;
    void updateOk();

    QList<Source> m_tabs;
    QComboBox* m_boxes[2];
    QDialogButtonBox* m_buttons;
};

} // namespace scorch
