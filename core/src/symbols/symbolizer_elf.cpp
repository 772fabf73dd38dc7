// ELF modules of the Symbolizer: build-ids and PT_LOAD segments with libelf, functions, inline frames and
// source lines with libdwfl/libdw.
#include "symbols/symbolizer_internal.h"

#include "symbols/elfinflate.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

namespace scorch::detail {

bool ElfFileInfo::toVaddr(uint64_t fileOffset, uint64_t& vaddr) const {
    for (const Segment& s : loads) {
        if (fileOffset >= s.offset && fileOffset - s.offset < s.fileSize) {
            vaddr = fileOffset - s.offset + s.vaddr;
            return true;
        }
    }
    return false;
}

bool ElfFileInfo::toOffset(uint64_t vaddr, uint64_t& fileOffset) const {
    for (const Segment& s : loads) {
        if (vaddr >= s.vaddr && vaddr - s.vaddr < s.fileSize) {
            fileOffset = vaddr - s.vaddr + s.offset;
            return true;
        }
    }
    return false;
}

ElfFileInfo readElfFileInfo(const std::string& path) {
    static const bool initialized = elf_version(EV_CURRENT) != EV_NONE;
    ElfFileInfo info;
    if (!initialized)
        return info;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return info;
    Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
    if (elf && elf_kind(elf) == ELF_K_ELF) {
        info.ok = true;
        GElf_Ehdr header;
        if (gelf_getehdr(elf, &header))
            info.machine = header.e_machine;
        const void* id = nullptr;
        const ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
        if (n > 0)
            info.buildId = toHex(static_cast<const unsigned char*>(id), static_cast<std::size_t>(n));
        std::size_t phnum = 0;
        if (elf_getphdrnum(elf, &phnum) == 0) {
            for (std::size_t i = 0; i < phnum; ++i) {
                GElf_Phdr mem;
                const GElf_Phdr* ph = gelf_getphdr(elf, static_cast<int>(i), &mem);
                if (ph && ph->p_type == PT_LOAD)
                    info.loads.push_back({ph->p_offset, ph->p_filesz, ph->p_vaddr});
            }
        }
        std::size_t names = 0;
        if (elf_getshdrstrndx(elf, &names) == 0) {
            for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn && !info.hasUnwindInfo;
                 scn = elf_nextscn(elf, scn)) {
                GElf_Shdr mem;
                const GElf_Shdr* sh = gelf_getshdr(scn, &mem);
                const char* name = sh ? elf_strptr(elf, names, sh->sh_name) : nullptr;
                info.hasUnwindInfo =
                    name && sh->sh_type != SHT_NOBITS &&
                    (std::strcmp(name, ".eh_frame") == 0 || std::strcmp(name, ".debug_frame") == 0);
            }
        }
    }
    if (elf)
        elf_end(elf);
    ::close(fd);
    return info;
}

