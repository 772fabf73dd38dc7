#include "exporter.h"

#include "common/qtprofile.h"
#include "flame/flamegraphview.h"

#include "scorch/export.h"
#include "scorch/foldedwriter.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QFileInfo>
#include <QMenu>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace scorch {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("scorch::Exporter", text);
}

constexpr ExportFormat kFormats[] = {
    {ExportKind::Svg, QT_TRANSLATE_NOOP("scorch::Exporter", "Flame Graph as &SVG Picture…"), ".svg",
     QT_TRANSLATE_NOOP("scorch::Exporter", "SVG images (*.svg)")},
    {ExportKind::Png, QT_TRANSLATE_NOOP("scorch::Exporter", "Flame Graph as &PNG Picture…"), ".png",
     QT_TRANSLATE_NOOP("scorch::Exporter", "PNG images (*.png)")},
    {ExportKind::InteractiveSvg, QT_TRANSLATE_NOOP("scorch::Exporter", "Profile as &Interactive SVG…"),
     ".flame.svg", QT_TRANSLATE_NOOP("scorch::Exporter", "Interactive SVG flame graphs (*.svg)")},
    {ExportKind::Speedscope, QT_TRANSLATE_NOOP("scorch::Exporter", "Profile as Spee&dscope JSON…"),
     ".speedscope.json", QT_TRANSLATE_NOOP("scorch::Exporter", "speedscope JSON (*.speedscope.json *.json)")},
    {ExportKind::Pprof, QT_TRANSLATE_NOOP("scorch::Exporter", "Profile as &pprof…"), ".pb.gz",
     QT_TRANSLATE_NOOP("scorch::Exporter", "pprof profiles (*.pb.gz *.pprof)")},
    {ExportKind::Folded, QT_TRANSLATE_NOOP("scorch::Exporter", "Profile as &Folded Stacks…"), ".folded",
     QT_TRANSLATE_NOOP("scorch::Exporter", "Folded stacks (*.folded *.txt)")},
    {ExportKind::FoldedSelection,
     QT_TRANSLATE_NOOP("scorch::Exporter", "Selected Frame's Stacks as F&olded Stacks…"), ".folded",
     QT_TRANSLATE_NOOP("scorch::Exporter", "Folded stacks (*.folded *.txt)")},
};

/// The bytes a core writer produces.
QByteArray written(const std::function<void(std::ostream&)>& write) {
    std::ostringstream out;
    write(out);
    const std::string text = std::move(out).str();
    return QByteArray(text.data(), static_cast<qsizetype>(text.size()));
}

} // namespace

std::span<const ExportFormat> exportFormats() {
    return kFormats;
}

const ExportFormat& exportFormat(ExportKind kind) {
    for (const ExportFormat& f : kFormats)
        if (f.kind == kind)
            return f;
    return kFormats[0];
}

void addExportActions(QMenu* menu, const std::function<void(ExportKind)>& chosen) {
    for (const ExportFormat& f : kFormats) {
        if (f.kind == ExportKind::InteractiveSvg || f.kind == ExportKind::FoldedSelection)
            menu->addSeparator();
        menu->addAction(tr(f.menuText), menu, [chosen, kind = f.kind] { chosen(kind); });
    }
}

QString checkExportTarget(const QString& target, const QString& source) {
    if (target.isEmpty())
        return tr("No file name given.");
    const QFileInfo t(target), s(source);
    const bool same = (t.exists() && s.exists() && t.canonicalFilePath() == s.canonicalFilePath()) ||
                      t.absoluteFilePath() == s.absoluteFilePath();
    if (same)
        return tr("%1 is the profile being shown; choose another file name.").arg(target);
    return {};
}

QString saveAtomically(const QString& target, const QByteArray& bytes) {
    // The one atomic writer (core's AtomicFile): unnamed temporary, fsync, rename, fsync of the directory.
    try {
        writeFileAtomically(target.toStdString(), {}, [&](std::ostream& out) {
            out.write(bytes.constData(), static_cast<std::streamsize>(bytes.size()));
            if (!out)
                throw ExportError("write error");
        });
    } catch (const ExportError& e) {
        return tr("Cannot write: %1").arg(displayText(std::string_view(e.what())));
    }
    return {};
}

QByteArray foldedProfile(const Profile& profile, std::size_t costType) {
    FoldedOptions options;
    options.costType = static_cast<int>(costType);
    return written([&](std::ostream& out) { writeFolded(profile, options, out); });
}

