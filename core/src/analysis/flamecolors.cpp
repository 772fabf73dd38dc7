#include "scorch/flamecolors.h"

#include "scorch/strings.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace scorch {

namespace {

struct SchemeName {
    std::string_view name;
    FlameColorScheme scheme;
};
constexpr std::array<SchemeName, 16> kSchemeNames{{
    {"hot", FlameColorScheme::Hot},
    {"module", FlameColorScheme::Module},
    {"kind", FlameColorScheme::Kind},
    {"system", FlameColorScheme::System},
    {"diff", FlameColorScheme::Differential},
    {"mem", FlameColorScheme::Mem},
    {"io", FlameColorScheme::Io},
    {"java", FlameColorScheme::Java},
    {"js", FlameColorScheme::Js},
    {"red", FlameColorScheme::Red},
    {"green", FlameColorScheme::Green},
    {"blue", FlameColorScheme::Blue},
    {"aqua", FlameColorScheme::Aqua},
    {"yellow", FlameColorScheme::Yellow},
    {"purple", FlameColorScheme::Purple},
    {"orange", FlameColorScheme::Orange},
}};

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

uint8_t byte(double unit) {
    return static_cast<uint8_t>(std::lround(std::clamp(unit, 0.0, 1.0) * 255));
}

/// hue, saturation, value in [0, 1].
Rgb fromHsv(double hue, double sat, double val) {
    const double h = std::fmod(hue, 1.0) * 6;
    const double c = val * sat;
    const double x = c * (1 - std::abs(std::fmod(h, 2.0) - 1));
    const double m = val - c;
    double r = 0, g = 0, b = 0;
    if (h < 1)
        r = c, g = x;
    else if (h < 2)
        r = x, g = c;
    else if (h < 3)
        g = c, b = x;
    else if (h < 4)
        g = x, b = c;
    else if (h < 5)
        r = x, b = c;
    else
        r = c, b = x;
    return {byte(r + m), byte(g + m), byte(b + m)};
}

/// hue in degrees, saturation and lightness in [0, 1].
Rgb fromHsl(double hue, double sat, double light) {
    const double c = (1 - std::abs(2 * light - 1)) * sat;
    return fromHsv(std::fmod(hue, 360.0) / 360.0, light + c / 2 > 0 ? c / (light + c / 2) : 0, light + c / 2);
}

/// A colour family of flamegraph.pl's palettes: hue range in degrees, saturation and lightness ranges.
struct Family {
    double hue0, hue1, sat0, sat1, light0, light1;
};
constexpr Family kRed{352, 372, 0.65, 0.80, 0.55, 0.68};
constexpr Family kGreen{95, 130, 0.50, 0.65, 0.45, 0.58};
constexpr Family kBlue{205, 230, 0.55, 0.70, 0.55, 0.68};
constexpr Family kAqua{172, 190, 0.45, 0.60, 0.50, 0.62};
constexpr Family kYellow{48, 60, 0.65, 0.80, 0.48, 0.58};
constexpr Family kPurple{265, 295, 0.45, 0.60, 0.60, 0.72};
constexpr Family kOrange{22, 38, 0.80, 0.92, 0.52, 0.62};
constexpr Family kMem{100, 160, 0.40, 0.60, 0.42, 0.55};
constexpr Family kIo{190, 250, 0.45, 0.65, 0.50, 0.65};

Rgb inFamily(const Family& f, const Hash3& v) {
    return fromHsl(f.hue0 + (f.hue1 - f.hue0) * v.a, f.sat0 + (f.sat1 - f.sat0) * v.b,
                   f.light0 + (f.light1 - f.light0) * v.c);
}

/// The colour family of a frame in the language-aware palettes (java, js).
const Family& languageFamily(std::string_view name, FrameKind kind, bool js) {
    if (kind == FrameKind::Kernel || name.ends_with("_[k]"))
        return kOrange;
    if (kind == FrameKind::Inlined || name.ends_with("_[i]"))
        return kAqua;
    if (kind == FrameKind::Jit || name.ends_with("_[j]"))
        return kGreen;
    if (js) {
        if (name.find(".js") != std::string_view::npos || name.find(".ts") != std::string_view::npos)
            return kGreen;
        if (name.find("::") != std::string_view::npos)
            return kYellow;
        return kRed;
    }
    if (name.find("::") != std::string_view::npos)
        return kYellow;
    if (name.find('/') != std::string_view::npos ||
        (name.find('.') != std::string_view::npos && name.find('(') == std::string_view::npos))
        return kGreen; // Java class names: java/util/HashMap.get or java.util.HashMap.get
    return kRed;
}

Rgb hot(const Hash3& v) { // flamegraph.pl "hot": r 205-255, g 0-230, b 0-55
    return {static_cast<uint8_t>(205 + static_cast<int>(50 * v.c)), static_cast<uint8_t>(230 * v.a),
            static_cast<uint8_t>(55 * v.b)};
}

double luminance(Rgb c) {
    return (0.299 * c.r + 0.587 * c.g + 0.114 * c.b) / 255.0;
}

} // namespace

Rgb mixRgb(Rgb a, Rgb b, double t) {
    auto lerp = [t](uint8_t from, uint8_t to) {
        return static_cast<uint8_t>(from + static_cast<int>((to - from) * t));
    };
    return {lerp(a.r, b.r), lerp(a.g, b.g), lerp(a.b, b.b)};
}

std::string cssRgb(Rgb c) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "rgb(%d,%d,%d)", c.r, c.g, c.b);
    return buf;
}

