// ChartData: an immutable snapshot of what a chart or table shows. Built off the GUI thread (thread
// filter + transforms applied), handed to widgets by shared pointer, never modified afterwards.
#pragma once

#include "scorch/profile.h"
#include "scorch/transform.h"

#include <memory>
#include <vector>

namespace scorch {

struct ChartData {
    std::shared_ptr<const Profile> profile; ///< frames, strings, cost types, threads
    CallTree tree;                          ///< the tree to show (profile.tree, or filtered/transformed)
    std::size_t costType = 0;               ///< which cost to size frames by
    std::vector<TreeTransform> transforms;  ///< transforms that produced `tree` (shown as chips)
    std::vector<uint32_t> threads;          ///< thread subset that produced `tree`; empty = all threads

    /// All threads, no transforms.
    static std::shared_ptr<const ChartData> fromProfile(std::shared_ptr<const Profile> profile,
                                                        std::size_t costType = 0);
    /// Re-derives the tree from profile with another thread subset / transform list / cost type.
    static std::shared_ptr<const ChartData> derive(std::shared_ptr<const Profile> profile,
                                                   std::size_t costType, std::vector<uint32_t> threads,
                                                   std::vector<TreeTransform> transforms);
};

} // namespace scorch
