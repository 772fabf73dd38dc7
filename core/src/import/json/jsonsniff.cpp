// Which JSON profile format a document is, from the member names near its start (no full parse: the head
// may end anywhere). Only keys are looked at, never string values, so a frame named "traceEvents" cannot
// fool it.
#include "import/json/jsonimporters.h"

#include <set>

namespace scorch::detail {

namespace {

/// Member names at depth 1 (the top-level object's) and depth 2/3 (inside its first values) of the head.
struct Keys {
    std::set<std::string, std::less<>> top, nested;
    bool firstElementIsObject = false; // for an array document: its first element is an object
};

Keys scanKeys(std::string_view head) {
    Keys keys;
    std::size_t depth = 0;
    bool topIsArray = false;
    std::string last;
    for (std::size_t i = 0; i < head.size() && keys.top.size() + keys.nested.size() < 200; ++i) {
        const char c = head[i];
        if (c == '"') {
            std::size_t j = i + 1;
            std::string s;
            while (j < head.size() && head[j] != '"') {
                if (head[j] == '\\')
                    ++j;
                else if (s.size() < 64)
                    s.push_back(head[j]);
                ++j;
            }
            if (j >= head.size())
                break;
            std::size_t k = j + 1;
            while (k < head.size() &&
                   (head[k] == ' ' || head[k] == '\n' || head[k] == '\r' || head[k] == '\t'))
                ++k;
            if (k < head.size() && head[k] == ':') {
                const std::size_t keyDepth = topIsArray ? depth - 1 : depth;
                if (keyDepth == 1)
                    keys.top.insert(s);
                else if (keyDepth <= 4)
                    keys.nested.insert(s);
            }
            i = j;
        } else if (c == '{' || c == '[') {
            if (depth == 0)
                topIsArray = c == '[';
            else if (depth == 1 && topIsArray && c == '{' && keys.top.empty())
                keys.firstElementIsObject = true;
            ++depth;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                break;
            --depth;
        }
    }
    return keys;
}

} // namespace

Format sniffJson(std::string_view head) {
    while (!head.empty() &&
           (head.front() == ' ' || head.front() == '\n' || head.front() == '\r' || head.front() == '\t'))
        head.remove_prefix(1);
    if (head.empty())
        return Format::Json;
    const Keys keys = scanKeys(head);
    auto top = [&](std::string_view k) {
        return keys.top.count(k) > 0;
    };
    auto nested = [&](std::string_view k) {
        return keys.nested.count(k) > 0;
    };
    if (head.front() == '[') {
        std::string_view rest = head.substr(1);
        while (!rest.empty() &&
               (rest.front() == ' ' || rest.front() == '\n' || rest.front() == '\r' || rest.front() == '\t'))
            rest.remove_prefix(1);
        if (rest.empty() || rest.front() == ']')
            return Format::ChromeTrace; // an empty (or only begun) trace: the importer says "no samples"
        if (keys.firstElementIsObject && (top("ph") || (top("ts") && top("pid"))))
            return Format::ChromeTrace;
        return Format::Json;
    }
    if (top("traceEvents"))
        return Format::ChromeTrace;
    if ((top("nodes") || top("head")) &&
        (nested("callFrame") || nested("functionName") || top("samples") || top("timeDeltas")))
        return Format::ChromeCpuProfile;
    if (top("samples") && top("stackFrames"))
        return Format::ChromeTrace; // the trace object form with only sampled stacks
    if (top("name") && (top("children") || top("value")))
        return Format::D3Json;
    return Format::Json;
}

} // namespace scorch::detail