bool flameColorSchemeFromName(std::string_view name, FlameColorScheme& scheme) {
    for (const SchemeName& e : kSchemeNames)
        if (e.name == name) {
            scheme = e.scheme;
            return true;
        }
    return false;
}

std::string_view flameColorSchemeNames() {
    return "hot|module|kind|system|diff|mem|io|java|js|red|green|blue|aqua|yellow|purple|orange";
}

Rgb FlameColors::frameColor(const Profile& profile, FrameId frame, FlameColorScheme scheme,
                            const FlameTheme& theme) {
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
    case FlameColorScheme::System:
        return mixRgb(mixRgb(theme.button, theme.highlight, 0.15 + 0.35 * v.a), theme.base, 0.25 * v.b);
    case FlameColorScheme::Differential: // per node, see nodeColor(); frames alone carry no delta
        return neutralDiffColor();
    case FlameColorScheme::Mem:
        return inFamily(kMem, v);
    case FlameColorScheme::Io:
        return inFamily(kIo, v);
    case FlameColorScheme::Java:
        return inFamily(languageFamily(name, f.kind, false), v);
    case FlameColorScheme::Js:
        return inFamily(languageFamily(name, f.kind, true), v);
    case FlameColorScheme::Red:
        return inFamily(kRed, v);
    case FlameColorScheme::Green:
        return inFamily(kGreen, v);
    case FlameColorScheme::Blue:
        return inFamily(kBlue, v);
    case FlameColorScheme::Aqua:
        return inFamily(kAqua, v);
    case FlameColorScheme::Yellow:
        return inFamily(kYellow, v);
    case FlameColorScheme::Purple:
        return inFamily(kPurple, v);
    case FlameColorScheme::Orange:
        return inFamily(kOrange, v);
    }
    return hot(v);
}

FlameColors::FlameColors(const Profile* profile, FlameColorScheme scheme, const FlameTheme& theme)
    : m_profile(profile)
    , m_scheme(scheme)
    , m_theme(theme) {}

void FlameColors::setDiff(const CallTree* tree, const DiffColoring& coloring) {
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

bool FlameColors::offCpuTypes(const Profile& profile, std::size_t& offType, std::size_t& wallType) {
    const int off = profile.costTypeIndex("off-cpu"), wall = profile.costTypeIndex("wall");
    if (off < 0 || wall < 0)
        return false;
    offType = static_cast<std::size_t>(off);
    wallType = static_cast<std::size_t>(wall);
    return true;
}

void FlameColors::setHotCold(const CallTree* tree, std::size_t drawnType) {
    m_coldTree = nullptr;
    if (!tree || !m_profile || m_scheme != FlameColorScheme::Hot ||
        !offCpuTypes(*m_profile, m_offType, m_wallType) ||
        tree->costTypeCount() <= std::max(m_offType, m_wallType))
        return;
    if (drawnType != m_offType && drawnType != m_wallType)
        return;
    m_coldTree = tree;
    m_allCold = drawnType == m_offType;
}

double FlameColors::coldShare(NodeId node) const {
    if (!m_coldTree || node >= m_coldTree->size())
        return 0;
    if (m_allCold)
        return 1;
    const int64_t wall = m_coldTree->total(m_wallType, node);
    const int64_t off = m_coldTree->total(m_offType, node);
    if (wall <= 0 || off <= 0)
        return 0;
    return std::min(1.0, static_cast<double>(off) / static_cast<double>(wall));
}

Rgb FlameColors::coldColor(FrameId frame) const {
    return m_profile ? frameColor(*m_profile, frame, FlameColorScheme::Blue, m_theme) : Rgb{80, 80, 200};
}

Rgb FlameColors::frameColor(FrameId frame) const {
    if (m_profile == nullptr || frame.value >= m_profile->frames.size())
        return mergedColor();
    return frameColor(*m_profile, frame, m_scheme, m_theme);
}

Rgb FlameColors::nodeColor(const CallTree& tree, NodeId node) const {
    if (!m_diffTree)
        return frameColor(tree.frame(node));
    if (node >= m_diffTree->size())
        return mergedColor();
    const int64_t d = diffCost(*m_diffTree, kDelta, node, m_diff.metric);
    if (d > -m_diff.greyBelow && d < m_diff.greyBelow)
        return neutralDiffColor();
    return diffColor(d, m_maxAbsDelta);
}

std::optional<Rgb> FlameColors::hatchColor(NodeId node, Rgb fill) const {
    if (!m_diffTree || node == kRootNode || node >= m_diffTree->size())
        return std::nullopt;
    const DiffStatus s = diffStatus(*m_diffTree, node);
    if (s == DiffStatus::Added)
        return mixRgb(fill, {90, 0, 0}, 0.55);
    if (s == DiffStatus::Removed)
        return mixRgb(fill, {0, 20, 80}, 0.55);
    return std::nullopt;
}

Rgb FlameColors::diffColor(int64_t delta, int64_t maxAbs) {
    if (delta == 0 || maxAbs <= 0)
        return neutralDiffColor();
    const double t =
        std::sqrt(std::min(1.0, std::abs(static_cast<double>(delta)) / static_cast<double>(maxAbs)));
    return mixRgb(neutralDiffColor(), delta > 0 ? Rgb{214, 32, 28} : Rgb{28, 96, 214}, 0.25 + 0.75 * t);
}

Rgb FlameColors::textColorOn(Rgb background) {
    return luminance(background) > 0.55 ? Rgb{0, 0, 0} : Rgb{255, 255, 255};
}

} // namespace scorch