QByteArray foldedSubtree(const ChartData& data, NodeId node) {
    const CallTree& tree = data.tree;
    const Profile& profile = *data.profile;
    if (node >= tree.size() || data.costType >= tree.costTypeCount())
        return {};
    const int decimals = profile.costTypes[data.costType].decimals;
    const FoldedOptions options;
    // Stacks from the root down to `node`'s parent are shared by every line.
    std::string prefix;
    for (NodeId n : tree.path(node))
        if (n != node)
            prefix += foldedFrameName(profile, tree.frame(n), options) + ';';
    std::vector<std::string> lines;
    std::vector<std::string> stack; // names from `node` down to the current node
    for (NodeId n = node; n < tree.subtreeEnd(node); ++n) {
        if (n == kRootNode)
            continue;
        stack.resize(tree.depth(n) - tree.depth(node) + (node == kRootNode ? 0 : 1));
        stack.back() = foldedFrameName(profile, tree.frame(n), options);
        const int64_t self = tree.self(data.costType, n);
        if (self == 0)
            continue;
        std::string line = prefix;
        for (std::size_t i = 0; i < stack.size(); ++i)
            line += (i ? ";" : "") + stack[i];
        lines.push_back(line + ' ' + formatCostValue(self, decimals) + '\n');
    }
    std::sort(lines.begin(), lines.end());
    QByteArray out;
    for (const std::string& line : lines)
        out.append(line.data(), static_cast<qsizetype>(line.size()));
    return out;
}

QString exportChart(ExportKind kind, const FlameGraphView& view, const QString& target,
                    const QString& source) {
    if (QString error = checkExportTarget(target, source); !error.isEmpty())
        return error;
    const auto data = view.data();
    if (!data)
        return tr("Nothing to export: the profile is not loaded.");
    // The chart as shown, cropped to the rows that hold frames: no blank band above a flame graph whose
    // view is taller than its deepest stack (the height follows the zoom, see FlameGraphView::chartHeight).
    const QSize size =
        QSize(view.width(), std::min(view.height(), view.chartHeight())).expandedTo(QSize(200, 20));
    QByteArray bytes;
    try {
        switch (kind) {
        case ExportKind::Svg: {
            QBuffer buffer(&bytes);
            buffer.open(QIODevice::WriteOnly);
            if (!view.renderSvg(&buffer, size))
                return tr("Could not render the flame graph as SVG.");
            break;
        }
        case ExportKind::Png: {
            QBuffer buffer(&bytes);
            buffer.open(QIODevice::WriteOnly);
            if (!view.renderImage(size).save(&buffer, "PNG"))
                return tr("Could not render the flame graph as PNG.");
            break;
        }
        case ExportKind::Folded:
            bytes = foldedProfile(*data->profile, data->costType);
            break;
        case ExportKind::InteractiveSvg: {
            SvgOptions options;
            options.costType = static_cast<int>(data->costType);
            options.title = QFileInfo(source).fileName().toStdString();
            options.subtitle = data->profile->costTypes[data->costType].name;
            // the window's colours: its scheme, its theme (System scheme, merged blocks), its diff colouring
            options.palette = static_cast<FlameColorScheme>(view.colorScheme());
            options.theme = FlamePalette::themeOf(view.palette());
            options.diff = view.diffColoring();
            // SvgOptions::minWidth's default: frames narrower than a pixel at the export width merge, as the
            // chart merges its narrow ones (a deep C++ recording otherwise writes tens of thousands of
            // invisible frames)
            bytes = written([&](std::ostream& out) { writeFlameGraphSvg(*data->profile, options, out); });
            break;
        }
        case ExportKind::Speedscope: {
            SpeedscopeOptions options;
            options.costType = static_cast<int>(data->costType);
            if (data->profile->costTypes[data->costType].unit == CostUnit::Samples)
                options.sampleCountType = options.costType; // one entry per sample, as speedscope writes them
            bytes = written([&](std::ostream& out) { writeSpeedscope(*data->profile, options, out); });
            break;
        }
        case ExportKind::Pprof:
            bytes = written([&](std::ostream& out) { writePprof(*data->profile, {}, out); });
            break;
        case ExportKind::FoldedSelection:
            if (view.selectedNode() == kRootNode)
                return tr("Select a frame in the flame graph or a table first.");
            bytes = foldedSubtree(*data, view.selectedNode());
            break;
        }
    } catch (const ExportError& e) {
        return tr("Could not export: %1").arg(displayText(std::string_view(e.what())));
    } catch (const std::bad_alloc&) {
        return tr("Could not export: out of memory.");
    }
    return saveAtomically(target, bytes);
}

} // namespace scorch
