#include "common/layoutfence.h"

#include <QEvent>

namespace scorch {

LayoutFence::LayoutFence(QWidget* content, QWidget* parent)
    : QWidget(parent)
    , m_content(content) {
    const bool hidden = m_content->testAttribute(Qt::WA_WState_ExplicitShowHide) && m_content->isHidden();
    m_content->setParent(this);
    m_content->move(0, 0);
    m_content->setVisible(!hidden);
    setSizePolicy(m_content->sizePolicy());
    setVisible(!hidden);
    m_content->installEventFilter(this);
    takeHints();
}

void LayoutFence::takeHints() {
    m_hint = m_content->sizeHint();
    m_minimum = m_content->minimumSizeHint();
    m_heightForWidth = m_content->hasHeightForWidth() ? m_content->heightForWidth(width()) : -1;
    m_stale = false;
}

void LayoutFence::passUp() {
    takeHints();
    ++m_passedUp;
    updateGeometry();
}

QSize LayoutFence::sizeHint() const {
    return m_hint;
}

QSize LayoutFence::minimumSizeHint() const {
    return m_minimum;
}

bool LayoutFence::hasHeightForWidth() const {
    return m_content->hasHeightForWidth();
}

int LayoutFence::heightForWidth(int width) const {
    return m_content->heightForWidth(width);
}

bool LayoutFence::event(QEvent* event) {
    // posted here (the fence has no layout) when the content's layout was activated or its hints changed
    if (event->type() == QEvent::LayoutRequest) {
        const QSize hint = m_content->sizeHint(), minimum = m_content->minimumSizeHint();
        const int heightForWidth = m_content->hasHeightForWidth() ? m_content->heightForWidth(width()) : -1;
        if (hint.height() != m_hint.height() || minimum.height() != m_minimum.height() ||
            heightForWidth != m_heightForWidth || minimum.width() > width() ||
            (minimum.width() != m_minimum.width() && width() <= m_minimum.width()))
            passUp();
        else if (hint != m_hint || minimum != m_minimum)
            m_stale = true;
        m_content->setGeometry(rect());
        return true;
    }
    return QWidget::event(event);
}

bool LayoutFence::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_content) {
        if (event->type() == QEvent::ShowToParent && isHidden()) {
            takeHints();
            show();
        } else if (event->type() == QEvent::HideToParent && !isHidden()) {
            hide();
        }
    }
    return QWidget::eventFilter(watched, event);
}

void LayoutFence::resizeEvent(QResizeEvent* event) {
    m_content->setGeometry(rect());
    if (m_stale && width() <= m_minimum.width())
        passUp(); // narrowed down to an old minimum: the window may become narrower still
    else if (m_heightForWidth >= 0)
        m_heightForWidth = m_content->heightForWidth(width());
    QWidget::resizeEvent(event);
}

} // namespace scorch
