// Symbolizer: module registry, lookup of module files (path, sysroot, search paths, build-id directories),
// per-module caches and parallel symbolization of unique addresses.
#include "scorch/symbolizer.h"
#include "scorch/cancel.h"

#include "symbols/debuginfod.h"
#include "symbols/elfinflate.h"
#include "symbols/symbolizer_internal.h"
#include "util/phasetimer.h"
#include "util/textutil.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace scorch {

using detail::AddressTable;
using detail::ElfFileInfo;
using detail::ElfSession;

namespace {

using ModuleKind = ModuleType;

/// Reads straight into `out`, sized from the file's length (or, for /proc files such as the 5 MB kallsyms,
/// which report 0, grown by doubling): no bounce buffer, no copy per 64 KiB.
bool readWholeFile(const std::string& path, std::string& out) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st {};
    const std::size_t hint =
        ::fstat(fd, &st) == 0 && st.st_size > 0 ? static_cast<std::size_t>(st.st_size) : 0;
    out.clear();
    std::size_t used = 0;
    bool ok = true;
    for (;;) {
        if (used == out.size())
            out.resize(std::max<std::size_t>({hint + 1, out.size() * 2, std::size_t(1) << 20}));
        const ssize_t got = ::read(fd, out.data() + used, out.size() - used);
        if (got > 0) {
            used += static_cast<std::size_t>(got);
        } else if (got == 0) {
            break;
        } else if (errno != EINTR) {
            ok = false;
            break;
        }
    }
    ::close(fd);
    out.resize(used);
    return ok;
}

bool isRegularFile(const std::string& path, uint64_t* size = nullptr) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    if (size)
        *size = static_cast<uint64_t>(st.st_size);
    return true;
}

std::string lowerHex(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'F')
            c = static_cast<char>(c - 'A' + 'a');
    return out;
}

} // namespace

std::string defaultBuildIdCache() {
    const char* home = std::getenv("HOME");
    return home && *home ? std::string(home) + "/.debug" : std::string();
}

std::string defaultInflatedCopies() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
        return std::string(xdg) + "/scorch/inflated";
    const char* home = std::getenv("HOME");
    return home && *home ? std::string(home) + "/.cache/scorch/inflated" : std::string();
}

std::string elfBuildId(const std::string& path) {
    return detail::readElfFileInfo(path).buildId;
}

struct Module {
    ModuleKind kind = ModuleKind::Elf;
    std::string path; ///< as recorded ("[kernel.kallsyms]", "/tmp/perf-PID.map" for the others)
    std::string buildId;

    std::atomic<bool> queued{false}; ///< handed to the preload thread (or loaded)

    /// Guards the four below and `buildId` while they are read: the module's file, found once (by
    /// Symbolizer::moduleFile() for the unwinder, or on loading), without waiting for a load in progress.
    /// Taken after `mutex` when both are.
    std::mutex locateMutex;
    bool located = false;
    std::string locatedPath; ///< the file found; empty when none was
    std::string locateProblem;
    const char* locatedHow = ""; ///< ModuleReport::foundBy
    std::vector<std::string> searched;
    ElfFileInfo locatedFile;

    std::mutex mutex; ///< guards everything below
    bool loaded = false;
    ModuleReport report;
    ElfFileInfo file;
    AddressTable symbols; ///< ELF function symbols, kallsyms or the JIT map
    std::vector<std::unique_ptr<ElfSession>> idle;
    std::size_t sessions = 0;
    uint64_t jitSize = UINT64_MAX;
    std::unordered_map<uint64_t, std::vector<SymbolFrame>> cache;
};

struct Symbolizer::Impl {
    SymbolizerOptions options;
    std::string debugInfoPath;
    unsigned threads = 1;
    detail::InflatedElfCache inflated; ///< uncompressed copies of files with compressed debug sections

