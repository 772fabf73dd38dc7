// Folded ("collapsed") stacks importer: `frame;frame;...;frame COUNT` per line, or the differential form
// `stack COUNT_BEFORE COUNT_AFTER`. Counts may be integers or decimals.
#include "import/text/textimporters.h"
#include "util/textutil.h"

#include <string>

namespace scorch::detail {

namespace {

/// Parses "123", "-4", "0.25", "20." into a fixed-point value with `decimals` fraction digits (up to 9). A
/// trailing dot ("20.") is a whole number, as Perl's and Rust's number parsing read it; "." alone is not.
bool parseCount(std::string_view s, int64_t& whole, int64_t& frac, int& decimals) {
    bool negative = false;
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        negative = s[0] == '-';
        s.remove_prefix(1);
    }
    const std::size_t dot = s.find('.');
    const std::string_view w = s.substr(0, dot);
    std::string_view f = dot == std::string_view::npos ? std::string_view{} : s.substr(dot + 1);
    if (dot != std::string_view::npos && f.empty() && w.empty())
        return false;
    if (!parseInt(w.empty() && !f.empty() ? std::string_view("0") : w, whole))
        return false;
    if (!f.empty() && !allDigits(f))
        return false;
    while (f.size() > 1 && f.back() == '0')
        f.remove_suffix(1);
    if (f.size() > 9)
        f = f.substr(0, 9);
    frac = 0;
    parseInt(f.empty() ? std::string_view("0") : f, frac);
    decimals = f == "0" ? 0 : static_cast<int>(f.size());
    if (decimals == 0)
        frac = 0;
    if (negative) {
        whole = -whole;
        frac = -frac;
    }
    return true;
}

class FoldedParser final : public ChunkParser {
public:
    FoldedParser(bool differential, std::size_t maxDepth)
        : m_differential(differential)
        , m_maxDepth(maxDepth) {}

    uint64_t parse(const Chunk& chunk, TreeBuilder& builder, Diagnostics& diagnostics) override {
        if (!m_ready) {
            builder.setPosition(0);
            if (m_differential) {
                m_types[0] = builder.costType("before", CostUnit::Count);
                m_types[1] = builder.costType("after", CostUnit::Count);
            } else {
                m_types[0] = builder.costType("samples", CostUnit::Count);
            }
            m_thread = builder.thread("", -1, -1);
            m_ready = true;
        }
        builder.setPosition(chunk.index << 32);
        return forEachLine(chunk, diagnostics, [&](std::string_view line, uint64_t lineNo) {
            parseLine(line, lineNo, builder, diagnostics);
        });
    }

private:
    void parseLine(std::string_view line, uint64_t lineNo, TreeBuilder& builder, Diagnostics& diag) {
        line = rtrim(line);
        if (line.empty())
            return;
        const int columns = m_differential ? 2 : 1;
        CostValue costs[2];
        std::string_view stack = line;
        for (int c = columns; c-- > 0;) {
            const std::size_t sp = stack.find_last_of(" \t");
            int64_t whole = 0, frac = 0;
            int decimals = 0;
            if (sp == std::string_view::npos || !parseCount(stack.substr(sp + 1), whole, frac, decimals)) {
                diag.warn(lineNo, "not a folded stack line (expected `frames COUNT`): " +
                                      std::string(line.substr(0, 80)));
                return;
            }
            const uint32_t type = m_types[c];
            builder.ensureDecimals(type, decimals);
            const int d = builder.decimals(type);
            int64_t value = mulCost(whole, pow10(d));
            addCost(value, frac * pow10(d - decimals));
            costs[c] = {type, value};
            // exactly one blank before each count, as flamegraph.pl reads it (`(.*)\s+?(\d+)`): a frame name
            // ending in a space (perf's " " symbol: stackcollapse-perf.pl writes `write0;  3`) reads back
            // whole
            stack = stack.substr(0, sp);
        }
        if (stack.empty()) {
            diag.warn(lineNo, "folded line without frames");
            return;
        }
        m_frames.clear();
        std::size_t start = 0;
        for (;;) {
            const std::size_t semi = stack.find(';', start);
            const std::string_view name =
                stack.substr(start, semi == std::string_view::npos ? std::string_view::npos : semi - start);
            m_frames.push_back(frameFor(name, lineNo, builder, diag));
            if (semi == std::string_view::npos)
                break;
            start = semi + 1;
        }
        if (m_frames.size() > m_maxDepth) { // keep the innermost frames, like the perf script importer
            diag.warn(lineNo, "stack deeper than " + std::to_string(m_maxDepth) +
                                  " frames; the outermost callers were dropped");
            m_frames.erase(m_frames.begin(), m_frames.end() - static_cast<std::ptrdiff_t>(m_maxDepth));
        }
        builder.addSample(m_thread, m_frames, {costs, static_cast<std::size_t>(columns)});
    }

