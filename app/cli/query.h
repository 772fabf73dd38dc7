// What the query commands (top, callers, callees) share: finding a function by name, the cost they report,
// terminal-safe and JSON text.
#pragma once

#include "cli/command.h"

#include "scorch/calltree.h"

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace scorch::cli {

/// The version of the query commands' JSON (docs/query-json.md); bump on any incompatible change.
inline constexpr std::string_view kQuerySchema = "scorch-query/1";

/// A JSON string literal (quotes included); invalid UTF-8 bytes become U+FFFD.
std::string jsonString(std::string_view s);

/// The frames FUNCTION names: those whose printed name (matchName) is FUNCTION, else those whose printed
/// name is the only one the ECMAScript regex FUNCTION is found in. Empty with `error` set when there are
/// none or several names match.
std::vector<FrameId> findFunction(const Profile& p, const std::string& function, std::string& error);

/// What `scorch callers|callees|annotate FILE FUNCTION` share: the profile of FILE with the cost type of
/// --event and the frames of FUNCTION handed to `body`, or the usage error or failure when there are none.
int withFunction(
    const Command& command, const Args& args,
    const std::function<int(Profile&, std::size_t type, const std::vector<FrameId>& frames)>& body);

/// A cost value as a plain number in its cost type's unit ("12", "0.5"), for text and JSON.
std::string costNumber(const Profile& p, std::size_t type, int64_t value);
/// "12.34%" of `whole` (empty when whole is 0).
std::string percentOf(int64_t value, int64_t whole);

/// The `"event": {...}` member and the other members every query's JSON starts with (no closing brace).
void writeJsonHeader(std::ostream& o, std::string_view command, const Profile& p, std::size_t type);

/// Writes `tree` (callers or callees of a function) as an indented text tree or as a JSON object, children
/// by descending total cost of `type`.
void writeTreeText(std::ostream& o, const Profile& p, const CallTree& tree, std::size_t type, int64_t whole);
void writeTreeJson(std::ostream& o, const Profile& p, const CallTree& tree, std::size_t type);

/// `scorch callers` and `scorch callees`: the sandwich of FUNCTION, one half of it.
int runSandwich(const Command& command, const Args& args, bool callers);

} // namespace scorch::cli
