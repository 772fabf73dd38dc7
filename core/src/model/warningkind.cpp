#include "scorch/warningkind.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace scorch {

namespace {

/// The number that ends right before `end` in `s` (digits and one dot), or -1.
double numberBefore(std::string_view s, std::size_t end) {
    std::size_t begin = end;
    while (begin > 0 && (std::isdigit(static_cast<unsigned char>(s[begin - 1])) || s[begin - 1] == '.'))
        --begin;
    double value = -1;
    if (begin == end || std::from_chars(s.data() + begin, s.data() + end, value).ec != std::errc())
        return -1;
    return value;
}

/// The unsigned number at the start of `s`, or -1.
double leadingNumber(std::string_view s) {
    uint64_t value = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    return ec == std::errc() && end != s.data() ? static_cast<double>(value) : -1;
}

} // namespace

WarningKind warningKind(std::string_view m) {
    // perfreader.cpp: a cut data section, record or header; a header whose data size perf never wrote
    if (m.starts_with("the file is truncated") || m.find("(perf record did not finish)") != m.npos)
        return WarningKind::Truncated;
    // perfstate.cpp "N events were lost while recording", recording_profile.cpp "N samples were lost ..."
    if (m.find(" were lost while recording") != m.npos && leadingNumber(m) > 0)
        return WarningKind::Lost;
    // rawprofile.cpp: "PATH: PROBLEM (12.5% of samples): functions unknown". A module whose functions have
    // names but no file:line (no debug info) reads fine; one whose names are partly missing is serious by
    // the share of samples spent in its nameless addresses ("..., 3 of 9 addresses without a function name,
    // 4.1% of the samples spent in them": hot code without names, not a nameless frame on the way to named
    // ones); a build-id mismatch by the module's share, names or not (they may be wrong).
    if (const std::size_t at = m.rfind("% of samples): "); at != m.npos) {
        double share = numberBefore(m, at);
        const bool mismatch = m.find("build-id mismatch") != m.npos;
        if (!mismatch && m.ends_with("): file:line unknown"))
            share = 0;
        else if (const std::size_t in = m.rfind("% of the samples spent in them");
                 !mismatch && in > at && in != m.npos)
            share = numberBefore(m, in);
        if (share > kSeriousShare * 100)
            return WarningKind::Symbols;
    }
    // perfstate.cpp: "N of M --call-graph dwarf samples could not be unwound"
    if (const std::size_t at = m.find(" of "); at != m.npos && m.ends_with(" samples could not be unwound")) {
        const double failed = leadingNumber(m), all = leadingNumber(m.substr(at + 4));
        if (failed > 0 && all > 0 && failed > kSeriousShare * all)
            return WarningKind::Unwind;
    }
    return WarningKind::Note;
}

void warnSerious(ProfileMeta& meta, std::string message) {
    std::size_t at = 0;
    while (at < meta.warnings.size() && isSerious(meta.warnings[at]))
        ++at;
    if (meta.warnings.size() < ProfileMeta::kMaxKeptWarnings || at == meta.warnings.size()) {
        meta.warn(std::move(message)); // room at the end (or only serious ones kept: counted, kept if room)
        if (meta.warnings.size() > at + 1) // it went behind notes: move it up to the serious ones
            std::rotate(meta.warnings.begin() + static_cast<std::ptrdiff_t>(at), meta.warnings.end() - 1,
                        meta.warnings.end());
        return;
    }
    meta.warnings.pop_back(); // a note gives way
    meta.warn(std::move(message));
    std::rotate(meta.warnings.begin() + static_cast<std::ptrdiff_t>(at), meta.warnings.end() - 1,
                meta.warnings.end());
}

} // namespace scorch
