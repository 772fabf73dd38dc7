// Interactive flame graph SVG writer: frames laid out from the call tree (siblings in name order, as
// flamegraph.pl draws them), narrow neighbours merged, and an embedded script for zoom and search.
#include "export/exportutil.h"
#include "export/flamesvgscript.h"
#include "scorch/export.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace scorch {

namespace {

constexpr double kXPad = 10;
constexpr int kFontSize = 12;
constexpr double kCharWidth = kFontSize * 0.6;
constexpr std::string_view kMergedFill = "rgb(190,190,190)";

struct PaletteEntry {
    std::string_view name;
    SvgPalette palette;
};
constexpr std::array<PaletteEntry, 12> kPalettes{{
    {"hot", SvgPalette::Hot},
    {"mem", SvgPalette::Mem},
    {"io", SvgPalette::Io},
    {"java", SvgPalette::Java},
    {"js", SvgPalette::Js},
    {"red", SvgPalette::Red},
    {"green", SvgPalette::Green},
    {"blue", SvgPalette::Blue},
    {"aqua", SvgPalette::Aqua},
    {"yellow", SvgPalette::Yellow},
    {"purple", SvgPalette::Purple},
    {"orange", SvgPalette::Orange},
}};

/// A colour family: hue range in degrees, saturation and lightness ranges in [0, 1].
struct Family {
    double hue0, hue1, sat0, sat1, light0, light1;
};
constexpr Family kHot{0, 48, 0.80, 0.95, 0.50, 0.62};
constexpr Family kRed{352, 372, 0.65, 0.80, 0.55, 0.68};
constexpr Family kGreen{95, 130, 0.50, 0.65, 0.45, 0.58};
constexpr Family kBlue{205, 230, 0.55, 0.70, 0.55, 0.68};
constexpr Family kAqua{172, 190, 0.45, 0.60, 0.50, 0.62};
constexpr Family kYellow{48, 60, 0.65, 0.80, 0.48, 0.58};
constexpr Family kPurple{265, 295, 0.45, 0.60, 0.60, 0.72};
constexpr Family kOrange{22, 38, 0.80, 0.92, 0.52, 0.62};
constexpr Family kMem{100, 160, 0.40, 0.60, 0.42, 0.55};
constexpr Family kIo{190, 250, 0.45, 0.65, 0.50, 0.65};

std::string hsl(const Family& f, uint64_t h) {
    auto unit = [&](int shift) {
        return static_cast<double>((h >> shift) & 0xffff) / 65535.0;
    };
    double hue = std::fmod(f.hue0 + (f.hue1 - f.hue0) * unit(0), 360.0);
    const double s = f.sat0 + (f.sat1 - f.sat0) * unit(16);
    const double l = f.light0 + (f.light1 - f.light0) * unit(32);
    // HSL -> RGB
    const double c = (1 - std::abs(2 * l - 1)) * s;
    const double hp = hue / 60.0;
    const double x = c * (1 - std::abs(std::fmod(hp, 2.0) - 1));
    double r = 0, g = 0, b = 0;
    if (hp < 1)
        r = c, g = x;
    else if (hp < 2)
        r = x, g = c;
    else if (hp < 3)
        g = c, b = x;
    else if (hp < 4)
        g = x, b = c;
    else if (hp < 5)
        r = x, b = c;
    else
        r = c, b = x;
    const double m = l - c / 2;
    auto byte = [&](double v) {
        return static_cast<int>(std::lround(std::clamp(v + m, 0.0, 1.0) * 255));
    };
    char buf[32];
    std::snprintf(buf, sizeof buf, "rgb(%d,%d,%d)", byte(r), byte(g), byte(b));
    return buf;
}

/// The colour family of a frame in the language-aware palettes (java, js).
const Family& languageFamily(const Profile& p, const Frame& f, bool js) {
    const std::string_view name = p.strings.view(f.name);
    if (f.kind == FrameKind::Kernel || name.ends_with("_[k]"))
        return kOrange;
    if (f.kind == FrameKind::Inlined || name.ends_with("_[i]"))
        return kAqua;
    if (f.kind == FrameKind::Jit || name.ends_with("_[j]"))
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

std::string frameFill(const Profile& p, FrameId id, SvgPalette palette) {
    const Frame& f = p.frames[id];
    std::string_view name = p.strings.view(f.name);
    // names that differ only in an argument list or template arguments get the same colour
    if (const std::size_t cut = name.find('('); cut != std::string_view::npos && cut > 0)
        name = name.substr(0, cut);
    const uint64_t h = hashBytes(name, 0x5c0c4);
    switch (palette) {
    case SvgPalette::Hot:
        return hsl(kHot, h);
    case SvgPalette::Mem:
        return hsl(kMem, h);
    case SvgPalette::Io:
        return hsl(kIo, h);
    case SvgPalette::Java:
        return hsl(languageFamily(p, f, false), h);
    case SvgPalette::Js:
        return hsl(languageFamily(p, f, true), h);
    case SvgPalette::Red:
        return hsl(kRed, h);
    case SvgPalette::Green:
        return hsl(kGreen, h);
    case SvgPalette::Blue:
        return hsl(kBlue, h);
    case SvgPalette::Aqua:
        return hsl(kAqua, h);
    case SvgPalette::Yellow:
        return hsl(kYellow, h);
    case SvgPalette::Purple:
        return hsl(kPurple, h);
    case SvgPalette::Orange:
        return hsl(kOrange, h);
    }
    return hsl(kHot, h);
}

std::string fixed3(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    std::string s = buf;
    while (s.back() == '0')
        s.pop_back();
    if (s.back() == '.')
        s.pop_back();
    return s;
}

std::string percentOf(int64_t part, int64_t whole) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%",
                  whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
    return buf;
}

/// name cut to what fits in `width` pixels (whole UTF-8 characters), ".." marking a cut; empty when fewer
/// than three characters fit.
std::string fittedLabel(std::string_view name, double width) {
    const double fitting = std::floor((width - 6) / kCharWidth);
    if (fitting < 3)
        return {};
    const auto fits = static_cast<std::size_t>(fitting);
    std::size_t chars = 0, i = 0;
    for (; i < name.size() && chars < fits; ++chars)
        i += std::max<std::size_t>(detail::utf8SequenceLength(name, i), 1);
    if (i >= name.size())
        return std::string(name);
    // too long: keep fits - 2 characters
    std::size_t keep = 0;
    for (std::size_t c = 0; keep < name.size() && c + 2 < fits; ++c)
        keep += std::max<std::size_t>(detail::utf8SequenceLength(name, keep), 1);
    return std::string(name.substr(0, std::min(keep, name.size()))) + "..";
}

/// A value as shown in a tooltip: exact counts with their name ("1,234 samples", "5,000 cycles"), time and
/// memory in readable units.
std::string countText(int64_t value, const CostType& type, const std::string& countName) {
    std::string text = formatCost(value, type);
    switch (type.unit) {
    case CostUnit::Samples:
        if (!countName.empty())
            text = text.substr(0, text.rfind(' ')) + " " + countName;
        return text;
    case CostUnit::Count:
        return text + " " + (countName.empty() ? std::string("samples") : countName);
    case CostUnit::Period:
        return text + " " + (countName.empty() ? type.name : countName);
    default:
        return text;
    }
}

void replaceAll(std::string& s, std::string_view what, std::string_view with) {
    for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size()))
        s.replace(at, what.size(), with);
}

} // namespace

