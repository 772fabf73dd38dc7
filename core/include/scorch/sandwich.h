// The caller/callee "sandwich" of one function: who calls it over all its call sites, and what it calls
// over all its invocations, with its self and total cost as in the function table.
#pragma once

#include "scorch/profile.h"

#include <span>
#include <vector>

namespace scorch {

struct Sandwich {
    /// Inverted tree: its only first-level node is the function, whose children are its callers, theirs
    /// their callers, up to the roots. Every sample through the function counts once, from the function's
    /// outermost call on its stack (recursion counted once, as in the function table), so the function's
    /// node has the function's total cost and a caller node's total is the cost of the samples that reached
    /// the function through that chain of callers.
    CallTree callers;
    /// Tree rooted at the function (its only first-level node): the stacks of every sample through it,
    /// each from the function's outermost call down (all call sites merged; the focus-on-function tree).
    CallTree callees;
    std::vector<int64_t> self, total; ///< per cost type: the function's self and total cost
};

/// The sandwich of the function `function` (with `also`: several frames treated as one function) in `tree`,
/// a tree over `profile`'s frames (profile.tree, a thread subset, a transformed tree).
Sandwich sandwich(const Profile& profile, const CallTree& tree, FrameId function,
                  std::span<const FrameId> also = {});

} // namespace scorch
