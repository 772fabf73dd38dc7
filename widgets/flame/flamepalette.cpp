#include "flame/flamepalette.h"

#include "scorch/strings.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace scorch {

namespace {

/// Three independent values in [0, 1) from a string, stable across runs and platforms.
struct Hash3 {
    double a, b, c;
};
Hash3 hash3(std::string_view s, uint64_t seed) {
    const uint64_t h = hashBytes(s, seed);
    auto part = [&](int shift) {
        return static_cast<double>((h >> shift) & 0xFFFFF) / double(0x100000);
    };
    return {part(0), part(21), part(42)};
}

int lerp(int from, int to, double t) {
    return from + static_cast<int>((to - from) * t);
}

QRgb hot(const Hash3& v) { // flamegraph.pl "hot": r 205-255, g 0-230, b 0-55
    return qRgb(205 + static_cast<int>(50 * v.c), static_cast<int>(230 * v.a), static_cast<int>(55 * v.b));
}

QRgb fromHsv(double hue, double sat, double val) {
    return QColor::fromHsvF(static_cast<float>(hue), static_cast<float>(sat), static_cast<float>(val)).rgb();
}

QRgb mix(QRgb a, QRgb b, double t) {
    return qRgb(lerp(qRed(a), qRed(b), t), lerp(qGreen(a), qGreen(b), t), lerp(qBlue(a), qBlue(b), t));
}

double luminance(QRgb c) {
    return (0.299 * qRed(c) + 0.587 * qGreen(c) + 0.114 * qBlue(c)) / 255.0;
}

} // namespace

QRgb FlamePalette::computeColor(const Profile& profile, FrameId frame, FlameColorScheme scheme,
                                const QPalette& palette) {
    const Frame& f = profile.frames[frame];
    const std::string_view name = profile.strings.view(f.name);
    const Hash3 v = hash3(name, 0x5eed);
    switch (scheme) {
    case FlameColorScheme::Hot:
        return hot(v);
    case FlameColorScheme::Module: {
        const std::string_view module = profile.strings.view(f.module);
        if (module.empty()) // unknown module: neutral sand, varied a little by name
            return fromHsv(0.11, 0.18 + 0.1 * v.a, 0.80 + 0.1 * v.b);
        const Hash3 m = hash3(module, 0x60d);
        return fromHsv(m.a, 0.35 + 0.2 * m.b, 0.85 + 0.1 * v.c);
    }
    case FlameColorScheme::Kind:
        switch (f.kind) { // flamegraph.pl conventions: kernel orange, JIT green, inlined aqua
        case FrameKind::Native:
            return fromHsv(0.02 + 0.06 * v.a, 0.55 + 0.15 * v.b, 0.92 + 0.06 * v.c); // warm red
        case FrameKind::Kernel:
            return fromHsv(0.08 + 0.03 * v.a, 0.65 + 0.15 * v.b, 0.90 + 0.08 * v.c); // orange
        case FrameKind::Jit:
            return fromHsv(0.28 + 0.08 * v.a, 0.45 + 0.15 * v.b, 0.78 + 0.1 * v.c); // green
        case FrameKind::Inlined:
            return fromHsv(0.48 + 0.04 * v.a, 0.40 + 0.15 * v.b, 0.85 + 0.1 * v.c); // aqua
        case FrameKind::Unknown:
            return fromHsv(0.0, 0.0, 0.70 + 0.12 * v.c); // grey
        case FrameKind::Process:
            return fromHsv(0.62 + 0.05 * v.a, 0.30 + 0.1 * v.b, 0.88); // blue
        }
        return hot(v);
    case FlameColorScheme::System: {
        const QRgb button = palette.color(QPalette::Active, QPalette::Button).rgb();
        const QRgb highlight = palette.color(QPalette::Active, QPalette::Highlight).rgb();
        const QRgb base = palette.color(QPalette::Active, QPalette::Base).rgb();
        return mix(mix(button, highlight, 0.15 + 0.35 * v.a), base, 0.25 * v.b);
    }
    case FlameColorScheme::Differential: // per node, see nodeColor(); frames alone carry no delta
        return neutralDiffColor();
    }
    return hot(v);
}

void FlamePalette::reset(const Profile* profile, FlameColorScheme scheme, const QPalette& palette) {
    m_profile = profile;
    m_scheme = scheme;
    m_palette = palette;
    m_cache.assign(profile ? profile->frames.size() : 0, 0);
    m_background = palette.color(QPalette::Active, QPalette::Base).rgb();
    const QRgb text = palette.color(QPalette::Active, QPalette::Text).rgb();
    m_merged = mix(m_background, text, 0.28);
    m_match = qRgb(230, 0, 230); // flamegraph.pl's search highlight
    m_diffTree = nullptr;
}

void FlamePalette::setDiff(const CallTree* tree, const DiffColoring& coloring) {
    m_diffTree = tree != nullptr && tree->costTypeCount() > kDelta ? tree : nullptr;
    m_diff = coloring;
    m_maxAbsDelta = 0;
    if (!m_diffTree)
        return;
    for (NodeId n = 1; n < tree->size(); ++n) {
        const int64_t d = diffCost(*tree, kDelta, n, coloring.metric);
        m_maxAbsDelta = std::max(m_maxAbsDelta, d == INT64_MIN ? INT64_MAX : std::abs(d));
    }
}

QRgb FlamePalette::diffColor(int64_t delta, int64_t maxAbs) {
    if (delta == 0 || maxAbs <= 0)
        return neutralDiffColor();
    const double t =
        std::sqrt(std::min(1.0, std::abs(static_cast<double>(delta)) / static_cast<double>(maxAbs)));
    const QRgb towards = delta > 0 ? qRgb(214, 32, 28) : qRgb(28, 96, 214);
    return mix(neutralDiffColor(), towards, 0.25 + 0.75 * t) | 0xFF000000u;
}

QRgb FlamePalette::diffNodeColor(NodeId node) const {
    if (node >= m_diffTree->size())
        return m_merged;
    const int64_t d = diffCost(*m_diffTree, kDelta, node, m_diff.metric);
    if (d > -m_diff.greyBelow && d < m_diff.greyBelow)
        return neutralDiffColor() | 0xFF000000u;
    return diffColor(d, m_maxAbsDelta);
}

QRgb FlamePalette::hatchColor(NodeId node, QRgb fill) const {
    if (!m_diffTree || node == kRootNode || node >= m_diffTree->size())
        return 0;
    const DiffStatus s = diffStatus(*m_diffTree, node);
    if (s == DiffStatus::Added)
        return mix(fill, qRgb(90, 0, 0), 0.55) | 0xFF000000u;
    if (s == DiffStatus::Removed)
        return mix(fill, qRgb(0, 20, 80), 0.55) | 0xFF000000u;
    return 0;
}

QRgb FlamePalette::frameColor(FrameId frame) const {
    if (frame.value >= m_cache.size())
        return m_merged;
    QRgb& c = m_cache[frame.value];
    if (c == 0)
        c = computeColor(*m_profile, frame, m_scheme, m_palette) | 0xFF000000u;
    return c;
}

QRgb FlamePalette::dimmed(QRgb color) const {
    return mix(color, m_background, 0.7);
}

QRgb FlamePalette::textColorOn(QRgb background) {
    return luminance(background) > 0.55 ? qRgb(0, 0, 0) : qRgb(255, 255, 255);
}

} // namespace scorch
