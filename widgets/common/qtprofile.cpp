#include "common/qtprofile.h"

#include "scorch/safetext.h"
#include "scorch/shortname.h"

#include <QCoreApplication>

namespace scorch {

QString displayText(std::string_view s) {
    return toQString(escapeText(s));
}

QString displayText(const QString& s) {
    return displayText(s.toStdString());
}

QString frameDisplayName(const Profile& profile, FrameId frame) {
    return displayText(profile.frameName(frame));
}

QString frameShortName(const Profile& profile, FrameId frame) {
    return displayText(shortenName(profile.frameName(frame)));
}

QString shortDisplayName(const QString& name) {
    return displayText(shortenName(name.toStdString()));
}

QString costWithPercent(const Profile& profile, std::size_t costType, int64_t value, int64_t whole) {
    const QString cost = toQString(formatCost(value, profile.costTypes[costType]));
    if (whole == 0)
        return cost;
    return cost + QStringLiteral(" (") +
           QString::number(100.0 * static_cast<double>(value) / static_cast<double>(whole), 'f', 1) +
           QStringLiteral("%)");
}

QString sampleCount(uint64_t n) {
    return n == 1 ? QCoreApplication::translate("scorch", "1 sample")
                  : QCoreApplication::translate("scorch", "%L1 samples").arg(n);
}

} // namespace scorch
