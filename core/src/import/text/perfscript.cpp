// perf script text importer. Every rule about names follows FlameGraph's stackcollapse-perf.pl (the version
// that counts the last sample of a file) so that `scorch collapse` reproduces its output; the places where
// Scorch deliberately does better are marked "Deliberate". The lines' grammar: perfscriptlines.h.
#include "import/text/perfscriptlines.h"
#include "import/text/textimporters.h"
#include "model/offcpu.h"
#include "util/textutil.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace scorch::detail {

namespace {

using namespace perfscript;

/// Cost type for samples whose event line names no event (perf script -F without `event`).
constexpr std::string_view kUnnamedEvent = "samples";

/// Off-CPU intervals that cross chunk boundaries: what each chunk left open (switch-outs not followed by a
/// switch-in of the same thread in the chunk, and the first switch-in of a thread that had no switch-out in
/// the chunk), paired in input order once every chunk is parsed.
struct SwitchCollector {
    struct FrameText {
        std::string name, module;
        FrameKind kind;
    };
    struct Out {
        uint64_t chunk;
        int64_t pid, tid;
        std::string comm;
        int64_t timeNs;
        int32_t cpu;
        std::vector<FrameText> stack; ///< root first, the [blocked: S] leaf last
    };
    struct In {
        uint64_t chunk;
        int64_t tid, timeNs;
        int32_t cpu;
    };
    std::mutex mutex;
    std::vector<Out> outs;
    std::vector<In> ins;
    int64_t lastTimeNs = 0;
    uint64_t switches = 0, migrations = 0;

    /// Pairs the open ends and adds their off-CPU time to the merged builder.
    void finish(TreeBuilder& builder, ProfileMeta& meta) {
        if (!switches)
            return;
        // per thread, in input order; in a chunk its first switch-in comes before its open switch-out
        std::map<int64_t, std::vector<std::pair<std::pair<uint64_t, int>, std::size_t>>> byTid;
        for (std::size_t i = 0; i < ins.size(); ++i)
            byTid[ins[i].tid].push_back({{ins[i].chunk, 0}, i});
        for (std::size_t i = 0; i < outs.size(); ++i)
            byTid[outs[i].tid].push_back({{outs[i].chunk, 1}, i});
        uint64_t noSwitchIn = 0;
        for (auto& [tid, events] : byTid) {
            std::sort(events.begin(), events.end());
            const Out* open = nullptr;
            for (const auto& [key, i] : events) {
                if (key.second == 1) {
                    open = &outs[i];
                } else if (open) {
                    if (ins[i].timeNs >= open->timeNs) {
                        if (ins[i].cpu >= 0 && open->cpu >= 0 && ins[i].cpu != open->cpu)
                            ++migrations;
                        charge(builder, *open, ins[i].timeNs);
                    }
                    open = nullptr;
                }
            }
            if (open && lastTimeNs >= open->timeNs) {
                ++noSwitchIn;
                charge(builder, *open, lastTimeNs);
            }
        }
        meta.recording.emplace_back("context switches", std::to_string(switches) + " switch-outs, " +
                                                            std::to_string(migrations) +
                                                            " came back on another CPU");
        if (noSwitchIn)
            meta.warn(
                std::to_string(noSwitchIn) +
                " threads were off-CPU at the end of the input without a switch-in: their off-CPU time is "
                "charged up to the last event");
    }

    static void charge(TreeBuilder& builder, const Out& out, int64_t untilNs) {
        builder.setPosition(out.chunk << 32 | 0xffffffffu);
        std::vector<FrameId> frames;
        for (const FrameText& f : out.stack)
            frames.push_back(builder.frame(f.name, f.module, f.kind));
        const CostValue costs[] = {
            {builder.costType(kOffCpuCost, CostUnit::Nanoseconds), untilNs - out.timeNs},
            {builder.costType(kWallCost, CostUnit::Nanoseconds), untilNs - out.timeNs}};
        builder.addTimedSample(builder.thread(out.comm, out.pid, out.tid), frames, costs, out.timeNs,
                               out.cpu);
    }
};

class PerfScriptParser final : public ChunkParser {
public:
    PerfScriptParser(const ImportOptions& options, std::shared_ptr<SwitchCollector> switches)
        : m_options(options)
        , m_switches(std::move(switches)) {}

