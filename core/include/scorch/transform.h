// View transforms of a call tree (the chips above the flame graph, the command line's --focus/--merge/...):
// focus on a function or on one subtree, merge ("hide") a function into its callers, drop the samples
// through a function, collapse a function's recursion, collapse or merge a whole module. They return a new
// tree over the same frames.
#pragma once

#include "scorch/profile.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace scorch {

struct TreeTransform {
    enum class Kind : uint8_t {
        Focus,                ///< focus on a function: keep only stacks through it, each re-rooted at its
                              ///< outermost call (all its call sites merged)
        Hide,                 ///< merge: remove the function's frames; their self cost goes to their callers
        CollapseRecursion,    ///< cut everything between its outermost and innermost call on each stack
        FocusSubtree,         ///< keep only stacks that start with `path`, re-rooted at its last frame
        Drop,                 ///< remove every sample whose stack contains the function
        CollapseModule,       ///< every run of consecutive frames of `module` becomes one frame `[name]`
        MergeModule,          ///< remove the frames of `module`; their self cost goes to their callers
        CollapseAllRecursion, ///< CollapseRecursion of every function: each function once per stack
    };
    Kind kind;
    FrameId frame;               ///< the function (Focus, Hide, CollapseRecursion, Drop)
    StringId module{};           ///< the module (CollapseModule, MergeModule)
    std::vector<FrameId> path{}; ///< FocusSubtree: the call path, root first
    std::vector<FrameId> also{}; ///< more functions treated as the same one (a regex's matches)
    friend bool operator==(const TreeTransform&, const TreeTransform&) = default;

    static TreeTransform forModule(Kind kind, StringId module) { return {kind, FrameId{}, module}; }
    static TreeTransform focusSubtree(std::vector<FrameId> path) {
        const FrameId leaf = path.empty() ? FrameId{} : path.back();
        return {Kind::FocusSubtree, leaf, StringId{}, std::move(path)};
    }
    /// The function transform `kind` on every frame of `frames` at once (none: `frame` stays 0, matching
    /// nothing).
    static TreeTransform forFrames(Kind kind, std::span<const FrameId> frames);
};

/// Applies the transforms in order to `tree` (a tree over `profile`'s frames, e.g. profile.tree or a
/// thread-filtered copy). With no transforms the result equals the input. CollapseModule uses the module's
/// frame made by addModuleFrames(); without it each run of the module's frames becomes its outermost frame.
CallTree applyTransforms(const Profile& profile, const CallTree& tree,
                         std::span<const TreeTransform> transforms);

/// The same on the profile itself: its tree and its per-thread costs are transformed (so per-thread
/// output stays right); its line costs and per-sample store no longer match and are cleared. Makes the
/// module frames it needs.
void applyTransforms(Profile& profile, std::span<const TreeTransform> transforms);

/// The name a collapsed module is shown with: `[libfoo.so]` for /usr/lib/libfoo.so (a name already in
/// brackets, such as `[kernel.kallsyms]`, stays as it is).
std::string moduleFrameName(std::string_view modulePath);
/// Makes the frame `[name]` of every module used by the profile's frames, so that applyTransforms() on a
/// const profile (the window shares one between threads) can collapse any of them. Call before sharing.
void addModuleFrames(Profile& profile);
/// The frame of `module` made by addModuleFrames(), or FrameId{} (0) when there is none.
FrameId moduleFrame(const Profile& profile, StringId module);

} // namespace scorch
