// Sampler: the common part of both mechanisms (worker thread, /proc readers, launching, permission advice).
#include "sampler/samplerinternal.h"

#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <fstream>
#include <gelf.h>
#include <libelf.h>
#include <sstream>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <time.h>
#include <unistd.h>

namespace scorch {

namespace detail {

uint64_t monotonicNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

std::vector<pid_t> listThreads(pid_t pid) {
    std::vector<pid_t> tids;
    const std::string dir = "/proc/" + std::to_string(pid) + "/task";
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d)) {
            if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
                tids.push_back(static_cast<pid_t>(std::strtol(e->d_name, nullptr, 10)));
        }
        closedir(d);
    }
    return tids;
}

static std::string readSmallFile(const std::string& path) {
    std::ifstream in(path);
    std::string text;
    std::getline(in, text, '\0');
    return text;
}

std::string readThreadName(pid_t pid, pid_t tid) {
    std::string name =
        readSmallFile("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/comm");
    while (!name.empty() && (name.back() == '\n' || name.back() == '\r'))
        name.pop_back();
    return name;
}

std::string procSysValue(const char* path) {
    std::string v = readSmallFile(path);
    if (v.empty())
        return access(path, F_OK) == 0 ? "unreadable" : "absent";
    while (!v.empty() && (v.back() == '\n' || v.back() == ' '))
        v.pop_back();
    return v;
}

std::string buildIdOf(const std::string& path) {
    static std::mutex mutex;
    static std::map<std::string, std::pair<std::pair<int64_t, int64_t>, std::string>> cache;
    struct stat st {};
    if (path.empty() || path[0] != '/' || stat(path.c_str(), &st) != 0)
        return {};
    const std::pair<int64_t, int64_t> key{static_cast<int64_t>(st.st_ino), static_cast<int64_t>(st.st_mtime)};
    {
        std::lock_guard lock(mutex);
        auto it = cache.find(path);
        if (it != cache.end() && it->second.first == key)
            return it->second.second;
    }
    std::string hex;
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        elf_version(EV_CURRENT);
        if (Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr)) {
            const void* id = nullptr;
            const ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
            static const char* digits = "0123456789abcdef";
            for (ssize_t i = 0; i < n; ++i) {
                const auto b = static_cast<const unsigned char*>(id)[i];
                hex.push_back(digits[b >> 4]);
                hex.push_back(digits[b & 15]);
            }
            elf_end(elf);
        }
        close(fd);
    }
    std::lock_guard lock(mutex);
    cache[path] = {key, hex};
    return hex;
}

std::vector<RecordedModule> readExecutableModules(pid_t pid, uint64_t timeNs) {
    std::vector<RecordedModule> modules;
    std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
    std::string line;
    while (std::getline(in, line)) {
        // start-end perms offset dev inode path
        unsigned long long start = 0, end = 0, offset = 0, inode = 0;
        char perms[8] = {};
        char dev[32] = {};
        int pathPos = -1;
        if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %31s %llu %n", &start, &end, perms, &offset, dev,
                        &inode, &pathPos) < 6)
            continue;
        if (perms[2] != 'x' || pathPos < 0 || static_cast<std::size_t>(pathPos) >= line.size())
            continue;
        std::string path = line.substr(static_cast<std::size_t>(pathPos));
        if (path.ends_with(" (deleted)"))
            path.resize(path.size() - 10);
        if (path.empty() || (path[0] != '/' && path != "[vdso]"))
            continue;
        RecordedModule m;
        m.start = start;
        m.end = end;
        m.offset = offset;
        m.timeNs = timeNs;
        m.path = path;
        m.buildId = buildIdOf(path);
        modules.push_back(std::move(m));
    }
    return modules;
}

void SamplerContext::started(pid_t pid) {
    std::lock_guard lock(startMutex);
    if (startDone)
        return;
    startedPid = pid;
    startDone = true;
    startCv.notify_all();
}

void SamplerContext::failed(const SamplerError& e) {
    std::lock_guard lock(startMutex);
    if (!startDone) {
        startError = e.what()[0] ? e : SamplerError("the sampler ended before it started");
        startDone = true;
        startCv.notify_all();
        return;
    }
    if (e.what()[0]) {
        std::lock_guard lock2(mutex);
        if (error.empty())
            error = e.what();
    }
}

bool SamplerContext::shouldStop(uint64_t startNs) const {
    if (stopRequested.load(std::memory_order_relaxed))
        return true;
    return options.durationSeconds > 0 &&
           static_cast<double>(monotonicNs() - startNs) >= options.durationSeconds * 1e9;
}