    uint64_t parse(const Chunk& chunk, TreeBuilder& builder, Diagnostics& diagnostics) override {
        m_builder = &builder;
        m_diag = &diagnostics;
        m_active = false;
        m_afterFrame = false;
        m_frames.clear();
        m_lines.clear();
        const uint64_t lines = forEachLine(chunk, diagnostics, [&](std::string_view line, uint64_t lineNo) {
            if (!line.empty() && line[0] == '#')
                return;
            if (line.empty()) {
                flush();
                return;
            }
            Header h;
            if (!isSpace(line[0]) && parseHeader(line, h, m_switches != nullptr)) {
                if (h.switchRecord) { // not a sample: only the switch-in matters (the sched_switch sample is
                                      // the out)
                    m_lastTimeNs = std::max(m_lastTimeNs, h.timeNs);
                    if (h.switchIn && h.tid > 0)
                        switchIn(h.tid, h.timeNs, h.cpu);
                    return;
                }
                builder.setPosition((chunk.index << 32) | lineNo);
                startSample(h, lineNo);
                return;
            }
            const bool afterFrame = std::exchange(m_afterFrame, false);
            if (frameLine(line, lineNo))
                return;
            if (afterFrame && m_active && srcLine(line))
                return;
            diagnostics.warn(lineNo, "unrecognized line: " + std::string(line.substr(0, 80)));
        });
        flush(); // the last sample counts even without a blank line after it
        if (m_switches)
            handOver(chunk.index);
        return lines;
    }

private:
    void startSample(const Header& h, uint64_t lineNo) {
        // Like the Perl script, a header that follows a sample without a blank line continues its stack.
        m_active = true;
        m_line = lineNo;
        m_prevKey = 0;
        if (h.comm != m_lastComm || h.pid != m_lastPid || h.tid != m_lastTid) {
            m_lastCommStorage.assign(h.comm);
            m_lastComm = m_lastCommStorage;
            m_lastPid = h.pid;
            m_lastTid = h.tid;
            m_thread = m_builder->thread(h.comm, h.pid, h.tid);
            m_root = m_builder->frame(h.comm, {}, FrameKind::Process);
            m_java = h.comm.starts_with("java");
        }
        const std::string_view event = h.event.empty() ? kUnnamedEvent : h.event;
        if (event != m_lastEvent) {
            m_lastEventStorage.assign(event);
            m_lastEvent = m_lastEventStorage;
            m_costType = m_builder->costType(event, h.period ? periodUnit(event) : CostUnit::Samples);
        }
        m_value = h.period > 0 ? h.period : 1; // the Perl script counts a missing or zero period as 1
        m_timed = h.hasTime;
        m_timeNs = h.timeNs;
        m_cpu = h.cpu;
        m_schedSwitch = h.schedSwitch;
        m_prevState = h.prevState;
        m_nextPid = h.nextPid;
        m_wallEvent = m_switches && h.period > 0 && periodUnit(event) == CostUnit::Nanoseconds;
        if (h.hasTime)
            m_builder->noteTime(h.time);
    }

