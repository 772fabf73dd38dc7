// Colours that stay readable on light and dark palettes: WCAG contrast, black or white text for a fill, and
// a signal colour (red for worse, blue for better, a warning) adjusted to the background it is drawn on.
#pragma once

#include <QColor>

#include <algorithm>
#include <cmath>

namespace scorch {

/// WCAG relative luminance of an sRGB colour, 0 (black) to 1 (white).
inline double relativeLuminance(const QColor& c) {
    const auto channel = [](float v) {
        return v <= 0.03928f ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

/// WCAG contrast ratio of two colours, 1 to 21 (4.5 reads well for normal text).
inline double contrastRatio(const QColor& a, const QColor& b) {
    const double x = relativeLuminance(a), y = relativeLuminance(b);
    return (std::max(x, y) + 0.05) / (std::min(x, y) + 0.05);
}

/// Black or white, whichever contrasts more with `background`.
inline QColor readableTextOn(const QColor& background) {
    return contrastRatio(background, Qt::black) >= contrastRatio(background, Qt::white) ? QColor(Qt::black)
                                                                                        : QColor(Qt::white);
}

/// `colour` lightened (on a dark background) or darkened (on a light one) until its contrast with
/// `background` reaches `ratio`, keeping its hue.
inline QColor readableOn(QColor colour, const QColor& background, double ratio = 4.5) {
    const bool dark = relativeLuminance(background) < 0.5;
    for (int step = 0; step < 20 && contrastRatio(colour, background) < ratio; ++step)
        colour = dark ? colour.lighter(115) : colour.darker(115);
    if (contrastRatio(colour, background) < ratio && dark) // lighter() saturates: blend towards white
        for (int step = 1; step <= 10 && contrastRatio(colour, background) < ratio; ++step)
            colour = QColor::fromRgbF(colour.redF() + (1 - colour.redF()) * 0.2f,
                                      colour.greenF() + (1 - colour.greenF()) * 0.2f,
                                      colour.blueF() + (1 - colour.blueF()) * 0.2f);
    return colour;
}

} // namespace scorch
