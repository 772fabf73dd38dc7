// Symbolizer: instruction addresses -> functions, inline frames and source lines (libdw). The builder that
// turns raw address samples into a Profile with it is in rawprofile.h.
//
// Contract shared by the perf.data reader and the sampler:
//  - a user-space address is given as an offset into the module *file* (ip - map start + map pgoff);
//    the symbolizer maps it to the ELF virtual address through the program headers;
//  - kernel and JIT addresses are given as absolute addresses;
//  - a caller frame (a return address) is looked up at address - 1 so that the call instruction, not the
//    one after it, gives the function and line.
#pragma once

#include "scorch/builder.h"
#include "scorch/profile.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace scorch {

/// $HOME/.debug (perf's build-id cache); empty without HOME.
std::string defaultBuildIdCache();
/// $XDG_CACHE_HOME/scorch/inflated, else $HOME/.cache/scorch/inflated (SymbolizerOptions::inflatedCopies);
/// empty without either.
std::string defaultInflatedCopies();

struct SymbolizerOptions {
    /// Extra directories searched for a module by its file name when the recorded path is missing or its
    /// build-id does not match (the build-id is always verified when it is known).
    std::vector<std::string> searchPaths;
    /// Debug-info directories: `<dir>/.build-id/xx/yyyy.debug` and `<dir>/<module path>` (.gnu_debuglink).
    std::vector<std::string> debugDirs = {"/usr/lib/debug"};
    /// Prefix for recorded module paths (profiles recorded on another root file system).
    std::string sysroot;
    /// Where relative recorded paths (`./prog`, as `perf record ./prog` may name it) are looked for: the
    /// recording's directory. Empty = not looked for.
    std::string relativeBase;
    /// Kernel symbols; empty = do not symbolize kernel addresses.
    std::string kallsyms = "/proc/kallsyms";
    /// ELF notes of the kernel that `kallsyms` belongs to (its build-id is compared with a recorded one).
    std::string kernelNotes = "/sys/kernel/notes";
    /// Where perf-PID.map files of JIT compilers are looked for.
    std::string jitMapDir = "/tmp";
    /// perf's build-id cache (`perf record` copies what it saw there, by build-id): the kernel's kallsyms
    /// as it was at recording time (`[kernel.kallsyms]/ID/kallsyms`, preferred over `kallsyms`: it is the
    /// recorded kernel's own table, and reading a file is much cheaper than /proc/kallsyms), the [vdso]
    /// image (`[vdso]/ID/vdso`) and modules (`.build-id/xx/yyyy/elf`) that are no longer on disk. Empty =
    /// not used. Default: $HOME/.debug.
    std::string buildIdCache = defaultBuildIdCache();
    /// Where uncompressed copies of ELF files with compressed debug sections (Debian's -dbg and -dbgsym
    /// packages) are kept between runs, so that only the first run inflates them (libc6-dbg's libc: 30 ms of
    /// CPU). Empty = inflated in memory by every run. The scorch program sets defaultInflatedCopies().
    std::string inflatedCopies;
    /// debuginfod servers (space-separated URLs, as DEBUGINFOD_URLS): binaries and debug info that are not
    /// found on this machine are fetched from them by build-id. Empty = none.
    std::string debuginfodUrls;
    /// Stops a debuginfod transfer in progress (the import's cancel flag); may be null.
    const std::atomic<bool>* cancel = nullptr;
    /// Hears what a slow step is doing ("debuginfod: fetching ..."), from a symbolizer thread.
    std::function<void(const std::string&)> status;
    bool inlineFrames = true;
    bool sourceLines = true;
    bool demangle = true;
    /// Modules are symbolized in parallel; 0 = one thread per core.
    unsigned threads = 0;

    /// Options under which nothing is read from this machine (no modules, debug info, kernel or JIT
    /// symbols): every address stays unresolved.
    static SymbolizerOptions offline() {
        SymbolizerOptions o;
        o.debugDirs.clear();
        o.buildIdCache.clear();
        o.sysroot = "/nonexistent-scorch-sysroot";
        o.kallsyms.clear();
        o.jitMapDir = o.sysroot;
        return o;
    }
};

/// One frame of a symbolized address.
struct SymbolFrame {
    std::string function; ///< demangled; empty when unknown
    std::string file;     ///< source file; empty when unknown
    uint32_t line = 0;    ///< 0 when unknown
    bool inlined = false; ///< an inlined call inside the next-outer frame
    std::string declFile; ///< where the function is defined (DWARF); empty when unknown
    uint32_t declLine = 0;
};

enum class ModuleType : uint8_t { Elf, Kernel, Jit };

struct ModuleHandle {
    uint32_t value = UINT32_MAX; ///< UINT32_MAX = no module (an address outside every known mapping)
    bool valid() const { return value != UINT32_MAX; }
    friend bool operator==(ModuleHandle, ModuleHandle) = default;
};

/// Thread-safe: module(), symbolize() and report() may be called from several threads.
class Symbolizer {
public:
    explicit Symbolizer(SymbolizerOptions options = {});
    ~Symbolizer();
    Symbolizer(const Symbolizer&) = delete;
    Symbolizer& operator=(const Symbolizer&) = delete;