    mutable std::mutex registry; ///< guards modules (the container) and index
    std::vector<std::unique_ptr<Module>> modules;
    std::map<std::string, uint32_t, std::less<>> index;

    // the preload threads (as many as `threads`, started as modules are queued): each loads the module
    // queued first, so that kallsyms, libc's debug info and the rest load side by side
    std::mutex preloadMutex; ///< guards preloadQueue, stopping, idlePreloaders and preloaders
    std::condition_variable preloadWake;
    std::deque<Module*> preloadQueue;
    bool stopping = false;
    std::size_t idlePreloaders = 0;
    std::vector<std::thread> preloaders;

    void preloadLoop() {
        for (;;) {
            Module* m;
            {
                std::unique_lock lock(preloadMutex);
                ++idlePreloaders;
                preloadWake.wait(lock, [&] { return stopping || !preloadQueue.empty(); });
                --idlePreloaders;
                if (stopping)
                    return;
                m = preloadQueue.front();
                preloadQueue.pop_front();
            }
            std::lock_guard lock(m->mutex);
            load(*m);
        }
    }

    using AddressCache = std::unordered_map<uint64_t, std::vector<SymbolFrame>>;
    /// Frees forgotten caches (forgetAddressesInBackground()).
    std::thread releaser;
    /// Moves every module's cache of symbolized addresses into `taken`; returns how many addresses they held.
    std::size_t takeCaches(std::vector<AddressCache>& taken);

    ~Impl() {
        if (releaser.joinable())
            releaser.join();
        {
            std::lock_guard lock(preloadMutex);
            stopping = true;
        }
        preloadWake.notify_all();
        for (std::thread& t : preloaders)
            t.join();
    }

    ModuleHandle add(std::string key, ModuleKind kind, std::string path, std::string buildId) {
        std::lock_guard lock(registry);
        auto it = index.find(key);
        if (it != index.end())
            return ModuleHandle{it->second};
        auto m = std::make_unique<Module>();
        m->kind = kind;
        m->path = std::move(path);
        m->buildId = std::move(buildId);
        m->report.path = m->path;
        m->report.buildId = m->buildId;
        const auto id = static_cast<uint32_t>(modules.size());
        modules.push_back(std::move(m));
        index.emplace(std::move(key), id);
        return ModuleHandle{id};
    }

    Module* get(ModuleHandle h) const {
        std::lock_guard lock(registry);
        return h.valid() && h.value < modules.size() ? modules[h.value].get() : nullptr;
    }

    void load(Module& m); // with m.mutex held
    void loadElf(Module& m);
    void locate(Module& m); // with m.locateMutex held
    void loadKernel(Module& m);
    void loadJit(Module& m);

    std::unique_ptr<ElfSession> newSession(const Module& m);
    std::unique_ptr<ElfSession> acquire(Module& m);
    void release(Module& m, std::unique_ptr<ElfSession> s);
    void lookup(Module& m, std::span<const uint64_t> keys, std::vector<std::vector<SymbolFrame>>& out,
                const std::atomic<bool>* cancel);
};

void Symbolizer::Impl::load(Module& m) {
    if (m.kind == ModuleKind::Jit) {
        loadJit(m); // re-read when the map grew (a JIT keeps appending while it runs)
        return;
    }
    if (m.loaded)
        return;
    m.loaded = true;
    detail::trace("load " + m.path);
    if (m.kind == ModuleKind::Elf)
        loadElf(m);
    else
        loadKernel(m);
    detail::trace("loaded " + m.path);
}

