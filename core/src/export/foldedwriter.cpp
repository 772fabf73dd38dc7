#include "scorch/foldedwriter.h"

#include "export/overlappedoutput.h"
#include "scorch/fileoutput.h"
#include "util/phasetimer.h"

#include <algorithm>
#include <optional>
#include <ostream>

namespace scorch {

std::string foldedText(std::string_view text, bool spacesToUnderscores) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (c == ';')
            out += ':';
        else if (c == ' ' && spacesToUnderscores)
            out += '_';
        else if (u < 0x20 || u == 0x7F) // newline, NUL, CR, ESC...: would end or corrupt the line
            out.append("\\x").append(1, kHex[u >> 4]).append(1, kHex[u & 0xF]);
        else
            out += c;
    }
    return out;
}

std::string foldedFrameName(const Profile& profile, FrameId frame, const FoldedOptions& options) {
    const Frame& f = profile.frames[frame];
    std::string name = foldedText(profile.strings.view(f.name), f.kind == FrameKind::Process);
    auto annotate = [&](std::string_view suffix) {
        if (name.find(suffix) == std::string::npos)
            name += suffix;
    };
    if (f.kind == FrameKind::Inlined)
        annotate("_[i]");
    else if (f.kind == FrameKind::Kernel && options.annotateKernel)
        annotate("_[k]");
    else if (f.kind == FrameKind::Jit && options.annotateJit)
        annotate("_[j]");
    return name;
}

namespace {

constexpr uint32_t kNoThread = UINT32_MAX;

/// One output line before sorting: the stack is the path to `node`, with the root frame replaced by the
/// thread's `comm-PID[/TID]` name when `thread` is set. Lines are sorted without ever materialising all
/// stacks as strings (folded output can be as large as the input), by comparing them segment by segment.
struct Line {
    NodeId node;
    uint32_t thread;
    int64_t a, b;
};

class Writer {
public:
    Writer(const Profile& p, const FoldedOptions& o)
        : m_p(p)
        , m_o(o)
        , m_names(p.frames.size())
        , m_named(p.frames.size(), 0) {}

    void setRootNames(std::vector<std::string> names) {
        m_rootNames = std::move(names);
        for (std::string& n : m_rootNames)
            n += ';';
    }

    /// The frame names of a line, root first; in memory, each is followed by a ';' (so that a name and its
    /// separator are copied as one piece).
    void segments(const Line& l, std::vector<std::string_view>& out) {
        out.clear();
        for (NodeId n = l.node; n != kRootNode; n = m_p.tree.parent(n))
            out.push_back(name(m_p.tree.frame(n)));
        std::reverse(out.begin(), out.end());
        if (l.thread != kNoThread && !out.empty())
            out.front() = rootName(l);
    }

    /// Bytewise comparison of the stacks "seg;seg;...;seg" of two lines (stackcollapse sorts the stack
    /// strings). Fast path: the stacks agree up to the two nodes' lowest common ancestor, so usually the
    /// names of the two frames just below it decide; prefix cases fall back to walking the bytes.
    int compare(const Line& x, const Line& y) {
        if (x.node == y.node && (x.thread == y.thread || rootName(x) == rootName(y)))
            return 0;
        if (x.thread != y.thread && rootName(x) != rootName(y))
            return decide(rootName(x), rootName(y), x, y);
        const CallTree& t = m_p.tree;
        NodeId a = x.node, b = y.node;
        while (t.depth(a) > t.depth(b))
            a = t.parent(a);
        while (t.depth(b) > t.depth(a))
            b = t.parent(b);
        if (a == b) // one stack extends the other: the shorter sorts first
            return t.depth(x.node) < t.depth(y.node) ? -1 : 1;
        while (t.parent(a) != t.parent(b)) {
            a = t.parent(a);
            b = t.parent(b);
        }
        if (t.parent(a) == kRootNode && x.thread != kNoThread) // roots named by thread; same name, other comm
            return compareBytes(x, y);
        return decide(name(t.frame(a)), name(t.frame(b)), x, y);
    }

