// The ptrace mechanism: PTRACE_SEIZE every thread, PTRACE_INTERRUPT each one at the rate, unwind it remotely
// with libunwind, PTRACE_CONT. One central waitpid(-1, __WALL) dispatcher handles every tracee event (see
// /work/shared/notes/sampler-findings.md for the pitfalls it avoids). Samples blocked threads too.
#include "sampler/sampler_unwind.h"
#include "sampler/samplerinternal.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
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
};

class PtraceSampler {
public:
    explicit PtraceSampler(SamplerContext& ctx)
        : ctx_(ctx) {}

    ~PtraceSampler() {
        // Never leave a thread traced or stopped, whatever happened.
        if (!threads_.empty())
            detachAll();
    }

    void run() {
        sigset_t chld;
        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        pthread_sigmask(SIG_BLOCK, &chld, nullptr);

        const SamplerOptions& o = ctx_.options;
        if (o.command.empty())
            attach(static_cast<pid_t>(o.pid));
        else
            launch();
        unwinder_ = std::make_unique<RemoteUnwinder>(pid_, o.maxDepth);
        buffer_.resize(std::max(1u, o.maxDepth));
        refreshMaps(true);
        const uint64_t start = monotonicNs();
        {
            std::lock_guard lock(ctx_.mutex);
            ctx_.recording.pid = pid_;
            ctx_.recording.startNs = start;
        }
        ctx_.started(pid_);

        uint64_t next = start, nextMaps = start + 200'000'000;
        while (!ctx_.shouldStop(start) && !leaderExited_ && !allGone_ && !threads_.empty()) {
            uint64_t now = monotonicNs();
            if (now >= next) {
                tick();
                // At most ~2000 stops per second in total, however many threads there are.
                const double period =
                    std::max(1e9 / ctx_.frequency, 1e9 * static_cast<double>(threads_.size()) / 2000.0);
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
        if (!threads_.empty())
            detachAll();
        std::lock_guard lock(ctx_.mutex);
        ctx_.recording.endNs = monotonicNs();
        if (exitCode_ >= 0)
            ctx_.recording.exitCode = exitCode_;
    }

private:
    SamplerContext& ctx_;
    pid_t pid_ = -1;
    bool launched_ = false, execSeen_ = false, leaderExited_ = false, allGone_ = false;
    int exitCode_ = -1;
    std::map<pid_t, Tracee> threads_;
    std::set<pid_t> dead_;
    std::unique_ptr<RemoteUnwinder> unwinder_;
    std::vector<uint64_t> buffer_;
    std::string lastMaps_;

    [[noreturn]] void refused(int err, bool attach) {
        const SamplerOptions& o = ctx_.options;
        if (err == EPERM || err == EACCES)
            throw SamplerError(samplerPermissionAdvice(SamplerMode::Ptrace, err, attach, o.pid), true);
        throw SamplerError(std::string("ptrace failed: ") + std::strerror(err));
    }

    void attach(pid_t pid) {
        pid_ = pid;
        for (int round = 0; round < 20; ++round) {
            bool added = false;
            for (pid_t tid : listThreads(pid)) {
                if (threads_.count(tid) || dead_.count(tid))
                    continue;
                if (ptrace(PTRACE_SEIZE, tid, nullptr, reinterpret_cast<void*>(PTRACE_O_TRACECLONE)) != 0) {
                    if (errno == ESRCH)
                        continue;
                    const int err = errno;
                    detachAll();
                    refused(err, true);
                }
                threads_[tid] = {};
                added = true;
            }
            if (!added)
                break;
        }
        if (threads_.empty())
            throw SamplerError("process " + std::to_string(pid) +
                               " has no threads to attach to (it exited?)");
    }

    void launch() {
        launched_ = true;
        PausedChild child = forkPaused(ctx_.options);
        pid_ = child.pid;
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
        threads_[child.pid] = {};
        try {
            releaseChild(child, ctx_.options);
        } catch (...) {
            threads_.clear();
            throw;
        }
        const uint64_t deadline = monotonicNs() + 10'000'000'000ull;
        while (!execSeen_ && !allGone_ && !leaderExited_ && monotonicNs() < deadline)
            pump(5'000'000);
        if (!execSeen_)
            throw SamplerError("the launched command did not reach exec");
    }

    void cont(pid_t tid, int sig) {
        ptrace(PTRACE_CONT, tid, nullptr, reinterpret_cast<void*>(intptr_t(sig)));
    }

    void drop(pid_t tid) {
        threads_.erase(tid);
        dead_.insert(tid);
        if (unwinder_)
            unwinder_->forget(tid);
    }

    void sample(pid_t tid) {
        const std::size_t n = unwinder_ ? unwinder_->unwindTraced(tid, buffer_.data()) : 0;
        if (n == 0)
            return;
        ctx_.ensureThreadName(pid_, tid);
        ctx_.addSample(tid, monotonicNs(), buffer_.data(), n);
    }

    void handle(pid_t tid, int status) {
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            drop(tid);
            if (tid == pid_) {
                leaderExited_ = true;
                exitCode_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
            return;
        }
        if (!WIFSTOPPED(status))
            return;
        auto it = threads_.find(tid);
        if (it == threads_.end()) {
            // A new thread whose stop arrived before its parent's clone event.
            it = threads_.emplace(tid, Tracee{}).first;
            dead_.erase(tid);
        }
        Tracee& t = it->second;
        const int sig = WSTOPSIG(status);
        const int event = status >> 16;
        if (t.detaching) {
            ptrace(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void*>(intptr_t(event == 0 ? sig : 0)));
            threads_.erase(it);
            return;
        }
        switch (event) {
        case PTRACE_EVENT_CLONE: {
            unsigned long msg = 0;
            ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &msg);
            const auto child = static_cast<pid_t>(msg);
            if (!dead_.count(child))
                threads_.try_emplace(child);
            cont(tid, 0);
            return;
        }
        case PTRACE_EVENT_EXEC: {
            execSeen_ = true;
            // Every other thread is gone after exec; the exec'ing thread now has the leader's id.
            for (auto i = threads_.begin(); i != threads_.end();)
                if (i->first != tid && i->first != pid_) {
                    if (unwinder_)
                        unwinder_->forget(i->first);
                    i = threads_.erase(i);
                } else {
                    ++i;
                }
            if (unwinder_) {
                unwinder_->forget(tid);
                unwinder_->invalidate();
            }
            if (unwinder_)
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
                    allGone_ = true;
                    threads_.clear();
                }
                break;
            }
            if (any || timeoutNs <= 0 || allGone_ || round == 1)
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
        return access(("/proc/" + std::to_string(pid_) + "/task/" + std::to_string(tid)).c_str(), F_OK) == 0;
    }

    void tick() {
        std::vector<pid_t> gone;
        for (auto& [tid, t] : threads_) {
            if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) == 0)
                t.pending = true;
            else if (errno == ESRCH)
                gone.push_back(tid);
        }
        if (!gone.empty()) {
            pump(0);
            for (pid_t tid : gone)
                if (threads_.count(tid) && !taskExists(tid))
                    drop(tid);
        }
        const uint64_t deadline = monotonicNs() + 50'000'000;
        for (;;) {
            bool waiting = false;
            for (auto& [tid, t] : threads_)
                waiting = waiting || (t.pending && t.missed < 2);
            const uint64_t now = monotonicNs();
            if (!waiting || now >= deadline || allGone_)
                break;
            pump(static_cast<int64_t>(deadline - now));
        }
        for (auto& [tid, t] : threads_)
            if (t.pending)
                ++t.missed;
    }

    void refreshMaps(bool force) {
        std::ifstream in("/proc/" + std::to_string(pid_) + "/maps");
        std::stringstream text;
        text << in.rdbuf();
        std::string maps = text.str();
        const uint64_t now = monotonicNs();
        if (force || maps != lastMaps_) {
            if (maps.empty() && !force)
                return;
            lastMaps_ = std::move(maps);
            ctx_.addModules(readExecutableModules(pid_, now));
            if (unwinder_)
                unwinder_->invalidate();
        }
        for (auto& [tid, t] : threads_) {
            std::string name = readThreadName(pid_, tid);
            if (!name.empty())
                ctx_.setThreadName(tid, std::move(name), now);
        }
    }

    void detachAll() {
        for (auto& [tid, t] : threads_) {
            t.detaching = true;
            if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0 && errno == ESRCH)
                t.missed = 100;
        }
        const uint64_t deadline = monotonicNs() + 1'000'000'000;
        while (!threads_.empty() && !allGone_ && monotonicNs() < deadline) {
            for (auto& [tid, t] : threads_)
                if (!t.detaching) { // appeared while detaching
                    t.detaching = true;
                    ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
                }
            bool waiting = false;
            for (auto& [tid, t] : threads_)
                waiting = waiting || (t.missed < 100 && taskExists(tid));
            if (!waiting)
                break;
            pump(2'000'000);
        }
        for (auto& [tid, t] : threads_)
            ptrace(PTRACE_DETACH, tid, nullptr, nullptr); // fails harmlessly unless stopped
        threads_.clear();
        if (unwinder_)
            unwinder_.reset();
    }
};

} // namespace

void runPtrace(SamplerContext& ctx) {
    PtraceSampler sampler(ctx);
    sampler.run();
}

} // namespace scorch::detail