bool svgPaletteFromName(std::string_view name, SvgPalette& palette) {
    for (const PaletteEntry& e : kPalettes)
        if (e.name == name) {
            palette = e.palette;
            return true;
        }
    return false;
}

std::string_view svgPaletteNames() {
    return "hot|mem|io|java|js|red|green|blue|aqua|yellow|purple|orange";
}

void writeFlameGraphSvg(const Profile& p, const SvgOptions& o, std::ostream& out) {
    if (o.costType < 0 || static_cast<std::size_t>(o.costType) >= p.costTypes.size())
        throw ExportError("svg: no cost type " + std::to_string(o.costType));
    const auto type = static_cast<std::size_t>(o.costType);
    const CostType& costType = p.costTypes[type];
    const CallTree& tree = p.tree;
    const int64_t grand = tree.grandTotal(type);
    const int width = std::clamp(o.width, 100, 1'000'000);
    const int fh = std::clamp(o.frameHeight, 4, 200);
    const double minWidth = std::max(o.minWidth, 0.02);
    const double fullWidth = width - 2 * kXPad;
    const double scale = grand > 0 ? fullWidth / static_cast<double>(grand) : 0;
    auto pixels = [&](int64_t v) {
        return static_cast<double>(v) * scale;
    };

    // What is drawn, in drawing order: a frame (node) or a block of merged narrow siblings.
    struct Box {
        NodeId node;    // kRootNode for a merged block
        uint32_t depth; // 1 = a root frame
        int64_t x, value;
        uint32_t merged; // how many sibling frames the block stands for
    };
    std::vector<Box> boxes;
    uint32_t maxDepth = 0;
    if (grand > 0) {
        struct Level {
            NodeId node, next;
            int64_t x;
            int64_t pendingX = 0, pendingValue = 0;
            uint32_t pendingCount = 0;
        };
        std::vector<Level> stack{{kRootNode, kRootNode + 1, 0}};
        auto flushPending = [&](Level& l, uint32_t depth) {
            // (one narrow frame alone is narrower than minWidth: left out, as flamegraph.pl does)
            if (l.pendingCount > 1 && pixels(l.pendingValue) >= minWidth) {
                boxes.push_back({kRootNode, depth, l.pendingX, l.pendingValue, l.pendingCount});
                maxDepth = std::max(maxDepth, depth);
            }
            l.pendingCount = 0;
            l.pendingValue = 0;
        };
        while (!stack.empty()) {
            Level& l = stack.back();
            const auto depth = static_cast<uint32_t>(stack.size());
            if (l.next >= tree.subtreeEnd(l.node)) {
                flushPending(l, depth);
                stack.pop_back();
                continue;
            }
            const NodeId c = l.next;
            l.next = tree.subtreeEnd(c);
            const int64_t v = tree.total(type, c);
            if (v <= 0)
                continue;
            const int64_t x = l.x;
            addCost(l.x, v);            // saturating: a corrupt profile may overflow
            if (pixels(v) < minWidth) { // narrow: joins the pending block of its neighbours
                if (l.pendingCount == 0)
                    l.pendingX = x;
                addCost(l.pendingValue, v);
                ++l.pendingCount;
                continue;
            }
            flushPending(l, depth);
            boxes.push_back({c, depth, x, v, 0});
            maxDepth = std::max(maxDepth, depth);
            stack.push_back({c, c + 1, x});
        }
    }

    const double titleHeight = kFontSize * 3.0;
    const double bottomHeight = kFontSize * 2.0 + 10;
    const double height = std::max<uint32_t>(maxDepth, 1) * fh + titleHeight + bottomHeight;
    auto yOf = [&](uint32_t depth) {
        return o.inverted ? titleHeight + (depth - 1) * fh
                          : height - bottomHeight - depth * static_cast<double>(fh);
    };

    detail::BufferedOut w(out);
    std::string& b = w.buffer();
    b += "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n";
    b += "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
         "\" height=\"" + fixed3(height) + "\" viewBox=\"0 0 " + std::to_string(width) + " " +
         fixed3(height) + "\" onload=\"scorchInit()\">\n";
    b += "<!-- Flame graph written by Scorch. Click a frame to zoom, Ctrl+F or Search to search, Esc resets. "
         "-->\n";
    b += "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\"><stop "
         "stop-color=\"#f2f2f2\" "
         "offset=\"5%\"/><stop stop-color=\"#e0e0f0\" offset=\"95%\"/></linearGradient></defs>\n";
    b += "<style type=\"text/css\"><![CDATA[";
    b += detail::kFlameSvgStyle;
    b += "]]></style>\n<script type=\"text/ecmascript\"><![CDATA[";
    std::string script = detail::kFlameSvgScript;
    replaceAll(script, "@FRAME_HEIGHT@", std::to_string(fh));
    replaceAll(script, "@INVERTED@", o.inverted ? "true" : "false");
    replaceAll(script, "@XPAD@", fixed3(kXPad));
    replaceAll(script, "@FONT_SIZE@", std::to_string(kFontSize));
    replaceAll(script, "@MATCH_FILL@", "rgb(230,0,230)");
    b += script;
    b += "]]></script>\n";
    b += "<rect x=\"0\" y=\"0\" width=\"" + std::to_string(width) + "\" height=\"" + fixed3(height) +
         "\" fill=\"url(#background)\"/>\n";
    b += "<text id=\"title\" x=\"" + fixed3(width / 2.0) + "\" y=\"" + std::to_string(kFontSize * 2) + "\">";
    detail::appendXmlText(b, o.title);
    b += "</text>\n";
    if (!o.subtitle.empty()) {
        b += "<text id=\"subtitle\" x=\"" + fixed3(width / 2.0) + "\" y=\"" + std::to_string(kFontSize * 3) +
             "\">";
        detail::appendXmlText(b, o.subtitle);
        b += "</text>\n";
    }
    const std::string top = std::to_string(kFontSize * 2);
    const std::string bottom = fixed3(height - kFontSize / 2.0 - 4);
    b += "<text id=\"resetzoom\" class=\"button\" x=\"" + fixed3(kXPad) + "\" y=\"" + top +
         "\">Reset Zoom</text>\n";
    b += "<text id=\"search\" class=\"button\" x=\"" + fixed3(width - kXPad) + "\" y=\"" + top +
         "\">Search</text>\n";
    b += "<text id=\"resetsearch\" class=\"button\" x=\"" + fixed3(width - kXPad - 110) + "\" y=\"" + top +
         "\">Reset Search</text>\n";
    b += "<text id=\"details\" x=\"" + fixed3(kXPad) + "\" y=\"" + bottom + "\"> </text>\n";
    b += "<text id=\"matched\" x=\"" + fixed3(width - kXPad) + "\" y=\"" + bottom + "\"> </text>\n";
    if (grand <= 0)
        b += "<text x=\"" + fixed3(width / 2.0) + "\" y=\"" + fixed3(titleHeight + fh) +
             "\" text-anchor=\"middle\">No samples</text>\n";
    b += "<g id=\"frames\">\n";
    for (const Box& box : boxes) {
        const double x = kXPad + pixels(box.x), bw = pixels(box.value), y = yOf(box.depth);
        const bool merged = box.node == kRootNode;
        const std::string count = countText(box.value, costType, o.countName);
        b += merged ? "<g class=\"m\"><title>" : "<g><title>";
        std::string name;
        if (merged) {
            name = std::to_string(box.merged) + " narrow frames merged";
            b += name;
        } else {
            name = p.frameName(tree.frame(box.node));
            detail::appendXmlText(b, name);
        }
        b += " (";
        detail::appendXmlText(b, count);
        b += ", " + percentOf(box.value, grand) + ")</title><rect x=\"" + fixed3(x) + "\" y=\"" + fixed3(y) +
             "\" width=\"" + fixed3(bw) + "\" height=\"" + std::to_string(fh - 1) + "\" fill=\"";
        b += merged ? std::string(kMergedFill) : frameFill(p, tree.frame(box.node), o.palette);
        b += "\" rx=\"2\" ry=\"2\"/><text x=\"" + fixed3(x + 3) + "\" y=\"" +
             fixed3(y + fh / 2.0 + kFontSize / 2.0 - 2) + "\">";
        if (!merged)
            detail::appendXmlText(b, fittedLabel(name, bw));
        b += "</text></g>\n";
        w.maybeFlush();
    }
    b += "</g>\n</svg>\n";
    w.flush();
    if (!out)
        throw ExportError("svg: write error");
}

} // namespace scorch