void Symbolizer::Impl::loadElf(Module& m) {
    {
        std::lock_guard lock(m.locateMutex);
        locate(m);
        m.report.searched = m.searched;
        if (m.locatedPath.empty()) {
            m.report.problem = m.locateProblem;
            return;
        }
        m.file = m.locatedFile;
        m.report.resolvedPath = m.locatedPath;
        m.report.foundBy = m.locatedHow;
        m.report.buildIdVerified = !m.buildId.empty() && detail::buildIdMatches(m.buildId, m.file.buildId);
        m.report.hasUnwindInfo = m.file.hasUnwindInfo;
    }
    auto session = newSession(m);
    if (!session->ok()) {
        m.report.problem = "cannot be read by libdwfl";
        return;
    }
    m.symbols = session->symbols();
    m.report.hasSymbols = m.symbols.size() > 0;
    m.report.hasDebugInfo = session->hasDebugInfo();
    if (m.report.hasDebugInfo)
        m.report.debugFile = session->debugFile();
    if (!m.report.hasSymbols && !m.report.hasDebugInfo)
        m.report.problem = "no symbols";
    else if (!m.report.hasDebugInfo)
        m.report.problem = "no debug info";
    m.idle.push_back(std::move(session));
    m.sessions = 1;
}

std::unique_ptr<ElfSession> Symbolizer::Impl::newSession(const Module& m) {
    ElfSession::RemoteDebugInfo remote;
    if (!options.debuginfodUrls.empty())
        remote = [this, what = m.path](const std::string& id) {
            return detail::debuginfodFetch(options.debuginfodUrls, detail::DebuginfodKind::DebugInfo, id,
                                           what, {}, options.cancel, options.status)
                .path;
        };
    return std::make_unique<ElfSession>(m.report.resolvedPath, debugInfoPath, &inflated, threads,
                                        std::move(remote));
}

void Symbolizer::Impl::locate(Module& m) {
    if (m.located)
        return;
    m.located = true;
    std::string path = m.path;
    if (path.ends_with(" (deleted)"))
        path.resize(path.size() - 10);
    struct Candidate {
        std::string path;
        const char* how;
    };
    std::vector<Candidate> candidates;
    auto candidate = [&](std::string p, const char* how) {
        if (std::none_of(candidates.begin(), candidates.end(),
                         [&](const Candidate& c) { return c.path == p; }))
            candidates.push_back({std::move(p), how});
    };
    const bool absolute = path.starts_with('/');
    if (absolute)
        candidate(options.sysroot + path, options.sysroot.empty() ? "recorded path" : "sysroot");
    else if (!path.empty() && !path.starts_with('[') && !options.relativeBase.empty())
        candidate(options.relativeBase + '/' + path, "beside the recording"); // `perf record ./prog`
    if (!path.empty() && !path.starts_with('[')) {
        for (const std::string& dir : options.searchPaths) {
            candidate(dir + '/' + std::string(detail::baseName(path)), "symbol path");
            if (absolute)
                candidate(dir + path, "symbol path");
        }
    }
    const std::string id = lowerHex(m.buildId.substr(0, std::min<std::size_t>(m.buildId.size(), 40)));
    if (path == "[vdso]" && !id.empty() && !options.buildIdCache.empty())
        candidate(options.buildIdCache + "/[vdso]/" + id + "/vdso",
                  "perf build-id cache"); // perf record's copy
    if (id.size() > 2 && !options.buildIdCache.empty())
        candidate(options.buildIdCache + "/.build-id/" + id.substr(0, 2) + '/' + id.substr(2) + "/elf",
                  "perf build-id cache");
    if (id.size() > 2) {
        for (const std::string& dir : options.debugDirs) {
            const std::string stem = dir + "/.build-id/" + id.substr(0, 2) + '/' + id.substr(2);
            // a link to the binary itself, or perf's build-id cache (~/.debug); a separate .debug file alone
            // does not do: its program headers lost the file offsets that our addresses are given in
            candidate(stem, "debug directory");
            candidate(stem + "/elf", "debug directory");
        }
    }

    std::string mismatch, notElf;
    auto accept = [&](const std::string& p, const char* how) {
        if (!isRegularFile(p))
            return false;
        ElfFileInfo info = detail::readElfFileInfo(p);
        if (!info.ok) {
            notElf = p;
            return false;
        }
        if (!m.buildId.empty() && !detail::buildIdMatches(m.buildId, info.buildId)) {
            if (mismatch.empty())
                mismatch = p + " has " + (info.buildId.empty() ? std::string("none") : info.buildId);
            return false;
        }
        m.locatedFile = std::move(info);
        m.locatedPath = p;
        m.locatedHow = how;
        return true;
    };
    m.searched.clear();
    for (const Candidate& c : candidates) {
        m.searched.push_back(c.path);
        if (accept(c.path, c.how)) {
            if (m.searched.size() == 1)
                m.searched.clear(); // found where it was recorded: nothing to tell
            return;
        }
    }
    std::string remoteError;
    if (id.size() > 2 && !options.debuginfodUrls.empty()) {
        m.searched.push_back("debuginfod " + options.debuginfodUrls);
        const detail::DebuginfodResult fetched =
            detail::debuginfodFetch(options.debuginfodUrls, detail::DebuginfodKind::Executable, id, path, {},
                                    options.cancel, options.status);
        if (!fetched.path.empty() && accept(fetched.path, "debuginfod"))
            return;
        remoteError = fetched.error;
    }
    if (!mismatch.empty())
        m.locateProblem = "build-id mismatch (" + mismatch + ", recorded " + m.buildId + ")";
    else if (!notElf.empty())
        m.locateProblem = "not an ELF file: " + notElf;
    else
        m.locateProblem = "not found";
    if (!remoteError.empty())
        m.locateProblem += " (debuginfod: " + remoteError + ")";
}

