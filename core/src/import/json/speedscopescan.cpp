// Fast scanners for the bulk of a speedscope file: see speedscopescan.h.
#include "import/json/speedscopescan.h"

#include <charconv>
#include <cmath>

namespace scorch::detail {

namespace {

bool isSpace(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

const char* skipSpace(const char* p, const char* end) {
    while (p < end && isSpace(*p))
        ++p;
    return p;
}

} // namespace

bool scanIndexStacks(std::string_view text, std::vector<uint32_t>& flat, std::vector<std::size_t>& ends) {
    // Slices hold whole elements, so the text ends with the ']' of its last stack: that bracket stops every
    // scan inside an element, which therefore needs no end checks.
    std::size_t n = text.size();
    while (n > 0 && isSpace(text[n - 1]))
        --n;
    if (n == 0 || text[n - 1] != ']')
        return false;
    // every index takes at least two bytes ("7,"), every stack at least two ("[]"): room for all of them
    flat.resize(n / 2 + 1);
    ends.clear();
    uint32_t* out = flat.data();
    const char* p = text.data();
    const char* const end = p + n;
    for (;;) {
        while (isSpace(*p))
            ++p;
        if (*p != '[')
            return false;
        ++p;
        while (isSpace(*p))
            ++p;
        if (*p == ']') {
            ++p;
        } else {
            for (;;) {
                const char* digits = p;
                uint64_t v = 0;
                for (unsigned d; (d = static_cast<unsigned char>(*p) - unsigned{'0'}) <= 9; ++p)
                    v = v * 10 + d;
                const std::ptrdiff_t length = p - digits;
                if (length == 0 || length > 10 || (length > 1 && *digits == '0') || v >= UINT32_MAX - 1)
                    return false;
                *out++ = static_cast<uint32_t>(v);
                if (*p == ',') { // the common case: no spaces
                    ++p;
                    continue;
                }
                while (isSpace(*p))
                    ++p;
                if (*p == ']') {
                    ++p;
                    break;
                }
                if (*p != ',')
                    return false;
                ++p;
                while (isSpace(*p))
                    ++p;
            }
        }
        ends.push_back(static_cast<std::size_t>(out - flat.data()));
        while (p < end && isSpace(*p))
            ++p;
        if (p == end)
            break;
        if (*p != ',')
            return false;
        ++p;
        if (p == end)
            return false;
    }
    return true;
}

bool scanNumbers(std::string_view text, std::vector<double>& numbers) {
    numbers.clear();
    const char* p = text.data();
    const char* const end = p + text.size();
    for (;;) {
        p = skipSpace(p, end);
        if (p == end || !(*p == '-' || (*p >= '0' && *p <= '9')))
            return false;
        double v;
        const auto r = std::from_chars(p, end, v);
        if (r.ec != std::errc() || !std::isfinite(v))
            return false;
        numbers.push_back(v);
        p = skipSpace(r.ptr, end);
        if (p == end)
            break;
        if (*p != ',')
            return false;
        ++p;
    }
    return true;
}

} // namespace scorch::detail
