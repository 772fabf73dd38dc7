// WarningBanner: the serious warnings of a profile (a truncated file, lost samples, hot code without
// symbols, stacks that could not be unwound) in a dismissable strip above the chart: what happened and
// what to do. The rest of the warnings stay on the Summary page.
#pragma once

#include "scorch/warningkind.h"

#include <QFrame>
#include <QSet>

class QLabel;
class QToolButton;

namespace scorch {

class WarningBanner final : public QFrame {
    Q_OBJECT
public:
    explicit WarningBanner(QWidget* parent = nullptr);

    /// Shows the serious warnings of `meta` that were not dismissed; hides the banner when there are none.
    /// Called again for progressive snapshots of the same file: a dismissed warning stays dismissed.
    void setMeta(const ProfileMeta& meta);
    /// The text shown and the messages in its tooltip (rich text; empty when hidden).
    QString text() const;
    QToolButton* closeButton() const { return m_close; }
    QToolButton* detailsButton() const { return m_details; }

    /// What a warning of `kind` means for the profile and what to do about it, one sentence or two.
    static QString advice(WarningKind kind);

    /// The banner's background: an amber tint of `window` (light amber on a light palette, dark amber on a
    /// dark one) under the palette's own text colour.
    static QColor tint(const QColor& window);

Q_SIGNALS:
    /// "All warnings…": the Summary page with the full list.
    void detailsRequested();

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    QLabel* m_icon;
    QLabel* m_text;
    QToolButton* m_details;
    QToolButton* m_close;
    QSet<QString> m_shown;     // the messages on display
    QSet<QString> m_dismissed; // the messages the user closed
};

} // namespace scorch