    void write(const Line& l, std::string& buffer) {
        segments(l, m_sx);
        for (std::size_t i = 0; i < m_sx.size(); ++i) // each name with the ';' after it in memory
            buffer.append(m_sx[i].data(), m_sx[i].size() + (i + 1 < m_sx.size()));
    }

private:
    std::string_view rootName(const Line& l) const {
        if (l.thread == kNoThread)
            return {};
        const std::string& n = m_rootNames[l.thread];
        return {n.data(), n.size() - 1};
    }
    /// Two different names at the same position decide unless one is a prefix of the other.
    int decide(std::string_view p, std::string_view q, const Line& x, const Line& y) {
        const std::size_t n = std::min(p.size(), q.size());
        const int c = p.substr(0, n).compare(q.substr(0, n));
        if (c != 0)
            return c < 0 ? -1 : 1;
        return compareBytes(x, y);
    }
    int compareBytes(const Line& x, const Line& y) {
        segments(x, m_sx);
        segments(y, m_sy);
        std::size_t i = 0, j = 0, oi = 0, oj = 0;
        for (;;) {
            const int cx = byteAt(m_sx, i, oi), cy = byteAt(m_sy, j, oj);
            if (cx != cy)
                return cx < cy ? -1 : 1;
            if (cx < 0)
                return 0;
            advance(m_sx, i, oi);
            advance(m_sy, j, oj);
        }
    }
    /// (stored with a ';' after it: a segment's view is followed by its separator, see segments())
    std::string_view name(FrameId f) {
        if (!m_named[f.value]) {
            m_names[f.value] = foldedFrameName(m_p, f, m_o) + ';';
            m_named[f.value] = 1;
        }
        const std::string& n = m_names[f.value];
        return {n.data(), n.size() - 1};
    }
    static int byteAt(const std::vector<std::string_view>& s, std::size_t i, std::size_t o) {
        if (i >= s.size())
            return -1; // the end of a stack sorts before any byte
        if (o >= s[i].size())
            return i + 1 < s.size() ? ';' : -1;
        return static_cast<unsigned char>(s[i][o]);
    }
    static void advance(const std::vector<std::string_view>& s, std::size_t& i, std::size_t& o) {
        if (o >= s[i].size()) {
            ++i;
            o = 0;
        } else {
            ++o;
        }
    }

    const Profile& m_p;
    const FoldedOptions& m_o;
    std::vector<std::string> m_names;
    std::vector<char> m_named;
    std::vector<std::string> m_rootNames;
    std::vector<std::string_view> m_sx, m_sy;
};

/// A line's summed counts and how to write them.
struct LineCounts {
    int64_t sum, sum2;
    int decimals, decimals2;
    bool two;
};

int64_t rescale(int64_t v, int from, int to) {
    return to >= from ? mulCost(v, pow10(to - from)) : v / pow10(from - to);
}

/// The lines of the folded output in order, identical stacks summed: emit(writer, line, counts) for each
/// with a non-zero count, until it returns false.
/// (The names the writer gives stay valid as long as it lives.)
template <typename Emit>
void forEachFoldedLine(const Profile& p, const FoldedOptions& o, Writer& writer, Emit&& emit) {
    if (o.costType < 0 || static_cast<std::size_t>(o.costType) >= p.costTypes.size())
        return;
    const auto type = static_cast<std::size_t>(o.costType);
    const bool two = o.secondCostType >= 0 && static_cast<std::size_t>(o.secondCostType) < p.costTypes.size();
    const bool extra = o.alwaysIncludedCostType >= 0 && o.alwaysIncludedCostType != o.costType &&
                       static_cast<std::size_t>(o.alwaysIncludedCostType) < p.costTypes.size();
    auto valueOf = [&](const std::vector<std::vector<int64_t>>& costs, std::size_t i) {
        int64_t v = costs[type][i];
        if (extra) {
            const auto x = static_cast<std::size_t>(o.alwaysIncludedCostType);
            addCost(v, rescale(costs[x][i], p.costTypes[x].decimals, p.costTypes[type].decimals));
        }
        return v;
    };
    auto secondOf = [&](const std::vector<std::vector<int64_t>>& costs, std::size_t i) -> int64_t {
        return two ? costs[static_cast<std::size_t>(o.secondCostType)][i] : 0;
    };

    std::vector<Line> lines;
    bool processRoots = false;
    p.tree.forEachChild(kRootNode, [&](NodeId c) {
        processRoots = processRoots || p.frames[p.tree.frame(c)].kind == FrameKind::Process;
    });
    if ((o.includePid || o.includeTid) && processRoots) {
        // the root frame becomes comm-PID[/TID] of each sample's thread
        std::vector<std::string> rootNames;
        for (const ThreadInfo& th : p.threads) {
            std::string name = th.name + "-" + (th.pid < 0 ? std::string("?") : std::to_string(th.pid));
            if (o.includeTid)
                name += "/" + std::to_string(th.tid);
            rootNames.push_back(foldedText(name, true));
        }
        writer.setRootNames(std::move(rootNames));
        const ThreadCosts& tc = p.threadCosts;
        for (std::size_t e = 0; e < tc.node.size(); ++e) {
            const int64_t v = valueOf(tc.cost, e), v2 = secondOf(tc.cost, e);
            if ((v || v2) && tc.node[e] != kRootNode)
                lines.push_back({tc.node[e], tc.thread[e], v, v2});
        }
    } else {
        std::vector<std::vector<int64_t>> self;
        for (std::size_t t = 0; t < p.tree.costTypeCount(); ++t)
            self.push_back(p.tree.selfCosts(t));
        for (NodeId n = 1; n < p.tree.size(); ++n) {
            const int64_t v = valueOf(self, n), v2 = secondOf(self, n);
            if (v || v2)
                lines.push_back({n, kNoThread, v, v2});
        }
    }
    // Lines were collected in preorder, which is already nearly the bytewise order of the stacks: a frame's
    // own line and subtree come before a sibling whose name extends its name with a byte below ';' ("f",
    // "f;g" before "f(int)"), and roots renamed per thread reorder whole subtrees. So the lines are sorted
    // runs: found in one pass, merged pairwise (stable), about log2(runs) compares per line instead of a
    // full sort's log2(lines).
    detail::trace("folded output: lines collected");
    const auto less = [&](const Line& x, const Line& y) {
        return writer.compare(x, y) < 0;
    };
    std::vector<std::size_t> runs{0};
    for (std::size_t i = 1; i < lines.size(); ++i)
        if (less(lines[i], lines[i - 1]))
            runs.push_back(i);
    runs.push_back(lines.size());
    const bool sorted = runs.size() <= 2;
    const auto at = [&](std::size_t i) {
        return lines.begin() + static_cast<std::ptrdiff_t>(i);
    };
    while (runs.size() > 2) { // runs[k], runs[k + 1]: where run k begins and ends
        std::vector<std::size_t> merged{0};
        std::size_t k = 0;
        for (; k + 2 < runs.size(); k += 2) {
            std::inplace_merge(at(runs[k]), at(runs[k + 1]), at(runs[k + 2]), less);
            merged.push_back(runs[k + 2]);
        }
        if (k + 1 < runs.size()) // an odd run out: kept for the next pass
            merged.push_back(runs.back());
        runs.swap(merged);
    }

    detail::trace(sorted ? "folded output: in order already" : "folded output: sorted");
    const int decimals = p.costTypes[type].decimals;
    const int decimals2 = two ? p.costTypes[static_cast<std::size_t>(o.secondCostType)].decimals : 0;
    for (std::size_t i = 0; i < lines.size();) {
        int64_t sum = 0, sum2 = 0;
        std::size_t j = i;
        for (; j < lines.size() && (j == i || writer.compare(lines[i], lines[j]) == 0); ++j) {
            addCost(sum, lines[j].a);
            addCost(sum2, lines[j].b);
        }
        if ((sum || sum2) && !emit(writer, lines[i], LineCounts{sum, sum2, decimals, decimals2, two}))
            return;
        i = j;
    }
    detail::trace("folded output: formatted");
}

/// Appends a line's end, " COUNT[ COUNT2]\n", to `out`.
void appendTail(const LineCounts& c, std::string& out) {
    out.push_back(' ');
    out += formatCostValue(c.sum, c.decimals);
    if (c.two) {
        out.push_back(' ');
        out += formatCostValue(c.sum2, c.decimals2);
    }
    out.push_back('\n');
}

} // namespace

