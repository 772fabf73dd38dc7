// DWARF unwinding of `--call-graph dwarf` samples with libdw (elfutils): one Dwfl per process with the
// modules it maps reported as the unwinder reaches them; memory reads come from the sample's stack copy,
// and from the module files for addresses outside it. The technique follows perf's unwind-libdw.c.
#include "perf/perfreader.h"

#include "symbols/symbolizer_internal.h"
#include "util/hash.h"
#include "util/phasetimer.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <vector>

namespace scorch::detail {

namespace {

/// The sample being unwound (one per Dwfl; set before each dwfl_getthread_frames).
struct Context {
    int64_t pid = -1;
    const DwarfUnwinder::FindMap* findMap = nullptr;
    const DwarfUnwinder::FileOf* fileOf = nullptr;
    uint64_t regMask = 0;
    std::span<const uint64_t> regs;
    uint64_t stackStart = 0;
    std::string_view stack;
    std::size_t maxFrames = 0;
    std::vector<DwarfUnwinder::Frame>* out = nullptr;
    Dwfl* dwfl = nullptr;
};

bool perfReg(const Context& c, int index, uint64_t& value) {
    if (!(c.regMask >> index & 1))
        return false;
    const auto slot = static_cast<std::size_t>(std::popcount(c.regMask & ((uint64_t(1) << index) - 1)));
    if (slot >= c.regs.size())
        return false;
    value = c.regs[slot];
    return true;
}

Dwfl_Module* reportModule(Context& c, uint64_t pc) {
    const Mapping* m = (*c.findMap)(c.pid, pc);
    if (!m || m->path.empty())
        return nullptr;
    const std::string_view file = (*c.fileOf)(*m);
    if (file.empty())
        return nullptr;
    const Dwarf_Addr base = m->start - m->pgoff;
    if (Dwfl_Module* mod = dwfl_addrmodule(c.dwfl, pc)) {
        Dwarf_Addr start = 0;
        dwfl_module_info(mod, nullptr, &start, nullptr, nullptr, nullptr, nullptr, nullptr);
        if (start == base)
            return mod;
    }
    const std::string path(file);
    return dwfl_report_elf(c.dwfl, path.c_str(), path.c_str(), -1, base, false);
}

/// Reads 8 bytes at `addr` from the file of the module that maps it (perf's access_dso_mem).
bool readModule(Context& c, Dwarf_Addr addr, Dwarf_Word* result) {
    Dwfl_Module* mod = reportModule(c, addr);
    if (!mod)
        return false;
    Dwarf_Addr bias = 0;
    Elf* elf = dwfl_module_getelf(mod, &bias);
    if (!elf)
        return false;
    const Dwarf_Addr vaddr = addr - bias;
    std::size_t n = 0;
    if (elf_getphdrnum(elf, &n) != 0)
        return false;
    for (std::size_t i = 0; i < n; ++i) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, static_cast<int>(i), &ph) || ph.p_type != PT_LOAD)
            continue;
        if (vaddr >= ph.p_vaddr && vaddr + 8 <= ph.p_vaddr + ph.p_filesz) {
            Elf_Data* d = elf_getdata_rawchunk(elf, static_cast<int64_t>(ph.p_offset + (vaddr - ph.p_vaddr)),
                                               8, ELF_T_BYTE);
            if (!d || d->d_size < 8)
                return false;
            std::memcpy(result, d->d_buf, 8);
            return true;
        }
    }
    return false;
}

pid_t nextThread(Dwfl*, void*, void**) {
    return 0;
}

bool getThread(Dwfl*, pid_t, void* arg, void** threadArg) {
    *threadArg = arg;
    return true;
}

bool memoryRead(Dwfl*, Dwarf_Addr addr, Dwarf_Word* result, void* arg) {
    Context& c = *static_cast<Context*>(arg);
    if (addr >= c.stackStart && addr - c.stackStart + 8 <= c.stack.size()) {
        std::memcpy(result, c.stack.data() + (addr - c.stackStart), 8);
        return true;
    }
    return readModule(c, addr, result);
}

