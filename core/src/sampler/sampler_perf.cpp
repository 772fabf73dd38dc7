// The perf mechanism: cpu-clock software events per CPU (inherited by new threads), one ring buffer per CPU,
// read on the worker thread. Each sample carries the frame-pointer callchain and a copy of the user
// registers and stack, unwound with libunwind (programs without frame pointers); the deeper stack wins.
#include "sampler/sampler_unwind.h"
#include "sampler/samplerinternal.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <linux/perf_event.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

namespace scorch::detail {

namespace {

struct Ring {
    int fd = -1; ///< the event whose buffer this is; other events of the CPU write into it
    void* base = nullptr;
    std::size_t mapBytes = 0;
    std::size_t dataBytes = 0;
};

class PerfSampler {
public:
    explicit PerfSampler(SamplerContext& ctx)
        : ctx_(ctx) {}

    ~PerfSampler() { closeAll(); }

    void run() {
        const SamplerOptions& o = ctx_.options;
        PausedChild child;
        const bool launch = !o.command.empty();
        if (launch) {
            child = forkPaused(o);
            pid_ = child.pid;
        } else {
            pid_ = static_cast<pid_t>(o.pid);
        }
        try {
            open(launch);
        } catch (...) {
            if (launch) {
                kill(child.pid, SIGKILL);
                close(child.releaseFd);
                close(child.errorFd);
                int st;
                waitpid(child.pid, &st, 0);
            }
            throw;
        }
        if (launch) {
            releaseChild(child, o); // the events start at exec (enable_on_exec)
        } else {
            ctx_.addModules(readExecutableModules(pid_, monotonicNs()));
            for (pid_t tid : listThreads(pid_))
                ctx_.setThreadName(tid, readThreadName(pid_, tid), monotonicNs());
            for (int fd : fds_)
                ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
        }
        unwinder_ = std::make_unique<RemoteUnwinder>(pid_, o.maxDepth);
        const uint64_t start = monotonicNs();
        {
            std::lock_guard lock(ctx_.mutex);
            ctx_.recording.pid = pid_;
            ctx_.recording.startNs = start;
        }
        ctx_.started(pid_);

        std::vector<pollfd> pfds;
        for (const Ring& r : rings_)
            pfds.push_back({r.fd, POLLIN, 0});
        bool exited = false;
        while (!exited && !ctx_.shouldStop(start)) {
            poll(pfds.data(), pfds.size(), 20);
            drain();
            if (launch) {
                int status = 0;
                if (waitpid(pid_, &status, WNOHANG) == pid_) {
                    exited = true;
                    std::lock_guard lock(ctx_.mutex);
                    ctx_.recording.exitCode =
                        WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                }
            } else if (kill(pid_, 0) != 0 && errno == ESRCH) {
                exited = true;
            } else {
                exited = isZombie();
            }
        }
        for (int fd : fds_)
            ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
        drain();
        std::lock_guard lock(ctx_.mutex);
        ctx_.recording.endNs = monotonicNs();
        ctx_.recording.lost += lost_;
    }

private:
    SamplerContext& ctx_;
    pid_t pid_ = -1;
    std::vector<int> fds_;
    std::vector<Ring> rings_;
    std::unique_ptr<RemoteUnwinder> unwinder_;
    std::vector<uint8_t> record_;
    std::vector<uint64_t> dwarf_, chain_;
    uint64_t lost_ = 0;
    uint64_t otherPid_ = 0;

    bool isZombie() const {
        FILE* f = std::fopen(("/proc/" + std::to_string(pid_) + "/stat").c_str(), "r");
        if (!f)
            return true;
        char buf[512];
        const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
        std::fclose(f);
        buf[n] = 0;
        const char* p = std::strrchr(buf, ')');
        return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
    }

