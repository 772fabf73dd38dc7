// The one option parser of the command line: options described once (name, value, help), parsed the same way
// by every command (`--name VALUE`, `--name=VALUE`, flags) and formatted into the usage texts.
#pragma once

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scorch::cli {

/// One option of a command line.
struct Option {
    std::string_view shortName = {}; ///< "-o", or empty
    std::string_view longName = {};  ///< "--output", or empty; the option's key in `Args`
    std::string_view value = {};     ///< the value's name in the usage ("OUT"); empty for a flag
    std::string_view help = {};      ///< usage text, further lines indented to the help column; empty: hidden
    std::string_view needs = "a value"; ///< the value is missing: "<option as typed> needs <needs>"
    std::string_view alias = {};        ///< a hidden second long name ("--event-filter")
    std::string_view missing = {}; ///< the whole message for a missing value, instead of the one of `needs`

    std::string_view key() const { return longName.empty() ? shortName : longName; }
    bool named(std::string_view name) const {
        return !name.empty() && (name == shortName || name == longName || name == alias);
    }
};

/// -h, --help: every command has it; parsing stops there (`Args::help`).
extern const Option kHelpOption;

/// The parsed command line of one command: options by key (`Option::key`), then the operands.
class Args {
public:
    bool has(std::string_view key) const { return m_values.find(key) != m_values.end(); }
    /// The last value given, or "" when the option is absent.
    const std::string& value(std::string_view key) const;
    /// Every value given, in order (repeatable options).
    const std::vector<std::string>& values(std::string_view key) const;

    void add(std::string_view key, std::string value) {
        m_inOrder.emplace_back(key, value);
        m_values[std::string(key)].push_back(std::move(value));
    }
    /// Every option given as (key, value), in command-line order (for options whose order matters).
    const std::vector<std::pair<std::string, std::string>>& inOrder() const { return m_inOrder; }

    std::vector<std::string> operands; ///< files (or, for `record`, the command to launch)
    bool help = false;                 ///< -h/--help was given (parsing stopped there)

private:
    std::map<std::string, std::vector<std::string>, std::less<>> m_values;
    std::vector<std::pair<std::string, std::string>> m_inOrder;
};

/// How operands end the options.
struct OperandRules {
    std::size_t maxOperands = SIZE_MAX; ///< more operands: "<tooMany>"
    std::string_view tooMany = {};
    /// The first operand and everything after it (or after `--`) are operands, options included
    /// (`record -- CMD -x`, `--diff A B FILE...`).
    bool operandsEndOptions = false;
};

/// Parses `args` against `options` (earlier entries win over later ones with the same name). Returns the
/// error message ("" on success): "<prefix>unknown option X", "X needs ...", the rules' `tooMany`.
std::string parseOptions(std::span<const Option* const> options, std::span<const std::string_view> args,
                         const OperandRules& rules, std::string_view errorPrefix, Args& out);

/// The usage lines of `options`: two spaces, the option with its value, the help from the column `gap`
/// spaces after the longest option; hidden options left out.
std::string formatOptions(std::span<const Option* const> options, std::size_t gap);

} // namespace scorch::cli