    /// Handles an `ADDRESS SYMBOL (MODULE)` line; false when the line is not one.
    bool frameLine(std::string_view line, uint64_t lineNo) {
        std::string_view pc, sym, mod;
        if (!m_active) // the Perl script ignores frames outside a sample
            return parseFrameLine(line, pc, sym, mod);
        // Frames repeat a lot: cache the result by the line's text after the address. The address is part of
        // the key where the result depends on it (--addrs, or an empty symbol that the regex takes from it).
        std::size_t pc0, pc1, i;
        if (!scanAddress(line, pc0, pc1, i))
            return false;
        const bool whole = m_options.perfAddresses || i >= line.size() || line[i] == '(';
        const std::string_view keyText = whole ? line.substr(pc0) : line.substr(i);
        // A frame's caller is mostly the one it had last time: that line is compared first, and only when it
        // differs is the line looked up by its hash.
        Cache& cache = m_cache[m_java ? 1 : 0];
        const uint32_t guess = cache.next[m_prevKey];
        StringId key =
            guess && cache.keys.view(StringId{guess}) == keyText ? StringId{guess} : cache.keys.find(keyText);
        if (!key) {
            if (!parseFrameLine(line, pc, sym, mod))
                return false;
            if (cache.keys.memoryBytes() > (64u << 20)) { // bound the cache on inputs with endless addresses
                m_cache[0] = Cache();
                m_cache[1] = Cache();
                m_pool.clear();
                m_prevKey = 0;
            }
            key = cache.keys.intern(keyText);
            cache.groups.resize(key.value + 1);
            cache.next.resize(key.value + 1);
            cache.groups[key.value] = makeGroup(pc, sym, mod, lineNo);
        }
        cache.next[m_prevKey] = key.value;
        m_prevKey = key.value;
        const auto [offset, count] = cache.groups[key.value];
        m_afterFrame = true;
        m_groupStart = m_frames.size();
        // the line's frames, root-most first, are pushed reversed: m_frames is leaf-first
        for (uint32_t k = count; k-- > 0;) {
            if (m_frames.size() >= m_options.maxStackDepth) {
                if (!m_truncated)
                    m_diag->warn(m_line, "stack deeper than " + std::to_string(m_options.maxStackDepth) +
                                             " frames; the outermost callers were dropped");
                m_truncated = true;
                return true;
            }
            m_frames.push_back(m_pool[offset + k]);
            m_lines.push_back({});
        }
        return true;
    }

    /// perf script -F +srcline prints `  FILE:LINE` (or `  ??:0`, `  [kernel.kallsyms][ADDR]` when unknown)
    /// after each frame line. Recorded for the innermost frame of the line before (an `A->B` inline chain's
    /// last function). False when the line does not look like one.
    bool srcLine(std::string_view line) {
        if (line.empty() || !isSpace(line[0]))
            return false;
        std::string_view text = rtrim(ltrim(line));
        if (text.empty())
            return false;
        if (const std::size_t d = text.find(" (discriminator ");
            d != std::string_view::npos && text.back() == ')')
            text = text.substr(0, d);
        const std::size_t colon = text.rfind(':');
        if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size())
            return text.front() == '[' && text.back() == ']'; // [kernel.kallsyms][ffff...]: no line known
        int64_t lineNo = 0;
        const std::string_view digits = text.substr(colon + 1);
        if (!allDigits(digits) || !parseInt(digits, lineNo))
            return false;
        const std::string_view file = text.substr(0, colon);
        if (lineNo <= 0 || lineNo > UINT32_MAX || file == "??" || m_groupStart >= m_frames.size())
            return true;
        m_lines[m_groupStart] = {m_builder->strings().intern(file), static_cast<uint32_t>(lineNo)};
        m_haveLines = true;
        return true;
    }

