// View transforms of a call tree (the chips above the flame graph): focus on a function, hide (merge) a
// function into its callers, collapse a function's recursion. They return a new tree over the same frames.
#pragma once

#include "scorch/profile.h"

#include <span>
#include <vector>

namespace scorch {

struct TreeTransform {
    enum class Kind : uint8_t {
        Focus,             ///< keep only stacks through the function, re-rooted at its outermost call
        Hide,              ///< remove the function's frames; its self cost goes to its callers
        CollapseRecursion, ///< cut everything between its outermost and innermost call on each stack
    };
    Kind kind;
    FrameId frame;
    friend bool operator==(const TreeTransform&, const TreeTransform&) = default;
};

/// Applies the transforms in order to `tree` (a tree over `profile`'s frames, e.g. profile.tree or a
/// thread-filtered copy). With no transforms the result equals the input.
CallTree applyTransforms(const Profile& profile, const CallTree& tree,
                         std::span<const TreeTransform> transforms);

} // namespace scorch
