// Bridges between the core model (UTF-8 std::string) and Qt types.
#pragma once

#include "scorch/profile.h"

#include <QString>

namespace scorch {

inline QString toQString(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

/// Untrusted text (names of frames, modules, files, threads and cost types; file names) for a single-line
/// widget: escapeText() (scorch/safetext.h), so a newline, control character, invalid UTF-8 or bidi override
/// shows as `\x0a`, `\x1b`, `\u202e` and never breaks or reorders a label, tooltip line, tab title or
/// breadcrumb.
QString displayText(std::string_view s);
QString displayText(const QString& s);

/// The frame's function name for display, escaped as by displayText().
QString frameDisplayName(const Profile& profile, FrameId frame);
/// The same, shortened for narrow places (chart labels, breadcrumbs, table cells): C++ template and parameter
/// lists folded to "<…>" and "(…)" (scorch/shortname.h). Tooltips and copies keep the full name.
QString frameShortName(const Profile& profile, FrameId frame);
QString shortDisplayName(const QString& name);

/// "1 sample", "1,234 samples": a count of samples in words, digits grouped (no translation is loaded, so
/// tr()'s "%n sample(s)" would show its parentheses).
QString sampleCount(uint64_t n);

/// "1,234 samples (12.5%)"-style cost text for tooltips and tables.
QString costWithPercent(const Profile& profile, std::size_t costType, int64_t value, int64_t whole);

} // namespace scorch