bool setInitialRegisters(Dwfl_Thread* thread, void* arg) {
    const Context& c = *static_cast<Context*>(arg);
    // DWARF order on x86-64: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip; perf order: ax bx cx dx si di bp sp
    // ip flags cs ss ds es fs gs r8..r15.
    static const int perfIndex[17] = {0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8};
    Dwarf_Word regs[17];
    for (int i = 0; i < 17; ++i) {
        uint64_t v = 0;
        if (!perfReg(c, perfIndex[i], v) && (i == 7 || i == 16))
            return false; // no sp or ip
        regs[i] = v;
    }
    return dwfl_thread_state_registers(thread, 0, 17, regs);
}

int frameCallback(Dwfl_Frame* state, void* arg) {
    Context& c = *static_cast<Context*>(arg);
    Dwarf_Addr pc = 0;
    bool activation = false;
    if (!dwfl_frame_pc(state, &pc, nullptr))
        return DWARF_CB_ABORT;
    reportModule(c, pc); // the unwinder needs this frame's module (its CFI) to find the caller
    if (!dwfl_frame_pc(state, &pc, &activation))
        return DWARF_CB_ABORT;
    c.out->push_back({pc, activation});
    return c.out->size() < c.maxFrames ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/// SCORCH_LIBDW_UNWIND=1: every sample through libdw's unwinder (for comparing the fast path with it).
bool fastDisabled() {
    static const bool off = std::getenv("SCORCH_LIBDW_UNWIND") != nullptr;
    return off;
}

/// SCORCH_FAST_UNWIND_ONLY=1: libdw's unwinder is never used; a sample the fast path hands over keeps its
/// first frame only. Which samples the fast path unwinds by itself then shows in the stacks, sample by
/// sample (tst_perfdata).
bool libdwDisabled() {
    static const bool off = std::getenv("SCORCH_FAST_UNWIND_ONLY") != nullptr;
    return off;
}

const Dwfl_Thread_Callbacks kThreadCallbacks = {
    nextThread, getThread, memoryRead, setInitialRegisters, nullptr, nullptr,
};

/// No separate debug files for unwinding: .eh_frame in the mapped file itself is what unwinds user code (as
/// the CPU's own unwinder for exceptions would). libdw only asks for .debug_frame where .eh_frame fails,
/// which is the outermost frame of nearly every stack (_start, clone): looking it up there would inflate
/// libc's compressed debug info (~50 ms) only to end the stack at the same place. The symbolizer loads
/// debug info on its own.
int noDebugInfo(Dwfl_Module*, void**, const char*, Dwarf_Addr, const char*, const char*, GElf_Word, char**) {
    return -1;
}

char* gDebugInfoPath = nullptr;
const Dwfl_Callbacks kOfflineCallbacks = {
    nullptr,
    noDebugInfo,
    dwfl_offline_section_address,
    &gDebugInfoPath,
};

struct Process {
    Dwfl* dwfl = nullptr;
    bool attached = false;
    std::unique_ptr<Context> context = std::make_unique<Context>();
    ~Process() {
        if (dwfl)
            dwfl_end(dwfl);
    }
};

} // namespace

/// The fast path: most frames of x86-64 code unwind by one of a few CFI rules (CFA = rsp or rbp + offset,
/// return address and rbp saved at CFA + offset). Those rules are looked up once per address in the
/// module's .eh_frame (libdw's CFI reader) and cached, and the stack is walked with them directly. Anything
/// else (no FDE, expressions as in PLT entries and signal frames, rbp unknown, a return address of 0) makes
/// the sample go through libdw's full unwinder instead, so results only differ from libdw's where libdw
/// loses track: a callee-saved rbp without a rule is taken as unchanged (the ABI's rule) rather than unknown.
/// Where rbp's save slot cannot be read (below the stack pointer in an epilogue after `pop rbp`, or past the
/// stack copy), rbp is unknown from there on, as libdw has it: a frame whose CFA needs it ends the stack.
struct CfiRule {
    enum class Kind : uint8_t { Simple, Outermost, Other } kind = Kind::Other;
    uint8_t cfaRegister = 7; // DWARF 7 = rsp, 6 = rbp
    bool rbpSaved = false;
    int32_t cfaOffset = 0, raOffset = 0, rbpOffset = 0; // (a rule with a larger offset is Other: libdw's)
};

