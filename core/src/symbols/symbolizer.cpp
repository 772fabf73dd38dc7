// Symbolizer: module registry, loading ELF modules, per-module caches and parallel symbolization of unique
// addresses. Finding a module's file and the kernel's and JIT maps' symbol tables: symbolizer_modules.cpp.
#include "scorch/symbolizer.h"
#include "scorch/cancel.h"

#include "symbols/debuginfod.h"
#include "symbols/symbolizer_impl.h"
#include "symbols/symbolizer_internal.h"
#include "util/phasetimer.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace scorch {

using detail::ElfSession;
using detail::lowerHex;
using detail::Module;

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

void Symbolizer::Impl::load(Module& m) {
    if (m.kind == ModuleType::Jit) {
        loadJit(m); // re-read when the map grew (a JIT keeps appending while it runs)
        return;
    }
    if (m.loaded)
        return;
    m.loaded = true;
    detail::trace("load " + m.path);
    if (m.kind == ModuleType::Elf)
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
    if (m.kind != ModuleType::Elf) {
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
    return d->add(std::move(key), ModuleType::Elf, std::string(path), id);
}

ModuleHandle Symbolizer::kernel(std::string_view buildId) {
    const std::string id = lowerHex(buildId);
    return d->add("K" + id, ModuleType::Kernel, "[kernel.kallsyms]", id);
}

ModuleHandle Symbolizer::jitMap(int64_t pid) {
    return d->add("J" + std::to_string(pid), ModuleType::Jit,
                  d->options.jitMapDir + "/perf-" + std::to_string(pid) + ".map", {});
}

bool Symbolizer::setBuildId(ModuleHandle module, std::string_view buildId) {
    Module* m = d->get(module);
    if (!m || m->kind != ModuleType::Elf || buildId.empty())
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
    if (!m || m->kind == ModuleType::Jit || m->queued.exchange(true))
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
    if (!m || m->kind != ModuleType::Elf)
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
    std::size_t forgotten = 0;
    for (Module* m : allModules()) {
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

std::size_t Symbolizer::forgetAddressesInBackground(std::function<void(std::size_t)> then,
                                                    IdleSessions sessions) {
    std::vector<Impl::AddressCache> taken;
    const std::size_t forgotten = d->takeCaches(taken);
    std::vector<std::unique_ptr<ElfSession>> closing;
    if (sessions == IdleSessions::Close)
        d->takeIdleSessions(closing);
    if (d->releaser.joinable())
        d->releaser.join();
    d->releaser = std::thread([taken = std::move(taken), closing = std::move(closing), then = std::move(then),
                               forgotten]() mutable {
        std::vector<std::unique_ptr<ElfSession>>().swap(closing);
        std::vector<Impl::AddressCache>().swap(taken);
        if (then)
            then(forgotten);
    });
    return forgotten;
}

void Symbolizer::closeIdleSessions() {
    std::vector<std::unique_ptr<ElfSession>> closing;
    d->takeIdleSessions(closing);
} // (closed here, outside the modules' locks)

void Symbolizer::Impl::takeIdleSessions(std::vector<std::unique_ptr<ElfSession>>& taken) {
    for (Module* m : allModules()) {
        std::lock_guard lock(m->mutex);
        for (auto& s : m->idle)
            taken.push_back(std::move(s));
        m->idle.clear();
    }
}

std::vector<ModuleReport> Symbolizer::report() const {
    const std::vector<Module*> all = d->allModules();
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
                                                            unsigned maxThreads, Cache cache) {
    const bool useCache = cache == Cache::Use;
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
        if (!w.module->cache.empty())
            std::erase_if(w.missing, [&](const std::pair<uint64_t, uint32_t>& p) {
                auto hit = w.module->cache.find(p.first);
                if (hit == w.module->cache.end())
                    return false;
                result[p.second] = hit->second;
                return true;
            });
        // in key order, so that each request's key is found by counting (below), not by a search
        std::sort(w.missing.begin(), w.missing.end());
        for (const auto& p : w.missing)
            if (w.keys.empty() || w.keys.back() != p.first)
                w.keys.push_back(p.first);
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

    // fill the caches and the results; a cancelled call's lookups are kept in the cache whatever `cache` says
    // (its caller asks again)
    const bool keep = useCache || (cancel && cancel->load());
    for (auto& [id, w] : work) {
        std::lock_guard lock(w.module->mutex);
        const bool jit = w.module->kind == ModuleType::Jit;
        std::vector<uint64_t>& counted = w.module->counted;
        const std::size_t countedBefore = counted.size();
        for (std::size_t k = 0; k < w.keys.size(); ++k) {
            if (w.frames[k].empty())
                continue; // cancelled before it was looked up
            const bool resolved = !w.frames[k].front().function.empty();
            // a JIT map may still grow: unresolved JIT addresses are looked up again next time
            if (keep && (resolved || !jit) && !w.module->cache.emplace(w.keys[k], w.frames[k]).second)
                continue; // another call looked it up meanwhile
            if (!jit) {   // (keys ascend: the new ones are appended in order)
                if (std::binary_search(counted.begin(),
                                       counted.begin() + static_cast<std::ptrdiff_t>(countedBefore),
                                       w.keys[k]))
                    continue; // an earlier call counted it
                counted.push_back(w.keys[k]);
            }
            ++w.module->report.addresses;
            if (!resolved)
                ++w.module->report.unresolved;
        }
        std::inplace_merge(counted.begin(), counted.begin() + static_cast<std::ptrdiff_t>(countedBefore),
                           counted.end());
        if (!useCache && keep)
            continue; // cancelled: no results (below)
        // each key's frames copied to all but its last request (in key order), which takes them
        for (std::size_t i = 0, key = 0; i < w.missing.size(); ++i) {
            if (w.missing[i].first != w.keys[key])
                ++key;
            std::vector<SymbolFrame>& frames = w.frames[key];
            const bool last = i + 1 == w.missing.size() || w.missing[i + 1].first != w.keys[key];
            if (!keep && last)
                result[w.missing[i].second] = std::move(frames);
            else
                result[w.missing[i].second] = frames;
        }
    }
    if (!useCache && keep)
        return {}; // cancelled (what was looked up is cached for the next call)
    for (auto& r : result)
        if (r.empty())
            r.emplace_back();
    detail::trace("symbolized");
    return result;
}

} // namespace scorch
