// Fast scanners for the bulk of a speedscope file: see speedscopescan.h.
#include "speedscopescan.h"

#include <charconv>
#include <cmath>

namespace scorch::detail {

namespace {

const char* skipSpace(const char* p, const char* end) {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        ++p;
    return p;
}

} // namespace

bool scanIndexStacks(std::string_view text, std::vector<uint32_t>& flat, std::vector<std::size_t>& ends) {
    // every index takes at least two bytes ("7,"), every stack at least two ("[]"): room for all of them
    flat.resize(text.size() / 2 + 1);
    ends.clear();
    uint32_t* out = flat.data();
    const char* p = text.data();
    const char* const end = p + text.size();
    for (;;) {
        p = skipSpace(p, end);
        if (p == end || *p != '[')
            return false;
        p = skipSpace(p + 1, end);
        if (p < end && *p == ']') {
            ++p;
        } else {
            for (;;) {
                const char* digits = p;
                uint64_t v = 0;
                while (p < end && static_cast<unsigned char>(*p - '0') < 10 && p - digits < 11)
                    v = v * 10 + static_cast<uint64_t>(*p++ - '0');
                if (p == digits || p - digits > 10 || (*digits == '0' && p - digits > 1) ||
                    v >= UINT32_MAX - 1)
                    return false;
                *out++ = static_cast<uint32_t>(v);
                if (p < end && *p == ',') { // the common case: no spaces
                    ++p;
                    continue;
                }
                p = skipSpace(p, end);
                if (p == end)
                    return false;
                if (*p == ']') {
                    ++p;
                    break;
                }
                if (*p != ',')
                    return false;
                p = skipSpace(p + 1, end);
            }
        }
        ends.push_back(static_cast<std::size_t>(out - flat.data()));
        p = skipSpace(p, end);
        if (p == end)
            break;
        if (*p != ',')
            return false;
        ++p;
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
