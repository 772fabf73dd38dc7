// perf.data that the native reader does not support: `perf script` turns it into text for the perf script
// importer, and the profile says so.
#include "perf/perfreader.h"

#include "scorch/cancel.h"
#include "util/mappedpages.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <iterator>
#include <optional>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace scorch::detail {

namespace {

std::string findPerf() {
    if (const char* env = std::getenv("SCORCH_PERF"))
        return env;
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    for (std::size_t at = 0; at <= dirs.size();) {
        const std::size_t colon = std::min(dirs.find(':', at), dirs.size());
        const std::string candidate = dirs.substr(at, colon - at) + "/perf";
        if (colon > at && ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
        at = colon + 1;
    }
    return {};
}

struct TempFile {
    std::string path;
    int fd = -1;
    TempFile() {
        const char* dir = std::getenv("TMPDIR");
        path = std::string(dir && *dir ? dir : "/tmp") + "/scorch-perfscript-XXXXXX";
        fd = ::mkstemp(path.data());
    }
    ~TempFile() {
        if (fd >= 0) {
            ::close(fd);
            ::unlink(path.c_str());
        }
    }
};

constexpr const char* kArchiveExtensions[] = {".tar.bz2", ".tar.gz", ".tar.zst", ".tar.xz"};

/// A tar file (any compression tar knows) unpacked into a temporary directory by tar, removed with this.
struct Unpacked {
    std::string dir, error;
    explicit Unpacked(const std::string& archive) {
        const char* tmp = std::getenv("TMPDIR");
        std::string d = std::string(tmp && *tmp ? tmp : "/tmp") + "/scorch-perfarchive-XXXXXX";
        if (!::mkdtemp(d.data())) {
            error = "cannot create a temporary directory";
            return;
        }
        dir = d;
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
        std::string a0 = "tar", a1 = "-xf", a2 = archive, a3 = "-C", a4 = dir;
        char* argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), a4.data(), nullptr};
        pid_t pid = -1;
        int status = -1;
        if (posix_spawnp(&pid, "tar", &actions, nullptr, argv, environ) == 0)
            while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
        posix_spawn_file_actions_destroy(&actions);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            error = "tar could not unpack it";
    }
    ~Unpacked() {
        if (!dir.empty()) {
            std::error_code ec;
            std::filesystem::remove_all(dir, ec);
        }
    }
    Unpacked(const Unpacked&) = delete;
    Unpacked& operator=(const Unpacked&) = delete;
};

/// `perf archive`'s output beside perf.data `name` (NAME.tar.bz2, .tar.gz, .tar.zst, .tar.xz), unpacked: a
/// build-id cache tree (`.build-id/xx/yyyy` links to `PATH/ID/elf`) that is searched like a debug
/// directory, so the recorded binaries are found there.
struct PerfArchive {
    std::string archive;
    std::unique_ptr<Unpacked> unpacked;
    explicit PerfArchive(const std::string& name) {
        struct stat st {};
        for (const char* ext : kArchiveExtensions)
            if (::stat((name + ext).c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
                archive = name + ext;
                break;
            }
        if (!archive.empty())
            unpacked = std::make_unique<Unpacked>(archive);
    }
    std::string dir() const { return unpacked && unpacked->error.empty() ? unpacked->dir : std::string(); }
    std::string error() const { return unpacked ? unpacked->error : std::string(); }
};

bool startsWithPerfMagic(const std::filesystem::path& file) {
    char magic[8] = {};
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool ok = ::read(fd, magic, sizeof magic) == static_cast<ssize_t>(sizeof magic);
    ::close(fd);
    return ok && sniffPerfData(std::string_view(magic, sizeof magic));
}

} // namespace