    /// The frames one line stands for (several with inlined `A->B->C`, none for `(...)` symbols).
    std::pair<uint32_t, uint32_t> makeGroup(std::string_view pc, std::string_view sym, std::string_view mod,
                                            uint64_t lineNo) {
        // strip a trailing +0x<hex> offset
        const std::size_t plus = sym.rfind("+0x");
        if (plus != std::string_view::npos && plus + 3 < sym.size()) {
            bool hex = true;
            for (char c : sym.substr(plus + 3))
                hex = hex && (isDigit(c) || (c >= 'a' && c <= 'f'));
            if (hex)
                sym = sym.substr(0, plus);
        }
        if (!sym.empty() && sym[0] == '(') // the Perl script skips these (process names)
            return {static_cast<uint32_t>(m_pool.size()), 0};
        if (!isValidUtf8(sym) || !isValidUtf8(mod))
            m_diag->warn(lineNo, "invalid UTF-8 in a frame name or module (kept as bytes)");
        const auto offset = static_cast<uint32_t>(m_pool.size());
        const bool kernel = isKernelModule(mod), jit = isJitModule(mod);
        std::size_t start = 0;
        for (uint32_t k = 0;; ++k) {
            const std::size_t arrow = sym.find("->", start);
            std::string_view func =
                sym.substr(start, arrow == std::string_view::npos ? std::string_view::npos : arrow - start);
            FrameKind kind = k > 0    ? FrameKind::Inlined
                             : kernel ? FrameKind::Kernel
                             : jit    ? FrameKind::Jit
                                      : FrameKind::Native;
            std::string name;
            if (func == "[unknown]") {
                std::string base;
                if (mod != "[unknown]") {
                    const std::size_t slash = mod.rfind('/');
                    base = std::string(slash == std::string_view::npos ? mod : mod.substr(slash + 1));
                } else {
                    base = "unknown";
                }
                if (kind == FrameKind::Native)
                    kind = FrameKind::Unknown;
                name =
                    m_options.perfAddresses ? "[" + base + " <" + std::string(pc) + ">]" : "[" + base + "]";
            } else {
                name = std::string(func);
            }
            m_pool.push_back(m_builder->frame(tidyName(name, m_java), mod, kind));
            if (arrow == std::string_view::npos)
                break;
            start = arrow + 2;
        }
        return {offset, static_cast<uint32_t>(m_pool.size() - offset)};
    }

    void flush() {
        if (!m_active)
            return;
        m_stack.clear();
        m_stack.push_back(m_root);
        m_stack.insert(m_stack.end(), m_frames.rbegin(), m_frames.rend());
        const CostValue costs[] = {{m_costType, m_value}, {m_wallEvent ? wallCost() : 0, m_value}};
        const std::span<const CostValue> cost(costs, m_wallEvent ? 2 : 1);
        if (m_haveLines) {
            m_stackLines.clear();
            m_stackLines.push_back({});
            m_stackLines.insert(m_stackLines.end(), m_lines.rbegin(), m_lines.rend());
            if (m_timed)
                m_builder->addTimedSample(m_thread, m_stack, cost, m_timeNs, m_cpu, m_stackLines);
            else
                m_builder->addSample(m_thread, m_stack, cost, 1, m_stackLines);
        } else if (m_timed) {
            m_builder->addTimedSample(m_thread, m_stack, cost, m_timeNs, m_cpu);
        } else {
            m_builder->addSample(m_thread, m_stack, cost);
        }
        if (m_timed && m_switches) {
            m_lastTimeNs = std::max(m_lastTimeNs, m_timeNs);
            if (m_schedSwitch)
                contextSwitch();
        }
        m_frames.clear();
        m_lines.clear();
        m_haveLines = false;
        m_active = false;
        m_truncated = false;
    }

    uint32_t wallCost() {
        if (m_costsOf != m_builder) {
            m_costsOf = m_builder;
            m_offCost = m_builder->costType(kOffCpuCost, CostUnit::Nanoseconds);
            m_wallCost = m_builder->costType(kWallCost, CostUnit::Nanoseconds);
        }
        return m_wallCost;
    }