void SamplerContext::addSample(pid_t tid, uint64_t timeNs, const uint64_t* ips, std::size_t n) {
    if (n == 0)
        return;
    {
        std::lock_guard lock(mutex);
        recording.addSample(tid, timeNs, ips, n);
    }
    sampleCount.fetch_add(1, std::memory_order_relaxed);
}

void SamplerContext::addTimed(pid_t tid, uint64_t timeNs, uint64_t durationNs, char state,
                              const uint64_t* ips, std::size_t n) {
    if (durationNs == 0 || (n == 0 && state == 0))
        return;
    {
        std::lock_guard lock(mutex);
        recording.addTimed(tid, timeNs, durationNs, state, ips, n);
    }
    sampleCount.fetch_add(1, std::memory_order_relaxed);
}

void SamplerContext::addModules(std::vector<RecordedModule> modules) {
    std::lock_guard lock(mutex);
    for (RecordedModule& m : modules) {
        bool known = false;
        for (const RecordedModule& k : recording.modules)
            known =
                known || (k.start == m.start && k.end == m.end && k.offset == m.offset && k.path == m.path);
        if (!known)
            recording.modules.push_back(std::move(m));
    }
}

void SamplerContext::setThreadName(pid_t tid, std::string name, uint64_t timeNs) {
    namedThreads[tid] = true;
    std::lock_guard lock(mutex);
    for (auto it = recording.threads.rbegin(); it != recording.threads.rend(); ++it)
        if (it->tid == tid) {
            if (it->name == name)
                return;
            break;
        }
    recording.threads.push_back({tid, timeNs, std::move(name)});
}

void SamplerContext::ensureThreadName(pid_t pid, pid_t tid) {
    if (namedThreads.count(tid))
        return;
    std::string name = readThreadName(pid, tid);
    if (name.empty())
        name = readThreadName(pid, pid);
    setThreadName(tid, std::move(name), monotonicNs());
}

void SamplerContext::note(std::string text) {
    std::lock_guard lock(mutex);
    if (recording.notes.size() < 100)
        recording.notes.push_back(std::move(text));
}

PausedChild forkPaused(const SamplerOptions& options) {
    int release[2], error[2];
    if (pipe2(release, O_CLOEXEC) != 0)
        throw SamplerError(std::string("cannot create a pipe: ") + std::strerror(errno));
    if (pipe2(error, O_CLOEXEC) != 0) {
        close(release[0]);
        close(release[1]);
        throw SamplerError(std::string("cannot create a pipe: ") + std::strerror(errno));
    }
    std::vector<char*> argv;
    for (const std::string& a : options.command)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const char* dir = options.workingDirectory.empty() ? nullptr : options.workingDirectory.c_str();
    const int output = options.outputFd;
    const int input = output >= 0 ? open("/dev/null", O_RDONLY | O_CLOEXEC) : -1;
    const pid_t pid = fork();
    if (pid < 0) {
        const int err = errno;
        if (input >= 0)
            close(input);
        throw SamplerError(std::string("cannot fork: ") + std::strerror(err));
    }
    if (pid == 0) {
        // Only async-signal-safe calls from here on.
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        close(release[1]);
        close(error[0]);
        char c;
        while (read(release[0], &c, 1) < 0 && errno == EINTR) {
        }
        int err = 0;
        if (output >= 0 && (dup2(output, STDOUT_FILENO) < 0 || dup2(output, STDERR_FILENO) < 0 ||
                            (input >= 0 && dup2(input, STDIN_FILENO) < 0)))
            err = errno;
        if (!err && dir && chdir(dir) != 0)
            err = errno;
        if (!err) {
            execvp(argv[0], argv.data());
            err = errno;
        }
        while (write(error[1], &err, sizeof err) < 0 && errno == EINTR) {
        }
        _exit(127);
    }
    close(release[0]);
    close(error[1]);
    if (input >= 0)
        close(input);
    return {pid, release[1], error[0]};
}

void releaseChild(PausedChild& child, const SamplerOptions& options) {
    const char c = 1;
    while (write(child.releaseFd, &c, 1) < 0 && errno == EINTR) {
    }
    close(child.releaseFd);
    child.releaseFd = -1;
    int err = 0;
    ssize_t n;
    while ((n = read(child.errorFd, &err, sizeof err)) < 0 && errno == EINTR) {
    }
    close(child.errorFd);
    child.errorFd = -1;
    if (n == static_cast<ssize_t>(sizeof err)) {
        int status = 0;
        while (waitpid(child.pid, &status, __WALL) < 0 && errno == EINTR) {
        }
        const std::string what = options.workingDirectory.empty() || err != ENOENT
                                     ? std::string(std::strerror(err))
                                     : std::string(std::strerror(err)) + " (or working directory " +
                                           options.workingDirectory + " missing)";
        throw SamplerError("cannot run " + options.command.front() + ": " + what);
    }
}

} // namespace detail

