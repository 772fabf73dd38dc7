// Small Qt layout helpers shared by the widgets.
#pragma once

#include <QLayout>
#include <QWidget>

namespace scorch {

/// Removes every item of `layout`. Widgets are hidden and deleted later, because one of them may be the
/// button whose click is being handled.
inline void clearLayoutLater(QLayout* layout) {
    while (QLayoutItem* item = layout->takeAt(0)) {
        if (QWidget* w = item->widget()) {
            w->hide();
            w->setObjectName(QString());
            w->deleteLater();
        }
        delete item;
    }
}

} // namespace scorch