void Symbolizer::Impl::loadKernel(Module& m) {
    if (options.kallsyms.empty()) {
        m.report.problem = "kernel symbols disabled";
        return;
    }
    std::string text;
    if (!m.buildId.empty() && !options.buildIdCache.empty()) {
        const std::string cached = options.buildIdCache + "/[kernel.kallsyms]/" + m.buildId + "/kallsyms";
        if (readWholeFile(cached, text)) {
            m.report.resolvedPath = cached;
            m.report.foundBy = "perf build-id cache";
            m.symbols = detail::parseKallsyms(std::move(text));
            if (m.symbols.size() > 0 && !m.symbols.allZero()) {
                m.report.hasSymbols = true;
                return;
            }
            m.symbols = AddressTable();
            m.report.resolvedPath.clear();
            m.report.foundBy.clear();
        }
    }
    if (!m.buildId.empty()) {
        std::string notes;
        const std::string running =
            readWholeFile(options.kernelNotes, notes) ? detail::buildIdFromNotes(notes) : std::string();
        if (!running.empty() && !detail::buildIdMatches(m.buildId, running)) {
            m.report.problem = "build-id mismatch (running kernel has " + running + ", recorded " +
                               m.buildId + "): kernel symbols not used";
            return;
        }
    }
    if (!readWholeFile(options.kallsyms, text)) {
        m.report.problem = "cannot read " + options.kallsyms;
        return;
    }
    m.report.resolvedPath = options.kallsyms;
    m.symbols = detail::parseKallsyms(std::move(text));
    if (m.symbols.size() == 0) {
        m.report.problem = "no symbols in " + options.kallsyms;
    } else if (m.symbols.allZero()) {
        m.symbols = AddressTable();
        m.report.problem = "kernel addresses hidden in " + options.kallsyms + " (kernel.kptr_restrict)";
    } else {
        m.report.hasSymbols = true;
    }
}

void Symbolizer::Impl::loadJit(Module& m) {
    uint64_t size = 0;
    if (!isRegularFile(m.path, &size)) {
        m.report.problem = "not found";
        return;
    }
    if (size == m.jitSize)
        return;
    std::string text;
    if (!readWholeFile(m.path, text)) {
        m.report.problem = "cannot be read";
        return;
    }
    m.jitSize = size;
    m.loaded = true;
    m.report.resolvedPath = m.path;
    m.report.problem.clear();
    m.symbols = detail::parsePerfMap(text);
    m.report.hasSymbols = m.symbols.size() > 0;
}