/// The rules looked up so far, by ELF virtual address: open addressing with the address and its rule in one
/// 24-byte slot, so that finding one costs about one cache miss. (An std::unordered_map's bucket and node
/// cost two or three: a third of the unwinder's own time on a --call-graph dwarf recording, `perf annotate`.
/// util/hash.h's FlatMap64 keeps keys and values in separate arrays, and its values are indexes: as many
/// misses.)
class CfiRuleCache {
public:
    /// The rule of `vaddr`, made by `compute(vaddr)` the first time.
    template <typename Compute>
    CfiRule get(uint64_t vaddr, Compute&& compute) {
        if (vaddr == std::numeric_limits<uint64_t>::max()) // (its key would be the empty slot's)
            return compute(vaddr);
        const uint64_t key = vaddr + 1;
        if ((m_size + 1) * 2 > m_slots.size())
            grow();
        const std::size_t mask = m_slots.size() - 1;
        for (std::size_t i = hashInt(key) & mask;; i = (i + 1) & mask) {
            Slot& s = m_slots[i];
            if (s.key == key)
                return s.rule;
            if (s.key == 0) {
                s.rule = compute(vaddr);
                s.key = key;
                ++m_size;
                return s.rule;
            }
        }
    }

private:
    struct Slot {
        uint64_t key = 0; ///< vaddr + 1; 0 = empty
        CfiRule rule;
    };
    void grow() {
        std::vector<Slot> slots(std::max<std::size_t>(1024, m_slots.size() * 2));
        const std::size_t mask = slots.size() - 1;
        for (const Slot& s : m_slots) {
            if (s.key == 0)
                continue;
            std::size_t i = hashInt(s.key) & mask;
            while (slots[i].key != 0)
                i = (i + 1) & mask;
            slots[i] = s;
        }
        m_slots.swap(slots);
    }
    std::vector<Slot> m_slots;
    std::size_t m_size = 0;
};

struct CfiModule {
    bool ok = false;
    int fd = -1;
    Elf* elf = nullptr;
    Dwarf_CFI* cfi = nullptr;
    ElfFileInfo file;
    CfiRuleCache rules;

    explicit CfiModule(const std::string& path) {
        file = readElfFileInfo(path);
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (!file.ok || fd < 0)
            return;
        elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
        cfi = elf ? dwarf_getcfi_elf(elf) : nullptr;
        ok = cfi != nullptr;
    }
    ~CfiModule() {
        if (cfi)
            dwarf_cfi_end(cfi);
        if (elf)
            elf_end(elf);
        if (fd >= 0)
            ::close(fd);
    }
    CfiModule(const CfiModule&) = delete;
    CfiModule& operator=(const CfiModule&) = delete;

    CfiRule rule(uint64_t vaddr) {
        return rules.get(vaddr, [this](uint64_t v) { return compute(v); });
    }

private:
    /// A libdw operand as a signed 32-bit offset: false when it does not fit. (libdw writes a negative
    /// offset, as CFA - 8 for the return address, as its unsigned 64-bit wrap.)
    static bool offsetOf(Dwarf_Word operand, int32_t& offset) {
        const auto value = static_cast<int64_t>(operand);
        if (value < INT32_MIN || value > INT32_MAX)
            return false;
        offset = static_cast<int32_t>(value);
        return true;
    }
    /// "saved at CFA + offset" as libdw gives it: DW_OP_call_frame_cfa [, DW_OP_plus_uconst offset].
    static bool cfaOffsetRule(const Dwarf_Op* ops, std::size_t n, int32_t& offset) {
        if (n == 0 || ops[0].atom != DW_OP_call_frame_cfa)
            return false;
        if (n == 1) {
            offset = 0;
            return true;
        }
        return n == 2 && ops[1].atom == DW_OP_plus_uconst && offsetOf(ops[1].number, offset);
    }

