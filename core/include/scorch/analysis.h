// Analyses over a profile's call tree: bottom-up inversion, per-function aggregates, thread filtering.
#pragma once

#include "scorch/profile.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace scorch {

/// The inverted (callers) tree: its first level holds the functions where cost was spent (self cost),
/// their children are their callers, and so on up to the original roots. A node's total is the cost of
/// the samples whose stack ends with that caller chain; every sample's cost lands once in each level.
CallTree bottomUpTree(const Profile& profile);
/// The same for any tree over the profile's frames (a thread subset, a transformed tree).
CallTree bottomUpTree(const Profile& profile, const CallTree& tree);
/// The same, abandoned (std::nullopt) soon after `cancel` (if any) is set: the inversion of a few million
/// nodes takes seconds, and a newer request (a time range dragged on) makes it useless.
std::optional<CallTree> bottomUpTree(const Profile& profile, const CallTree& tree,
                                     const std::atomic<bool>* cancel);

/// Per-function costs (FunctionCost, profile.h) of the profile's tree, or of any tree over its frames, in the
/// order of each function's first node; Profile::functions where it has them for that tree.
std::vector<FunctionCost> functionCosts(const Profile& profile);
std::vector<FunctionCost> functionCosts(const Profile& profile, const CallTree& tree);
/// The same, std::nullopt soon after `cancel` (if any) is set.
std::optional<std::vector<FunctionCost>> functionCosts(const Profile& profile, const CallTree& tree,
                                                       const std::atomic<bool>* cancel);

/// Functions sorted by descending self cost of `costType`, at most `limit`.
std::vector<FunctionCost> topFunctions(const Profile& profile, std::size_t costType, std::size_t limit);

/// Self costs restricted to the given threads (indices into profile.threads), one array per cost type;
/// feed to CallTree::setSelfCosts() on a copy of the tree to view a subset of threads.
std::vector<std::vector<int64_t>> selfCostsForThreads(const Profile& profile,
                                                      std::span<const uint32_t> threads);

} // namespace scorch
