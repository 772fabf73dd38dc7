// Internals of the Symbolizer: address tables (ELF symbols, kallsyms, perf-PID.map) and ELF modules read
// with libdwfl. Not part of the public API.
#pragma once

#include "scorch/symbolizer.h"

#include <elfutils/libdwfl.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace scorch::detail {

/// Address ranges with names, sorted by start: ELF function symbols, kallsyms, JIT maps.
class AddressTable {
public:
    /// Adds [start, end); end == start means "up to the next symbol, but not beyond `limit`" (fixed by
    /// finalize()), e.g. the end of the symbol's section.
    void add(uint64_t start, uint64_t end, std::string_view name, std::string_view module = {},
             uint64_t limit = UINT64_MAX);
    /// Sorts and fills open ends. When two entries start at the same address the one added last wins.
    void finalize(uint64_t lastSymbolSlack);
    /// Index of the entry containing addr, or -1.
    int64_t find(uint64_t addr) const;
    std::string_view name(int64_t index) const;
    std::string_view module(int64_t index) const;
    uint64_t start(int64_t index) const { return m_entries[static_cast<std::size_t>(index)].start; }
    uint64_t end(int64_t index) const { return m_entries[static_cast<std::size_t>(index)].end; }
    std::size_t size() const { return m_entries.size(); }
    bool allZero() const;

    /// For parsers that keep their input as the name text: `text` becomes the table's text (the table must
    /// be empty), and addInText() takes names and modules as offsets into it, without copying them.
    void adoptText(std::string text, std::size_t expectedEntries);
    std::string_view text() const { return m_text; }
    void addInText(uint64_t start, uint32_t name, uint32_t nameLen, uint32_t module, uint32_t moduleLen) {
        m_entries.push_back({start, start, UINT64_MAX, name, nameLen, module, moduleLen,
                             static_cast<uint32_t>(m_entries.size())});
    }

private:
    struct Entry {
        uint64_t start, end, limit;
        uint32_t name, nameLen, module, moduleLen;
        uint32_t order;
    };
    std::vector<Entry> m_entries;
    std::string m_text;
};

/// kallsyms text ("ADDR TYPE NAME [MODULE]" lines): function symbols (types t, T, w, W). The table keeps
/// the text.
AddressTable parseKallsyms(std::string text);
/// perf-PID.map text ("START SIZE NAME" lines, hex, with or without 0x).
AddressTable parsePerfMap(std::string_view text);

/// Lower-case hex of bytes.
std::string toHex(const unsigned char* bytes, std::size_t size);
/// A recorded build-id matches the file's: equal, ignoring case and zero padding of the recorded one.
bool buildIdMatches(std::string_view recorded, std::string_view actual);
/// Build-id from a block of ELF notes (e.g. /sys/kernel/notes), hex; empty when absent.
std::string buildIdFromNotes(std::string_view notes);
/// Demangles an Itanium C++ name (and strips an ELF symbol version "@..."); other names come back as is.
std::string demangle(std::string_view name, bool enabled);

/// What is known about an ELF file on disk: build-id and PT_LOAD segments.
struct ElfFileInfo {
    bool ok = false;
    std::string buildId;
    struct Segment {
        uint64_t offset, fileSize, vaddr;
    };
    std::vector<Segment> loads;
    int machine = 0;            ///< e_machine (EM_X86_64, EM_AARCH64, ...)
    bool hasUnwindInfo = false; ///< an .eh_frame or .debug_frame section
    /// ELF virtual address of a file offset, or false when no PT_LOAD segment holds it.
    bool toVaddr(uint64_t fileOffset, uint64_t& vaddr) const;
    /// The file offset of an ELF virtual address, or false when no PT_LOAD segment holds it.
    bool toOffset(uint64_t vaddr, uint64_t& fileOffset) const;
};
ElfFileInfo readElfFileInfo(const std::string& path);

/// One libdwfl handle on one ELF file (libdw is not thread-safe: one session per worker at a time).
class InflatedElfCache;

