// describeModule: the Symbols report's line on one module, shared by `scorch info` and the window.
#include "scorch/symbolizer.h"

namespace scorch {

std::string describeModule(const ModuleReport& m) {
    std::string text;
    const auto join = [](const std::vector<std::string>& parts) {
        std::string out;
        for (const std::string& p : parts)
            out += (out.empty() ? "" : ", ") + p;
        return out;
    };
    if (m.resolvedPath.empty()) {
        text = m.problem.empty() ? std::string("not found") : m.problem;
        if (!m.searched.empty())
            text += "; searched " + join(m.searched);
        return text;
    }
    if (m.foundBy.empty() || m.foundBy == "recorded path")
        text = m.resolvedPath == m.path ? "at its recorded path" : "read from " + m.resolvedPath;
    else
        text = "found by " + m.foundBy + ": " + m.resolvedPath;
    if (m.buildIdVerified)
        text += "; build-id verified";
    else if (m.buildId.empty())
        text += "; no recorded build-id";
    std::vector<std::string> has, lacks;
    (m.hasSymbols ? has : lacks).push_back("symbols");
    (m.hasDebugInfo ? has : lacks)
        .push_back(m.hasDebugInfo && !m.debugFile.empty() ? "debug info (" + m.debugFile + ")"
                                                          : "debug info");
    (m.hasUnwindInfo ? has : lacks).push_back("unwind info");
    if (m.path == "[kernel.kallsyms]" || m.path.ends_with(".map"))
        lacks.clear(), has = {m.hasSymbols ? "symbols" : "no symbols"}; // kallsyms or a JIT map: names only
    if (!has.empty())
        text += "; " + join(has);
    if (!lacks.empty())
        text += "; no " + join(lacks);
    if (m.addresses > 0 && m.unresolved > 0)
        text += "; " + std::to_string(m.unresolved) + " of " + std::to_string(m.addresses) +
                " addresses without a function name";
    return text;
}

} // namespace scorch