using namespace detail;

std::string samplerPermissionAdvice(SamplerMode mode, int err, bool attach, int64_t pid) {
    std::ostringstream o;
    const bool perf = mode == SamplerMode::Perf;
    o << (perf ? "perf_event_open" : "ptrace") << " was refused (" << std::strerror(err) << ")";
    if (attach && pid > 0) {
        struct stat st {};
        if (stat(("/proc/" + std::to_string(pid)).c_str(), &st) == 0 && st.st_uid != geteuid())
            o << ": process " << pid << " belongs to user id " << st.st_uid << ", you are user id "
              << geteuid();
    }
    o << ".\n";
    if (perf) {
        o << "  kernel.perf_event_paranoid = " << procSysValue("/proc/sys/kernel/perf_event_paranoid")
          << " (2 allows your own processes in user space; Debian's 3 and Ubuntu's 4 refuse every "
             "unprivileged "
             "perf_event_open)\n";
    }
    const std::string yama = procSysValue("/proc/sys/kernel/yama/ptrace_scope");
    if (!perf || attach)
        o << "  kernel.yama.ptrace_scope = " << yama
          << (yama == "absent" ? " (no Yama LSM)"
                               : " (1 allows only descendants, 2 only CAP_SYS_PTRACE, 3 none)")
          << '\n';
    o << "Ways out:\n";
    if (attach)
        o << "  - launch the program under the sampler instead of attaching: scorch record -- COMMAND "
             "ARGS...\n";
    if (perf)
        o << "  - use the ptrace mechanism: --mode ptrace\n"
          << "  - lower the setting: sudo sysctl kernel.perf_event_paranoid=1\n";
    else
        o << "  - use the perf mechanism: --mode perf\n"
          << "  - lower the setting: sudo sysctl kernel.yama.ptrace_scope=0\n";
    o << "  - give the recorder the capabilities: sudo setcap cap_perfmon,cap_sys_ptrace+ep $(which scorch)\n"
      << "  - run it as root (sudo)";
    return o.str();
}

namespace {

/// Forks the watchdog of a launched command: it waits on a pipe and kills `command` with SIGKILL when the
/// pipe closes without a byte (the recording process died), or exits quietly on a byte (see sampler.h).
/// Returns its pid and the write end of the pipe in `fd`; -1 when it could not be made (no watchdog).
pid_t startWatchdog(pid_t command, int& fd) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    const pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        // Only async-signal-safe calls from here on. Hold nothing of the recorder's but the read end (no perf
        // events, no file being written), and leave signals to the recorder: the watchdog ends when it does.
        close(p[1]);
        const int keep = p[0];
        if (keep > 3)
            syscall(SYS_close_range, 3u, static_cast<unsigned>(keep - 1), 0u);
        syscall(SYS_close_range, static_cast<unsigned>(keep + 1), ~0u, 0u);
        for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE})
            signal(sig, SIG_IGN);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        prctl(PR_SET_NAME, "scorch-watchdog", 0, 0, 0);
        char c = 0;
        ssize_t n;
        while ((n = read(keep, &c, 1)) < 0 && errno == EINTR) {
        }
        if (n == 0)
            kill(command, SIGKILL);
        _exit(0);
    }
    close(p[0]);
    fd = p[1];
    return pid;
}

/// Tells the watchdog that the recorder ends in order (the command may live on) and reaps it.
void dismissWatchdog(pid_t& pid, int& fd) {
    if (pid <= 0)
        return;
    const char c = 'd';
    while (write(fd, &c, 1) < 0 && errno == EINTR) {
    }
    close(fd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    pid = -1;
    fd = -1;
}

} // namespace

struct Sampler::Impl {
    SamplerContext ctx;
    std::thread worker;
    std::atomic<bool> done{false};
    pid_t pid = -1;
    bool launched = false;
    bool reaped = false;
    int exitCode = -1;
    pid_t watchdog = -1;
    int watchdogFd = -1;
};

Sampler::Sampler(SamplerOptions options)
    : d(std::make_unique<Impl>()) {
    d->ctx.options = std::move(options);
    d->ctx.frequency =
        d->ctx.options.frequency > 0 ? d->ctx.options.frequency : defaultFrequency(d->ctx.options.mode);
}

Sampler::~Sampler() {
    stop();
    if (d->worker.joinable())
        d->worker.join();
    dismissWatchdog(d->watchdog, d->watchdogFd);
    if (d->launched && !d->reaped && d->pid > 0) {
        // The command keeps running untraced; reap it in the background so that it does not stay a zombie.
        std::thread([pid = d->pid] {
            int status;
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
        }).detach();
    }
}

