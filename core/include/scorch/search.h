// Search over frames: which frames match, and how much of the profile they account for.
#pragma once

#include "scorch/profile.h"

#include <string>
#include <vector>

namespace scorch {

struct SearchQuery {
    std::string pattern;
    bool regex = false;
    bool caseSensitive = false;
};

/// One flag per frame id of `profile.frames`: 1 when the frame's function name matches. An invalid regex
/// throws std::regex_error.
std::vector<char> matchFrames(const Profile& profile, const SearchQuery& query);

/// Cost of the samples whose stack contains at least one matching frame, each sample counted once: the sum
/// of total(n) over matching nodes n that have no matching ancestor.
int64_t matchedCost(const CallTree& tree, const std::vector<char>& frameMatches, std::size_t costType);

/// The matching nodes of `tree` in preorder.
std::vector<NodeId> matchingNodes(const CallTree& tree, const std::vector<char>& frameMatches);

} // namespace scorch