    CfiRule compute(uint64_t vaddr) const {
        CfiRule r;
        Dwarf_Frame* frame = nullptr;
        if (dwarf_cfi_addrframe(cfi, vaddr, &frame) != 0)
            return r;
        Dwarf_Op* ops = nullptr;
        std::size_t n = 0;
        Dwarf_Op mem[3];
        if (dwarf_frame_cfa(frame, &ops, &n) == 0 && n == 1 && ops[0].atom == DW_OP_bregx &&
            (ops[0].number == 7 || ops[0].number == 6) && offsetOf(ops[0].number2, r.cfaOffset)) {
            r.cfaRegister = static_cast<uint8_t>(ops[0].number);
            if (dwarf_frame_register(frame, 16, mem, &ops, &n) == 0) {
                if (n == 0) {
                    // no rule that gives the return address (undefined, as at _start and thread starts, or
                    // "same value"): libdw cannot go on from here either, the stack ends
                    r.kind = CfiRule::Kind::Outermost;
                } else if (cfaOffsetRule(ops, n, r.raOffset) &&
                           dwarf_frame_register(frame, 6, mem, &ops, &n) == 0) {
                    if (n == 0)
                        r.kind = CfiRule::Kind::Simple; // rbp unchanged
                    else if (cfaOffsetRule(ops, n, r.rbpOffset))
                        r.kind = CfiRule::Kind::Simple, r.rbpSaved = true;
                }
            }
        }
        std::free(frame);
        return r;
    }
};

struct DwarfUnwinder::Impl {
    FindMap findMap;
    FileOf fileOf;
    std::unordered_map<int64_t, std::unique_ptr<Process>> processes;
    std::unordered_map<std::string_view, std::unique_ptr<CfiModule>> cfiModules; // by (stable) file path
    std::string_view lastPath;
    CfiModule* lastModule = nullptr;
    uint64_t fast = 0, throughLibdw = 0; // samples
    ~Impl() {
        trace("unwound " + std::to_string(fast) + " samples by cached CFI rules, " +
              std::to_string(throughLibdw) + " by libdw");
    }

    CfiModule& cfiModule(std::string_view path) {
        if (path.data() == lastPath.data() && path.size() == lastPath.size())
            return *lastModule;
        std::unique_ptr<CfiModule>& m = cfiModules[path];
        if (!m)
            m = std::make_unique<CfiModule>(std::string(path));
        lastPath = path;
        lastModule = m.get();
        return *m;
    }

    enum class Fast { Done, UseLibdw };
    Fast fastUnwind(int64_t pid, const Context& c, uint64_t stackStart, std::string_view stack,
                    std::size_t maxFrames, std::vector<Frame>& out);
};

DwarfUnwinder::Impl::Fast DwarfUnwinder::Impl::fastUnwind(int64_t pid, const Context& c, uint64_t stackStart,
                                                          std::string_view stack, std::size_t maxFrames,
                                                          std::vector<Frame>& out) {
    uint64_t ip = 0, sp = 0, bp = 0;
    if (!perfReg(c, 8, ip) || !perfReg(c, 7, sp))
        return Fast::UseLibdw;
    bool bpKnown = perfReg(c, 6, bp);
    bool bpLost = false; // rbp's save slot was unreadable: libdw's unwinder has it undefined too
    auto read = [&](uint64_t addr, uint64_t& value) {
        if (addr < stackStart || addr - stackStart > stack.size() || stack.size() - (addr - stackStart) < 8)
            return false;
        std::memcpy(&value, stack.data() + (addr - stackStart), 8);
        return true;
    };
    // Each return address is read from where the one before says: a chain of dependent loads from a stack
    // copy nothing has read yet (the file's pages). Asked for all at once first, its lines arrive side by
    // side.
    for (std::size_t at = 0; at < stack.size(); at += 64)
        __builtin_prefetch(stack.data() + at);
    const std::size_t before = out.size();
    auto libdw = [&] {
        out.resize(before);
        ++throughLibdw;
        return Fast::UseLibdw;
    };
    for (bool first = true;; first = false) {
        out.push_back({ip, first});
        if (out.size() - before >= maxFrames)
            return ++fast, Fast::Done;
        const Mapping* m = findMap(pid, ip);
        if (!m || m->path.empty() || (!first && ip == m->start))
            return libdw();
        const std::string_view file = fileOf(*m);
        if (file.empty())
            return libdw();
        CfiModule& module = cfiModule(file);
        uint64_t vaddr = 0;
        // a return address is looked up one byte back: the call, not the instruction after it
        if (!module.ok || !module.file.toVaddr(ip - (first ? 0 : 1) - m->start + m->pgoff, vaddr))
            return libdw();
        const CfiRule r = module.rule(vaddr);
        if (r.kind == CfiRule::Kind::Outermost)
            return ++fast, Fast::Done;
        if (r.kind == CfiRule::Kind::Simple && r.cfaRegister == 6 && bpLost)
            return ++fast, Fast::Done; // where libdw's unwinder stops too (its CFA needs the lost rbp)
        if (r.kind != CfiRule::Kind::Simple || (r.cfaRegister == 6 && !bpKnown))
            return libdw();
        const uint64_t cfa = (r.cfaRegister == 7 ? sp : bp) + static_cast<uint64_t>(r.cfaOffset);
        uint64_t ra = 0;
        if (!read(cfa + static_cast<uint64_t>(r.raOffset), ra))
            return ++fast, Fast::Done; // the stack copy ends here: where libdw stops too
        if (ra == 0 || cfa <= sp)
            return libdw();
        if (r.rbpSaved) {
            bpKnown = read(cfa + static_cast<uint64_t>(r.rbpOffset), bp);
            bpLost = !bpKnown;
        }
        sp = cfa;
        ip = ra;
    }
}

