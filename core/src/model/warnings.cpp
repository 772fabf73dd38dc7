// The warnings of a profile's metadata: every one counted, the first ProfileMeta::kMaxKeptWarnings kept.
// Every importer (text pipeline, JSON, pprof, perf.data, Scorch recordings) adds its warnings here.
#include "scorch/profile.h"
#include "scorch/safetext.h"

namespace scorch {

bool ProfileMeta::warn(std::string message, uint64_t line) {
    ++warningCount;
    if (warnings.size() >= kMaxKeptWarnings)
        return false;
    warnings.push_back({line, escapeText(message)}); // one warning = one line of printable text
    return true;
}

void ProfileMeta::warnFirst(std::string message) {
    ++warningCount;
    if (warnings.size() >= kMaxKeptWarnings)
        warnings.pop_back();
    warnings.insert(warnings.begin(), {0, escapeText(message)});
}

std::string ProfileMeta::warningSummary() const {
    if (warningCount == 0 || warnings.empty())
        return {};
    const ImportWarning& w = warnings.front();
    const std::string count = std::to_string(warningCount);
    if (w.line > 0)
        return escapeText(source) + ": " + count + " line(s) skipped or repaired; first at line " +
               std::to_string(w.line) + ": " + w.message;
    return escapeText(source) + ": " + count + " warning(s); first: " + w.message +
           (warningCount > 1 ? " (`scorch info` lists them)" : "");
}

} // namespace scorch
