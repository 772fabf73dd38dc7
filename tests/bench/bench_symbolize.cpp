// bench_symbolize: unique addresses per second through the libdw Symbolizer, one thread vs several.
//
//   build/tests/bench/bench_symbolize [--addresses N] [--threads T] [--stacks S] [--show K] [MODULE...]
//
// For every module (default: this benchmark's own executable, which has full DWARF, libc.so.6 and
// libstdc++.so.6) N file offsets are spread over its executable PT_LOAD segment, the way samples spread
// over code. Each run uses a fresh Symbolizer, so the times include opening the files and loading their
// symbols and DWARF ("cold"); "cached" asks for the same addresses again. Printed per module and for all
// modules together with 1 and T threads (T = cores by default). --show prints K symbolized addresses.
// Then RawProfileBuilder with S unique stacks (default 100000) over the first module's addresses: the
// cost per added sample, of the first snapshot (which symbolizes) and of a repeated snapshot, which a
// live view takes about once a second.
#include "scorch/rawprofile.h"

#include <elf.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace scorch;

namespace {

struct Module {
    std::string path;
    std::vector<uint64_t> offsets;
};

/// N deterministic file offsets inside the executable PT_LOAD segments of an ELF64 file.
std::vector<uint64_t> codeOffsets(const std::string& path, std::size_t n) {
    std::ifstream in(path, std::ios::binary);
    Elf64_Ehdr eh{};
    if (!in.read(reinterpret_cast<char*>(&eh), sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64)
        return {};
    std::vector<std::pair<uint64_t, uint64_t>> text; // [offset, offset + filesz)
    for (unsigned i = 0; i < eh.e_phnum; ++i) {
        Elf64_Phdr ph{};
        in.seekg(static_cast<std::streamoff>(eh.e_phoff + i * sizeof ph));
        if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph))
            return {};
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && ph.p_filesz > 0)
            text.emplace_back(ph.p_offset, ph.p_offset + ph.p_filesz);
    }
    uint64_t total = 0;
    for (const auto& [b, e] : text)
        total += e - b;
    std::vector<uint64_t> out;
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (std::size_t i = 0; i < n && total > 0; ++i) {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        uint64_t at = (s * 2685821657736338717ull) % total;
        for (const auto& [b, e] : text) {
            if (at < e - b) {
                out.push_back(b + at);
                break;
            }
            at -= e - b;
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::string_view baseName(std::string_view path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

double seconds(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

struct Result {
    double cold = 0, cached = 0;
    std::size_t addresses = 0, named = 0, withLine = 0, frames = 0;
};

Result run(const std::vector<Module>& modules, unsigned threads, std::size_t show) {
    SymbolizerOptions options;
    options.threads = threads;
    Symbolizer sym(options);
    std::vector<Symbolizer::Request> requests;
    for (const Module& m : modules) {
        const ModuleHandle h = sym.module(m.path, elfBuildId(m.path));
        for (uint64_t off : m.offsets)
            requests.push_back({h, off, false});
    }
    Result r;
    r.addresses = requests.size();
    auto t0 = std::chrono::steady_clock::now();
    const auto frames = sym.symbolize(requests);
    r.cold = seconds(t0);
    t0 = std::chrono::steady_clock::now();
    const auto again = sym.symbolize(requests);
    r.cached = seconds(t0);
    for (std::size_t i = 0; i < frames.size(); ++i) {
        r.named += !frames[i].front().function.empty();
        r.withLine += frames[i].back().line > 0;
        r.frames += frames[i].size();
        if (i < show) {
            std::printf("  %s+0x%llx:", std::string(baseName(sym.modulePath(requests[i].module))).c_str(),
                        static_cast<unsigned long long>(requests[i].address));
            for (const SymbolFrame& f : frames[i])
                std::printf(" %s%s %s:%u |", f.inlined ? "(inline) " : "", f.function.c_str(),
                            std::string(baseName(f.file)).c_str(), f.line);
            std::printf("\n");
        }
    }
    if (again.size() != frames.size())
        std::printf("cache returned a different count\n");
    return r;
}

void print(const char* what, unsigned threads, const Result& r) {
    std::printf("%-28s %7zu %3u %8.3f %10.0f %9.0f %6.1f%% %6.1f%% %5.2f\n", what, r.addresses, threads,
                r.cold, static_cast<double>(r.addresses) / r.cold,
                static_cast<double>(r.addresses) / r.cached / 1e3,
                100.0 * static_cast<double>(r.named) / static_cast<double>(r.addresses),
                100.0 * static_cast<double>(r.withLine) / static_cast<double>(r.addresses),
                static_cast<double>(r.frames) / static_cast<double>(r.addresses));
}

/// RawProfileBuilder on `stacks` unique stacks of depth 20..40 drawn from the first module's addresses:
/// the cost of adding samples, of the first snapshot (symbolizes) and of a repeated one (live display).
void rawProfile(const Module& m, std::size_t stacks, unsigned threads) {
    SymbolizerOptions options;
    options.threads = threads;
    Symbolizer sym(options);
    RawProfileBuilder raw(sym);
    const uint32_t ct = raw.costType("cpu-clock", CostUnit::Nanoseconds);
    const uint32_t th = raw.thread("bench", 1, 1);
    const ModuleHandle h = sym.module(m.path, elfBuildId(m.path));
    uint64_t s = 0x2545F4914F6CDD1Dull;
    auto next = [&] {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        return s * 2685821657736338717ull;
    };
    // tree-shaped like real profiles: a new stack continues a random earlier one, replacing up to 6 frames
    // at its leaf end
    std::vector<std::vector<RawFrame>> made;
    std::vector<RawFrame> frames;
    std::size_t frameCount = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < stacks; ++i) {
        frames.clear(); // root first while building
        if (!made.empty()) {
            const auto& base = made[next() % made.size()];
            const std::size_t keep = base.size() - 1 - std::min<std::size_t>(base.size() - 1, next() % 6);
            frames.assign(base.begin(), base.begin() + static_cast<std::ptrdiff_t>(keep));
        }
        const std::size_t depth = 20 + next() % 21;
        while (frames.size() < depth)
            frames.push_back({h, m.offsets[next() % m.offsets.size()], true});
        made.push_back(frames);
        std::vector<RawFrame> leafFirst(frames.rbegin(), frames.rend());
        leafFirst.front().returnAddress = false;
        const CostValue c{ct, 1000000};
        for (int rep = 0; rep < 3; ++rep)
            raw.addSample(th, leafFirst, {&c, 1}, static_cast<double>(i) * 1e-3);
        frameCount += depth;
    }
    const double add = seconds(t0);
    // samples of stacks seen before (the common case in a long recording)
    std::vector<std::vector<RawFrame>> leafFirstStacks;
    for (const auto& st : made) {
        leafFirstStacks.emplace_back(st.rbegin(), st.rend());
        leafFirstStacks.back().front().returnAddress = false;
    }
    t0 = std::chrono::steady_clock::now();
    for (const auto& st : leafFirstStacks) {
        const CostValue c{ct, 1000000};
        raw.addSample(th, st, {&c, 1}, 1.0);
    }
    const double again = seconds(t0);
    t0 = std::chrono::steady_clock::now();
    Profile first = raw.snapshot({});
    const double snap1 = seconds(t0);
    t0 = std::chrono::steady_clock::now();
    Profile second = raw.snapshot({});
    const double snap2 = seconds(t0);
    std::printf("RawProfileBuilder: %zu unique stacks x4 samples (%zu frames): addSample %.0f ns/sample "
                "(%.0f ns for a known stack); first snapshot %.3f s (symbolizes); next snapshot %.3f s; %zu "
                "nodes, %zu line entries\n",
                stacks, frameCount, add / static_cast<double>(stacks * 3) * 1e9,
                again / static_cast<double>(stacks) * 1e9, snap1, snap2, second.tree.size(),
                second.lineCosts.size());
}

} // namespace

int main(int argc, char** argv) {
    std::size_t perModule = 20000, show = 0, stacks = 100000;
    unsigned threads = std::max(2u, std::thread::hardware_concurrency());
    std::vector<std::string> paths;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--addresses" && i + 1 < argc)
            perModule = std::stoul(argv[++i]);
        else if (a == "--threads" && i + 1 < argc)
            threads = static_cast<unsigned>(std::stoul(argv[++i]));
        else if (a == "--stacks" && i + 1 < argc)
            stacks = std::stoul(argv[++i]);
        else if (a == "--show" && i + 1 < argc)
            show = std::stoul(argv[++i]);
        else
            paths.push_back(a);
    }
    if (paths.empty()) {
        char self[4096];
        const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n > 0)
            paths.emplace_back(self, static_cast<std::size_t>(n));
        paths.emplace_back("/usr/lib/x86_64-linux-gnu/libc.so.6");
        paths.emplace_back("/usr/lib/x86_64-linux-gnu/libstdc++.so.6");
    }
    std::vector<Module> modules;
    for (const std::string& p : paths) {
        Module m{p, codeOffsets(p, perModule)};
        if (m.offsets.empty()) {
            std::fprintf(stderr, "%s: not a readable ELF64 file with code, skipped\n", p.c_str());
            continue;
        }
        modules.push_back(std::move(m));
    }
    if (modules.empty())
        return 1;

    std::printf("%-28s %7s %3s %8s %10s %9s %7s %7s %5s\n", "module", "addrs", "thr", "cold s", "addr/s",
                "cached k/s", "named", "line", "frm");
    for (const Module& m : modules)
        print(std::string(baseName(m.path)).c_str(), 1, run({m}, 1, show));
    const Result one = run(modules, 1, 0);
    print("all modules", 1, one);
    const Result many = run(modules, threads, 0);
    print("all modules", threads, many);
    std::printf("parallel speed-up with %u threads: %.2fx (cold, unique addresses)\n", threads,
                one.cold / many.cold);
    if (stacks > 0)
        rawProfile(modules.front(), stacks, threads);
    return 0;
}
