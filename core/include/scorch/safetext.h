// Profile text made safe to show: frame, thread and module names and the echoed text of skipped lines are
// untrusted, and must never reach a terminal, a log or a single-line widget raw.
#pragma once

#include <string>
#include <string_view>

namespace scorch {

/// `text` with everything that could control a terminal or break a line shown escaped: C0 and C1 control
/// characters, DEL and bytes that are not valid UTF-8 as `\xHH` (the byte; C1 characters as their two UTF-8
/// bytes), bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) and the line and paragraph
/// separators (U+2028, U+2029) as `\uHHHH`. Valid UTF-8 otherwise passes unchanged (a backslash too), so the
/// result is one line of printable text.
std::string escapeText(std::string_view text);

/// True when escapeText() would change `text`.
bool needsEscape(std::string_view text);

} // namespace scorch