std::unique_ptr<ElfSession> Symbolizer::Impl::acquire(Module& m) {
    {
        std::lock_guard lock(m.mutex);
        if (!m.idle.empty()) {
            auto s = std::move(m.idle.back());
            m.idle.pop_back();
            return s;
        }
        ++m.sessions;
    }
    return newSession(m);
}

void Symbolizer::Impl::release(Module& m, std::unique_ptr<ElfSession> s) {
    std::lock_guard lock(m.mutex);
    m.idle.push_back(std::move(s));
}

void Symbolizer::Impl::lookup(Module& m, std::span<const uint64_t> keys,
                              std::vector<std::vector<SymbolFrame>>& out, const std::atomic<bool>* cancel) {
    auto cancelled = [&] {
        return cancelRequested(cancel);
    };
    std::unique_lock lock(m.mutex);
    load(m);
    if (m.kind != ModuleKind::Elf) {
        for (std::size_t i = 0; i < keys.size() && !cancelled(); ++i) {
            SymbolFrame f;
            const int64_t s = m.symbols.find(keys[i]);
            if (s >= 0)
                f.function = detail::demangle(m.symbols.name(s), options.demangle);
            out[i] = {std::move(f)};
        }
        return;
    }
    if (m.idle.empty() && m.sessions == 0) { // not found or unreadable
        for (std::size_t i = 0; i < keys.size(); ++i)
            out[i] = {SymbolFrame{}};
        return;
    }
    lock.unlock();
    std::unique_ptr<ElfSession> session = acquire(m);
    if (!session->ok()) {
        for (std::size_t i = 0; i < keys.size(); ++i)
            out[i] = {SymbolFrame{}};
        return;
    }
    for (std::size_t i = 0; i < keys.size() && !cancelled(); ++i) {
        uint64_t vaddr = 0;
        if (m.file.toVaddr(keys[i], vaddr))
            out[i] = session->lookup(vaddr, options, m.symbols);
        else
            out[i] = {SymbolFrame{}};
    }
    release(m, std::move(session));
}

Symbolizer::Symbolizer(SymbolizerOptions options)
    : d(std::make_unique<Impl>()) {
    d->options = std::move(options);
    d->debugInfoPath = ":.debug";
    for (const std::string& dir : d->options.debugDirs)
        d->debugInfoPath += ':' + dir;
    d->threads = d->options.threads ? d->options.threads : std::max(1u, std::thread::hardware_concurrency());
    d->inflated.keepIn(d->options.inflatedCopies);
}

Symbolizer::~Symbolizer() = default;

ModuleHandle Symbolizer::module(std::string_view path, std::string_view buildId) {
    const std::string id = lowerHex(buildId);
    std::string key = "E";
    key.append(path).append(1, '\0').append(id);
    return d->add(std::move(key), ModuleKind::Elf, std::string(path), id);
}

ModuleHandle Symbolizer::kernel(std::string_view buildId) {
    const std::string id = lowerHex(buildId);
    return d->add("K" + id, ModuleKind::Kernel, "[kernel.kallsyms]", id);
}

ModuleHandle Symbolizer::jitMap(int64_t pid) {
    return d->add("J" + std::to_string(pid), ModuleKind::Jit,
                  d->options.jitMapDir + "/perf-" + std::to_string(pid) + ".map", {});
}

bool Symbolizer::setBuildId(ModuleHandle module, std::string_view buildId) {
    Module* m = d->get(module);
    if (!m || m->kind != ModuleKind::Elf || buildId.empty())
        return false;
    std::lock_guard lock(m->mutex);
    if (m->loaded || m->queued || !m->buildId.empty())
        return false;
    std::lock_guard locateLock(m->locateMutex);
    m->located = false; // found without the build-id (by the unwinder): found again, verified
    m->locatedPath.clear();
    m->searched.clear();
    m->buildId = lowerHex(buildId);
    m->report.buildId = m->buildId;
    return true;
}

