// AtomicFile: a temporary file (unnamed where possible) beside the target, fsynced and renamed into place;
// removed on SIGINT/SIGTERM/SIGHUP, and stale ones of killed processes removed by the next write.
#include "util/atomicfile.h"

#include "scorch/fileoutput.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <memory>
#include <mutex>
#include <random>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace scorch {

namespace {

std::string directoryOf(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string baseOf(const std::string& path) {
    return path.substr(path.rfind('/') + 1);
}

std::string reason(int err) {
    return std::string(" (") + std::strerror(err) + ")";
}

// --- the temporary files to remove on a signal (async-signal-safe: fixed slots, unlink only) ---------------

constexpr std::size_t kSlots = 16;
struct Slot {
    std::atomic<bool> used{false};
    char path[PATH_MAX] = {};
};
std::array<Slot, kSlots> gSlots;
constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
std::array<struct sigaction, kSignals.size()> gPrevious{};
std::once_flag gInstalled;

extern "C" void onFatalSignal(int sig) {
    const int savedErrno = errno;
    for (Slot& s : gSlots)
        if (s.used.load())
            unlink(s.path);
    for (std::size_t i = 0; i < kSignals.size(); ++i) {
        if (kSignals[i] != sig)
            continue;
        const struct sigaction& prev = gPrevious[i];
        if (prev.sa_handler == SIG_IGN) // NOLINT: a union member
            break;
        if (prev.sa_handler == SIG_DFL) {
            // The default action, as if we had not been here: terminate by this signal (it is delivered once
            // the handler returns).
            signal(sig, SIG_DFL);
            raise(sig);
            break;
        }
        if (prev.sa_flags & SA_SIGINFO)
            prev.sa_sigaction(sig, nullptr, nullptr);
        else
            prev.sa_handler(sig);
    }
    errno = savedErrno;
}

void installHandlers() {
    std::call_once(gInstalled, [] {
        for (std::size_t i = 0; i < kSignals.size(); ++i) {
            struct sigaction sa {};
            sa.sa_handler = onFatalSignal;
            sigemptyset(&sa.sa_mask);
            sa.sa_flags = SA_RESTART;
            sigaction(kSignals[i], &sa, &gPrevious[i]);
        }
    });
}

/// Registers `path` for removal on a signal; returns the slot or -1 when all are taken (16 writes at once).
int registerTemporary(const std::string& path) {
    installHandlers();
    if (path.size() >= PATH_MAX)
        return -1;
    static std::mutex mutex;
    const std::lock_guard lock(mutex);
    for (std::size_t i = 0; i < kSlots; ++i) {
        if (gSlots[i].used.load())
            continue;
        std::memcpy(gSlots[i].path, path.c_str(), path.size() + 1);
        gSlots[i].used.store(true);
        return static_cast<int>(i);
    }
    return -1;
}

void unregisterTemporary(int slot) {
    if (slot >= 0)
        gSlots[static_cast<std::size_t>(slot)].used.store(false);
}

/// Removes "DIR/.NAME.scorch-PID-XXXXXX" files whose process PID is gone (killed while writing).
void removeStaleTemporaries(const std::string& dir, const std::string& base) {
    const std::string prefix = "." + base + ".scorch-";
    DIR* d = opendir(dir.c_str());
    if (!d)
        return;
    while (const dirent* e = readdir(d)) {
        const std::string_view name = e->d_name;
        if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix)
            continue;
        const std::string rest(name.substr(prefix.size()));
        char* end = nullptr;
        const long pid = std::strtol(rest.c_str(), &end, 10);
        if (pid <= 0 || end == rest.c_str() || *end != '-' || pid == getpid())
            continue;
        if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
            unlink((dir + "/" + std::string(name)).c_str());
    }
    closedir(d);
}

} // namespace

struct AtomicFile::State {
    std::string target;
    std::string dir;
    std::string temp; ///< the named temporary file, or empty while it has none
    int fd = -1;
    int slot = -1;
    bool unnamed = false;
    bool committed = false;
    std::unique_ptr<FileOutputBuffer> buf;
    std::unique_ptr<std::ostream> out;

    /// A fresh name "DIR/.NAME.scorch-PID-XXXXXX" (six random letters).
    std::string freshName() const {
        static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        static thread_local std::mt19937 rng{std::random_device{}()};
        std::string name = temporaryPrefix(target) + std::to_string(getpid()) + "-";
        for (int i = 0; i < 6; ++i)
            name += kLetters[rng() % (sizeof kLetters - 1)];
        return name;
    }

    void dropTemporary() {
        if (!temp.empty())
            unlink(temp.c_str());
        unregisterTemporary(slot);
        slot = -1;
        temp.clear();
    }
};

