#include "cli/query.h"

#include "scorch/safetext.h"
#include "scorch/sandwich.h"

#include <cstdio>
#include <iostream>
#include <regex>
#include <set>

namespace scorch::cli {

namespace {

/// Length of the valid UTF-8 sequence at s[i], or 0.
std::size_t utf8Length(std::string_view s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    uint32_t min = 0;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0) {
        n = 2;
        min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
        n = 3;
        min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
        n = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (i + n > s.size())
        return 0;
    uint32_t cp = c & (0x7f >> n);
    for (std::size_t k = 1; k < n; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (b & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

} // namespace

std::string jsonString(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "\"";
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7f) {
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        } else if (const std::size_t n = utf8Length(s, i); n == 0) {
            out += "\\ufffd";
        } else {
            out.append(s.substr(i, n));
            i += n;
            continue;
        }
        ++i;
    }
    return out + "\"";
}

std::vector<FrameId> findFunction(const Profile& p, const std::string& function, std::string& error) {
    std::vector<FrameId> exact;
    std::vector<std::string> names(p.frames.size());
    for (uint32_t f = 1; f < p.frames.size(); ++f) {
        names[f] = matchName(p, FrameId{f});
        if (names[f] == function)
            exact.push_back(FrameId{f});
    }
    if (!exact.empty())
        return exact;
    std::regex re;
    try {
        re = std::regex(function, std::regex::ECMAScript);
    } catch (const std::regex_error&) {
        error = p.meta.source + ": no function named \"" + escapeText(function) + "\"";
        return {};
    }
    std::set<std::string> matched;
    std::vector<FrameId> found;
    for (uint32_t f = 1; f < p.frames.size(); ++f)
        if (p.frames[FrameId{f}].kind != FrameKind::Process && std::regex_search(names[f], re)) {
            matched.insert(names[f]);
            found.push_back(FrameId{f});
        }
    if (matched.size() == 1)
        return found;
    if (matched.empty()) {
        error = p.meta.source + ": no function named or matching \"" + escapeText(function) + "\"";
        return {};
    }
    error = p.meta.source + ": \"" + escapeText(function) + "\" matches " + std::to_string(matched.size()) +
            " functions:";
    std::size_t listed = 0;
    for (const std::string& name : matched) {
        if (listed++ == 5) {
            error += " ...";
            break;
        }
        error += (listed > 1 ? ", " : " ") + escapeText(name);
    }
    error += " (give the whole name, or anchor the regex with ^...$)";
    return {};
}

std::string costNumber(const Profile& p, std::size_t type, int64_t value) {
    return formatCostValue(value, p.costTypes[type].decimals);
}

std::string percentOf(int64_t value, int64_t whole) {
    if (whole == 0)
        return {};
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", 100.0 * static_cast<double>(value) / static_cast<double>(whole));
    return buf;
}

void writeJsonHeader(std::ostream& o, std::string_view command, const Profile& p, std::size_t type) {
    const CostType& t = p.costTypes[type];
    o << "{\n  \"schema\": " << jsonString(kQuerySchema) << ",\n  \"command\": " << jsonString(command)
      << ",\n  \"file\": " << jsonString(p.meta.source) << ",\n  \"event\": {\"name\": " << jsonString(t.name)
      << ", \"unit\": " << jsonString(costUnitName(t.unit))
      << "},\n  \"grandTotal\": " << costNumber(p, type, p.tree.grandTotal(type));
}

namespace {

std::string nodeModule(const Profile& p, const CallTree& tree, NodeId n) {
    return std::string(p.strings.view(p.frames[tree.frame(n)].module));
}

/// Calls visit(node, depth) for the tree's nodes in preorder, children by descending total cost of `type`
/// (no recursion: trees can be as deep as the deepest stack).
template <typename Visit>
void walkByCost(const CallTree& tree, std::size_t type, Visit&& visit) {
    std::vector<std::pair<NodeId, uint32_t>> stack;
    const std::vector<NodeId> roots = tree.childrenByCost(kRootNode, type);
    for (auto it = roots.rbegin(); it != roots.rend(); ++it)
        stack.emplace_back(*it, 0);
    while (!stack.empty()) {
        const auto [n, depth] = stack.back();
        stack.pop_back();
        visit(n, depth);
        const std::vector<NodeId> children = tree.childrenByCost(n, type);
        for (auto it = children.rbegin(); it != children.rend(); ++it)
            stack.emplace_back(*it, depth + 1);
    }
}

} // namespace

void writeTreeText(std::ostream& o, const Profile& p, const CallTree& tree, std::size_t type, int64_t whole) {
    walkByCost(tree, type, [&](NodeId n, uint32_t depth) {
        std::string line = percentOf(tree.total(type, n), whole);
        line.insert(0, line.size() < 8 ? 8 - line.size() : 0, ' ');
        std::string value = costNumber(p, type, tree.total(type, n));
        value.insert(0, value.size() < 12 ? 12 - value.size() : 0, ' ');
        line += value + "  " + std::string(2 * depth, ' ') + escapeText(matchName(p, tree.frame(n)));
        if (const std::string module = nodeModule(p, tree, n); !module.empty())
            line += "  [" + escapeText(module) + "]";
        o << line << '\n';
    });
}

void writeTreeJson(std::ostream& o, const Profile& p, const CallTree& tree, std::size_t type) {
    // preorder with depths: before each node, close the objects of the nodes left behind
    uint32_t open = 0;            // node objects whose children array is still open
    std::vector<char> hasItem{0}; // per open array (the top one first): has it an element yet
    o << "[";
    walkByCost(tree, type, [&](NodeId n, uint32_t depth) {
        for (; open > depth; --open) {
            o << "]}";
            hasItem.pop_back();
        }
        if (hasItem[depth])
            o << ",";
        hasItem[depth] = 1;
        o << "\n"
          << std::string(4 + 2 * depth, ' ') << "{\"name\": " << jsonString(matchName(p, tree.frame(n)))
          << ", \"module\": " << jsonString(nodeModule(p, tree, n))
          << ", \"self\": " << costNumber(p, type, tree.self(type, n))
          << ", \"total\": " << costNumber(p, type, tree.total(type, n)) << ", \"children\": [";
        ++open;
        hasItem.push_back(0);
    });
    for (; open > 0; --open)
        o << "]}";
    o << "]";
}

int withFunction(
    const Command& command, const Args& args,
    const std::function<int(Profile&, std::size_t type, const std::vector<FrameId>& frames)>& body) {
    if (args.operands.size() < 2)
        return usageError(command, std::string(command.name) + ": give FILE and FUNCTION");
    const ProfileArgs profile = profileArgs(args);
    return withProfile(args.operands[0], profile, [&](Profile& p) {
        CostChoice choice;
        if (const std::string error = chooseCostType(p, profile.event, choice); !error.empty())
            return fail(error);
        std::string error;
        const std::vector<FrameId> frames = findFunction(p, args.operands[1], error);
        if (frames.empty())
            return fail(error);
        return body(p, static_cast<std::size_t>(choice.type), frames);
    });
}

int runSandwich(const Command& command, const Args& args, bool callers) {
    const bool json = args.has("--json");
    return withFunction(command, args, [&](Profile& p, std::size_t type, const std::vector<FrameId>& frames) {
        const Sandwich s = sandwich(p, p.tree, frames.front(), std::span(frames).subspan(1));
        const CallTree& tree = callers ? s.callers : s.callees;
        const int64_t whole = p.tree.grandTotal(type);
        const std::string name = matchName(p, frames.front());
        std::ostream& o = std::cout;
        if (json) {
            writeJsonHeader(o, command.name, p, type);
            o << ",\n  \"function\": {\"name\": " << jsonString(name)
              << ", \"module\": " << jsonString(p.strings.view(p.frames[frames.front()].module))
              << ", \"self\": " << costNumber(p, type, s.self[type])
              << ", \"total\": " << costNumber(p, type, s.total[type]) << "},\n  \"tree\": ";
            writeTreeJson(o, p, tree, type);
            o << "\n}\n";
        } else {
            o << "# " << (callers ? "callers of " : "callees of ") << escapeText(name) << ": self "
              << costNumber(p, type, s.self[type]) << " (" << percentOf(s.self[type], whole) << "), total "
              << costNumber(p, type, s.total[type]) << " (" << percentOf(s.total[type], whole) << ") of "
              << costNumber(p, type, whole) << " " << escapeText(p.costTypes[type].name) << "\n";
            o << "# total%       total  "
              << (callers ? "function, then its callers outward\n" : "function, then what it calls\n");
            writeTreeText(o, p, tree, type, whole);
        }
        return finishStandardOutput();
    });
}

} // namespace scorch::cli
