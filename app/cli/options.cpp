#include "cli/options.h"

#include <algorithm>

namespace scorch::cli {

const Option kHelpOption{.shortName = "-h", .longName = "--help", .value = {}, .help = "show this help"};

const std::string& Args::value(std::string_view key) const {
    static const std::string kNone;
    const auto it = m_values.find(key);
    return it == m_values.end() ? kNone : it->second.back();
}

const std::vector<std::string>& Args::values(std::string_view key) const {
    static const std::vector<std::string> kNone;
    const auto it = m_values.find(key);
    return it == m_values.end() ? kNone : it->second;
}

namespace {

/// The option `arg` names, with its inline value after `=` (`--name=VALUE`); nullptr when there is none.
const Option* find(std::span<const Option* const> options, std::string_view arg,
                   std::string_view& inlineValue, bool& hasInline) {
    for (const Option* o : options)
        if (o->named(arg)) {
            hasInline = false;
            return o;
        }
    const std::size_t eq = arg.find('=');
    if (eq == std::string_view::npos)
        return nullptr;
    for (const Option* o : options)
        if (o->named(arg.substr(0, eq))) {
            hasInline = true;
            inlineValue = arg.substr(eq + 1);
            return o;
        }
    return nullptr;
}

std::string label(const Option& o) {
    std::string text(o.shortName);
    if (!o.shortName.empty() && !o.longName.empty())
        text += ", ";
    text += o.longName;
    if (!o.value.empty())
        text.append(" ").append(o.value);
    return text;
}

} // namespace

std::string parseOptions(std::span<const Option* const> options, std::span<const std::string_view> args,
                         const OperandRules& rules, std::string_view errorPrefix, Args& out) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view a = args[i];
        if (rules.operandsEndOptions && a == "--") {
            out.operands.insert(out.operands.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                                args.end());
            break;
        }
        if (a.size() > 1 && a[0] == '-') {
            std::string_view inlineValue;
            bool hasInline = false;
            const Option* o = find(options, a, inlineValue, hasInline);
            if (!o || (hasInline && o->value.empty()))
                return std::string(errorPrefix) + "unknown option " + std::string(a);
            if (o == &kHelpOption) {
                out.help = true;
                return {};
            }
            if (o->value.empty())
                out.add(o->key(), {});
            else if (hasInline)
                out.add(o->key(), std::string(inlineValue));
            else if (i + 1 < args.size())
                out.add(o->key(), std::string(args[++i]));
            else
                return o->missing.empty() ? std::string(a) + " needs " + std::string(o->needs)
                                          : std::string(o->missing);
            continue;
        }
        if (rules.operandsEndOptions) {
            out.operands.insert(out.operands.end(), args.begin() + static_cast<std::ptrdiff_t>(i),
                                args.end());
            break;
        }
        if (out.operands.size() >= rules.maxOperands)
            return std::string(rules.tooMany);
        out.operands.emplace_back(a);
    }
    return {};
}

std::string formatOptions(std::span<const Option* const> options, std::size_t gap) {
    std::size_t width = 0;
    for (const Option* o : options)
        if (!o->help.empty())
            width = std::max(width, label(*o).size());
    const std::size_t column = 2 + width + gap;
    std::string text;
    for (const Option* o : options) {
        if (o->help.empty())
            continue;
        std::string line = "  " + label(*o);
        line.resize(column, ' ');
        text += line;
        for (const char c : o->help) {
            text += c;
            if (c == '\n')
                text.append(column, ' ');
        }
        text += '\n';
    }
    return text;
}

} // namespace scorch::cli
