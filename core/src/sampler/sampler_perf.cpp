// The perf mechanism: cpu-clock software events per CPU (inherited by new threads), one ring buffer per CPU,
// read on the worker thread. Each sample carries the frame-pointer callchain and a copy of the user
// registers and stack, unwound with libunwind (programs without frame pointers); the deeper stack wins.
// Off-CPU time (SamplerOptions::offCpu): the cpu-clock events also write switch records (context_switch),
// and a `context-switches` event samples the stack each thread leaves the CPU with; a SwitchTimeline puts
// them in time order and pairs them.
#include "sampler/sampler_unwind.h"
#include "sampler/samplerinternal.h"
#include "sampler/switchtimeline.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
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
        : m_ctx(ctx) {}

    ~PerfSampler() { closeAll(); }

    void run() {
        const SamplerOptions& o = m_ctx.options;
        PausedChild child;
        const bool launch = !o.command.empty();
        if (launch) {
            child = forkPaused(o);
            m_pid = child.pid;
        } else {
            m_pid = static_cast<pid_t>(o.pid);
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
        // before the events can fire: every sample and switch is at or after the recording's start
        const uint64_t start = monotonicNs();
        if (launch) {
            releaseChild(child, o); // the events start at exec (enable_on_exec)
        } else {
            m_ctx.addModules(readExecutableModules(m_pid, monotonicNs()));
            for (pid_t tid : listThreads(m_pid))
                m_ctx.setThreadName(tid, readThreadName(m_pid, tid), monotonicNs());
            for (int fd : m_fds)
                ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
        }
        m_unwinder = std::make_unique<RemoteUnwinder>(m_pid, o.maxDepth);
        {
            std::lock_guard lock(m_ctx.mutex);
            m_ctx.recording.pid = m_pid;
            m_ctx.recording.startNs = start;
        }
        m_ctx.started(m_pid);

        std::vector<pollfd> pfds;
        for (const Ring& r : m_rings)
            pfds.push_back({r.fd, POLLIN, 0});
        bool exited = false;
        while (!exited && !m_ctx.shouldStop(start)) {
            poll(pfds.data(), pfds.size(), 20);
            drain();
            if (launch) {
                int status = 0;
                if (waitpid(m_pid, &status, WNOHANG) == m_pid) {
                    exited = true;
                    std::lock_guard lock(m_ctx.mutex);
                    m_ctx.recording.exitCode =
                        WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                }
            } else if (kill(m_pid, 0) != 0 && errno == ESRCH) {
                exited = true;
            } else {
                exited = isZombie();
            }
        }
        for (int fd : m_fds)
            ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
        drain();
        const uint64_t end = monotonicNs();
        if (offCpu())
            m_timeline->finish(end);
        std::lock_guard lock(m_ctx.mutex);
        m_ctx.recording.endNs = end;
        m_ctx.recording.lost += m_lost;
    }

private:
    SamplerContext& m_ctx;
    pid_t m_pid = -1;
    std::vector<int> m_fds;
    std::vector<Ring> m_rings;
    std::unique_ptr<RemoteUnwinder> m_unwinder;
    std::vector<uint8_t> m_record;
    std::vector<uint64_t> m_dwarf, m_chain;
    uint64_t m_lost = 0;
    uint64_t m_otherPid = 0;

    // off-CPU time (a recording with SamplerOptions::offCpu has a timeline)
    std::unique_ptr<SwitchTimeline> m_timeline;
    std::vector<uint64_t> m_switchIds; ///< sample ids of the context-switches events
    std::size_t m_trailerBytes = 16;   ///< sample_id of non-sample records: pid, tid, time (, identifier)

    bool offCpu() const { return m_timeline != nullptr; }

    bool isZombie() const {
        FILE* f = std::fopen(("/proc/" + std::to_string(m_pid) + "/stat").c_str(), "r");
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
        const SamplerOptions& o = m_ctx.options;
        perf_event_attr attr{};
        attr.size = sizeof attr;
        attr.type = PERF_TYPE_SOFTWARE;
        attr.config = PERF_COUNT_SW_CPU_CLOCK;
        attr.freq = 1;
        attr.sample_freq = static_cast<uint64_t>(m_ctx.frequency + 0.5);
        if (o.offCpu)
            m_timeline = std::make_unique<SwitchTimeline>(
                Sampler::periodNs(m_ctx.frequency),
                [this](pid_t tid, uint64_t time, uint64_t ns, char state, const uint64_t* ips,
                       std::size_t n) { m_ctx.addTimed(tid, time, ns, state, ips, n); });
        attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN |
                           PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
                           (offCpu() ? PERF_SAMPLE_IDENTIFIER : 0);
        m_trailerBytes = offCpu() ? 24 : 16;
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
        perf_event_attr switches = attr;
        if (offCpu()) {
            // a fixed period: the switch records time the on-CPU samples (each weighs the time since the
            // thread's previous sample or switch-in)
            attr.freq = 0;
            attr.sample_period = Sampler::periodNs(m_ctx.frequency);
            attr.context_switch = 1;
            // every switch-out with its user stack; the event fires inside the scheduler, so it cannot
            // exclude the kernel (kernel.perf_event_paranoid <= 1), though its callchain leaves it out
            switches.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
            switches.freq = 0;
            switches.sample_period = 1;
            switches.exclude_kernel = 0;
            switches.mmap = switches.mmap2 = switches.comm = switches.task = 0;
        }

        const int cpus = get_nprocs_conf();
        std::vector<pid_t> tids = launch ? std::vector<pid_t>{m_pid} : listThreads(m_pid);
        if (tids.empty())
            throw SamplerError("process " + std::to_string(m_pid) + " has no threads (it exited?)");
        m_rings.assign(static_cast<std::size_t>(cpus), Ring{});
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
                        throw SamplerError(samplerPermissionAdvice(SamplerMode::Perf, err, !launch, m_pid),
                                           true);
                    if (err == ENOSYS || err == ENOENT || err == EOPNOTSUPP)
                        throw SamplerError(std::string("perf_event_open is not available here (") +
                                           std::strerror(err) + "); use --mode ptrace");
                    throw SamplerError(std::string("perf_event_open failed: ") + std::strerror(err));
                }
                m_fds.push_back(fd);
                ++opened;
                Ring& ring = m_rings[static_cast<std::size_t>(cpu)];
                if (ring.fd < 0)
                    mapRing(ring, fd);
                else
                    setOutput(fd, ring.fd);
                if (offCpu())
                    openSwitchEvent(switches, tid, cpu, ring.fd, launch);
            }
        }
        m_rings.erase(std::remove_if(m_rings.begin(), m_rings.end(), [](const Ring& r) { return r.fd < 0; }),
                      m_rings.end());
        if (!opened)
            throw SamplerError("process " + std::to_string(m_pid) + " has no threads (it exited?)");
    }

    void setOutput(int fd, int ringFd) {
        if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ringFd) == 0)
            return;
        const int err = errno;
        closeAll();
        throw SamplerError(std::string("PERF_EVENT_IOC_SET_OUTPUT failed: ") + std::strerror(err));
    }

    void openSwitchEvent(perf_event_attr& attr, pid_t tid, int cpu, int ringFd, bool launch) {
        const int fd =
            static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
        if (fd < 0) {
            const int err = errno;
            closeAll();
            if (err == EACCES || err == EPERM)
                throw SamplerError(
                    "recording off-CPU time with --mode perf needs the stack of every context switch, which "
                    "the "
                    "kernel refuses here (" +
                        std::string(std::strerror(err)) + "): kernel.perf_event_paranoid is " +
                        procSysValue("/proc/sys/kernel/perf_event_paranoid") +
                        ", and it must be 1 or lower (sudo sysctl kernel.perf_event_paranoid=1) unless "
                        "Scorch "
                        "runs with CAP_PERFMON; or record with --mode ptrace --off-cpu, which needs no such "
                        "right for " +
                        (launch ? "a command it launches" : "your own processes"),
                    true);
            throw SamplerError(std::string("perf_event_open of the context-switches event failed: ") +
                               std::strerror(err));
        }
        m_fds.push_back(fd);
        setOutput(fd, ringFd);
        uint64_t id = 0;
        if (ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0)
            m_switchIds.push_back(id);
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
        for (Ring& r : m_rings)
            if (r.base)
                munmap(r.base, r.mapBytes);
        m_rings.clear();
        for (int fd : m_fds)
            close(fd);
        m_fds.clear();
    }

    void drain() {
        for (Ring& r : m_rings) {
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
                m_record.resize(h.size);
                copyOut(data, size, tail, m_record.data(), h.size);
                handle(h);
                tail += h.size;
            }
            __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
        }
        if (offCpu())
            m_timeline->drained();
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
        const uint8_t* p = m_record.data() + sizeof h;
        const uint8_t* end = m_record.data() + h.size;
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
            if (!take(p, end, pgoff) || end - p < 32 || static_cast<pid_t>(pid) != m_pid)
                break;
            uint32_t prot = 0;
            std::memcpy(&prot, p + 24, 4);
            p += 32;
            // filename, NUL-terminated and padded, then sample_id {pid, tid, time}
            const uint8_t* idEnd = end;
            uint64_t time = monotonicNs();
            if (static_cast<std::size_t>(end - p) >= m_trailerBytes) {
                idEnd = end - m_trailerBytes;
                std::memcpy(&time, idEnd + 8, 8);
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
            m_ctx.addModules({std::move(m)});
            if (m_unwinder)
                m_unwinder->invalidate();
            break;
        }
        case PERF_RECORD_COMM: {
            uint32_t pid = 0, tid = 0;
            take(p, end, pid);
            if (!take(p, end, tid) || static_cast<pid_t>(pid) != m_pid)
                break;
            const auto trailer = static_cast<std::ptrdiff_t>(m_trailerBytes);
            const uint8_t* idEnd = end - p >= trailer ? end - trailer : end;
            uint64_t time = monotonicNs();
            if (idEnd != end)
                std::memcpy(&time, idEnd + 8, 8);
            m_ctx.setThreadName(
                static_cast<pid_t>(tid),
                std::string(reinterpret_cast<const char*>(p),
                            strnlen(reinterpret_cast<const char*>(p), static_cast<std::size_t>(idEnd - p))),
                time);
            break;
        }
        case PERF_RECORD_SWITCH: {
            uint32_t pid = 0, tid = 0;
            uint64_t time = 0;
            take(p, end, pid);
            take(p, end, tid);
            if (!offCpu() || !take(p, end, time) || static_cast<pid_t>(pid) != m_pid)
                break;
            const bool out = h.misc & PERF_RECORD_MISC_SWITCH_OUT;
            using Kind = SwitchTimeline::Kind;
            m_timeline->queue(!out                                             ? Kind::In
                              : (h.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ? Kind::OutPreempt
                                                                               : Kind::Out,
                              static_cast<pid_t>(tid), time);
            break;
        }
        case PERF_RECORD_EXIT: {
            uint32_t pid = 0, ppid = 0, tid = 0, ptid = 0;
            uint64_t time = 0;
            take(p, end, pid);
            take(p, end, ppid);
            take(p, end, tid);
            take(p, end, ptid);
            if (offCpu() && take(p, end, time) && static_cast<pid_t>(pid) == m_pid)
                m_timeline->queue(SwitchTimeline::Kind::Exit, static_cast<pid_t>(tid), time);
            break;
        }
        case PERF_RECORD_LOST: {
            uint64_t id = 0, lost = 0;
            take(p, end, id);
            if (take(p, end, lost))
                m_lost += lost;
            break;
        }
        default:
            break;
        }
    }

    void handleSample(const uint8_t* p, const uint8_t* end) {
        uint64_t ip = 0, time = 0, nr = 0, id = 0;
        uint32_t pid = 0, tid = 0;
        if (offCpu() && !take(p, end, id))
            return;
        if (!take(p, end, ip) || !take(p, end, pid) || !take(p, end, tid) || !take(p, end, time) ||
            !take(p, end, nr) || static_cast<std::size_t>(end - p) / 8 < nr)
            return;
        if (static_cast<pid_t>(pid) != m_pid) {
            ++m_otherPid; // a child process that inherited the event
            return;
        }
        const std::size_t maxDepth = std::max(1u, m_ctx.options.maxDepth);
        m_chain.clear();
        for (uint64_t i = 0; i < nr; ++i) {
            uint64_t a = 0;
            take(p, end, a);
            if (a >= static_cast<uint64_t>(PERF_CONTEXT_MAX))
                continue; // context markers
            if (m_chain.size() < maxDepth)
                m_chain.push_back(a);
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
                m_dwarf.resize(maxDepth);
                if (m_unwinder)
                    dwarfFrames =
                        m_unwinder->unwindCopy(regs, stack, std::min(size, dynSize), m_dwarf.data());
            }
        }
        m_ctx.ensureThreadName(m_pid, static_cast<pid_t>(tid));
        if (offCpu() && std::find(m_switchIds.begin(), m_switchIds.end(), id) != m_switchIds.end()) {
            // the stack this thread leaves the CPU with: for the off-CPU time that follows
            const bool dwarf = dwarfFrames >= m_chain.size() && dwarfFrames > 0;
            std::vector<uint64_t> stack =
                dwarf ? std::vector<uint64_t>(m_dwarf.begin(),
                                              m_dwarf.begin() + static_cast<std::ptrdiff_t>(dwarfFrames))
                      : m_chain;
            m_timeline->queue(SwitchTimeline::Kind::Stack, static_cast<pid_t>(tid), time, std::move(stack));
            return;
        }
        if (dwarfFrames >= m_chain.size() && dwarfFrames > 0)
            add(static_cast<pid_t>(tid), time, m_dwarf.data(), dwarfFrames);
        else if (!m_chain.empty())
            add(static_cast<pid_t>(tid), time, m_chain.data(), m_chain.size());
        else
            add(static_cast<pid_t>(tid), time, &ip, 1);
    }

    /// An on-CPU sample; in an off-CPU recording it waits in the time-ordered queue for its weight.
    void add(pid_t tid, uint64_t time, const uint64_t* ips, std::size_t n) {
        if (offCpu())
            m_timeline->queue(SwitchTimeline::Kind::Sample, tid, time, std::vector<uint64_t>(ips, ips + n));
        else
            m_ctx.addSample(tid, time, ips, n);
    }
};

} // namespace

void runPerf(SamplerContext& ctx) {
    PerfSampler sampler(ctx);
    sampler.run();
}

} // namespace scorch::detail