ElfSession::ElfSession(const std::string& path, const std::string& debugInfoPath, InflatedElfCache* inflated,
                       unsigned threads, RemoteDebugInfo remoteDebugInfo)
    : m_inflated(inflated)
    , m_threads(threads)
    , m_remoteDebugInfo(std::move(remoteDebugInfo))
    , m_debugPathText(debugInfoPath) {
    m_debugPath = m_debugPathText.data();
    m_callbacks.find_elf = dwfl_build_id_find_elf;
    m_callbacks.find_debuginfo = findDebugInfo;
    m_callbacks.section_address = dwfl_offline_section_address;
    m_callbacks.debuginfo_path = &m_debugPath;
    m_dwfl = dwfl_begin(&m_callbacks);
    if (!m_dwfl)
        return;
    dwfl_report_begin(m_dwfl);
    // a file with compressed debug sections of its own (built with -gz) is read from its inflated copy
    int fd = -1;
    if (m_inflated) {
        const int file = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (file >= 0) {
            fd = m_inflated->open(path, file, m_threads);
            ::close(file);
        }
    }
    // base 0 with add_p_vaddr: module addresses are the file's own ELF virtual addresses (bias 0)
    m_module = dwfl_report_elf(m_dwfl, path.c_str(), path.c_str(), fd, 0, true);
    if (!m_module && fd >= 0)
        ::close(fd);
    dwfl_report_end(m_dwfl, nullptr, nullptr);
    if (m_module) { // findDebugInfo finds the session through the module's user data
        void** userdata = nullptr;
        dwfl_module_info(m_module, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
        if (userdata)
            *userdata = this;
    }
}

ElfSession::~ElfSession() {
    if (m_dwfl)
        dwfl_end(m_dwfl);
}

std::string ElfSession::debugFile() const {
    const char* debug = nullptr;
    if (m_module)
        dwfl_module_info(m_module, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &debug);
    return debug ? std::string(debug) : std::string();
}

bool ElfSession::hasDebugInfo() {
    Dwarf_Addr bias = 0;
    return m_module && dwfl_module_getdwarf(m_module, &bias) != nullptr;
}

AddressTable ElfSession::symbols() {
    AddressTable table;
    const int n = m_module ? dwfl_module_getsymtab(m_module) : -1;
    for (int i = 1; i < n; ++i) {
        GElf_Sym sym;
        GElf_Addr addr = 0;
        GElf_Word shndx = 0;
        Elf* elf = nullptr;
        Dwarf_Addr bias = 0;
        const char* name = dwfl_module_getsym_info(m_module, i, &sym, &addr, &shndx, &elf, &bias);
        if (!name || !*name || sym.st_shndx == SHN_UNDEF)
            continue;
        const int type = GELF_ST_TYPE(sym.st_info);
        if (type != STT_FUNC && type != STT_GNU_IFUNC)
            continue;
        // a symbol without size reaches up to the next one, but not out of its section (e.g. _init must
        // not swallow the PLT that follows it)
        uint64_t limit = UINT64_MAX;
        GElf_Shdr shdrMem;
        if (sym.st_size == 0 && elf) {
            if (const GElf_Shdr* sh = gelf_getshdr(elf_getscn(elf, shndx), &shdrMem))
                limit = sh->sh_addr + bias + sh->sh_size;
        }
        table.add(addr, addr + sym.st_size, name, {}, limit);
    }
    Dwarf_Addr bias = 0;
    if (Elf* elf = m_module ? dwfl_module_getelf(m_module, &bias) : nullptr)
        addPltEntries(elf, bias, table);
    table.finalize(0);
    return table;
}

/// PLT entries have no symbols; like perf and objdump, name entry i after the symbol of the i-th
/// relocation in .rela.plt: `memcpy@plt`. x86-64 layouts: .plt with a 16-byte header and 16-byte entries,
/// or (with IBT) the entries in .plt.sec without a header.
void ElfSession::addPltEntries(Elf* elf, Dwarf_Addr bias, AddressTable& table) {
    GElf_Ehdr eh;
    std::size_t shstrndx = 0;
    if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 || elf_getshdrstrndx(elf, &shstrndx) != 0)
        return;
    Elf_Scn* relaPlt = nullptr;
    GElf_Shdr plt{}, pltSec{}, rela{};
    bool havePlt = false, havePltSec = false;
    for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
        if (!name)
            continue;
        const std::string_view n(name);
        if (n == ".plt" && sh.sh_type == SHT_PROGBITS)
            plt = sh, havePlt = true;
        else if (n == ".plt.sec" && sh.sh_type == SHT_PROGBITS)
            pltSec = sh, havePltSec = true;
        else if (n == ".rela.plt" && sh.sh_type == SHT_RELA)
            relaPlt = scn, rela = sh;
    }
    if (!relaPlt || !(havePlt || havePltSec) || rela.sh_entsize == 0)
        return;
    const GElf_Shdr& entries = havePltSec ? pltSec : plt;
    const uint64_t first = entries.sh_addr + (havePltSec ? 0 : 16), size = 16;
    Elf_Data* relaData = elf_getdata(relaPlt, nullptr);
    Elf_Scn* symScn = elf_getscn(elf, rela.sh_link);
    GElf_Shdr symSh;
    Elf_Data* symData = symScn ? elf_getdata(symScn, nullptr) : nullptr;
    if (!relaData || !symData || !gelf_getshdr(symScn, &symSh))
        return;
    const std::size_t count = rela.sh_size / rela.sh_entsize;
    for (std::size_t i = 0; i < count; ++i) {
        const uint64_t start = first + i * size;
        if (start + size > entries.sh_addr + entries.sh_size)
            break;
        GElf_Rela r;
        GElf_Sym sym;
        if (!gelf_getrela(relaData, static_cast<int>(i), &r) || GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT ||
            !gelf_getsym(symData, static_cast<int>(GELF_R_SYM(r.r_info)), &sym))
            continue;
        const char* name = elf_strptr(elf, symSh.sh_link, sym.st_name);
        if (name && *name)
            table.add(start + bias, start + bias + size, std::string(name) + "@plt");
    }
}