void writeFolded(const Profile& p, const FoldedOptions& o, std::ostream& out) {
    Writer names(p, o);
    constexpr std::size_t kBuffer = std::size_t(1) << 20;
    std::string buffer;
    buffer.reserve(kBuffer);
    // Into a file (the command line's standard output when it is one, AtomicFile's temporary file) each
    // formatted MiB is written at once by this thread, while it is still in this core's caches (the stream
    // buffer passes blocks this big straight to write()). `scorch collapse fp-medium.txt > FILE` (2 vCPU PVM
    // guest, 2026-12-07): the output phase 165 -> 139 ms against writev() of the frame names (no copy before
    // the kernel's, but 1024 pieces of ~350 bytes a call) and 158 ms with a second thread writing each buffer
    // while this one formats the next (the cache lines then move between the cores). Elsewhere (a pipe, a
    // string) that second thread writes: into a pipe its copy overlaps the reader's.
    std::optional<detail::OverlappedOutput> overlapped;
    if (!dynamic_cast<FileOutputBuffer*>(out.rdbuf()))
        overlapped.emplace(out, kBuffer);
    forEachFoldedLine(p, o, names, [&](Writer& writer, const Line& line, const LineCounts& counts) {
        writer.write(line, buffer);
        appendTail(counts, buffer);
        if (buffer.size() <= kBuffer - 65536)
            return true;
        if (overlapped) {
            // (the stream is the writer thread's now: its errors come back from here)
            overlapped->put(buffer);
            return true;
        }
        out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        buffer.clear();
        return static_cast<bool>(out); // (nothing is written after a failed write)
    });
    if (overlapped)
        overlapped->finish(buffer);
    else
        out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    detail::trace("folded output: written");
}

} // namespace scorch