    /// A sched_switch line (its sample is added): the thread goes off-CPU with this stack, next_pid comes
    /// back on.
    void contextSwitch() {
        if (!(!m_prevState.empty() && deadTaskState(m_prevState.front())) && m_lastTid > 0) {
            ++m_switchCount;
            LocalOut& o = m_outs[m_lastTid];
            o.pid = m_lastPid;
            o.comm = m_lastCommStorage;
            o.thread = m_thread;
            o.timeNs = m_timeNs;
            o.cpu = m_cpu;
            o.stack = m_stack;
            o.stack.push_back(m_builder->frame(offCpuLeaf(m_prevState.empty() ? 'R' : m_prevState.front()),
                                               {}, FrameKind::Unknown));
            m_touched.insert(m_lastTid);
        }
        if (m_nextPid > 0)
            switchIn(m_nextPid, m_timeNs, m_cpu);
    }

    /// Thread `tid` comes back on `cpu` at `timeNs`: closes its switch-out of this chunk, or is handed over
    /// (the first of the chunk) to close one of an earlier chunk.
    void switchIn(int64_t tid, int64_t timeNs, int32_t cpu) {
        m_lastTimeNs = std::max(m_lastTimeNs, timeNs);
        const auto out = m_outs.find(tid);
        if (out != m_outs.end()) {
            const LocalOut& o = out->second;
            if (timeNs >= o.timeNs) {
                if (cpu >= 0 && o.cpu >= 0 && cpu != o.cpu)
                    ++m_migrations;
                wallCost();
                const CostValue costs[] = {{m_offCost, timeNs - o.timeNs}, {m_wallCost, timeNs - o.timeNs}};
                m_builder->addTimedSample(o.thread, o.stack, costs, o.timeNs, o.cpu);
            }
            m_outs.erase(out);
        } else if (m_touched.insert(tid).second) {
            m_ins.push_back({0, tid, timeNs, cpu});
        }
    }

    /// The chunk's open ends go to the collector.
    void handOver(uint64_t chunk) {
        std::lock_guard lock(m_switches->mutex);
        SwitchCollector& c = *m_switches;
        for (SwitchCollector::In& in : m_ins) {
            in.chunk = chunk;
            c.ins.push_back(in);
        }
        for (const auto& [tid, o] : m_outs) {
            SwitchCollector::Out out{chunk, o.pid, tid, o.comm, o.timeNs, o.cpu, {}};
            for (FrameId f : o.stack) {
                const Frame& frame = m_builder->frameOf(f);
                out.stack.push_back({std::string(m_builder->strings().view(frame.name)),
                                     std::string(m_builder->strings().view(frame.module)), frame.kind});
            }
            c.outs.push_back(std::move(out));
        }
        c.lastTimeNs = std::max(c.lastTimeNs, m_lastTimeNs);
        c.switches += m_switchCount;
        c.migrations += m_migrations;
        m_ins.clear();
        m_outs.clear();
        m_touched.clear();
        m_switchCount = m_migrations = 0;
    }

