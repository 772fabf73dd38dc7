// Shared helpers for the widget tests (chart data, item models).
#pragma once

#include "scorch/chartdata.h"
#include "testutil.h"

#include <QAbstractItemModel>
#include <QEvent>
#include <QModelIndex>
#include <QObject>
#include <QString>

#include <map>
#include <memory>

namespace scorch::test {

/// Counts the events of one type (paints, layout requests...) that reach each object it is installed on.
class EventCounter : public QObject {
public:
    explicit EventCounter(QEvent::Type type)
        : m_type(type) {}
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == m_type)
            ++counts[watched];
        return false;
    }
    /// Events per object so far.
    std::map<QObject*, int> counts;
    /// Installed on `object`, counting its events.
    EventCounter& watch(QObject* object) {
        object->installEventFilter(this);
        return *this;
    }

private:
    QEvent::Type m_type;
};

/// A profile imported from a file, shared as the widgets take it.
inline std::shared_ptr<const Profile> loadShared(const QString& path) {
    return std::make_shared<const Profile>(importProfile(path.toStdString()));
}

/// A fixture file under tests/data/flame.
inline QString flameFixture(const char* name) {
    return testData(QStringLiteral("flame/") + QLatin1String(name));
}

/// The node of the chart's (possibly filtered or transformed) tree reached by following frame names.
inline NodeId nodeByPath(const ChartData& data, std::initializer_list<std::string_view> names) {
    return nodeByPath(*data.profile, data.tree, names);
}

/// Row of `parent` whose first column reads `name`, or an invalid index.
inline QModelIndex findRow(const QAbstractItemModel& m, const QString& name, const QModelIndex& parent = {}) {
    for (int r = 0; r < m.rowCount(parent); ++r)
        if (m.index(r, 0, parent).data().toString() == name)
            return m.index(r, 0, parent);
    return {};
}

} // namespace scorch::test
