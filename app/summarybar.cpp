#include "summarybar.h"

#include "common/qtprofile.h"
#include "scorch/import.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>

namespace scorch {

SummaryBar::SummaryBar(QWidget* parent)
    : QWidget(parent)
    , m_costType(new QComboBox(this))
    , m_costName(new QLabel(this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 2, 6, 2);
    m_format = addField(tr("Format:"));
    layout->addWidget(new QLabel(tr("Cost:"), this));
    layout->addWidget(m_costType);
    layout->addWidget(m_costName);
    m_costType->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_costType->setToolTip(tr("The cost that sizes the frames and fills the tables"));
    m_total = addField(tr("Total:"));
    m_samples = addField(tr("Samples:"));
    m_threads = addField(tr("Threads:"));
    m_warnings = addField(tr("Warnings:"), &m_warningsCaption);
    m_warnings->setTextFormat(Qt::RichText);
    m_warnings->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    connect(m_warnings, &QLabel::linkActivated, this, &SummaryBar::warningsRequested);
    layout->addStretch(1);
    connect(m_costType, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0)
            Q_EMIT costTypeChanged(static_cast<std::size_t>(index));
    });
}

QLabel* SummaryBar::addField(const QString& caption, QLabel** captionLabel) {
    auto* name = new QLabel(caption, this);
    auto* value = new QLabel(this);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = value->font();
    bold.setBold(true);
    value->setFont(bold);
    layout()->addWidget(name);
    layout()->addWidget(value);
    if (captionLabel)
        *captionLabel = name;
    return value;
}

void SummaryBar::setProfile(const Profile& profile) {
    const QLocale locale;
    QString format = toQString(formatName(profile.meta.format));
    if (!profile.meta.compression.empty())
        format += tr(" (%1)").arg(displayText(profile.meta.compression));
    m_format->setText(format);
    {
        const QSignalBlocker blocker(m_costType);
        m_costType->clear();
        for (const CostType& type : profile.costTypes)
            m_costType->addItem(displayText(type.name));
    }
    // A selector only when there is something to select.
    const bool several = profile.costTypes.size() > 1;
    m_costType->setVisible(several);
    m_costName->setVisible(!several);
    m_costName->setText(profile.costTypes.empty() ? QString() : displayText(profile.costTypes.front().name));
    m_samples->setText(locale.toString(static_cast<qulonglong>(profile.meta.samples)));
    m_wholeSamples = profile.meta.samples;
    m_wholeTotals.clear();
    for (std::size_t t = 0; t < profile.tree.costTypeCount(); ++t)
        m_wholeTotals.push_back(profile.tree.grandTotal(t));
    m_threads->setText(locale.toString(static_cast<qulonglong>(profile.threads.size())));
    // A link to the Summary page's list; the tooltip shows the first few.
    m_warnings->setText(QStringLiteral("<a href=\"#warnings\">%1</a>")
                            .arg(locale.toString(static_cast<qulonglong>(profile.meta.warningCount))));
    QString tips;
    constexpr std::size_t kTipLines = 5;
    for (std::size_t i = 0; i < profile.meta.warnings.size() && i < kTipLines; ++i) {
        const ImportWarning& w = profile.meta.warnings[i];
        // a line number only where there are lines (text formats); binary formats give byte offsets
        tips += w.line > 0 ? tr("line %1: %2\n").arg(w.line).arg(displayText(w.message))
                           : displayText(w.message) + QLatin1Char('\n');
    }
    tips += tr("Click for the list on the Summary page");
    m_warnings->setToolTip(tips);
    // Hide the warning count when there is nothing to warn about.
    const bool warned = profile.meta.warningCount > 0;
    m_warnings->setVisible(warned);
    m_warningsCaption->setVisible(warned);
}

void SummaryBar::setData(const ChartData& data) {
    const Profile& profile = *data.profile;
    if (data.costType >= profile.costTypes.size())
        return;
    const QSignalBlocker blocker(m_costType);
    m_costType->setCurrentIndex(static_cast<int>(data.costType));
    const CostType& type = profile.costTypes[data.costType];
    const int64_t shown = data.tree.grandTotal(data.costType);
    // (a time range's profile is a part of the whole one setProfile() was given)
    const int64_t all = data.costType < m_wholeTotals.size() ? m_wholeTotals[data.costType]
                                                             : profile.tree.grandTotal(data.costType);
    QString text = toQString(formatCost(shown, type));
    if (shown != all) // a time range, a thread subset or a transform: say what part of the whole this is
        text = tr("%1 of %2").arg(text, toQString(formatCost(all, type)));
    m_total->setText(text);
    const QLocale locale;
    QString samples = locale.toString(static_cast<qulonglong>(profile.meta.samples));
    if (profile.meta.samples != m_wholeSamples && m_wholeSamples > 0)
        samples = tr("%1 of %2").arg(samples, locale.toString(static_cast<qulonglong>(m_wholeSamples)));
    m_samples->setText(samples);
}

QString SummaryBar::samplesText() const {
    return m_samples->text();
}

QString SummaryBar::totalText() const {
    return m_total->text();
}

} // namespace scorch
