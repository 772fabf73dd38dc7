// Internal: the Symbolizer's modules and its implementation, shared by symbolizer.cpp (registry, sessions,
// lookups, the public API) and symbolizer_modules.cpp (finding a module's file; the kernel's and JIT maps'
// symbol tables). Not part of the public API.
#pragma once

#include "scorch/symbolizer.h"

#include "symbols/elfinflate.h"
#include "symbols/symbolizer_internal.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace scorch {

namespace detail {

/// A build-id in lower-case hex (perf writes lower case; users may type either).
inline std::string lowerHex(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'F')
            c = static_cast<char>(c - 'A' + 'a');
    return out;
}

/// A module a Symbolizer knows (an ELF file, the kernel or a JIT map): where its file is, its symbols, its
/// libdw sessions and the addresses already looked up in it.
struct Module {
    ModuleType kind = ModuleType::Elf;
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
    /// The addresses counted in report.addresses (sorted; not for JIT maps): calls that do not cache may ask
    /// for the same address (a return address and the instruction before it are one), and which batches they
    /// fall in must not change the count.
    std::vector<uint64_t> counted;
};

} // namespace detail

struct Symbolizer::Impl {
    SymbolizerOptions options;
    std::string debugInfoPath;
    unsigned threads = 1;
    detail::InflatedElfCache inflated; ///< uncompressed copies of files with compressed debug sections

    mutable std::mutex registry; ///< guards modules (the container) and index
    std::vector<std::unique_ptr<detail::Module>> modules;
    std::map<std::string, uint32_t, std::less<>> index;

    // the preload threads (as many as `threads`, started as modules are queued): each loads the module
    // queued first, so that kallsyms, libc's debug info and the rest load side by side
    std::mutex preloadMutex; ///< guards preloadQueue, stopping, idlePreloaders and preloaders
    std::condition_variable preloadWake;
    std::deque<detail::Module*> preloadQueue;
    bool stopping = false;
    std::size_t idlePreloaders = 0;
    std::vector<std::thread> preloaders;

    void preloadLoop() {
        for (;;) {
            detail::Module* m;
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
    /// Moves every module's idle libdw sessions into `taken` (closeIdleSessions()).
    void takeIdleSessions(std::vector<std::unique_ptr<detail::ElfSession>>& taken);

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

    ModuleHandle add(std::string key, ModuleType kind, std::string path, std::string buildId) {
        std::lock_guard lock(registry);
        auto it = index.find(key);
        if (it != index.end())
            return ModuleHandle{it->second};
        auto m = std::make_unique<detail::Module>();
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

    detail::Module* get(ModuleHandle h) const {
        std::lock_guard lock(registry);
        return h.valid() && h.value < modules.size() ? modules[h.value].get() : nullptr;
    }
    /// The modules registered so far (each then taken under its own lock, not the registry's).
    std::vector<detail::Module*> allModules() const {
        std::lock_guard lock(registry);
        std::vector<detail::Module*> all;
        all.reserve(modules.size());
        for (const auto& m : modules)
            all.push_back(m.get());
        return all;
    }

    void load(detail::Module& m); // with m.mutex held
    void loadElf(detail::Module& m);
    void locate(detail::Module& m); // with m.locateMutex held
    void loadKernel(detail::Module& m);
    void loadJit(detail::Module& m);

    std::unique_ptr<detail::ElfSession> newSession(const detail::Module& m);
    std::unique_ptr<detail::ElfSession> acquire(detail::Module& m);
    void release(detail::Module& m, std::unique_ptr<detail::ElfSession> s);
    void lookup(detail::Module& m, std::span<const uint64_t> keys, std::vector<std::vector<SymbolFrame>>& out,
                const std::atomic<bool>* cancel);
};

} // namespace scorch