Profile importPerfDataWithPerfScript(const std::string& path, const std::string& name,
                                     const ImportOptions& options, const ImportControl& control) {
    const std::string perf = findPerf();
    if (perf.empty())
        throw ImportError(name + ": perf is not installed (needed for this perf.data file)");
    TempFile out, err;
    if (out.fd < 0 || err.fd < 0)
        throw ImportError(name + ": cannot create a temporary file for perf script: " + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out.fd, 1);
    posix_spawn_file_actions_adddup2(&actions, err.fd, 2);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    std::string a0 = perf, a1 = "script", a2 = "-i", a3 = path, a4 = "--no-inline";
    char* argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), a4.data(), nullptr};
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, perf.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
        throw ImportError(name + ": cannot run " + perf + ": " + std::strerror(rc));
    int status = 0;
    for (;;) {
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR)
            break;
        if (control.cancel && control.cancel->load()) {
            ::kill(pid, SIGTERM);
            ::waitpid(pid, &status, 0);
            throw ImportCancelled();
        }
        ::usleep(20000);
    }
    // what perf wrote to stderr; its first line
    char buffer[512] = {};
    const ssize_t n = ::pread(err.fd, buffer, sizeof buffer - 1, 0);
    std::string why(buffer, n > 0 ? static_cast<std::size_t>(n) : 0);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' '))
        why.pop_back();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw ImportError(name + ": perf script failed" + (why.empty() ? std::string() : ": " + why));
    why = why.substr(0, why.find('\n'));
    // perf read the file but found no samples in it (a perf.data version 1 file, for one): say so about this
    // file, and what to do, not about perf script's output in a temporary file
    const auto noSamples = [&] {
        return ImportError(name + ": " + perf + " script read no samples from it" +
                           (why.empty() ? std::string() : " (perf says: " + why + ")") +
                           "; open it with the perf that recorded it (`perf script -i " + name + " > " +
                           name + ".perf` on that machine, then open " + name +
                           ".perf) or record it again with a current perf");
    };
    struct stat outStat {};
    if (::fstat(out.fd, &outStat) == 0 && outStat.st_size == 0)
        throw noSamples();
    ImportOptions textOptions = options;
    textOptions.format = Format::PerfScript;
    ImportControl textControl = control;
    textControl.partial = nullptr;
    Profile p = [&] {
        try {
            return importProfile(out.path, textOptions, textControl);
        } catch (const ImportCancelled&) {
            throw;
        } catch (const ImportError& e) {
            std::string what = e.what();
            if (what.find("no samples found") != std::string::npos)
                throw noSamples();
            // name the perf.data file, not the temporary one
            const std::string instead = name + " (perf script output)";
            for (std::size_t at = what.find(out.path); at != std::string::npos;
                 at = what.find(out.path, at + instead.size()))
                what.replace(at, out.path.size(), instead);
            throw ImportError(what);
        }
    }();
    p.meta.source = name;
    p.meta.format = Format::PerfDataPerfScript;
    return p;
}

bool sniffPerfData(std::string_view head) {
    return head.starts_with("PERFILE2") || head.starts_with("PERFFILE");
}

namespace {
/// The native reader, else `perf script`.
Profile importPerfDataOrFallback(ByteSource& source, std::string head, const std::string& name,
                                 const ImportOptions& options, const ImportControl& control);
} // namespace

Profile importPerfData(ByteSource& source, std::string head, const std::string& name,
                       const ImportOptions& givenOptions, const ImportControl& control) {
    // `perf archive` beside the file: its binaries are searched like a debug directory
    const PerfArchive archive(givenOptions.symbolize ? name : std::string());
    ImportOptions archiveOptions;
    if (!archive.dir().empty()) {
        archiveOptions = givenOptions;
        archiveOptions.debugDirs.push_back(archive.dir());
    }
    const ImportOptions& options = archiveOptions.debugDirs.empty() ? givenOptions : archiveOptions;
    Profile p = importPerfDataOrFallback(source, std::move(head), name, options, control);
    if (!archive.archive.empty()) {
        if (archive.error().empty())
            p.meta.recording.emplace_back("perf archive", archive.archive);
        else
            p.meta.warn(archive.archive + ": " + archive.error() + "; its binaries were not used");
    }
    return p;
}