    void open(bool launch) {
        const SamplerOptions& o = ctx_.options;
        perf_event_attr attr{};
        attr.size = sizeof attr;
        attr.type = PERF_TYPE_SOFTWARE;
        attr.config = PERF_COUNT_SW_CPU_CLOCK;
        attr.freq = 1;
        attr.sample_freq = static_cast<uint64_t>(ctx_.frequency + 0.5);
        attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN |
                           PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
        attr.sample_regs_user = kPerfRegsMask;
        attr.sample_stack_user = std::min<uint32_t>(o.stackBytes, 65528) & ~7u;
        attr.exclude_kernel = 1;
        attr.exclude_hv = 1;
        attr.exclude_callchain_kernel = 1;
        attr.mmap = 1;
        attr.mmap2 = 1;
        attr.comm = 1;
        attr.task = 1;
        attr.sample_id_all = 1;
        attr.inherit = 1;
        attr.disabled = 1;
        attr.enable_on_exec = launch ? 1 : 0;
        attr.use_clockid = 1;
        attr.clockid = CLOCK_MONOTONIC;
        attr.wakeup_events = 16;

        const int cpus = get_nprocs_conf();
        std::vector<pid_t> tids = launch ? std::vector<pid_t>{pid_} : listThreads(pid_);
        if (tids.empty())
            throw SamplerError("process " + std::to_string(pid_) + " has no threads (it exited?)");
        rings_.assign(static_cast<std::size_t>(cpus), Ring{});
        int opened = 0;
        for (int cpu = 0; cpu < cpus; ++cpu) {
            for (pid_t tid : tids) {
                const int fd =
                    static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
                if (fd < 0) {
                    const int err = errno;
                    if (err == ESRCH)
                        continue; // the thread exited meanwhile
                    if (err == ENODEV)
                        break; // an offline CPU
                    closeAll();
                    if (err == EACCES || err == EPERM)
                        throw SamplerError(samplerPermissionAdvice(SamplerMode::Perf, err, !launch, pid_),
                                           true);
                    if (err == ENOSYS || err == ENOENT || err == EOPNOTSUPP)
                        throw SamplerError(std::string("perf_event_open is not available here (") +
                                           std::strerror(err) + "); use --mode ptrace");
                    throw SamplerError(std::string("perf_event_open failed: ") + std::strerror(err));
                }
                fds_.push_back(fd);
                ++opened;
                Ring& ring = rings_[static_cast<std::size_t>(cpu)];
                if (ring.fd < 0) {
                    mapRing(ring, fd);
                } else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring.fd) != 0) {
                    const int err = errno;
                    closeAll();
                    throw SamplerError(std::string("PERF_EVENT_IOC_SET_OUTPUT failed: ") +
                                       std::strerror(err));
                }
            }
        }
        rings_.erase(std::remove_if(rings_.begin(), rings_.end(), [](const Ring& r) { return r.fd < 0; }),
                     rings_.end());
        if (!opened)
            throw SamplerError("process " + std::to_string(pid_) + " has no threads (it exited?)");
    }

    void mapRing(Ring& ring, int fd) {
        const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        for (std::size_t pages = 256; pages >= 8; pages /= 2) {
            const std::size_t bytes = (pages + 1) * page;
            void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (p != MAP_FAILED) {
                ring = {fd, p, bytes, pages * page};
                return;
            }
            if (errno != EPERM && errno != ENOMEM)
                break;
        }
        const int err = errno;
        closeAll();
        throw SamplerError(std::string("cannot map the perf ring buffer: ") + std::strerror(err) +
                           " (see kernel.perf_event_mlock_kb)");
    }

    void closeAll() {
        for (Ring& r : rings_)
            if (r.base)
                munmap(r.base, r.mapBytes);
        rings_.clear();
        for (int fd : fds_)
            close(fd);
        fds_.clear();
    }

    void drain() {
        for (Ring& r : rings_) {
            auto* meta = static_cast<perf_event_mmap_page*>(r.base);
            const uint8_t* data = static_cast<const uint8_t*>(r.base) + meta->data_offset;
            const std::size_t size = meta->data_size ? meta->data_size : r.dataBytes;
            const uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
            uint64_t tail = meta->data_tail;
            while (tail + sizeof(perf_event_header) <= head) {
                perf_event_header h;
                copyOut(data, size, tail, &h, sizeof h);
                if (h.size < sizeof h || tail + h.size > head)
                    break;
                record_.resize(h.size);
                copyOut(data, size, tail, record_.data(), h.size);
                handle(h);
                tail += h.size;
            }
            __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
        }
    }

    static void copyOut(const uint8_t* data, std::size_t size, uint64_t pos, void* out, std::size_t n) {
        const std::size_t off = static_cast<std::size_t>(pos % size);
        const std::size_t first = std::min(n, size - off);
        std::memcpy(out, data + off, first);
        if (first < n)
            std::memcpy(static_cast<uint8_t*>(out) + first, data, n - first);
    }

    template <typename T>
    static bool take(const uint8_t*& p, const uint8_t* end, T& out) {
        if (static_cast<std::size_t>(end - p) < sizeof(T))
            return false;
        std::memcpy(&out, p, sizeof(T));
        p += sizeof(T);
        return true;
    }

