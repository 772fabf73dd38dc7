#include "scorch/search.h"

#include "scorch/costs.h"

#include <algorithm>
#include <regex>

namespace scorch {

namespace {

char lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool containsIgnoringCase(std::string_view hay, std::string_view needle) {
    if (needle.size() > hay.size())
        return false;
    return std::search(hay.begin(), hay.end(), needle.begin(), needle.end(),
                       [](char a, char b) { return lower(a) == lower(b); }) != hay.end();
}

} // namespace

std::vector<char> matchFrames(const Profile& profile, const SearchQuery& query) {
    std::vector<char> out(profile.frames.size(), 0);
    if (query.pattern.empty())
        return out;
    std::regex re;
    if (query.regex)
        re = std::regex(query.pattern, query.caseSensitive ? std::regex::ECMAScript
                                                           : std::regex::ECMAScript | std::regex::icase);
    std::vector<signed char> byName(profile.strings.size(), -1); // frames share names: match each name once
    for (uint32_t f = 1; f < profile.frames.size(); ++f) {
        const StringId name = profile.frames[FrameId{f}].name;
        signed char& r = byName[name.value];
        if (r < 0) {
            const std::string_view s = profile.strings.view(name);
            if (query.regex)
                r = std::regex_search(s.begin(), s.end(), re) ? 1 : 0;
            else if (query.caseSensitive)
                r = s.find(query.pattern) != std::string_view::npos ? 1 : 0;
            else
                r = containsIgnoringCase(s, query.pattern) ? 1 : 0;
        }
        out[f] = r;
    }
    return out;
}

int64_t matchedCost(const CallTree& tree, const std::vector<char>& frameMatches, std::size_t costType) {
    int64_t sum = 0;
    NodeId coveredUntil = 0; // nodes below this preorder index are inside a counted match
    for (NodeId n = 1; n < tree.size(); ++n) {
        if (n < coveredUntil)
            continue;
        const FrameId f = tree.frame(n);
        if (f.value < frameMatches.size() && frameMatches[f.value]) {
            addCost(sum, tree.total(costType, n));
            coveredUntil = tree.subtreeEnd(n);
        }
    }
    return sum;
}

std::vector<NodeId> matchingNodes(const CallTree& tree, const std::vector<char>& frameMatches) {
    std::vector<NodeId> out;
    for (NodeId n = 1; n < tree.size(); ++n) {
        const FrameId f = tree.frame(n);
        if (f.value < frameMatches.size() && frameMatches[f.value])
            out.push_back(n);
    }
    return out;
}

} // namespace scorch
