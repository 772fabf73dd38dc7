#include "scorch/shortname.h"

#include <cstring>

namespace scorch {
namespace {

bool isIdentChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/// Length of the operator symbol after "operator" at `p` ("<<", "()", "->*"), 0 when there is none.
std::size_t operatorSymbolLength(std::string_view s, std::size_t p) {
    if (p >= s.size())
        return 0;
    if (s.compare(p, 2, "()") == 0 || s.compare(p, 2, "[]") == 0)
        return 2;
    static constexpr const char* kSymbols[] = {
        "<=>", "<<=", ">>=", "->*", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++",
        "--",  "->",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "<",  ">",  "=",
        "!",   "~",   "+",   "-",   "*",  "/",  "%",  "&",  "|",  "^",  ","};
    for (const char* sym : kSymbols) {
        const std::size_t n = std::strlen(sym);
        if (s.compare(p, n, sym) == 0)
            return n;
    }
    return 0;
}

/// Where "operator" followed by a symbol starts at `p` (not inside a longer identifier): the length of
/// "operator" plus its symbol, else 0.
std::size_t operatorAt(std::string_view s, std::size_t p) {
    constexpr std::string_view kOperator = "operator";
    if (s.compare(p, kOperator.size(), kOperator) != 0 || (p > 0 && isIdentChar(s[p - 1])))
        return 0;
    const std::size_t sym = operatorSymbolLength(s, p + kOperator.size());
    return sym ? kOperator.size() + sym : 0;
}

/// The position of the bracket that closes the one at `open` (`<` or `(`), counting both kinds and
/// skipping operator names and "->"; npos when unbalanced.
std::size_t matchingClose(std::string_view s, std::size_t open) {
    int angle = 0;
    int paren = 0;
    for (std::size_t i = open; i < s.size(); ++i) {
        if (const std::size_t op = operatorAt(s, i)) {
            i += op - 1;
            continue;
        }
        switch (s[i]) {
        case '<':
            ++angle;
            break;
        case '>':
            if (i > 0 && s[i - 1] == '-')
                break;
            if (--angle < 0)
                return std::string_view::npos;
            break;
        case '(':
            ++paren;
            break;
        case ')':
            if (--paren < 0)
                return std::string_view::npos;
            break;
        default:
            continue;
        }
        if (angle == 0 && paren == 0)
            return i;
    }
    return std::string_view::npos;
}

} // namespace

std::string shortenName(std::string_view name) {
    std::string out;
    out.reserve(name.size());
    bool afterOperator = false; // "operator<<" ends in a bracket that is not a list; its "(" starts one
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (const std::size_t op = operatorAt(name, i)) {
            out.append(name.substr(i, op));
            i += op - 1;
            afterOperator = true;
            continue;
        }
        const bool operatorList = afterOperator;
        afterOperator = false;
        const char c = name[i];
        // A template argument list follows a name; a parameter list follows a name, a template argument list
        // or an operator.
        const char before = i > 0 ? name[i - 1] : ' ';
        const bool list =
            (c == '<' && isIdentChar(before)) ||
            (c == '(' && (operatorList || isIdentChar(before) || before == '>' || before == ']'));
        if (!list) {
            if (c == '>' || c == ')') {
                if (!(c == '>' && before == '-'))
                    return std::string(name); // unbalanced: not a C++ name
            }
            // Groups that are not lists stay as they are: "(anonymous namespace)", "<T as Trait>",
            // "<module>".
            if (c == '(' || c == '<') {
                const std::size_t close = matchingClose(name, i);
                if (close == std::string_view::npos)
                    return std::string(name);
                out.append(name.substr(i, close - i + 1));
                i = close;
                continue;
            }
            out += c;
            continue;
        }
        const std::size_t close = matchingClose(name, i);
        if (close == std::string_view::npos)
            return std::string(name);
        out += c;
        if (close > i + 1)
            out += "…";
        out += name[close];
        i = close;
    }
    return out;
}

} // namespace scorch