    void handle(const perf_event_header& h) {
        const uint8_t* p = record_.data() + sizeof h;
        const uint8_t* end = record_.data() + h.size;
        switch (h.type) {
        case PERF_RECORD_SAMPLE:
            handleSample(p, end);
            break;
        case PERF_RECORD_MMAP2: {
            uint32_t pid = 0, tid = 0;
            uint64_t addr = 0, len = 0, pgoff = 0;
            take(p, end, pid);
            take(p, end, tid);
            take(p, end, addr);
            take(p, end, len);
            if (!take(p, end, pgoff) || end - p < 32 || static_cast<pid_t>(pid) != pid_)
                break;
            uint32_t prot = 0;
            std::memcpy(&prot, p + 24, 4);
            p += 32;
            // filename, NUL-terminated and padded, then sample_id {pid, tid, time}
            const uint8_t* idEnd = end;
            uint64_t time = monotonicNs();
            if (end - p >= 16) {
                std::memcpy(&time, end - 8, 8);
                idEnd = end - 16;
            }
            std::string path(reinterpret_cast<const char*>(p),
                             strnlen(reinterpret_cast<const char*>(p), static_cast<std::size_t>(idEnd - p)));
            if (!(prot & PROT_EXEC) || path.empty() || (path[0] != '/' && path != "[vdso]"))
                break;
            RecordedModule m;
            m.start = addr;
            m.end = addr + len;
            m.offset = pgoff;
            m.timeNs = time;
            m.buildId = buildIdOf(path);
            m.path = std::move(path);
            ctx_.addModules({std::move(m)});
            if (unwinder_)
                unwinder_->invalidate();
            break;
        }
        case PERF_RECORD_COMM: {
            uint32_t pid = 0, tid = 0;
            take(p, end, pid);
            if (!take(p, end, tid) || static_cast<pid_t>(pid) != pid_)
                break;
            const uint8_t* idEnd = end - 16 >= p ? end - 16 : end;
            uint64_t time = monotonicNs();
            if (idEnd != end)
                std::memcpy(&time, end - 8, 8);
            ctx_.setThreadName(
                static_cast<pid_t>(tid),
                std::string(reinterpret_cast<const char*>(p),
                            strnlen(reinterpret_cast<const char*>(p), static_cast<std::size_t>(idEnd - p))),
                time);
            break;
        }
        case PERF_RECORD_LOST: {
            uint64_t id = 0, lost = 0;
            take(p, end, id);
            if (take(p, end, lost))
                lost_ += lost;
            break;
        }
        default:
            break;
        }
    }

    void handleSample(const uint8_t* p, const uint8_t* end) {
        uint64_t ip = 0, time = 0, nr = 0;
        uint32_t pid = 0, tid = 0;
        if (!take(p, end, ip) || !take(p, end, pid) || !take(p, end, tid) || !take(p, end, time) ||
            !take(p, end, nr) || static_cast<std::size_t>(end - p) / 8 < nr)
            return;
        if (static_cast<pid_t>(pid) != pid_) {
            ++otherPid_; // a child process that inherited the event
            return;
        }
        const std::size_t maxDepth = std::max(1u, ctx_.options.maxDepth);
        chain_.clear();
        for (uint64_t i = 0; i < nr; ++i) {
            uint64_t a = 0;
            take(p, end, a);
            if (a >= static_cast<uint64_t>(PERF_CONTEXT_MAX))
                continue; // context markers
            if (chain_.size() < maxDepth)
                chain_.push_back(a);
        }
        uint64_t abi = 0;
        uint64_t regs[kPerfRegCount] = {};
        std::size_t dwarfFrames = 0;
        if (take(p, end, abi) && abi != PERF_SAMPLE_REGS_ABI_NONE) {
            bool ok = true;
            for (uint64_t& r : regs)
                ok = ok && take(p, end, r);
            uint64_t size = 0;
            if (ok && take(p, end, size) && size > 0 && static_cast<std::size_t>(end - p) >= size + 8) {
                const uint8_t* stack = p;
                uint64_t dynSize = 0;
                std::memcpy(&dynSize, p + size, 8);
                dwarf_.resize(maxDepth);
                if (unwinder_)
                    dwarfFrames = unwinder_->unwindCopy(regs, stack, std::min(size, dynSize), dwarf_.data());
            }
        }
        ctx_.ensureThreadName(pid_, static_cast<pid_t>(tid));
        if (dwarfFrames >= chain_.size() && dwarfFrames > 0)
            ctx_.addSample(static_cast<pid_t>(tid), time, dwarf_.data(), dwarfFrames);
        else if (!chain_.empty())
            ctx_.addSample(static_cast<pid_t>(tid), time, chain_.data(), chain_.size());
        else
            ctx_.addSample(static_cast<pid_t>(tid), time, &ip, 1);
    }
};

} // namespace

void runPerf(SamplerContext& ctx) {
    PerfSampler sampler(ctx);
    sampler.run();
}

} // namespace scorch::detail
