#include "flame/flamepalette.h"

namespace scorch {

namespace {
Rgb rgbOf(const QPalette& palette, QPalette::ColorRole role) {
    return FlamePalette::fromQRgb(palette.color(QPalette::Active, role).rgb());
}
} // namespace

FlameTheme FlamePalette::themeOf(const QPalette& palette) {
    return {rgbOf(palette, QPalette::Base), rgbOf(palette, QPalette::Text), rgbOf(palette, QPalette::Button),
            rgbOf(palette, QPalette::Highlight)};
}

void FlamePalette::reset(const Profile* profile, FlameColorScheme scheme, const QPalette& palette) {
    m_colors = FlameColors(profile, scheme, themeOf(palette));
    m_cache.assign(profile ? profile->frames.size() : 0, 0);
}

QRgb FlamePalette::hatchColor(NodeId node, QRgb fill) const {
    const std::optional<Rgb> hatch = m_colors.hatchColor(node, fromQRgb(fill));
    return hatch ? toQRgb(*hatch) : 0;
}

QRgb FlamePalette::frameColor(FrameId frame) const {
    if (frame.value >= m_cache.size())
        return mergedColor();
    QRgb& c = m_cache[frame.value];
    if (c == 0)
        c = toQRgb(m_colors.frameColor(frame));
    return c;
}

} // namespace scorch
