// Internals shared by the sampler mechanisms (sampler.cpp, sampler_perf.cpp, sampler_ptrace.cpp).
#pragma once

#include "scorch/sampler.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace scorch::detail {

uint64_t monotonicNs();
std::vector<pid_t> listThreads(pid_t pid);
std::string readThreadName(pid_t pid, pid_t tid);
/// Executable mappings of `pid` from /proc/PID/maps (with build-ids). Empty when the process is gone.
std::vector<RecordedModule> readExecutableModules(pid_t pid, uint64_t timeNs);
/// Hex GNU build-id of an ELF file, cached by path; empty when it has none or cannot be read.
std::string buildIdOf(const std::string& path);
/// /proc/sys value as text ("absent" when the file does not exist).
std::string procSysValue(const char* path);

/// State shared between the worker (one mechanism) and the Sampler's owner.
struct SamplerContext {
    SamplerOptions options;
    double frequency = 0;
    std::atomic<bool> stopRequested{false};
    std::atomic<uint64_t> sampleCount{0};

    mutable std::mutex mutex; // guards recording and error
    Recording recording;
    std::string error;
    std::map<int64_t, bool> namedThreads; // worker-only: tids whose name is in the recording

    /// The worker reports the end of attaching/launching once: started() or failed(); failed() after
    /// started() records the error that ended the recording.
    void started(pid_t pid);
    void failed(const SamplerError& e);
    std::mutex startMutex;
    std::condition_variable startCv;
    bool startDone = false;
    pid_t startedPid = -1;
    std::optional<SamplerError> startError;

    bool shouldStop(uint64_t startNs) const;
    void addSample(pid_t tid, uint64_t timeNs, const uint64_t* ips, std::size_t n);
    /// A sample with a duration (off-CPU recordings): on-CPU when state is 0, else the time off the CPU.
    void addTimed(pid_t tid, uint64_t timeNs, uint64_t durationNs, char state, const uint64_t* ips,
                  std::size_t n);
    void addModules(std::vector<RecordedModule> modules);
    void setThreadName(pid_t tid, std::string name, uint64_t timeNs);
    /// Records /proc name of `tid` if not known yet.
    void ensureThreadName(pid_t pid, pid_t tid);
    void note(std::string text);
};

/// A forked child that waits on a pipe before it execs the command.
struct PausedChild {
    pid_t pid = -1;
    int releaseFd = -1; ///< write a byte to let the child exec
    int errorFd = -1;   ///< the child writes its errno here when exec fails; EOF on success
};
PausedChild forkPaused(const SamplerOptions& options);
/// Lets the child exec; throws SamplerError when exec failed (the child is reaped then).
void releaseChild(PausedChild& child, const SamplerOptions& options);

void runPerf(SamplerContext& ctx);
void runPtrace(SamplerContext& ctx);

} // namespace scorch::detail