    ImportOptions m_options;
    std::shared_ptr<SwitchCollector> m_switches; ///< null unless the input has sched_switch events
    struct LocalOut {
        int64_t pid = -1;
        std::string comm;
        uint32_t thread = 0;
        int64_t timeNs = 0;
        int32_t cpu = -1;
        std::vector<FrameId> stack;
    };
    std::unordered_map<int64_t, LocalOut> m_outs; ///< this chunk's switch-outs not followed by a switch-in
    std::unordered_set<int64_t> m_touched;        ///< threads with a switch in this chunk
    std::vector<SwitchCollector::In> m_ins;       ///< first switch-ins of threads without a switch-out before
    int64_t m_lastTimeNs = 0;
    uint64_t m_switchCount = 0, m_migrations = 0;
    const TreeBuilder* m_costsOf = nullptr;
    uint32_t m_offCost = 0, m_wallCost = 0;
    bool m_schedSwitch = false, m_wallEvent = false;
    std::string_view m_prevState; // valid until the next line: copied out in contextSwitch()
    int64_t m_nextPid = -1;
    TreeBuilder* m_builder = nullptr;
    Diagnostics* m_diag = nullptr;
    // current sample
    bool m_active = false, m_truncated = false, m_java = false;
    bool m_timed = false; // the sample's header had a timestamp
    int64_t m_timeNs = 0;
    int32_t m_cpu = -1;
    bool m_afterFrame = false;    ///< the previous line was a frame line (a srcline may follow)
    bool m_haveLines = false;     ///< the current sample has at least one srcline
    std::size_t m_groupStart = 0; ///< m_frames index of the innermost frame of the last frame line
    uint64_t m_line = 0;
    uint32_t m_thread = 0, m_costType = 0;
    int64_t m_value = 1;
    FrameId m_root;
    std::vector<FrameId> m_frames, m_stack;
    std::vector<SourceLine> m_lines, m_stackLines; ///< parallel to m_frames / m_stack
    // caches that live as long as the builder
    std::string m_lastCommStorage, m_lastEventStorage;
    std::string_view m_lastComm{"\x01\x02"}, m_lastEvent{"\x01\x02"};
    int64_t m_lastPid = -2, m_lastTid = -2;
    struct Cache {
        StringTable keys{StringTable::Hashing::Sampled};   // frame line text (see frameLine)
        std::vector<std::pair<uint32_t, uint32_t>> groups; // key id -> (offset, count) in m_pool
        std::vector<uint32_t> next = {0}; // key id -> the key of the line after it last time (0: none yet);
                                          // [0]: of a sample's first frame line
    };
    uint32_t m_prevKey = 0; // the key of the sample's previous frame line, 0 at its start
    Cache m_cache[2];       // [comm starts with "java"]
    std::vector<FrameId> m_pool;
};

/// An indented (or not) `ADDRESS SYMBOL (MODULE)` line.
bool looksLikeFrameLine(std::string_view line) {
    line = ltrim(line);
    std::size_t i = 0;
    while (i < line.size() && isWordChar(line[i]))
        ++i;
    return i > 0 && i < line.size() && isSpace(line[i]) && line.find(" (") != std::string_view::npos &&
           line.back() == ')';
}

/// An unindented line that ends with "EVENT:" and has a numeric pid/tid field after the comm.
bool looksLikeHeaderLine(std::string_view line) {
    if (line.empty() || isSpace(line[0]))
        return false;
    line = rtrim(line);
    if (line.size() < 4 || line.back() != ':')
        return false;
    for (std::size_t i = 1; i + 1 < line.size(); ++i) {
        if (!isSpace(line[i - 1]) || !isDigit(line[i]))
            continue;
        std::size_t j = i;
        while (j < line.size() && (isDigit(line[j]) || line[j] == '/'))
            ++j;
        if (j < line.size() && isSpace(line[j]))
            return true;
    }
    return false;
}

} // namespace

bool looksLikePerfScriptLine(std::string_view line) {
    return looksLikeFrameLine(line) || looksLikeHeaderLine(line);
}

/// Some perf script lines, and at least as many as lines that read as folded stacks.
bool sniffPerfScript(std::string_view head) {
    int perf = 0, folded = 0;
    forEachHeadLine(head, [&](std::string_view line) {
        if (looksLikePerfScriptLine(line))
            ++perf;
        else if (foldedCounts(line) > 0)
            ++folded;
    });
    return perf > 0 && perf >= folded;
}

Profile importPerfScript(ByteSource& source, std::string head, const std::string& name,
                         const ImportOptions& options, const ImportControl& control) {
    // sched_switch events with their trace fields: off-CPU time (the head tells, as for the other formats)
    std::shared_ptr<SwitchCollector> switches;
    if (head.find(" sched:sched_switch: ") != std::string::npos &&
        head.find(" prev_state=") != std::string::npos)
        switches = std::make_shared<SwitchCollector>();
    return importLines(
        source, std::move(head), name, options, control, Format::PerfScript, Boundary::BlankLine,
        [&] { return std::make_unique<PerfScriptParser>(options, switches); },
        [&](TreeBuilder& builder, ProfileMeta& meta) {
            if (switches)
                switches->finish(builder, meta);
        });
}

} // namespace scorch::detail
