// Export of the current profile tab: the chart as SVG or PNG, the profile or a subtree as folded stacks.
// Every write is atomic (QSaveFile) and refuses to replace the profile's own input file.
#pragma once

#include "chartdata.h"

#include <QByteArray>
#include <QString>

namespace scorch {

class FlameGraphView;

enum class ExportKind { Svg, Png, Folded, FoldedSelection };

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
