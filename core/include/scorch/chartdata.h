// ChartData: an immutable snapshot of what a chart or table shows (thread filter + transforms applied).
// Deriving a tree copies and re-sums it, so the window does it off the GUI thread (FlameGraphPanel); the
// snapshot is handed to widgets by shared pointer and never modified afterwards.
#pragma once

#include "scorch/flamelayout.h"
#include "scorch/profile.h"
#include "scorch/transform.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
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

    /// The flame chart's layout of `tree` by `costType`, made on the first call (from any thread, once; set
    /// costType before). A pass over the whole tree (9 ms for 3.5 M nodes): the jobs that make a ChartData
    /// for the window call it, so that the GUI thread finds it made.
    const FlameLayout& layout() const;
    /// The thread that made layout() (a default id before it is made).
    std::thread::id layoutMadeOn() const { return m_layoutThread.load(); }

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

private:
    mutable std::once_flag m_layoutOnce;
    mutable FlameLayout m_layout;
    mutable std::atomic<std::thread::id> m_layoutThread{};
};

} // namespace scorch
