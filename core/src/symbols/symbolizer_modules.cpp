// Symbolizer, its modules' files: where a module's file is (the recorded path, the sysroot, the search paths,
// build-id directories, debuginfod) and the symbol tables of the kernel (kallsyms) and of JIT maps
// (perf-PID.map).
#include "symbols/debuginfod.h"
#include "symbols/symbolizer_impl.h"
#include "symbols/symbolizer_internal.h"
#include "util/textutil.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace scorch {

using detail::AddressTable;
using detail::ElfFileInfo;
using detail::lowerHex;
using detail::Module;

namespace {

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

} // namespace

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

} // namespace scorch