void Sampler::start() {
    if (d->worker.joinable())
        throw SamplerError("the sampler was already started");
    const SamplerOptions& o = d->ctx.options;
    if (o.command.empty() == (o.pid <= 0))
        throw SamplerError("give either a process id to attach to or a command to launch");
    if (o.pid > 0 && kill(static_cast<pid_t>(o.pid), 0) != 0 && errno == ESRCH)
        throw SamplerError("no process with id " + std::to_string(o.pid));
    if (!(d->ctx.frequency > 0 && d->ctx.frequency <= 100000))
        throw SamplerError("the sampling rate must be between 1 and 100000 Hz");

    d->launched = !o.command.empty();
    {
        std::lock_guard lock(d->ctx.mutex);
        Recording& r = d->ctx.recording;
        r.mode = o.mode == SamplerMode::Perf ? "perf" : "ptrace";
        r.frequency = d->ctx.frequency;
        r.offCpu = o.offCpu;
        r.periodNs = o.offCpu ? periodNs(d->ctx.frequency) : 0;
        r.command = o.command;
        r.pid = o.pid;
    }
    d->worker = std::thread([this] {
        try {
            if (d->ctx.options.mode == SamplerMode::Perf)
                runPerf(d->ctx);
            else
                runPtrace(d->ctx);
        } catch (const SamplerError& e) {
            d->ctx.failed(e);
        } catch (const std::exception& e) {
            d->ctx.failed(SamplerError(e.what()));
        }
        d->ctx.failed(SamplerError("")); // unblocks start() if the worker returned without starting
        {
            std::lock_guard lock(d->ctx.mutex);
            if (!d->ctx.recording.endNs)
                d->ctx.recording.endNs = monotonicNs();
        }
        d->done = true;
    });
    std::unique_lock lock(d->ctx.startMutex);
    d->ctx.startCv.wait(lock, [&] { return d->ctx.startDone; });
    d->pid = d->ctx.startedPid;
    if (d->ctx.startError) {
        SamplerError e = *d->ctx.startError;
        lock.unlock();
        d->worker.join();
        throw e;
    }
    if (d->launched && d->pid > 0)
        d->watchdog = startWatchdog(d->pid, d->watchdogFd);
}

void Sampler::stopCommand(int signal) {
    if (!d->launched || d->pid <= 0 || d->reaped)
        return;
    {
        std::lock_guard lock(d->ctx.mutex);
        if (d->ctx.recording.exitCode >= 0)
            return; // it exited while recorded (reaped by the worker)
    }
    kill(d->pid, signal);
}

void Sampler::stop() {
    d->ctx.stopRequested.store(true, std::memory_order_relaxed);
}

void Sampler::wait() {
    if (d->worker.joinable())
        d->worker.join();
}

bool Sampler::finished() const {
    return d->done.load();
}
int64_t Sampler::pid() const {
    return d->pid;
}
uint64_t Sampler::samples() const {
    return d->ctx.sampleCount.load(std::memory_order_relaxed);
}

Recording Sampler::snapshot(std::size_t fromSample) const {
    std::lock_guard lock(d->ctx.mutex);
    const Recording& r = d->ctx.recording;
    Recording copy;
    copy.mode = r.mode;
    copy.frequency = r.frequency;
    copy.pid = r.pid;
    copy.command = r.command;
    copy.startNs = r.startNs;
    copy.endNs = r.endNs;
    copy.lost = r.lost;
    copy.exitCode = r.exitCode;
    copy.modules = r.modules;
    copy.threads = r.threads;
    copy.notes = r.notes;
    copy.offCpu = r.offCpu;
    copy.periodNs = r.periodNs;
    for (std::size_t i = fromSample; i < r.samples.size(); ++i)
        r.copySample(i, copy);
    return copy;
}

Recording Sampler::take() {
    wait();
    std::lock_guard lock(d->ctx.mutex);
    return std::move(d->ctx.recording);
}

std::string Sampler::error() const {
    std::lock_guard lock(d->ctx.mutex);
    return d->ctx.error;
}

int Sampler::waitCommand() {
    if (!d->launched || d->pid <= 0)
        return -1;
    wait();
    {
        std::lock_guard lock(d->ctx.mutex);
        if (d->ctx.recording.exitCode >= 0) {
            d->reaped = true;
            return d->ctx.recording.exitCode;
        }
    }
    if (d->reaped)
        return d->exitCode;
    int status = 0;
    pid_t r;
    while ((r = waitpid(d->pid, &status, __WALL)) < 0 && errno == EINTR) {
    }
    d->reaped = true;
    if (r < 0)
        return -1;
    d->exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return d->exitCode;
}

} // namespace scorch
