#include "flame/flamelegend.h"

#include "common/qtprofile.h"
#include "flame/flamepalette.h"

#include <QColor>
#include <QCoreApplication>
#include <QFileInfo>

#include <algorithm>
#include <unordered_map>

namespace scorch {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("scorch::FlameLegend", text);
}

QString swatch(QRgb colour, const QString& label, const QString& tip = {}) {
    return QStringLiteral(
               "<span title='%3' style='background-color:%1'>&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;%2")
        .arg(QColor(colour).name(), label.toHtmlEscaped(), tip.toHtmlEscaped());
}

QString join(const QString& caption, const QStringList& items) {
    return QStringLiteral("<b>%1</b>&nbsp; %2")
        .arg(caption.toHtmlEscaped(), items.join(QStringLiteral(" &nbsp; ")));
}

} // namespace

QString flameLegendHtml(const ChartData& data, FlameColorScheme scheme, const QPalette& palette) {
    if (!data.profile || (scheme != FlameColorScheme::Module && scheme != FlameColorScheme::Kind))
        return {};
    const Profile& p = *data.profile;
    const CallTree& tree = data.tree;
    // Self cost per module / kind over the drawn tree, and a frame that stands for each (its colour).
    struct Entry {
        int64_t cost = 0;
        FrameId frame;
    };
    std::unordered_map<uint32_t, Entry> entries; // key: module string id, or the kind
    for (NodeId n = 1; n < tree.size(); ++n) {
        const FrameId f = tree.frame(n);
        const Frame& frame = p.frames[f];
        const uint32_t key =
            scheme == FlameColorScheme::Module ? frame.module.value : static_cast<uint32_t>(frame.kind);
        Entry& e = entries[key];
        if (!e.frame.value)
            e.frame = f;
        e.cost += std::max<int64_t>(0, tree.self(data.costType, n));
    }
    std::vector<std::pair<uint32_t, Entry>> sorted(entries.begin(), entries.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
        return a.second.cost != b.second.cost ? a.second.cost > b.second.cost : a.first < b.first;
    });
    QStringList items;
    constexpr std::size_t kMost = 6;
    for (std::size_t i = 0; i < sorted.size() && i < kMost; ++i) {
        const auto& [key, e] = sorted[i];
        const QRgb colour = FlamePalette::computeColor(p, e.frame, scheme, palette);
        if (scheme == FlameColorScheme::Module) {
            const QString path = displayText(p.strings.view(p.frames[e.frame].module));
            const QString name = path.isEmpty() ? tr("(unknown module)") : QFileInfo(path).fileName();
            items << swatch(colour, name, path);
        } else {
            items << swatch(colour, toQString(frameKindName(static_cast<FrameKind>(key))));
        }
    }
    if (sorted.size() > kMost)
        items << tr("%1 more").arg(sorted.size() - kMost);
    return join(scheme == FlameColorScheme::Module ? tr("Modules (shades vary by function):")
                                                   : tr("Kinds (shades vary by function):"),
                items);
}

} // namespace scorch
