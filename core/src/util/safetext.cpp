// escapeText: profile text made safe for a terminal, a log line or a single-line widget.
#include "scorch/safetext.h"

#include <cstdint>

namespace scorch {

namespace {

/// The length of the valid UTF-8 sequence at `s[i]` (1 to 4) and its code point; 0 when it is not valid
/// (overlong forms, surrogates and code points above U+10FFFF are not).
std::size_t utf8Sequence(std::string_view s, std::size_t i, uint32_t& cp) {
    const auto b = [&](std::size_t k) {
        return static_cast<unsigned char>(s[i + k]);
    };
    const unsigned char c = b(0);
    std::size_t n = 0;
    if (c < 0x80) {
        cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07u;
    } else {
        return 0;
    }
    if (i + n > s.size())
        return 0;
    for (std::size_t k = 1; k < n; ++k) {
        if ((b(k) & 0xC0u) != 0x80u)
            return 0;
        cp = (cp << 6) | (b(k) & 0x3Fu);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

bool escapedCodePoint(uint32_t cp) {
    return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

constexpr char kHex[] = "0123456789abcdef";

void appendByte(std::string& out, unsigned char c) {
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 0xF];
}

} // namespace

bool needsEscape(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7F) {
            ++i;
            continue;
        }
        uint32_t cp = 0;
        const std::size_t n = utf8Sequence(text, i, cp);
        if (n == 0 || cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || escapedCodePoint(cp))
            return true;
        i += n;
    }
    return false;
}

std::string escapeText(std::string_view text) {
    if (!needsEscape(text))
        return std::string(text);
    std::string out;
    out.reserve(text.size() + 16);
    for (std::size_t i = 0; i < text.size();) {
        uint32_t cp = 0;
        const std::size_t n = utf8Sequence(text, i, cp);
        if (n == 0) {
            appendByte(out, static_cast<unsigned char>(text[i]));
            ++i;
            continue;
        }
        if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) {
            for (std::size_t k = 0; k < n; ++k)
                appendByte(out, static_cast<unsigned char>(text[i + k]));
        } else if (escapedCodePoint(cp)) {
            out += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4)
                out += kHex[(cp >> shift) & 0xF];
        } else {
            out.append(text.substr(i, n));
        }
        i += n;
    }
    return out;
}

} // namespace scorch