void Symbolizer::preload(ModuleHandle module) {
    Module* m = d->get(module);
    if (!m || m->kind == ModuleKind::Jit || m->queued.exchange(true))
        return;
    {
        std::lock_guard lock(d->preloadMutex);
        if (d->stopping)
            return;
        d->preloadQueue.push_back(m);
        if (d->idlePreloaders < d->preloadQueue.size() && d->preloaders.size() < d->threads)
            d->preloaders.emplace_back([this] { d->preloadLoop(); });
    }
    d->preloadWake.notify_one();
}

std::string Symbolizer::debugSearchPath() const {
    return d->debugInfoPath;
}

std::string Symbolizer::moduleFile(ModuleHandle module) {
    Module* m = d->get(module);
    if (!m || m->kind != ModuleKind::Elf)
        return {};
    std::lock_guard lock(m->locateMutex);
    d->locate(*m);
    return m->locatedPath;
}

std::string_view Symbolizer::modulePath(ModuleHandle module) const {
    const Module* m = d->get(module);
    return m ? std::string_view(m->path) : std::string_view();
}

ModuleType Symbolizer::moduleType(ModuleHandle module) const {
    const Module* m = d->get(module);
    return m ? m->kind : ModuleType::Elf;
}

std::size_t Symbolizer::Impl::takeCaches(std::vector<AddressCache>& taken) {
    std::vector<Module*> all;
    {
        std::lock_guard lock(registry);
        for (const auto& m : modules)
            all.push_back(m.get());
    }
    std::size_t forgotten = 0;
    for (Module* m : all) {
        std::lock_guard lock(m->mutex);
        forgotten += m->cache.size();
        taken.emplace_back().swap(m->cache);
    }
    return forgotten;
}

std::size_t Symbolizer::forgetAddresses() {
    std::vector<Impl::AddressCache> taken;
    return d->takeCaches(taken); // (freed here, outside the modules' locks)
}

std::size_t Symbolizer::forgetAddressesInBackground(std::function<void(std::size_t)> then) {
    std::vector<Impl::AddressCache> taken;
    const std::size_t forgotten = d->takeCaches(taken);
    if (d->releaser.joinable())
        d->releaser.join();
    d->releaser = std::thread([taken = std::move(taken), then = std::move(then), forgotten]() mutable {
        std::vector<Impl::AddressCache>().swap(taken);
        if (then)
            then(forgotten);
    });
    return forgotten;
}

std::vector<ModuleReport> Symbolizer::report() const {
    std::vector<Module*> all;
    {
        std::lock_guard lock(d->registry);
        for (const auto& m : d->modules)
            all.push_back(m.get());
    }
    std::vector<ModuleReport> out;
    out.reserve(all.size());
    for (Module* m : all) {
        std::lock_guard lock(m->mutex);
        out.push_back(m->report);
    }
    return out;
}