std::optional<Profile> importPerfArchive(const std::string& path, const ImportOptions& options,
                                         const ImportControl& control) {
    const char* const* ext = std::find_if(std::begin(kArchiveExtensions), std::end(kArchiveExtensions),
                                          [&](const char* e) { return path.ends_with(e); });
    if (ext == std::end(kArchiveExtensions))
        return std::nullopt;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return std::nullopt; // the usual error for an unreadable file
    // `perf archive`'s output: the recording is the file it was made from, beside it
    const std::string recording = path.substr(0, path.size() - std::strlen(*ext));
    if (::stat(recording.c_str(), &st) == 0 && S_ISREG(st.st_mode) && startsWithPerfMagic(recording))
        return importProfile(recording, options, control);
    // a tar with the perf.data inside (and perhaps its binaries or a build-id tree)
    const Unpacked unpacked(path);
    if (!unpacked.error.empty())
        throw ImportError(path + ": " + unpacked.error);
    std::error_code ec;
    std::vector<std::filesystem::path> inside;
    for (auto it = std::filesystem::recursive_directory_iterator(unpacked.dir, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file(ec) && it.depth() <= 1 && startsWithPerfMagic(it->path()))
            inside.push_back(it->path());
    std::sort(inside.begin(), inside.end());
    if (inside.empty())
        throw ImportError(path +
                          ": a perf archive holds the binaries of a recording, not its samples; open the "
                          "perf.data it was made for (" +
                          recording + ") with the archive beside it");
    ImportOptions withTree = options;
    // its binaries: by build-id (a build-id tree, at the top or in .debug) or by name
    if (options.symbolize) {
        withTree.debugDirs.push_back(unpacked.dir);
        withTree.debugDirs.push_back(unpacked.dir + "/.debug");
        withTree.symbolSearchPaths.push_back(inside.front().parent_path().string());
    }
    Profile p = importProfile(inside.front().string(), withTree, control);
    const std::string member = std::filesystem::relative(inside.front(), unpacked.dir, ec).string();
    p.meta.source = path;
    p.meta.recording.emplace_back("opened from", path + ": " + member);
    if (inside.size() > 1)
        p.meta.warn(path + ": " + std::to_string(inside.size()) + " perf.data files inside; opened " +
                    member);
    return p;
}

namespace {

Profile importPerfDataOrFallback(ByteSource& source, std::string head, const std::string& name,
                                 const ImportOptions& options, const ImportControl& control) {
    // A plain file is read through its mapping; a compressed file or a pipe goes to memory.
    const ByteSource::Mapping mapping = source.mapping();
    std::string_view data = mapping.bytes;
    std::string owned;
    if (data.empty()) {
        owned = std::move(head);
        char buffer[1 << 16];
        while (const std::size_t got = source.read(buffer, sizeof buffer)) {
            owned.append(buffer, got);
            if (cancelRequested(control.cancel))
                throw ImportCancelled();
        }
        data = owned;
    }
    // Where the mapping's pages cost more to touch than to copy (util/mappedpages.h), the records are read
    // from the file into the reader's reused buffers instead.
    struct Descriptor {
        int fd = -1;
        ~Descriptor() {
            if (fd >= 0)
                ::close(fd);
        }
    } file;
    ReadAt readAt;
    if (!mapping.bytes.empty() && mapping.releasable &&
        readRatherThanMap(options.fileAccess, mapping.bytes, "perf.data") &&
        (file.fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC)) >= 0) {
        readAt = [fd = file.fd, &name](uint64_t offset, char* out, std::size_t n) -> std::size_t {
            for (;;) {
                const ssize_t got = ::pread(fd, out, n, static_cast<off_t>(offset));
                if (got >= 0)
                    return static_cast<std::size_t>(got);
                if (errno != EINTR)
                    throw ImportError(name + ": cannot read at byte offset " + std::to_string(offset) + ": " +
                                      std::strerror(errno));
            }
        };
    }
    try {
        Profile p;
        readMapping(source, name, [&] {
            p = importPerfDataNative(data, source.compression(), name, options, control,
                                     !mapping.bytes.empty() && mapping.releasable, readAt);
        });
        return p;
    } catch (const PerfDataUnsupported& e) {
        // perf needs a file: the input itself when it is a plain file, otherwise a temporary copy.
        struct stat st {};
        const bool plainFile = !mapping.bytes.empty() && mapping.releasable &&
                               ::stat(name.c_str(), &st) == 0 && S_ISREG(st.st_mode);
        TempFile copy;
        std::string path = name;
        if (!plainFile) {
            if (copy.fd < 0 ||
                ::write(copy.fd, data.data(), data.size()) != static_cast<ssize_t>(data.size()))
                throw ImportError(std::string(e.what()) + "; perf script cannot be run on this input");
            path = copy.path;
        }
        Profile p = [&] {
            try {
                return importPerfDataWithPerfScript(path, name, options, control);
            } catch (const ImportCancelled&) {
                throw;
            } catch (const ImportError& fallback) {
                throw ImportError(std::string(e.what()) +
                                  "; falling back to perf script failed: " + fallback.what());
            }
        }();
        p.meta.warnFirst(std::string(e.what()) + ": read through `perf script` instead");
        return p;
    }
}

} // namespace

} // namespace scorch::detail
