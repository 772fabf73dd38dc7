// The ptrace mechanism: PTRACE_SEIZE every thread, PTRACE_INTERRUPT each one at the rate, unwind it remotely
// with libunwind, PTRACE_CONT. One central waitpid(-1, __WALL) dispatcher handles every tracee event (see
// /work/shared/notes/sampler-findings.md for the pitfalls it avoids). Samples blocked threads too.
#include "sampler/sampler_unwind.h"
#include "sampler/samplerinternal.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

namespace scorch::detail {

namespace {

struct Tracee {
    bool pending = false;   ///< PTRACE_INTERRUPT sent, stop not seen yet
    bool detaching = false; ///< detach at the next stop
    int missed = 0;         ///< ticks in a row without a stop (a zombie leader never stops)
    char state = 0;         ///< off-CPU recordings: its /proc state when interrupted ('R', 'S', 'D', ...)
    uint64_t lastNs = 0;    ///< off-CPU recordings: when it was sampled last
};

/// The state letter of a thread from /proc/PID/task/TID/stat ('R', 'S', 'D', ...); 0 when unreadable.
char threadState(pid_t pid, pid_t tid) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/task/%d/stat", static_cast<int>(pid), static_cast<int>(tid));
    FILE* f = std::fopen(path, "re");
    if (!f)
        return 0;
    char buf[512];
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = 0;
    const char* p = std::strrchr(buf, ')'); // the name may hold spaces and parentheses
    return p && p[1] == ' ' && p[2] ? p[2] : 0;
}

class PtraceSampler {
public:
    explicit PtraceSampler(SamplerContext& ctx)
        : m_ctx(ctx) {}

    ~PtraceSampler() {
        // Never leave a thread traced or stopped, whatever happened.
        if (!m_threads.empty())
            detachAll();
    }

    void run() {
        sigset_t chld;
        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        pthread_sigmask(SIG_BLOCK, &chld, nullptr);

        const SamplerOptions& o = m_ctx.options;
        if (o.command.empty())
            attach(static_cast<pid_t>(o.pid));
        else
            launch();
        m_unwinder = std::make_unique<RemoteUnwinder>(m_pid, o.maxDepth);
        m_buffer.resize(std::max(1u, o.maxDepth));
        refreshMaps(true);
        const uint64_t start = monotonicNs();
        {
            std::lock_guard lock(m_ctx.mutex);
            m_ctx.recording.pid = m_pid;
            m_ctx.recording.startNs = start;
        }
        m_ctx.started(m_pid);

        uint64_t next = start, nextMaps = start + 200'000'000;
        while (!m_ctx.shouldStop(start) && !m_leaderExited && !m_allGone && !m_threads.empty()) {
            uint64_t now = monotonicNs();
            if (now >= next) {
                tick();
                // At most ~2000 stops per second in total, however many threads there are.
                const double period =
                    std::max(1e9 / m_ctx.frequency, 1e9 * static_cast<double>(m_threads.size()) / 2000.0);
                next += static_cast<uint64_t>(period);
                now = monotonicNs();
                if (next < now)
                    next = now + static_cast<uint64_t>(period) / 2;
            } else {
                pump(static_cast<int64_t>(std::min(next - now, uint64_t(5'000'000))));
            }
            if (now >= nextMaps) {
                refreshMaps(false);
                nextMaps = now + 200'000'000;
            }
        }
        if (!m_threads.empty())
            detachAll();
        std::lock_guard lock(m_ctx.mutex);
        m_ctx.recording.endNs = monotonicNs();
        if (m_exitCode >= 0)
            m_ctx.recording.exitCode = m_exitCode;
    }

private:
    SamplerContext& m_ctx;
    pid_t m_pid = -1;
    bool m_launched = false, m_execSeen = false, m_leaderExited = false, m_allGone = false;
    int m_exitCode = -1;
    std::map<pid_t, Tracee> m_threads;
    std::set<pid_t> m_dead;
    std::unique_ptr<RemoteUnwinder> m_unwinder;
    std::vector<uint64_t> m_buffer;
    std::string m_lastMaps;

    [[noreturn]] void refused(int err, bool attach) {
        const SamplerOptions& o = m_ctx.options;
        if (err == EPERM || err == EACCES)
            throw SamplerError(samplerPermissionAdvice(SamplerMode::Ptrace, err, attach, o.pid), true);
        throw SamplerError(std::string("ptrace failed: ") + std::strerror(err));
    }