class ElfSession {
public:
    /// `inflated` (optional) supplies uncompressed copies of files with compressed debug sections, inflated
    /// with up to `threads` threads.
    /// `remoteDebugInfo` (optional) is asked for the debug file of a build-id (hex) that is not found in
    /// the debug directories (debuginfod); it returns the file's path or empty.
    using RemoteDebugInfo = std::function<std::string(const std::string& buildId)>;
    ElfSession(const std::string& path, const std::string& debugInfoPath,
               InflatedElfCache* inflated = nullptr, unsigned threads = 1,
               RemoteDebugInfo remoteDebugInfo = {});
    ~ElfSession();
    ElfSession(const ElfSession&) = delete;
    ElfSession& operator=(const ElfSession&) = delete;

    bool ok() const { return m_module != nullptr; }
    bool hasDebugInfo();
    /// The separate debug file libdwfl read (after hasDebugInfo()); empty when in the file itself or none.
    std::string debugFile() const;
    /// Function symbols (.symtab, else .dynsym) with vaddr ranges.
    AddressTable symbols();
    /// Frames of the (already adjusted, i.e. "- 1" for return addresses) ELF virtual address, outermost
    /// first. `symbols` is the module's table for when DWARF has no subprogram there.
    std::vector<SymbolFrame> lookup(uint64_t vaddr, const SymbolizerOptions& options,
                                    const AddressTable& symbols);

    struct FunctionRange {
        Dwarf_Addr low, high;
        Dwarf_Off die;
    };

private:
    /// The function DIE at pc and the inlined calls inside it, innermost first (empty when none).
    void functionScopes(Dwarf_Die* cudie, Dwarf_Addr pc, std::vector<Dwarf_Die>& innerFirst);

    /// Demangled (or scope-qualified) name of a function DIE, cached by DIE offset.
    const std::string& functionName(Dwarf_Die* die, bool demangleNames);

    std::unordered_map<Dwarf_Off, std::vector<FunctionRange>> m_functions; // per CU, sorted by low
    struct KeyHash {
        std::size_t operator()(const std::pair<const void*, Dwarf_Off>& k) const {
            return std::hash<const void*>()(k.first) ^
                   std::hash<Dwarf_Off>()(k.second * 0x9e3779b97f4a7c15ull);
        }
    };
    /// "ns::Class::" of a function declaration.
    std::string scopePrefixOf(Dwarf_Die decl);
    void indexScopes(Dwarf_Die* parent, uint32_t prefix, int depth);

    using DieKey = std::pair<const void*, Dwarf_Off>; // (Dwarf, offset): the dwz alt file has its own offsets
    std::unordered_map<DieKey, std::string, KeyHash> m_names; // by declaration
    std::unordered_map<DieKey, uint32_t, KeyHash> m_scopeOf;  // function declaration -> m_prefixes index
    std::vector<std::string> m_prefixes;
    std::unordered_set<DieKey, KeyHash> m_scopedUnits;
    static void addPltEntries(Elf* elf, Dwarf_Addr bias, AddressTable& table);
    static int findDebugInfo(Dwfl_Module* mod, void** userdata, const char* modname, Dwarf_Addr base,
                             const char* fileName, const char* debuglinkFile, GElf_Word debuglinkCrc,
                             char** debugInfoFileName);
    /// The descriptor libdwfl reads for the debug file `path` of `buildId` (its inflated copy when its
    /// sections are compressed), naming it in *debugInfoFileName; -1 when the file cannot be opened or is
    /// another build's.
    int openVerifiedDebugFile(const std::string& path, const std::string& buildId, char** debugInfoFileName);

    InflatedElfCache* m_inflated = nullptr;
    unsigned m_threads = 1;
    RemoteDebugInfo m_remoteDebugInfo;
    std::string m_debugPathText;
    char* m_debugPath = nullptr; // libdwfl keeps a pointer to this pointer
    Dwfl_Callbacks m_callbacks{};
    Dwfl* m_dwfl = nullptr;
    Dwfl_Module* m_module = nullptr;
};

} // namespace scorch::detail
