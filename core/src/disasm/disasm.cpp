#include "scorch/disasm.h"

#include "symbols/symbolizer_internal.h"
#include "util/dynlib.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

namespace scorch {

namespace {

using detail::DynamicLibrary;
using detail::ElfFileInfo;

/// The entries of Profile::addressCosts for `function`: [begin, end).
std::pair<std::size_t, std::size_t> entriesOf(const AddressCosts& ac, FrameId function) {
    const auto lo = std::lower_bound(ac.frame.begin(), ac.frame.end(), function,
                                     [](FrameId a, FrameId b) { return a.value < b.value; });
    const auto hi = std::upper_bound(lo, ac.frame.end(), function,
                                     [](FrameId a, FrameId b) { return a.value < b.value; });
    return {static_cast<std::size_t>(lo - ac.frame.begin()), static_cast<std::size_t>(hi - ac.frame.begin())};
}

/// libcapstone, opened when the first function is disassembled: linked, its 77k relocations were applied by
/// every start of `scorch` (about half of what a `scorch --version` cost on a VM before it ran).
struct Capstone {
    decltype(&cs_open) open = nullptr;
    decltype(&cs_close) close = nullptr;
    decltype(&cs_option) option = nullptr;
    decltype(&cs_malloc) malloc = nullptr;
    decltype(&cs_free) free = nullptr;
    decltype(&cs_disasm_iter) disasmIter = nullptr;
    decltype(&cs_insn_group) insnGroup = nullptr;
    std::string error; ///< why it could not be loaded
};

const Capstone& capstone() {
    static const Capstone loaded = [] {
        Capstone c;
        DynamicLibrary lib("libcapstone.so.4");
        const bool ok = lib && lib.get(c.open, "cs_open") && lib.get(c.close, "cs_close") &&
                        lib.get(c.option, "cs_option") && lib.get(c.malloc, "cs_malloc") &&
                        lib.get(c.free, "cs_free") && lib.get(c.disasmIter, "cs_disasm_iter") &&
                        lib.get(c.insnGroup, "cs_insn_group");
        if (!ok)
            c = Capstone{.error = "capstone cannot be loaded (" + lib.error() + ")"};
        return c;
    }();
    return loaded;
}

struct CapstoneHandle {
    csh handle = 0;
    ~CapstoneHandle() {
        if (handle)
            capstone().close(&handle);
    }
};

/// A direct jump's or call's target, from capstone's details.
std::optional<uint64_t> directTarget(csh handle, const cs_insn& insn, cs_arch arch) {
    if (!insn.detail || !(capstone().insnGroup(handle, &insn, CS_GRP_JUMP) ||
                          capstone().insnGroup(handle, &insn, CS_GRP_CALL)))
        return std::nullopt;
    if (arch == CS_ARCH_X86) {
        const cs_x86& x = insn.detail->x86;
        if (x.op_count == 1 && x.operands[0].type == X86_OP_IMM)
            return static_cast<uint64_t>(x.operands[0].imm);
    } else if (arch == CS_ARCH_ARM64) {
        const cs_arm64& a = insn.detail->arm64;
        for (int i = 0; i < a.op_count; ++i)
            if (a.operands[i].type == ARM64_OP_IMM)
                return static_cast<uint64_t>(a.operands[i].imm);
    }
    return std::nullopt;
}

} // namespace

std::size_t Annotation::hottest(std::size_t costType) const {
    std::size_t best = 0;
    for (std::size_t i = 1; i < instructions.size(); ++i)
        if (instructions[i].self[costType] > instructions[best].self[costType])
            best = i;
    return best;
}

bool hasAddressCosts(const Profile& profile, FrameId function) {
    const auto [begin, end] = entriesOf(profile.addressCosts, function);
    return begin < end;
}

namespace {

/// The module with the most samples of the function's address cost entries [begin, end) (an
/// inlined-everywhere function may span several).
uint32_t hottestModule(const AddressCosts& ac, std::size_t begin, std::size_t end) {
    std::map<uint32_t, int64_t> perModule;
    for (std::size_t i = begin; i < end; ++i)
        perModule[ac.module[i]] += ac.self.empty() ? 0 : ac.self[0][i];
    return std::max_element(perModule.begin(), perModule.end(),
                            [](const auto& a, const auto& b) { return a.second < b.second; })
        ->first;
}

/// The instructions' self costs, their totals and the costs outside them, from the entries [begin, end) of
/// `module` (by file offset).
void assignCosts(Annotation& out, const AddressCosts& ac, std::size_t begin, std::size_t end,
                 uint32_t module) {
    const std::size_t types = ac.self.size();
    std::map<uint64_t, std::size_t> costAt;
    for (std::size_t i = begin; i < end; ++i)
        if (ac.module[i] == module)
            costAt.emplace(ac.offset[i], i);
    out.total.assign(types, 0);
    out.outside.assign(types, 0);
    for (AnnotatedInstruction& a : out.instructions) {
        a.self.assign(types, 0);
        if (const auto it = costAt.find(a.offset); it != costAt.end()) {
            for (std::size_t t = 0; t < types; ++t)
                a.self[t] = ac.self[t][it->second];
            costAt.erase(it);
        }
        for (std::size_t t = 0; t < types; ++t)
            out.total[t] += a.self[t];
    }
    for (const auto& [offset, i] : costAt) // sampled, but not at an instruction start of the symbol
        for (std::size_t t = 0; t < types; ++t)
            out.outside[t] += ac.self[t][i];
}

} // namespace

bool recost(Annotation& annotation, const Profile& profile, FrameId function) {
    const AddressCosts& ac = profile.addressCosts;
    const auto [begin, end] = entriesOf(ac, function);
    if (begin == end)
        return false;
    const uint32_t module = hottestModule(ac, begin, end);
    if (ac.modules[module].file != annotation.module)
        return false;
    assignCosts(annotation, ac, begin, end, module);
    return true;
}

Annotation annotate(const Profile& profile, FrameId function) {
    const AddressCosts& ac = profile.addressCosts;
    const std::string name(profile.frameName(function));
    const auto [begin, end] = entriesOf(ac, function);
    if (begin == end)
        throw DisasmError(name + ": no instruction costs (only perf.data and Scorch recordings have them)");
    const std::size_t types = ac.self.size();
    const uint32_t module = hottestModule(ac, begin, end);
    const AddressCosts::Module& mod = ac.modules[module];
    const ElfFileInfo info = detail::readElfFileInfo(mod.file);
    if (!info.ok)
        throw DisasmError(mod.file + ": cannot be read as ELF");
    uint64_t hotOffset = 0;
    int64_t hotCost = -1;
    for (std::size_t i = begin; i < end; ++i)
        if (ac.module[i] == module && types && ac.self[0][i] > hotCost)
            hotCost = ac.self[0][i], hotOffset = ac.offset[i];
    uint64_t hotAddress = 0;
    if (!info.toVaddr(hotOffset, hotAddress))
        throw DisasmError(mod.file + ": offset " + std::to_string(hotOffset) + " is in no loaded segment");

    detail::ElfSession session(mod.file, mod.debugPath);
    if (!session.ok())
        throw DisasmError(mod.file + ": cannot be read by libdwfl");
    detail::AddressTable symbols = session.symbols();
    const int64_t symbol = symbols.find(hotAddress);
    if (symbol < 0) {
        char hex[32];
        std::snprintf(hex, sizeof hex, "%#llx", static_cast<unsigned long long>(hotAddress));
        throw DisasmError(mod.file + ": no symbol holds " + name + "'s address " + hex);
    }
    Annotation out;
    out.module = mod.file;
    out.start = symbols.start(symbol);
    out.end = symbols.end(symbol);
    out.function = detail::demangle(symbols.name(symbol), true);
    constexpr uint64_t kLargest = 1 << 20; // a corrupt symbol size must not read the whole file
    if (out.end <= out.start || out.end - out.start > kLargest)
        throw DisasmError(mod.file + ": the symbol " + out.function + " has an implausible size");

    uint64_t startOffset = 0;
    if (!info.toOffset(out.start, startOffset))
        throw DisasmError(mod.file + ": " + out.function + " is in no loaded segment");
    std::vector<uint8_t> bytes(out.end - out.start);
    const int fd = ::open(mod.file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw DisasmError(mod.file + ": cannot be opened");
    const ssize_t got = ::pread(fd, bytes.data(), bytes.size(), static_cast<off_t>(startOffset));
    ::close(fd);
    if (got != static_cast<ssize_t>(bytes.size()))
        throw DisasmError(mod.file + ": " + out.function + " is cut off in the file");

    cs_arch arch;
    cs_mode mode;
    switch (info.machine) {
    case EM_X86_64:
        arch = CS_ARCH_X86, mode = CS_MODE_64;
        break;
    case EM_AARCH64:
        arch = CS_ARCH_ARM64, mode = CS_MODE_ARM;
        break;
    default:
        throw DisasmError(mod.file + ": only x86-64 and AArch64 code is disassembled");
    }
    const Capstone& lib = capstone();
    if (!lib.open)
        throw DisasmError(lib.error);
    CapstoneHandle cs;
    if (lib.open(arch, mode, &cs.handle) != CS_ERR_OK)
        throw DisasmError("capstone cannot be opened");
    lib.option(cs.handle, CS_OPT_DETAIL, CS_OPT_ON);
    lib.option(cs.handle, CS_OPT_SKIPDATA, CS_OPT_ON); // bytes that are no instruction show as data

    const SymbolizerOptions options;
    const uint8_t* code = bytes.data();
    std::size_t size = bytes.size();
    uint64_t address = out.start;
    cs_insn* insn = lib.malloc(cs.handle);
    while (lib.disasmIter(cs.handle, &code, &size, &address, insn)) {
        AnnotatedInstruction a;
        a.address = insn->address;
        a.offset = startOffset + (insn->address - out.start);
        a.mnemonic = insn->mnemonic;
        a.operands = insn->op_str;
        const std::vector<SymbolFrame> frames = session.lookup(insn->address, options, symbols);
        if (!frames.empty()) {
            a.file = frames.back().file;
            a.line = frames.back().line;
            if (frames.size() > 1)
                a.inlined = frames.back().function;
        }
        a.jumpTarget = directTarget(cs.handle, *insn, arch);
        out.instructions.push_back(std::move(a));
    }
    lib.free(insn, 1);
    assignCosts(out, ac, begin, end, module);
    return out;
}

void addSourceText(Annotation& annotation, const SourceLocatorConfig& config) {
    std::map<std::string, std::vector<std::string>> files; // recorded path -> its lines (empty: not found)
    for (AnnotatedInstruction& i : annotation.instructions) {
        if (i.file.empty() || i.line == 0)
            continue;
        auto [it, added] = files.try_emplace(i.file);
        if (added) {
            const SourceLocation where = locateSource(i.file, config);
            constexpr std::uintmax_t kLargest = 64u << 20;
            std::error_code error;
            std::ifstream in;
            if (where.found() && std::filesystem::file_size(where.path, error) <= kLargest && !error)
                in.open(where.path, std::ios::binary);
            for (std::string line; in && std::getline(in, line);) {
                if (!line.empty() && line.back() == '\r')
                    line.pop_back();
                it->second.push_back(std::move(line));
            }
        }
        if (i.line <= it->second.size())
            i.sourceText = it->second[i.line - 1];
    }
}

} // namespace scorch
