// The transform options of every command that reads profiles: --focus/--merge/--drop REGEX,
// --collapse-module/--merge-module NAME, --collapse-recursion, applied in the order given.
#include "cli/command.h"

#include "scorch/foldedwriter.h"
#include "scorch/transform.h"

#include <algorithm>
#include <cstdio>
#include <regex>
#include <set>

namespace scorch::cli {

namespace {

constexpr std::string_view kRegexOptions[] = {"--focus", "--merge", "--drop"};
constexpr std::string_view kModuleOptions[] = {"--collapse-module", "--merge-module"};

bool isTransformOption(std::string_view key) {
    return key == "--collapse-recursion" ||
           std::ranges::find(kRegexOptions, key) != std::end(kRegexOptions) ||
           std::ranges::find(kModuleOptions, key) != std::end(kModuleOptions);
}

std::string_view baseName(std::string_view path) {
    const std::size_t slash = path.find_last_of('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

/// The modules of `p` that NAME names: by path, by file name or as `[file name]`.
std::vector<StringId> modulesNamed(const Profile& p, std::string_view name, std::set<std::string>& all) {
    std::vector<StringId> found;
    std::vector<char> seen(p.strings.size(), 0);
    for (uint32_t f = 1; f < p.frames.size(); ++f) {
        const StringId m = p.frames[FrameId{f}].module;
        if (!m || seen[m.value])
            continue;
        seen[m.value] = 1;
        const std::string_view path = p.strings.view(m);
        all.insert(std::string(baseName(path)));
        if (path == name || baseName(path) == name || moduleFrameName(path) == name)
            found.push_back(m);
    }
    return found;
}

} // namespace

OptionGroup transformOptionGroup() {
    return {"Transforms, applied in the order given (REGEX: ECMAScript, found anywhere in a frame's name as\n"
            "folded output prints it; anchor with ^...$ for a whole name):",
            {{.longName = "--focus",
              .value = "REGEX",
              .help = "keep samples with a matching frame, each stack from its outermost match",
              .needs = "a regular expression"},
             {.longName = "--merge",
              .value = "REGEX",
              .help = "remove matching frames; their cost goes to their callers",
              .needs = "a regular expression"},
             {.longName = "--drop",
              .value = "REGEX",
              .help = "remove samples with a matching frame",
              .needs = "a regular expression"},
             {.longName = "--collapse-module",
              .value = "NAME",
              .help = "show each run of the module's frames as one frame [NAME]\n"
                      "(NAME: the module's path or file name)",
              .needs = "a module name"},
             {.longName = "--merge-module",
              .value = "NAME",
              .help = "remove the module's frames; their cost goes to their callers",
              .needs = "a module name"},
             {.longName = "--collapse-recursion",
              .help = "show each function once per stack (what ran between its outermost and\n"
                      "innermost call is cut)"}}};
}

std::vector<TransformArg> transformArgs(const Args& args) {
    std::vector<TransformArg> out;
    for (const auto& [key, value] : args.inOrder())
        if (isTransformOption(key))
            out.push_back({key, value});
    return out;
}

std::string matchName(const Profile& p, FrameId frame) {
    return foldedFrameName(p, frame, FoldedOptions{});
}

std::string applyTransformArgs(Profile& p, const std::vector<TransformArg>& transforms) {
    using Kind = TreeTransform::Kind;
    std::vector<TreeTransform> list;
    for (const TransformArg& a : transforms) {
        if (a.option == "--collapse-recursion") {
            list.push_back({Kind::CollapseAllRecursion, FrameId{}});
            continue;
        }
        if (std::ranges::find(kModuleOptions, a.option) != std::end(kModuleOptions)) {
            std::set<std::string> all;
            const std::vector<StringId> modules = modulesNamed(p, a.value, all);
            if (modules.empty()) {
                std::string names;
                std::size_t listed = 0;
                for (const std::string& n : all) {
                    if (listed++ == 8) {
                        names += ", ...";
                        break;
                    }
                    names += (names.empty() ? "" : ", ") + n;
                }
                return p.meta.source + ": " + a.option + ": no module named \"" + a.value + "\"" +
                       (names.empty() ? " (the profile has no module names)"
                                      : " (the profile has: " + names + ")");
            }
            const Kind kind = a.option == "--collapse-module" ? Kind::CollapseModule : Kind::MergeModule;
            for (StringId m : modules)
                list.push_back(TreeTransform::forModule(kind, m));
            continue;
        }
        std::regex re;
        try {
            re = std::regex(a.value, std::regex::ECMAScript | std::regex::optimize);
        } catch (const std::regex_error& e) {
            return a.option + ": bad regular expression \"" + a.value + "\": " + e.what();
        }
        std::vector<FrameId> frames;
        for (uint32_t f = 1; f < p.frames.size(); ++f)
            if (std::regex_search(matchName(p, FrameId{f}), re))
                frames.push_back(FrameId{f});
        if (frames.empty())
            std::fprintf(stderr, "scorch: warning: %s \"%s\" matches no frame\n", a.option.c_str(),
                         a.value.c_str());
        const Kind kind = a.option == "--focus"   ? Kind::Focus
                          : a.option == "--merge" ? Kind::Hide
                                                  : Kind::Drop;
        list.push_back(TreeTransform::forFrames(kind, frames));
    }
    applyTransforms(p, list);
    return {};
}

} // namespace scorch::cli
