// LayoutFence: stops a widget's changing contents from re-laying out (and repainting) the whole window.
#pragma once

#include <QSize>
#include <QWidget>

namespace scorch {

/// Holds one widget, filling itself with it, and passes a change of the widget's size hints up to its
/// own parent's layout only when its place there has to change: at once when its height (or height for
/// the fence's width) changed or its minimum width no longer fits the fence; a smaller minimum width when
/// the fence is narrowed down to the old one (so the window can be made narrower still). Its preferred
/// width goes up with those.
///
/// Why: a new label text or a crumb shown or hidden makes Qt re-activate every layout from that widget up
/// to the window, and each QTabWidget on that path repaints itself whole when its layout is activated
/// (QTabWidget::setUpLayout). A summary field updated as a time range is dragged repainted the whole
/// window three times per mouse move. Behind a fence, the widget's own layout still arranges its
/// children; the layouts above it are re-activated only when its place in them has to change.
class LayoutFence final : public QWidget {
public:
    /// Takes `content` (reparented into the fence). The fence is shown and hidden with it.
    explicit LayoutFence(QWidget* content, QWidget* parent = nullptr);

    QWidget* content() const { return m_content; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;
    /// How often a change of the content's hints was passed up (for tests).
    int passedUp() const { return m_passedUp; }

protected:
    bool event(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void takeHints();
    void passUp();

    QWidget* m_content;
    QSize m_hint, m_minimum;   // the content's hints as the layouts above last saw them
    int m_heightForWidth = -1; // and its height for the fence's width (word-wrapped text), or -1
    bool m_stale = false;      // the content's width hints changed since
    int m_passedUp = 0;
};

} // namespace scorch
