// Internal: fast scanners for the bulk of a speedscope file, the elements of `samples` and `weights` arrays
// in their common shape. Anything else (and so every error) is left to simdjson by returning false.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace scorch::detail {

/// Reads comma-separated elements `[i,j,...],[...]` whose indices are plain decimal integers below
/// 2^32 - 2. `flat` receives all indices one after the other, `ends` where each stack ends in `flat`. False
/// when the text has any other shape (then the outputs mean nothing).
bool scanIndexStacks(std::string_view text, std::vector<uint32_t>& flat, std::vector<std::size_t>& ends);

/// Reads comma-separated plain finite numbers (`1,2.5,-3e2`) into `numbers`; false for anything else.
bool scanNumbers(std::string_view text, std::vector<double>& numbers);

} // namespace scorch::detail
