#include "export/exportutil.h"

#include <algorithm>
#include <numeric>

namespace scorch::detail {

namespace {

constexpr std::string_view kReplacement = "\xef\xbf\xbd"; // U+FFFD

bool continuation(std::string_view s, std::size_t i) {
    return i < s.size() && (static_cast<unsigned char>(s[i]) & 0xc0) == 0x80;
}

} // namespace

std::size_t utf8SequenceLength(std::string_view s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        return continuation(s, i + 1) ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        if (!continuation(s, i + 1) || !continuation(s, i + 2))
            return 0;
        const auto c1 = static_cast<unsigned char>(s[i + 1]);
        if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0)) // overlong, surrogates
            return 0;
        return 3;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        if (!continuation(s, i + 1) || !continuation(s, i + 2) || !continuation(s, i + 3))
            return 0;
        const auto c1 = static_cast<unsigned char>(s[i + 1]);
        if ((c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 >= 0x90)) // overlong, beyond U+10FFFF
            return 0;
        return 4;
    }
    return 0;
}

void appendJsonString(std::string& out, std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('"');
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            out.push_back(static_cast<char>(c));
            ++i;
        } else if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(static_cast<char>(c));
            ++i;
        } else if (c < 0x20) {
            out += "\\u00";
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 15]);
            ++i;
        } else if (const std::size_t n = utf8SequenceLength(s, i)) {
            out.append(s.substr(i, n));
            i += n;
        } else {
            out.append(kReplacement);
            ++i;
        }
    }
    out.push_back('"');
}

void appendXmlText(std::string& out, std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&apos;";
            break;
        default:
            if (c >= 0x80) {
                std::size_t n = utf8SequenceLength(s, i);
                // U+FFFE and U+FFFF are not XML characters
                if (n == 3 && c == 0xef && static_cast<unsigned char>(s[i + 1]) == 0xbf &&
                    static_cast<unsigned char>(s[i + 2]) >= 0xbe)
                    n = 0;
                if (n) {
                    out.append(s.substr(i, n));
                    i += n;
                } else {
                    out.append(kReplacement);
                    ++i;
                }
                continue;
            }
            if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
                out.append(kReplacement);
            else
                out.push_back(static_cast<char>(c));
        }
        ++i;
    }
}

CostRows costRows(const Profile& p) {
    CostRows rows;
    const std::size_t types = p.costTypes.size();
    rows.cost.resize(types);
    const ThreadCosts& tc = p.threadCosts;
    auto nonZero = [&](const std::vector<std::vector<int64_t>>& c, std::size_t i) {
        for (std::size_t t = 0; t < types; ++t)
            if (c[t][i] != 0)
                return true;
        return false;
    };
    if (!tc.node.empty() && tc.cost.size() == types) {
        std::vector<std::size_t> order(tc.node.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return tc.thread[a] != tc.thread[b] ? tc.thread[a] < tc.thread[b] : tc.node[a] < tc.node[b];
        });
        for (std::size_t i : order) {
            if (tc.node[i] >= p.tree.size() || !nonZero(tc.cost, i))
                continue;
            rows.thread.push_back(tc.thread[i]);
            rows.node.push_back(tc.node[i]);
            for (std::size_t t = 0; t < types; ++t)
                rows.cost[t].push_back(tc.cost[t][i]);
        }
        rows.threadCount = std::max<std::size_t>(p.threads.size(), 1);
        for (uint32_t t : rows.thread)
            rows.threadCount = std::max<std::size_t>(rows.threadCount, t + std::size_t{1});
        return rows;
    }
    for (NodeId n = kRootNode; n < p.tree.size(); ++n) {
        if (!p.tree.hasSelfCost(n))
            continue;
        rows.thread.push_back(0);
        rows.node.push_back(n);
        for (std::size_t t = 0; t < types; ++t)
            rows.cost[t].push_back(p.tree.self(t, n));
    }
    rows.threadCount = 1;
    return rows;
}

void framePath(const CallTree& tree, NodeId n, std::vector<FrameId>& out) {
    out.clear();
    for (; n != kRootNode; n = tree.parent(n))
        out.push_back(tree.frame(n));
    std::reverse(out.begin(), out.end());
}

} // namespace scorch::detail