DwarfUnwinder::DwarfUnwinder(FindMap findMap, FileOf fileOf)
    : d(std::make_unique<Impl>()) {
    d->findMap = std::move(findMap);
    d->fileOf = std::move(fileOf);
    elf_version(EV_CURRENT);
}

DwarfUnwinder::~DwarfUnwinder() = default;

void DwarfUnwinder::invalidate(int64_t pid) {
    d->processes.erase(pid);
}

bool DwarfUnwinder::unwind(int64_t pid, int64_t tid, uint64_t regMask, std::span<const uint64_t> regs,
                           uint64_t stackStart, std::string_view stack, std::size_t maxFrames,
                           std::vector<Frame>& out) {
    const std::size_t before = out.size();
    if (maxFrames > 0 && !fastDisabled()) {
        Context c;
        c.regMask = regMask;
        c.regs = regs;
        if (d->fastUnwind(pid, c, stackStart, stack, maxFrames, out) == Impl::Fast::Done)
            return true;
        uint64_t ip = 0;
        if (libdwDisabled() && perfReg(c, 8, ip)) { // PERF_REG_X86_IP
            out.push_back({ip, true});
            return true;
        }
    }
    std::unique_ptr<Process>& slot = d->processes[pid];
    if (!slot) {
        slot = std::make_unique<Process>();
        slot->dwfl = dwfl_begin(&kOfflineCallbacks);
        if (!slot->dwfl)
            return false;
    }
    Process& p = *slot;
    Context& c = *p.context;
    c.pid = pid;
    c.findMap = &d->findMap;
    c.fileOf = &d->fileOf;
    c.regMask = regMask;
    c.regs = regs;
    c.stackStart = stackStart;
    c.stack = stack;
    c.maxFrames = before + maxFrames;
    c.out = &out;
    c.dwfl = p.dwfl;
    if (maxFrames == 0)
        return true;
    uint64_t ip = 0;
    if (!perfReg(c, 8, ip)) // PERF_REG_X86_IP
        return false;
    if (!p.attached) {
        // libdw takes the architecture from a reported module: report the one holding the ip first.
        if (!reportModule(c, ip)) {
            out.push_back({ip, true});
            return true;
        }
        dwfl_report_end(p.dwfl, nullptr, nullptr);
        if (!dwfl_attach_state(p.dwfl, nullptr, static_cast<pid_t>(pid > 0 ? pid : 1), &kThreadCallbacks, &c))
            return false;
        p.attached = true;
    }
    dwfl_getthread_frames(p.dwfl, static_cast<pid_t>(tid > 0 ? tid : 1), frameCallback, &c);
    if (out.size() == before)
        out.push_back({ip, true});
    return out.size() > before + 1 || stack.empty();
}

} // namespace scorch::detail
