// Internal: small string helpers for the text parsers.
#pragma once

#include <cstdint>
#include <string_view>

namespace scorch::detail {

inline bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}
inline bool isDigit(char c) {
    return c >= '0' && c <= '9';
}
inline bool isWordChar(char c) {
    return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/// The last component of a path ("a/b/c.json" -> "c.json"), a view into `path`.
inline std::string_view baseName(std::string_view path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

inline std::string_view rtrim(std::string_view s) {
    while (!s.empty() && isSpace(s.back()))
        s.remove_suffix(1);
    return s;
}
inline std::string_view ltrim(std::string_view s) {
    while (!s.empty() && isSpace(s.front()))
        s.remove_prefix(1);
    return s;
}
inline bool allDigits(std::string_view s) {
    if (s.empty())
        return false;
    for (char c : s)
        if (!isDigit(c))
            return false;
    return true;
}

/// Parses decimal digits; false on overflow of int64.
inline bool parseInt(std::string_view s, int64_t& out) {
    if (!allDigits(s) || s.size() > 18)
        return false;
    int64_t v = 0;
    for (char c : s)
        v = v * 10 + (c - '0');
    out = v;
    return true;
}

} // namespace scorch::detail
