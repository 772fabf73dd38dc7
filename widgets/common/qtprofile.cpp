#include "common/qtprofile.h"

#include "scorch/shortname.h"

namespace scorch {

QString frameDisplayName(const Profile& profile, FrameId frame) {
    return toQString(profile.frameName(frame));
}

QString frameShortName(const Profile& profile, FrameId frame) {
    return toQString(shortenName(profile.frameName(frame)));
}

QString shortDisplayName(const QString& name) {
    return toQString(shortenName(name.toStdString()));
}

QString costWithPercent(const Profile& profile, std::size_t costType, int64_t value, int64_t whole) {
    const QString cost = toQString(formatCost(value, profile.costTypes[costType]));
    if (whole == 0)
        return cost;
    return cost + QStringLiteral(" (") +
           QString::number(100.0 * static_cast<double>(value) / static_cast<double>(whole), 'f', 1) +
           QStringLiteral("%)");
}

} // namespace scorch