    void attach(pid_t pid) {
        m_pid = pid;
        for (int round = 0; round < 20; ++round) {
            bool added = false;
            for (pid_t tid : listThreads(pid)) {
                if (m_threads.count(tid) || m_dead.count(tid))
                    continue;
                if (ptrace(PTRACE_SEIZE, tid, nullptr, reinterpret_cast<void*>(PTRACE_O_TRACECLONE)) != 0) {
                    if (errno == ESRCH)
                        continue;
                    const int err = errno;
                    detachAll();
                    refused(err, true);
                }
                m_threads[tid] = {};
                added = true;
            }
            if (!added)
                break;
        }
        if (m_threads.empty())
            throw SamplerError("process " + std::to_string(pid) +
                               " has no threads to attach to (it exited?)");
    }

    void launch() {
        m_launched = true;
        PausedChild child = forkPaused(m_ctx.options);
        m_pid = child.pid;
        if (ptrace(PTRACE_SEIZE, child.pid, nullptr,
                   reinterpret_cast<void*>(PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC)) != 0) {
            const int err = errno;
            kill(child.pid, SIGKILL);
            close(child.releaseFd);
            close(child.errorFd);
            int st;
            waitpid(child.pid, &st, __WALL);
            refused(err, false);
        }
        m_threads[child.pid] = {};
        try {
            releaseChild(child, m_ctx.options);
        } catch (...) {
            m_threads.clear();
            throw;
        }
        const uint64_t deadline = monotonicNs() + 10'000'000'000ull;
        while (!m_execSeen && !m_allGone && !m_leaderExited && monotonicNs() < deadline)
            pump(5'000'000);
        if (!m_execSeen)
            throw SamplerError("the launched command did not reach exec");
    }

    void cont(pid_t tid, int sig) {
        ptrace(PTRACE_CONT, tid, nullptr, reinterpret_cast<void*>(intptr_t(sig)));
    }

    void drop(pid_t tid) {
        m_threads.erase(tid);
        m_dead.insert(tid);
        if (m_unwinder)
            m_unwinder->forget(tid);
    }

    void sample(pid_t tid) {
        const std::size_t n = m_unwinder ? m_unwinder->unwindTraced(tid, m_buffer.data()) : 0;
        if (n == 0)
            return;
        m_ctx.ensureThreadName(m_pid, tid);
        const uint64_t now = monotonicNs();
        if (!m_ctx.options.offCpu) {
            m_ctx.addSample(tid, now, m_buffer.data(), n);
            return;
        }
        // The time since its previous sample (one period for the first, at most a second) goes to what it
        // was doing now: on-CPU when it was running or runnable, off-CPU in its state when it was blocked.
        auto it = m_threads.find(tid);
        const uint64_t period = Sampler::periodNs(m_ctx.frequency);
        uint64_t weight = period;
        char state = 0;
        if (it != m_threads.end()) {
            Tracee& t = it->second;
            if (t.lastNs && now > t.lastNs)
                weight = std::min<uint64_t>(now - t.lastNs, 1'000'000'000);
            t.lastNs = now;
            // sleeping, in uninterruptible wait, stopped by a signal or idle; not our own tracing stop ('t')
            state = t.state == 'S' || t.state == 'D' || t.state == 'T' || t.state == 'I' ? t.state : 0;
        }
        m_ctx.addTimed(tid, state ? now - weight : now, weight, state, m_buffer.data(), n);
    }

    void handle(pid_t tid, int status) {
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            drop(tid);
            if (tid == m_pid) {
                m_leaderExited = true;
                m_exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
            return;
        }
        if (!WIFSTOPPED(status))
            return;
        auto it = m_threads.find(tid);
        if (it == m_threads.end()) {
            // A new thread whose stop arrived before its parent's clone event.
            it = m_threads.emplace(tid, Tracee{}).first;
            m_dead.erase(tid);
        }
        Tracee& t = it->second;
        const int sig = WSTOPSIG(status);
        const int event = status >> 16;
        if (t.detaching) {
            ptrace(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void*>(intptr_t(event == 0 ? sig : 0)));
            m_threads.erase(it);
            return;
        }
        switch (event) {
        case PTRACE_EVENT_CLONE: {
            unsigned long msg = 0;
            ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &msg);
            const auto child = static_cast<pid_t>(msg);
            if (!m_dead.count(child))
                m_threads.try_emplace(child);
            cont(tid, 0);
            return;
        }
        case PTRACE_EVENT_EXEC: {
            m_execSeen = true;
            // Every other thread is gone after exec; the exec'ing thread now has the leader's id.
            for (auto i = m_threads.begin(); i != m_threads.end();)
                if (i->first != tid && i->first != m_pid) {
                    if (m_unwinder)
                        m_unwinder->forget(i->first);
                    i = m_threads.erase(i);
                } else {
                    ++i;
                }
            if (m_unwinder) {
                m_unwinder->forget(tid);
                m_unwinder->invalidate();
            }
            if (m_unwinder)
                refreshMaps(true);
            cont(tid, 0);
            return;
        }
        case PTRACE_EVENT_STOP:
            if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
                if (t.pending) { // group-stop: stopped anyway, so sample it, but keep it stopped
                    t.pending = false;
                    t.missed = 0;
                    sample(tid);
                }
                ptrace(PTRACE_LISTEN, tid, nullptr, nullptr);
                return;
            }
            if (t.pending) {
                t.pending = false;
                t.missed = 0;
                sample(tid);
            }
            cont(tid, 0); // our stop, or the first stop of a new thread
            return;
        case 0:
            cont(tid, sig); // signal-delivery-stop: deliver the signal
            return;
        default:
            cont(tid, 0);
            return;
        }
    }

