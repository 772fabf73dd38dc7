#include "warningbanner.h"

#include "common/qtprofile.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QStyle>
#include <QToolButton>

namespace scorch {

namespace {

QString headline(WarningKind kind) {
    switch (kind) {
    case WarningKind::Truncated:
        return WarningBanner::tr("The file is truncated.");
    case WarningKind::Lost:
        return WarningBanner::tr("Samples were lost while recording.");
    case WarningKind::Symbols:
        return WarningBanner::tr("Hot code has no symbols.");
    case WarningKind::Unwind:
        return WarningBanner::tr("Many stacks could not be unwound.");
    case WarningKind::Note:
        break;
    }
    return {};
}

} // namespace

WarningBanner::WarningBanner(QWidget* parent)
    : QFrame(parent)
    , m_icon(new QLabel(this))
    , m_text(new QLabel(this))
    , m_details(new QToolButton(this))
    , m_close(new QToolButton(this)) {
    setObjectName(QStringLiteral("warningBanner"));
    setFrameShape(QFrame::StyledPanel);
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setText(tr("All Warnings…"));
    m_details->setToolTip(tr("The Summary page lists every warning"));
    m_details->setAutoRaise(true);
    m_close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    m_close->setToolTip(tr("Dismiss these warnings"));
    m_close->setAutoRaise(true);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    layout->addWidget(m_icon, 0, Qt::AlignTop);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_details, 0, Qt::AlignTop);
    layout->addWidget(m_close, 0, Qt::AlignTop);
    connect(m_details, &QToolButton::clicked, this, &WarningBanner::detailsRequested);
    connect(m_close, &QToolButton::clicked, this, [this] {
        m_dismissed.unite(m_shown);
        m_shown.clear();
        m_text->clear();
        hide();
    });
    m_icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(24, 24));
    hide();
}

QString WarningBanner::advice(WarningKind kind) {
    switch (kind) {
    case WarningKind::Truncated:
        return tr("The chart holds only the samples before the cut. Copy the file again, or let perf record "
                  "finish (stop it with Ctrl+C, not kill -9).");
    case WarningKind::Lost:
        return tr("Costs are lower than they were. Record at a lower frequency (perf record -F) or with "
                  "bigger buffers (-m).");
    case WarningKind::Symbols:
        return tr(
            "Its frames show addresses instead of function names. Add the binaries or their debug files "
            "under File > Symbol Paths… (or install the -dbgsym packages), then Reload (F5).");
    case WarningKind::Unwind:
        return tr(
            "Their callers are missing from the chart. Record with a bigger --call-graph dwarf stack size, "
            "or build with -fno-omit-frame-pointer and record with --call-graph fp.");
    case WarningKind::Note:
        break;
    }
    return {};
}

void WarningBanner::setMeta(const ProfileMeta& meta) {
    // One paragraph per kind: what happened (the first message of that kind), then what to do.
    QString html;
    QStringList tips;
    QSet<QString> shown;
    for (const WarningKind kind :
         {WarningKind::Truncated, WarningKind::Lost, WarningKind::Symbols, WarningKind::Unwind}) {
        QStringList messages;
        for (const ImportWarning& w : meta.warnings) {
            const QString message = displayText(w.message);
            if (warningKind(w.message) == kind && !m_dismissed.contains(message)) {
                messages << message;
                shown.insert(message);
            }
        }
        if (messages.isEmpty())
            continue;
        QString details = messages.front().toHtmlEscaped();
        if (messages.size() > 1)
            details += tr(" (and %n more)", nullptr, static_cast<int>(messages.size() - 1));
        if (!html.isEmpty())
            html += QStringLiteral("<br>");
        // what happened and what to do in the banner; the messages themselves in its tooltip (and on the
        // Summary page), so that the banner stays two lines high per kind
        html +=
            QStringLiteral("<b>%1</b> %2").arg(headline(kind).toHtmlEscaped(), advice(kind).toHtmlEscaped());
        tips << details;
    }
    m_shown = shown;
    m_text->setText(html);
    m_text->setToolTip(tips.join(QStringLiteral("<br>")));
    setVisible(!html.isEmpty());
}

QString WarningBanner::text() const {
    return isHidden() ? QString() : m_text->text() + QStringLiteral("<br>") + m_text->toolTip();
}

QColor WarningBanner::tint(const QColor& window) {
    const QColor amber(255, 176, 0);
    const float mix = window.lightnessF() > 0.5f ? 0.25f : 0.30f;
    return QColor::fromRgbF(window.redF() * (1 - mix) + amber.redF() * mix,
                            window.greenF() * (1 - mix) + amber.greenF() * mix,
                            window.blueF() * (1 - mix) + amber.blueF() * mix);
}

void WarningBanner::paintEvent(QPaintEvent* event) {
    QPainter painter(this);
    painter.fillRect(rect(), tint(palette().color(QPalette::Window)));
    QFrame::paintEvent(event);
}

void WarningBanner::changeEvent(QEvent* event) {
    if (event->type() == QEvent::StyleChange)
        m_icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(24, 24));
    QFrame::changeEvent(event);
}

} // namespace scorch