    /// Registers an ELF module as mapped by a process; the same (path, buildId) gives the same handle.
    /// `buildId` is hex, empty when unknown.
    ModuleHandle module(std::string_view path, std::string_view buildId = {});
    /// The kernel (symbols from options.kallsyms). With a recorded build-id, kallsyms is only used when
    /// options.kernelNotes shows the same build-id (symbols of another kernel would be wrong).
    ModuleHandle kernel(std::string_view buildId = {});
    /// JIT code of process `pid` (options.jitMapDir/perf-PID.map).
    ModuleHandle jitMap(int64_t pid);

    /// Gives a module registered without a build-id the one learnt later (perf's pipe mode writes build-ids
    /// after the samples), so that the file is verified when it is loaded. False (nothing changes) when the
    /// module has a build-id already or was loaded.
    bool setBuildId(ModuleHandle module, std::string_view buildId);

    /// Starts loading a module on a background thread (finding its file, reading its symbols and
    /// decompressing its debug info; kallsyms for the kernel), so that a later symbolize() finds it ready:
    /// readers call this when a module first appears in a sample, which overlaps the fixed cost of opening
    /// a module with reading the rest of the input. Does nothing for JIT maps (re-read on every lookup) and
    /// modules already loaded or queued. The destructor waits for a load in progress and skips the rest.
    void preload(ModuleHandle module);

    struct Request {
        ModuleHandle module;
        uint64_t address = 0; ///< file offset (modules) or absolute address (kernel, JIT); see above
        bool returnAddress = false;
    };
    /// Symbolizes unique requests, in parallel across modules (a module with thousands of new addresses is
    /// also split across workers), with a per-module cache. result[i] belongs to requests[i] and lists
    /// the frames outermost first (the real function, then the functions inlined into it, innermost last);
    /// an address that cannot be resolved gives one frame with an empty function name.
    /// `maxThreads` (0 = options.threads) bounds the threads of this call. `cache`: Cache::Skip for a caller
    /// that asks each address once (RawProfileBuilder): what is looked up goes into the result only, moved
    /// rather than copied (the cache would hold a second copy of every frame's strings: fp-large's 364 000
    /// addresses). A cancelled Cache::Skip call returns no results (none at all, whatever was looked up) and
    /// keeps its lookups in the cache for the caller's next call.
    enum class Cache : bool { Use, Skip };
    std::vector<std::vector<SymbolFrame>> symbolize(std::span<const Request> requests,
                                                    const std::atomic<bool>* cancel = nullptr,
                                                    unsigned maxThreads = 0, Cache cache = Cache::Use);

    /// Empties the per-module caches of symbolized addresses and returns how many it held: for a caller that
    /// has taken what it needs and asks no more, so that their memory is free for what it builds next. Loaded
    /// modules, paths and reports stay (an address asked again is looked up again, and counted again in its
    /// module's report).
    std::size_t forgetAddresses();
    /// forgetAddresses(), with the forgotten frames freed on a background thread, so that what the caller
    /// builds next does not wait for them (fp-medium's 30 000 addresses: 6 ms of frees); `then(count)` runs
    /// on that thread after the frees (e.g. to give the heap's free pages back). With IdleSessions::Close,
    /// closeIdleSessions() too: the sessions are taken here and closed on that thread before the frees
    /// (fp-medium: ~2.5 ms). The thread is joined by the next call and by the destructor. Not to be called
    /// from two threads at once.
    enum class IdleSessions : bool { Keep, Close };
    std::size_t forgetAddressesInBackground(std::function<void(std::size_t)> then = {},
                                            IdleSessions sessions = IdleSessions::Keep);

    /// Closes the libdw sessions no lookup is using (their files unmapped, their parsed debug info freed):
    /// for a caller that asks no more for now, so that their memory is free for what it builds next
    /// (fp-large: 16 MB, ~2 ms). Loaded modules, symbol tables and reports stay; a later lookup opens a
    /// session again.
    void closeIdleSessions();

    std::string_view modulePath(ModuleHandle module) const;
    /// The file of an ELF module as the symbolizer finds it (recorded path under the sysroot, relative to
    /// options.relativeBase, search paths by file name, build-id directories, perf's build-id cache; the
    /// build-id verified), without reading its symbols: what a DWARF unwinder reads the module's CFI from.
    /// Empty when no file was found (see report()).
    std::string moduleFile(ModuleHandle module);
    ModuleType moduleType(ModuleHandle module) const;
    /// libdwfl's debug-info search path (":.debug:DIR..."): where separate debug files are looked for.
    std::string debugSearchPath() const;
    /// One report per registered module: report()[i] belongs to ModuleHandle{i}.
    std::vector<ModuleReport> report() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

/// One line on a module of the Symbols report (ProfileMeta::modules), without its recorded path and share:
/// "found by symbol path: /x/libfoo.so; build-id verified; symbols, debug info (/d/ab/cd.debug), unwind
/// info" or "not found; searched /a/libfoo.so, /x/libfoo.so, debuginfod http://h:8002". Not escaped.
std::string describeModule(const ModuleReport& module);

/// Build-id (NT_GNU_BUILD_ID) of an ELF file as lower-case hex; empty when the file cannot be read or has
/// none. For recorders that note the build-ids of mapped modules.
std::string elfBuildId(const std::string& path);

} // namespace scorch
