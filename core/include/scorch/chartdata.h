// ChartData: an immutable snapshot of what a chart or table shows (thread filter + transforms applied).
// Deriving a tree copies and re-sums it, so the window does it off the GUI thread (FlameGraphPanel); the
// snapshot is handed to widgets by shared pointer and never modified afterwards.
#pragma once

#include "scorch/profile.h"
#include "scorch/transform.h"

#include <memory>
#include <optional>
#include <vector>

namespace scorch {

struct ChartData {
    /// Prefer derive(): `derived` is the tree to show, or empty to show profile->tree itself (no copy).
    ChartData(std::shared_ptr<const Profile> profile, std::optional<CallTree> derived)
        : profile(std::move(profile))
        , derivedTree(std::move(derived))
        , tree(derivedTree ? *derivedTree : this->profile->tree) {}
    ChartData(const ChartData&) = delete;
    ChartData& operator=(const ChartData&) = delete;

    std::shared_ptr<const Profile> profile; ///< frames, strings, cost types, threads
    std::optional<CallTree> derivedTree;    ///< set when threads or transforms changed the tree
    const CallTree& tree;                   ///< the tree to show (profile->tree, or the derived one)
    std::size_t costType = 0;               ///< which cost to size frames by
    std::vector<TreeTransform> transforms;  ///< transforms that produced `tree` (shown as chips)
    std::vector<uint32_t> threads;          ///< thread subset that produced `tree`; empty = all threads

    /// All threads, no transforms.
    static std::shared_ptr<const ChartData> fromProfile(std::shared_ptr<const Profile> profile,
                                                        std::size_t costType = 0);
    /// False when derive() would show profile->tree itself (all threads, no transforms): no work to do.
    static bool needsDerivedTree(const Profile& profile, const std::vector<uint32_t>& threads,
                                 const std::vector<TreeTransform>& transforms);
    /// Re-derives the tree from profile with another thread subset / transform list / cost type.
    static std::shared_ptr<const ChartData> derive(std::shared_ptr<const Profile> profile,
                                                   std::size_t costType, std::vector<uint32_t> threads,
                                                   std::vector<TreeTransform> transforms);
};

} // namespace scorch
