#include "flame/breadcrumbbar.h"

#include "common/layoututil.h"
#include "common/qtprofile.h"

#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QToolButton>

namespace scorch {

BreadcrumbBar::BreadcrumbBar(QWidget* parent)
    : QWidget(parent)
    , m_layout(new QHBoxLayout(this)) {
    m_layout->setContentsMargins(4, 0, 4, 0);
    m_layout->setSpacing(0);
    m_layout->addStretch(1);
}

void BreadcrumbBar::setPath(std::vector<Crumb> crumbs) {
    m_crumbs = std::move(crumbs);
    clearLayoutLater(m_layout);
    const QFontMetrics fm(font());
    auto addSeparator = [&] {
        auto* sep = new QLabel(QStringLiteral(" › "), this);
        sep->setEnabled(false);
        m_layout->addWidget(sep);
    };
    auto addCrumb = [&](const Crumb& c, bool last) {
        auto* b = new QToolButton(this);
        b->setAutoRaise(true);
        b->setText(fm.elidedText(shortDisplayName(c.text), Qt::ElideLeft, 260)
                       .replace(QLatin1Char('&'), QStringLiteral("&&")));
        b->setToolTip(c.text);
        b->setObjectName(QStringLiteral("crumb"));
        if (last) {
            QFont f = b->font();
            f.setBold(true);
            b->setFont(f);
        }
        connect(b, &QToolButton::clicked, this, [this, node = c.node] { Q_EMIT crumbClicked(node); });
        m_layout->addWidget(b);
    };
    const std::size_t n = m_crumbs.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (i > 0)
            addSeparator();
        if (i == 1 && n > kTail + 2) { // fold the middle into a menu
            auto* more = new QToolButton(this);
            more->setAutoRaise(true);
            more->setText(QStringLiteral("…"));
            more->setPopupMode(QToolButton::InstantPopup);
            auto* menu = new QMenu(more);
            for (std::size_t j = 1; j + kTail < n; ++j) {
                const Crumb& c = m_crumbs[j];
                connect(menu->addAction(fm.elidedText(shortDisplayName(c.text), Qt::ElideLeft, 400)),
                        &QAction::triggered, this, [this, node = c.node] { Q_EMIT crumbClicked(node); });
            }
            more->setMenu(menu);
            m_layout->addWidget(more);
            i = n - kTail - 1;
            continue;
        }
        addCrumb(m_crumbs[i], i + 1 == n);
    }
    m_layout->addStretch(1);
}

} // namespace scorch
