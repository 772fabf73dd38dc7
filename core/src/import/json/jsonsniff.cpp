// The sniffers of the JSON formats: which JSON profile format a document is, from the member names near its
// start (no full parse: the head may end anywhere). Only keys are looked at, never string values, so a frame
// named "traceEvents" cannot fool it. speedscope alone is told by its "$schema" URL.
#include "import/json/jsonimporters.h"
#include "util/textutil.h"

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

/// Which kind of JSON document `head` starts (a Format::Json* value, or Format::Json when unknown).
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

/// The JSON format of the head; Format::Unknown when it does not start like JSON (after white space and a
/// UTF-8 byte order mark: an object, or an array that is not a folded frame like "[unknown];...").
Format jsonKind(std::string_view head) {
    std::string_view body = ltrim(head);
    if (body.starts_with("\xef\xbb\xbf"))
        body = ltrim(body.substr(3));
    if (body.starts_with('{')) {
        if (head.find("speedscope.app/file-format-schema") != std::string_view::npos)
            return Format::Speedscope;
        return sniffJson(body);
    }
    if (body.starts_with('[')) {
        const std::string_view next = ltrim(body.substr(1));
        if (next.empty() || std::string_view("{[\"]-0123456789").find(next[0]) != std::string_view::npos)
            return sniffJson(body);
    }
    return Format::Unknown;
}

} // namespace

bool sniffSpeedscope(std::string_view head) {
    return jsonKind(head) == Format::Speedscope;
}

bool sniffChromeCpuProfile(std::string_view head) {
    return jsonKind(head) == Format::ChromeCpuProfile;
}

bool sniffChromeTrace(std::string_view head) {
    return jsonKind(head) == Format::ChromeTrace;
}

bool sniffD3Json(std::string_view head) {
    return jsonKind(head) == Format::D3Json;
}

bool sniffOtherJson(std::string_view head) {
    return jsonKind(head) == Format::Json;
}

Profile refuseOtherJson(ByteSource&, std::string, const std::string& name, const ImportOptions&,
                        const ImportControl&) {
    throw ImportError(name +
                      ": this JSON is none of the JSON formats Scorch reads: speedscope (a \"$schema\" "
                      "naming speedscope), Chrome .cpuprofile (\"nodes\" or \"head\" with "
                      "\"callFrame\"s), Chrome trace events (an array of events with \"ph\", or "
                      "{\"traceEvents\": [...]}) or d3-flame-graph JSON ({\"name\", \"value\", "
                      "\"children\"})");
}

} // namespace scorch::detail
