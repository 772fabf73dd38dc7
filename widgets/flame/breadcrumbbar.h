// BreadcrumbBar: the flame graph's zoom path as clickable crumbs (all › … › zoomed frame).
#pragma once

#include "scorch/calltree.h"

#include <QString>
#include <QWidget>

#include <vector>

class QHBoxLayout;

namespace scorch {

class BreadcrumbBar : public QWidget {
    Q_OBJECT
public:
    struct Crumb {
        NodeId node;
        QString text;
    };

    explicit BreadcrumbBar(QWidget* parent = nullptr);

    /// Root first, zoomed frame last. Long paths keep the first crumb and the last `kTail` crumbs; the rest
    /// are reachable from a "…" menu.
    void setPath(std::vector<Crumb> crumbs);
    const std::vector<Crumb>& path() const { return m_crumbs; }
    static constexpr std::size_t kTail = 6;

Q_SIGNALS:
    void crumbClicked(scorch::NodeId node);

private:
    QHBoxLayout* m_layout;
    std::vector<Crumb> m_crumbs;
};

} // namespace scorch