std::string AtomicFile::temporaryPrefix(const std::string& target) {
    return directoryOf(target) + "/." + baseOf(target) + ".scorch-";
}

AtomicFile::AtomicFile(const std::string& target)
    : m_state(new State) {
    State& s = *m_state;
    s.target = target;
    s.dir = directoryOf(target);
    removeStaleTemporaries(s.dir, baseOf(target));
    const mode_t mode = 0666; // less the umask, as for any new file
#ifdef O_TMPFILE
    // linkat() gives the unnamed file a name through /proc/self/fd: without /proc, use a named file (and
    // with SCORCH_NO_TMPFILE=1 in the environment: the tests of the named path, a file system that fails
    // late).
    const char* noTmpfile = std::getenv("SCORCH_NO_TMPFILE");
    if ((!noTmpfile || std::strcmp(noTmpfile, "1") != 0) && access("/proc/self/fd", X_OK) == 0) {
        s.fd = open(s.dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
        s.unnamed = s.fd >= 0;
    }
#endif
    if (s.fd < 0) {
        installHandlers();
        for (int attempt = 0; attempt < 100 && s.fd < 0; ++attempt) {
            s.temp = s.freshName();
            // Registered before it exists, so that a signal between open() and here cannot leave it behind.
            s.slot = registerTemporary(s.temp);
            s.fd = open(s.temp.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode);
            if (s.fd < 0) {
                const int err = errno;
                unregisterTemporary(s.slot);
                s.slot = -1;
                s.temp.clear();
                if (err != EEXIST) {
                    // The message before the state (and `s.dir` with it) goes.
                    std::string message =
                        target + ": cannot create a temporary file in " + s.dir + reason(err);
                    delete m_state;
                    throw AtomicFileError(std::move(message));
                }
            }
        }
        if (s.fd < 0) {
            std::string message = target + ": cannot create a temporary file in " + s.dir + reason(EEXIST);
            delete m_state;
            throw AtomicFileError(std::move(message));
        }
    }
    s.buf = std::make_unique<FileOutputBuffer>(s.fd);
    s.out = std::make_unique<std::ostream>(s.buf.get());
}

AtomicFile::~AtomicFile() {
    State& s = *m_state;
    if (!s.committed) {
        if (s.fd >= 0)
            close(s.fd);
        s.dropTemporary();
    }
    delete m_state;
}

std::ostream& AtomicFile::stream() {
    return *m_state->out;
}

int AtomicFile::error() const {
    return m_state->buf->error();
}

bool AtomicFile::unnamed() const {
    return m_state->unnamed;
}

std::string AtomicFile::writeErrorMessage() const {
    return m_state->target + ": cannot write" + reason(error() ? error() : EIO);
}

void AtomicFile::commit() {
    State& s = *m_state;
    s.out->flush();
    s.buf->finish(); // the blocks reserved ahead and not written go before the data is synced
    if (!*s.out || error())
        throw AtomicFileError(writeErrorMessage());
    if (fsync(s.fd) != 0)
        throw AtomicFileError(s.target + ": cannot write" + reason(errno));
    if (s.unnamed) {
        // Give the unnamed file a name beside the target, then rename that over it: linkat() cannot replace.
        const std::string proc = "/proc/self/fd/" + std::to_string(s.fd);
        for (int attempt = 0; attempt < 100; ++attempt) {
            const std::string name = s.freshName();
            s.slot = registerTemporary(name);
            s.temp = name;
            if (linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0)
                break;
            const int err = errno;
            unregisterTemporary(s.slot);
            s.slot = -1;
            s.temp.clear();
            if (err != EEXIST)
                throw AtomicFileError(s.target + ": cannot link the temporary file into " + s.dir +
                                      reason(err));
        }
        if (s.temp.empty())
            throw AtomicFileError(s.target + ": cannot link the temporary file into " + s.dir +
                                  reason(EEXIST));
    }
    if (close(s.fd) != 0) {
        s.fd = -1;
        throw AtomicFileError(s.target + ": cannot write" + reason(errno));
    }
    s.fd = -1;
    if (std::rename(s.temp.c_str(), s.target.c_str()) != 0)
        throw AtomicFileError(s.target + ": cannot rename the temporary file into place" + reason(errno));
    unregisterTemporary(s.slot);
    s.slot = -1;
    s.temp.clear();
    s.committed = true;
    // The rename itself is durable once the directory is.
    const int dfd = open(s.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        const int rc = fsync(dfd);
        const int err = errno;
        close(dfd);
        if (rc != 0 && err != EINVAL && err != EROFS) // some file systems cannot fsync a directory
            throw AtomicFileError(s.target + ": cannot sync its directory " + s.dir + reason(err));
    }
}

} // namespace scorch
