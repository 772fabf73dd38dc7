// The options of a comparison, shared by `scorch diff` (the folded differential on standard output) and
// `scorch --diff` (the comparison in the window): the one place that parses `--diff [--normalize]
// [--strip-hex] BEFORE AFTER [FILE...]`, for main.cpp and the main window alike.
#pragma once

#include "cli/options.h"

#include "scorch/diff.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace scorch::cli {

/// -n/--normalize, -s/--strip-hex.
const std::vector<Option>& comparisonOptions();
/// The `DiffOptions` that parsed comparison options ask for.
DiffOptions comparisonOptionsFrom(const Args& args);

/// `scorch --diff` on the command line.
struct CompareArguments {
    DiffOptions options;
    std::string before, after;
    std::vector<std::string> files; ///< further files, opened in tabs
};

/// The usage of `scorch --diff`, printed when parseCompareArguments() fails.
extern const char* const kCompareUsage;

/// Parses the arguments after `--diff`; false when they do not fit.
bool parseCompareArguments(std::span<const std::string_view> args, CompareArguments& out);

} // namespace scorch::cli