    FrameId frameFor(std::string_view name, uint64_t lineNo, TreeBuilder& builder, Diagnostics& diag) {
        const StringId id = m_names.intern(name);
        if (id.value >= m_cache.size()) {
            m_cache.resize(id.value + 1);
            if (!isValidUtf8(name))
                diag.warn(lineNo, "invalid UTF-8 in a frame name (kept as bytes)");
            m_cache[id.value] = frameFromFoldedName(name, builder);
        }
        return m_cache[id.value];
    }

    /// Names keep their annotation suffix, but it also tells the frame's kind.
    static FrameId frameFromFoldedName(std::string_view name, TreeBuilder& builder) {
        FrameKind kind = FrameKind::Native;
        if (name.ends_with("_[k]"))
            kind = FrameKind::Kernel;
        else if (name.ends_with("_[j]"))
            kind = FrameKind::Jit;
        else if (name.ends_with("_[i]"))
            kind = FrameKind::Inlined;
        else if (name.starts_with('[') && name.ends_with(']'))
            kind = FrameKind::Unknown;
        return builder.frame(name, {}, kind);
    }

    bool m_differential;
    std::size_t m_maxDepth;
    bool m_ready = false;
    uint32_t m_types[2] = {0, 0};
    uint32_t m_thread = 0;
    StringTable m_names;
    std::vector<FrameId> m_cache;
    std::vector<FrameId> m_frames;
};

/// "12", "-3", "0.25", "20.": what the sniffer takes for a count (the parser is more lenient).
bool looksLikeCount(std::string_view tok) {
    if (!tok.empty() && tok[0] == '-')
        tok.remove_prefix(1);
    const std::size_t dot = tok.find('.');
    if (dot == std::string_view::npos)
        return allDigits(tok);
    const std::string_view fraction = tok.substr(dot + 1);
    return allDigits(tok.substr(0, dot)) && (fraction.empty() || allDigits(fraction));
}

/// Cuts the last blank-separated token off `line`; empty when there is none.
std::string_view lastToken(std::string_view& line) {
    const std::size_t sp = line.find_last_of(" \t");
    if (sp == std::string_view::npos)
        return {};
    const std::string_view tok = line.substr(sp + 1);
    line = rtrim(line.substr(0, sp));
    return tok;
}

/// Mostly folded lines (four in five of the lines that are not perf script), all with two counts or not all.
bool sniffFoldedLines(std::string_view head, bool differential) {
    int folded = 0, twoCounts = 0, other = 0;
    forEachHeadLine(head, [&](std::string_view line) {
        if (looksLikePerfScriptLine(line))
            return;
        const int counts = foldedCounts(line);
        folded += counts > 0;
        twoCounts += counts > 1;
        other += counts == 0;
    });
    return folded > 0 && folded >= 4 * other && (twoCounts == folded) == differential;
}

Profile importFoldedLines(ByteSource& source, std::string head, const std::string& name,
                          const ImportOptions& options, const ImportControl& control, bool differential) {
    return importLines(source, std::move(head), name, options, control,
                       differential ? Format::FoldedDiff : Format::Folded, Boundary::Line, [&] {
                           return std::make_unique<FoldedParser>(
                               differential, std::max<std::size_t>(options.maxStackDepth, 1));
                       });
}

} // namespace

int foldedCounts(std::string_view line) {
    const std::string_view last = lastToken(line);
    if (last.empty() || !looksLikeCount(last) || line.empty())
        return 0;
    const std::string_view previous = lastToken(line);
    return !previous.empty() && looksLikeCount(previous) && !line.empty() ? 2 : 1;
}

bool sniffFolded(std::string_view head) {
    return sniffFoldedLines(head, false);
}

bool sniffFoldedDiff(std::string_view head) {
    return sniffFoldedLines(head, true);
}

Profile importFolded(ByteSource& source, std::string head, const std::string& name,
                     const ImportOptions& options, const ImportControl& control) {
    return importFoldedLines(source, std::move(head), name, options, control, false);
}

Profile importFoldedDiff(ByteSource& source, std::string head, const std::string& name,
                         const ImportOptions& options, const ImportControl& control) {
    return importFoldedLines(source, std::move(head), name, options, control, true);
}

} // namespace scorch::detail
