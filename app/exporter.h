// Export of the current profile tab: the chart as SVG or PNG picture, the profile as an interactive flame
// graph SVG, speedscope JSON, pprof or folded stacks, a subtree as folded stacks (the formats of
// `scorch convert` and `scorch svg`). Every write is atomic (QSaveFile) and refuses to replace the profile's
// own input file.
#pragma once

#include "scorch/chartdata.h"

#include <QByteArray>
#include <QString>

#include <functional>
#include <span>

class QMenu;

namespace scorch {

class FlameGraphView;

enum class ExportKind { Svg, Png, Folded, FoldedSelection, InteractiveSvg, Speedscope, Pprof };

/// How File > Export offers a kind: menu text, file name suffix and file dialog filter.
struct ExportFormat {
    ExportKind kind;
    const char* menuText; ///< untranslated; tr() context "scorch::Exporter"
    const char* suffix;   ///< proposed file name suffix, e.g. ".speedscope.json"
    const char* filter;   ///< untranslated file dialog filter
};

/// Every export kind, in menu order.
std::span<const ExportFormat> exportFormats();
const ExportFormat& exportFormat(ExportKind kind);

/// Adds one action per export kind to `menu` (separators between pictures, profile formats and the
/// selection); `chosen` runs with the kind when an action is triggered.
void addExportActions(QMenu* menu, const std::function<void(ExportKind)>& chosen);

/// An error message when `target` must not be written because it is the opened input `source`.
QString checkExportTarget(const QString& target, const QString& source);

/// Writes `bytes` to `target` atomically; returns an error message or an empty string.
QString saveAtomically(const QString& target, const QByteArray& bytes);

/// The whole profile as folded stacks of cost type `costType` (scorch::writeFolded).
QByteArray foldedProfile(const Profile& profile, std::size_t costType);

/// The stacks through `node` of the chart's tree (thread subset and transforms applied) as folded
/// stacks from the root, sorted bytewise; identical stacks are summed and zero counts left out.
QByteArray foldedSubtree(const ChartData& data, NodeId node);

/// Renders or serialises what `kind` asks for and saves it; returns an error message or "".
/// `source` is the profile's input file, which is never overwritten.
QString exportChart(ExportKind kind, const FlameGraphView& view, const QString& target,
                    const QString& source);

} // namespace scorch