namespace {

/// The DIE that names a function: its abstract origin (inlined and out-of-line instances) and then its
/// declaration (DW_AT_specification), which sits in its namespace or class.
Dwarf_Die declarationOf(Dwarf_Die* die) {
    Dwarf_Die target = *die;
    for (int i = 0; i < 8; ++i) {
        Dwarf_Attribute attr;
        Dwarf_Die next;
        if ((dwarf_attr(&target, DW_AT_abstract_origin, &attr) ||
             dwarf_attr(&target, DW_AT_specification, &attr)) &&
            dwarf_formref_die(&attr, &next)) {
            target = next;
            continue;
        }
        break;
    }
    return target;
}

/// "ns::Class::" of a DIE from its enclosing scopes (slow: walks its unit up to the DIE).
std::string scopePrefix(Dwarf_Die target) {
    std::string out;
    Dwarf_Die* scopes = nullptr;
    const int n = dwarf_getscopes_die(&target, &scopes);
    for (int i = n - 1; i >= 1; --i) { // [0] is the DIE itself, [n - 1] its unit
        const int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_namespace && tag != DW_TAG_class_type && tag != DW_TAG_structure_type &&
            tag != DW_TAG_union_type)
            continue;
        const char* scope = dwarf_diename(&scopes[i]);
        out += scope ? scope : "(anonymous namespace)";
        out += "::";
    }
    if (n > 0)
        std::free(scopes);
    return out;
}

} // namespace

const std::string& ElfSession::functionName(Dwarf_Die* die, bool demangleNames) {
    // cached per declaration: every inlined instance of a function shares it
    Dwarf_Die decl = declarationOf(die);
    const std::pair<const void*, Dwarf_Off> key{dwarf_cu_getdwarf(decl.cu), dwarf_dieoffset(&decl)};
    auto [it, fresh] = m_names.try_emplace(key);
    if (!fresh)
        return it->second;
    Dwarf_Attribute attr;
    const char* linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    if (!linkage)
        linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
    const char* name = dwarf_diename(&decl);
    if (linkage && (std::string_view(linkage).starts_with("_Z") || !name)) {
        it->second = demangle(linkage, demangleNames);
    } else if (name) {
        // C (whose linkage name is an asm label such as glibc's __GI_ aliases, if any), and C++ functions
        // with internal linkage that were only inlined: "ns::Class::name"
        it->second = scopePrefixOf(decl) + name;
    }
    return it->second;
}

void ElfSession::indexScopes(Dwarf_Die* parent, uint32_t prefix, int depth) {
    Dwarf_Die child;
    if (depth > 64 || dwarf_child(parent, &child) != 0)
        return;
    do {
        const int tag = dwarf_tag(&child);
        if (tag == DW_TAG_subprogram) {
            m_scopeOf.emplace(
                std::pair<const void*, Dwarf_Off>{dwarf_cu_getdwarf(child.cu), dwarf_dieoffset(&child)},
                prefix);
        } else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
                   tag == DW_TAG_union_type) {
            const char* name = dwarf_diename(&child);
            m_prefixes.push_back(m_prefixes[prefix] + (name ? name : "(anonymous namespace)") + "::");
            indexScopes(&child, static_cast<uint32_t>(m_prefixes.size() - 1), depth + 1);
        }
    } while (dwarf_siblingof(&child, &child) == 0);
}

std::string ElfSession::scopePrefixOf(Dwarf_Die decl) {
    // one walk per unit records the scope of every function declared in a namespace or class
    Dwarf_Die cu;
    if (!dwarf_diecu(&decl, &cu, nullptr, nullptr))
        return {};
    if (m_prefixes.empty())
        m_prefixes.emplace_back();
    if (m_scopedUnits.emplace(dwarf_cu_getdwarf(cu.cu), dwarf_dieoffset(&cu)).second)
        indexScopes(&cu, 0, 0);
    auto it = m_scopeOf.find({dwarf_cu_getdwarf(decl.cu), dwarf_dieoffset(&decl)});
    return it != m_scopeOf.end() ? m_prefixes[it->second] : scopePrefix(decl);
}