    /// Handles every queued event; if there was none, waits up to `timeoutNs` for one.
    void pump(int64_t timeoutNs) {
        bool any = false;
        for (int round = 0; round < 2; ++round) {
            for (;;) {
                int status = 0;
                // __WNOTHREAD: only this thread's children and tracees, never children of other threads of
                // the recorder.
                const pid_t r = waitpid(-1, &status, __WALL | __WNOTHREAD | WNOHANG);
                if (r > 0) {
                    handle(r, status);
                    any = true;
                    continue;
                }
                if (r < 0 && errno == EINTR)
                    continue;
                if (r < 0 && errno == ECHILD) {
                    m_allGone = true;
                    m_threads.clear();
                }
                break;
            }
            if (any || timeoutNs <= 0 || m_allGone || round == 1)
                return;
            // SIGCHLD is blocked in this thread; another thread of the recorder may take it, so wait in short
            // slices.
            sigset_t chld;
            sigemptyset(&chld);
            sigaddset(&chld, SIGCHLD);
            const int64_t slice = std::min<int64_t>(timeoutNs, 2'000'000);
            timespec ts{slice / 1'000'000'000, slice % 1'000'000'000};
            sigtimedwait(&chld, nullptr, &ts);
        }
    }

    bool taskExists(pid_t tid) const {
        return access(("/proc/" + std::to_string(m_pid) + "/task/" + std::to_string(tid)).c_str(), F_OK) == 0;
    }

    void tick() {
        std::vector<pid_t> gone;
        for (auto& [tid, t] : m_threads) {
            if (m_ctx.options.offCpu) // before the interrupt stops it
                t.state = threadState(m_pid, tid);
            if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) == 0)
                t.pending = true;
            else if (errno == ESRCH)
                gone.push_back(tid);
        }
        if (!gone.empty()) {
            pump(0);
            for (pid_t tid : gone)
                if (m_threads.count(tid) && !taskExists(tid))
                    drop(tid);
        }
        const uint64_t deadline = monotonicNs() + 50'000'000;
        for (;;) {
            bool waiting = false;
            for (auto& [tid, t] : m_threads)
                waiting = waiting || (t.pending && t.missed < 2);
            const uint64_t now = monotonicNs();
            if (!waiting || now >= deadline || m_allGone)
                break;
            pump(static_cast<int64_t>(deadline - now));
        }
        for (auto& [tid, t] : m_threads)
            if (t.pending)
                ++t.missed;
    }

    void refreshMaps(bool force) {
        std::ifstream in("/proc/" + std::to_string(m_pid) + "/maps");
        std::stringstream text;
        text << in.rdbuf();
        std::string maps = text.str();
        const uint64_t now = monotonicNs();
        if (force || maps != m_lastMaps) {
            if (maps.empty() && !force)
                return;
            m_lastMaps = std::move(maps);
            m_ctx.addModules(readExecutableModules(m_pid, now));
            if (m_unwinder)
                m_unwinder->invalidate();
        }
        for (auto& [tid, t] : m_threads) {
            std::string name = readThreadName(m_pid, tid);
            if (!name.empty())
                m_ctx.setThreadName(tid, std::move(name), now);
        }
    }

    void detachAll() {
        for (auto& [tid, t] : m_threads) {
            t.detaching = true;
            if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0 && errno == ESRCH)
                t.missed = 100;
        }
        const uint64_t deadline = monotonicNs() + 1'000'000'000;
        while (!m_threads.empty() && !m_allGone && monotonicNs() < deadline) {
            for (auto& [tid, t] : m_threads)
                if (!t.detaching) { // appeared while detaching
                    t.detaching = true;
                    ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
                }
            bool waiting = false;
            for (auto& [tid, t] : m_threads)
                waiting = waiting || (t.missed < 100 && taskExists(tid));
            if (!waiting)
                break;
            pump(2'000'000);
        }
        for (auto& [tid, t] : m_threads)
            ptrace(PTRACE_DETACH, tid, nullptr, nullptr); // fails harmlessly unless stopped
        m_threads.clear();
        if (m_unwinder)
            m_unwinder.reset();
    }
};

} // namespace

void runPtrace(SamplerContext& ctx) {
    PtraceSampler sampler(ctx);
    sampler.run();
}

} // namespace scorch::detail