std::vector<std::vector<SymbolFrame>> Symbolizer::symbolize(std::span<const Request> requests,
                                                            const std::atomic<bool>* cancel,
                                                            unsigned maxThreads) {
    const unsigned threads = maxThreads ? std::min(maxThreads, d->threads) : d->threads;
    std::vector<std::vector<SymbolFrame>> result(requests.size());
    detail::trace("symbolize " + std::to_string(requests.size()) + " addresses");

    // group by module; answer from the caches; collect the unique addresses still to look up
    struct Work {
        Module* module;
        std::vector<std::pair<uint64_t, uint32_t>> missing; // (key, request)
        std::vector<uint64_t> keys;                         // unique, sorted
        std::vector<std::vector<SymbolFrame>> frames;       // per key
    };
    std::unordered_map<uint32_t, Work> work;
    for (uint32_t i = 0; i < requests.size(); ++i) {
        if (!requests[i].module.valid())
            continue;
        auto it = work.find(requests[i].module.value);
        if (it == work.end()) {
            Module* m = d->get(requests[i].module);
            if (!m)
                continue;
            it = work.emplace(requests[i].module.value, Work{m, {}, {}, {}}).first;
        }
        const Request& r = requests[i];
        it->second.missing.emplace_back(r.returnAddress && r.address > 0 ? r.address - 1 : r.address, i);
    }
    for (auto& entry : work) {
        Work& w = entry.second;
        std::lock_guard lock(w.module->mutex);
        std::erase_if(w.missing, [&](const std::pair<uint64_t, uint32_t>& p) {
            auto hit = w.module->cache.find(p.first);
            if (hit == w.module->cache.end())
                return false;
            result[p.second] = hit->second;
            return true;
        });
        for (const auto& p : w.missing)
            w.keys.push_back(p.first);
        std::sort(w.keys.begin(), w.keys.end());
        w.keys.erase(std::unique(w.keys.begin(), w.keys.end()), w.keys.end());
        w.frames.resize(w.keys.size());
    }

    // units of work: a module's unique addresses, split so that a big module keeps several workers busy.
    // Every extra worker on a module loads its DWARF again (libc's compressed debug info: ~0.2 s), which
    // pays off only for thousands of addresses.
    struct Unit {
        Work* work;
        std::size_t begin, end;
    };
    std::vector<Unit> units;
    for (auto& [id, w] : work) {
        const std::size_t n = w.keys.size();
        if (n == 0)
            continue;
        const std::size_t chunk = std::max<std::size_t>(4096, (n + threads - 1) / threads);
        for (std::size_t b = 0; b < n; b += chunk)
            units.push_back({&w, b, std::min(n, b + chunk)});
    }
    // big units first so that the workers finish together
    std::sort(units.begin(), units.end(),
              [](const Unit& a, const Unit& b) { return a.end - a.begin > b.end - b.begin; });
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t u; (u = next.fetch_add(1)) < units.size();) {
            Unit& unit = units[u];
            std::vector<std::vector<SymbolFrame>> out(unit.end - unit.begin);
            const std::span<const uint64_t> keys(unit.work->keys.data() + unit.begin, unit.end - unit.begin);
            d->lookup(*unit.work->module, keys, out, cancel);
            for (std::size_t k = 0; k < out.size(); ++k)
                unit.work->frames[unit.begin + k] = std::move(out[k]);
        }
    };
    const std::size_t workers = std::min<std::size_t>(threads, units.size());
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < workers; ++t)
        pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool)
        t.join();
    detail::trace("looked up");

    // fill the caches and the results
    for (auto& [id, w] : work) {
        std::lock_guard lock(w.module->mutex);
        const bool jit = w.module->kind == ModuleKind::Jit;
        for (std::size_t k = 0; k < w.keys.size(); ++k) {
            if (w.frames[k].empty())
                continue; // cancelled before it was looked up
            const bool resolved = !w.frames[k].front().function.empty();
            // a JIT map may still grow: unresolved JIT addresses are looked up again next time
            if ((resolved || !jit) && !w.module->cache.emplace(w.keys[k], w.frames[k]).second)
                continue; // another call looked it up meanwhile
            ++w.module->report.addresses;
            if (!resolved)
                ++w.module->report.unresolved;
        }
        for (const auto& [key, request] : w.missing) {
            const std::size_t k = static_cast<std::size_t>(
                std::lower_bound(w.keys.begin(), w.keys.end(), key) - w.keys.begin());
            result[request] = w.frames[k];
        }
    }
    for (auto& r : result)
        if (r.empty())
            r.emplace_back();
    detail::trace("symbolized");
    return result;
}

} // namespace scorch