namespace {

/// The caller's position of an inlined call: DW_AT_call_file (an index into the CU's file table) and
/// DW_AT_call_line.
void callSite(Dwarf_Die* inlined, std::string& file, uint32_t& line) {
    Dwarf_Attribute attr;
    Dwarf_Word value = 0;
    if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attr), &value) == 0)
        line = static_cast<uint32_t>(value);
    Dwarf_Die cu;
    if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attr), &value) != 0 ||
        !dwarf_diecu(inlined, &cu, nullptr, nullptr))
        return;
    Dwarf_Files* files = nullptr;
    std::size_t count = 0;
    if (dwarf_getsrcfiles(&cu, &files, &count) == 0 && value < count) {
        const char* name = dwarf_filesrc(files, value, nullptr, nullptr);
        if (name)
            file = name;
    }
}

void declSite(Dwarf_Die* die, SymbolFrame& frame) {
    if (const char* file = dwarf_decl_file(die))
        frame.declFile = file;
    int line = 0;
    if (dwarf_decl_line(die, &line) == 0 && line > 0)
        frame.declLine = static_cast<uint32_t>(line);
}

bool isScopeWithCode(int tag) {
    return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block || tag == DW_TAG_try_block ||
           tag == DW_TAG_catch_block || tag == DW_TAG_with_stmt || tag == DW_TAG_common_block;
}

/// Tags whose children may hold function definitions without having code ranges themselves.
bool isContainer(int tag) {
    return tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
           tag == DW_TAG_union_type || tag == DW_TAG_module || tag == DW_TAG_interface_type;
}

/// Descends from a function into the blocks and inlined calls that contain pc; appends the inlined calls
/// (outermost first).
void inlinedCallsAt(Dwarf_Die* parent, Dwarf_Addr pc, std::vector<Dwarf_Die>& outerFirst) {
    Dwarf_Die child;
    if (dwarf_child(parent, &child) != 0)
        return;
    do {
        if (!isScopeWithCode(dwarf_tag(&child)) || dwarf_haspc(&child, pc) <= 0)
            continue;
        if (dwarf_tag(&child) == DW_TAG_inlined_subroutine)
            outerFirst.push_back(child);
        Dwarf_Die inner = child;
        inlinedCallsAt(&inner, pc, outerFirst);
        return;
    } while (dwarf_siblingof(&child, &child) == 0);
}

/// Every function definition with code in the subtree (ranges -> DIE offset).
/// Every function definition with code in the subtree (ranges -> DIE offset). Class bodies only hold
/// declarations (definitions sit at namespace level with DW_AT_specification), so they are skipped there;
/// inside a function they can hold the definitions of a local class.
void collectFunctions(Dwarf_Die* parent, std::vector<ElfSession::FunctionRange>& out, int depth,
                      bool inFunction) {
    Dwarf_Die child;
    if (depth > 64 || dwarf_child(parent, &child) != 0)
        return;
    do {
        const int tag = dwarf_tag(&child);
        if (tag == DW_TAG_subprogram) {
            Dwarf_Addr base = 0, lo = 0, hi = 0;
            bool code = false;
            for (ptrdiff_t off = 0; (off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0;) {
                if (hi > lo)
                    out.push_back({lo, hi, dwarf_dieoffset(&child)});
                code = true;
            }
            if (code)
                collectFunctions(&child, out, depth + 1, true);
        } else if (tag == DW_TAG_namespace || tag == DW_TAG_module || isScopeWithCode(tag) ||
                   (inFunction && isContainer(tag))) {
            collectFunctions(&child, out, depth + 1, inFunction);
        }
    } while (dwarf_siblingof(&child, &child) == 0);
}

} // namespace

