// The file dialogs' filters for profiles (File > Open, File > Compare's Browse buttons). Formats are detected
// from the content, so the default filter shows every file that could be a profile; per-format filters and
// "All files" follow as extra choices.
#pragma once

#include <QString>
#include <QStringList>

namespace scorch {

/// The name patterns of the default "Profiles" filter (perf.data*, *.data, *.json, *.cpuprofile, *.pb.gz,
/// ...).
QStringList profileNamePatterns();

/// The formats Scorch opens, one readable name each ("perf.data recordings", "pprof", ...), as the
/// welcome page lists them.
QStringList profileFormatNames();
/// The filter string for QFileDialog: "All profiles (...);;perf.data (...);;...;;All files (*)".
QString profileFileFilter();

} // namespace scorch
