// Interactive flame graph SVG writer: the window's FlameLayout at the image width (siblings in name order,
// narrow neighbours merged) in the window's colours (FlameColors), and an embedded script for zoom and
// search.
#include "export/exportutil.h"
#include "export/flamesvgscript.h"
#include "scorch/export.h"
#include "scorch/flamelayout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace scorch {

namespace {

constexpr double kXPad = 10;
constexpr int kFontSize = 12;
constexpr double kCharWidth = kFontSize * 0.6;
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
    FlameColors colors(&p, o.palette, o.theme);
    if (o.palette == SvgPalette::Differential)
        colors.setDiff(&tree, o.diff);
    else
        colors.setHotCold(&tree, type); // off-CPU profiles drawn by wall or off-cpu: as in the window

    // What is drawn, in drawing order: the window's layout at this width, without its invisible root.
    FlameLayout layout;
    layout.setTree(&tree, type);
    FlameViewport vp;
    vp.end = static_cast<double>(grand);
    vp.pixelWidth = fullWidth;
    vp.firstDepth = 1;
    vp.minFrameWidth = minWidth;
    std::vector<FlameBlock> boxes;
    uint32_t maxDepth = 0;
    if (grand > 0)
        layout.visit(vp, [&](const FlameBlock& block) {
            boxes.push_back(block);
            maxDepth = std::max(maxDepth, block.depth);
        });

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
    replaceAll(script, "@MATCH_FILL@", cssRgb(FlameColors::matchColor()));
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
    const std::string mergedFill = cssRgb(colors.mergedColor());
    for (const FlameBlock& box : boxes) {
        const double x = kXPad + box.x, bw = box.width, y = yOf(box.depth);
        const std::string count = countText(box.cost, costType, o.countName);
        b += box.merged() ? "<g class=\"m\"><title>" : "<g><title>";
        std::string name;
        if (box.merged()) {
            name = std::to_string(box.count) + " narrow frames merged";
            b += name;
        } else {
            name = p.frameName(tree.frame(box.node));
            detail::appendXmlText(b, name);
        }
        b += " (";
        detail::appendXmlText(b, count);
        b += ", " + percentOf(box.cost, grand) + ")</title><rect x=\"" + fixed3(x) + "\" y=\"" + fixed3(y) +
             "\" width=\"" + fixed3(bw) + "\" height=\"" + std::to_string(fh - 1) + "\" fill=\"";
        // as in the window: a frame too narrow to draw alone is grey like a merged run (no label either)
        b += box.tiny ? mergedFill : cssRgb(colors.nodeColor(tree, box.node));
        b += "\" rx=\"2\" ry=\"2\"/>";
        if (const double share = box.tiny ? 0.0 : colors.coldShare(box.node); share > 0) // off-CPU part
            b += "<rect class=\"c\" x=\"" + fixed3(x + bw * (1 - share)) + "\" y=\"" + fixed3(y) +
                 "\" width=\"" + fixed3(bw * share) + "\" height=\"" + std::to_string(fh - 1) + "\" fill=\"" +
                 cssRgb(colors.coldColor(tree.frame(box.node))) + "\" rx=\"2\" ry=\"2\"/>";
        b += "<text x=\"" + fixed3(x + 3) + "\" y=\"" + fixed3(y + fh / 2.0 + kFontSize / 2.0 - 2) + "\">";
        if (!box.merged())
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