void ElfSession::functionScopes(Dwarf_Die* cudie, Dwarf_Addr pc, std::vector<Dwarf_Die>& innerFirst) {
    const Dwarf_Off cuOffset = dwarf_dieoffset(cudie);
    auto it = m_functions.find(cuOffset);
    if (it == m_functions.end()) {
        std::vector<FunctionRange> ranges;
        collectFunctions(cudie, ranges, 0, false);
        std::sort(ranges.begin(), ranges.end(),
                  [](const FunctionRange& a, const FunctionRange& b) { return a.low < b.low; });
        it = m_functions.emplace(cuOffset, std::move(ranges)).first;
    }
    const std::vector<FunctionRange>& ranges = it->second;
    auto r = std::upper_bound(ranges.begin(), ranges.end(), pc,
                              [](Dwarf_Addr a, const FunctionRange& f) { return a < f.low; });
    // the closest start that contains pc (nested ranges: the innermost function)
    const FunctionRange* found = nullptr;
    for (int steps = 0; r != ranges.begin() && steps < 16; ++steps) {
        --r;
        if (pc < r->high) {
            found = &*r;
            break;
        }
    }
    Dwarf_Addr bias = 0;
    Dwarf* dwarf = found ? dwfl_module_getdwarf(m_module, &bias) : nullptr;
    Dwarf_Die function;
    if (!dwarf || !dwarf_offdie(dwarf, found->die, &function))
        return;
    std::vector<Dwarf_Die> outerFirst{function};
    inlinedCallsAt(&function, pc, outerFirst);
    innerFirst.assign(outerFirst.rbegin(), outerFirst.rend());
}

std::vector<SymbolFrame> ElfSession::lookup(uint64_t vaddr, const SymbolizerOptions& options,
                                            const AddressTable& symbols) {
    if (!m_module)
        return {SymbolFrame{}};

    // DWARF: the function at the address and the inlined calls inside it, innermost first
    std::vector<Dwarf_Die> chain;
    Dwarf_Addr bias = 0;
    if (Dwarf_Die* cudie = dwfl_module_addrdie(m_module, vaddr, &bias))
        functionScopes(cudie, vaddr - bias, chain);

    // the address's own line
    std::string leafFile;
    uint32_t leafLine = 0;
    if (options.sourceLines) {
        if (Dwfl_Line* l = dwfl_module_getsrc(m_module, vaddr)) {
            int lineNo = 0;
            if (const char* file = dwfl_lineinfo(l, nullptr, &lineNo, nullptr, nullptr, nullptr)) {
                leafFile = file;
                leafLine = lineNo > 0 ? static_cast<uint32_t>(lineNo) : 0;
            }
        }
    }

    if (chain.empty()) { // no DWARF function: the ELF symbol table
        SymbolFrame f;
        const int64_t s = symbols.find(vaddr);
        if (s >= 0)
            f.function = demangle(symbols.name(s), options.demangle);
        f.file = std::move(leafFile);
        f.line = leafLine;
        return {std::move(f)};
    }

    if (!options.inlineFrames) {
        // just the function, at the position in its own body (the outermost inlined call, if any)
        SymbolFrame f;
        f.function = functionName(&chain.back(), options.demangle);
        declSite(&chain.back(), f);
        if (chain.size() > 1) {
            if (options.sourceLines)
                callSite(&chain[chain.size() - 2], f.file, f.line);
        } else {
            f.file = std::move(leafFile);
            f.line = leafLine;
        }
        if (f.function.empty()) {
            const int64_t s = symbols.find(vaddr);
            if (s >= 0)
                f.function = demangle(symbols.name(s), options.demangle);
        }
        return {std::move(f)};
    }

    std::vector<SymbolFrame> frames(chain.size());
    for (std::size_t k = 0; k < chain.size(); ++k) {
        // frames[] is outermost first; chain[] innermost first
        SymbolFrame& f = frames[chain.size() - 1 - k];
        f.function = functionName(&chain[k], options.demangle);
        f.inlined = dwarf_tag(&chain[k]) == DW_TAG_inlined_subroutine;
        declSite(&chain[k], f);
        if (k == 0) {
            f.file = leafFile;
            f.line = leafLine;
        } else if (options.sourceLines) {
            callSite(&chain[k - 1], f.file, f.line);
        }
    }
    if (frames.front().function.empty()) {
        const int64_t s = symbols.find(vaddr);
        if (s >= 0)
            frames.front().function = demangle(symbols.name(s), options.demangle);
    }
    return frames;
}

} // namespace scorch::detail
