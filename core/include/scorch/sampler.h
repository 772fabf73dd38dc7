// Scorch's own sampler: records call stacks of a running process (attach to a PID) or of a command it
// launches, with one of two mechanisms:
//  - Perf: perf_event_open cpu-clock events (per CPU, inherited by new threads), frame-pointer callchains
//    plus user register/stack copies unwound with libunwind; cheap, samples on-CPU threads only;
//  - Ptrace: PTRACE_SEIZE every thread, PTRACE_INTERRUPT it at the rate, unwind it remotely with
//    libunwind; costlier, but it also samples blocked threads (wall-clock / off-CPU).
// The target is never left stopped or traced: the sampler detaches on stop(), on the target's exit, on any
// error and in its destructor (and the kernel detaches a tracer that dies). No Qt.
//
// The ptrace mechanism runs on its own worker thread and waits only for that thread's children and
// tracees (waitpid __WALL|__WNOTHREAD), so other children of the recording process are left alone. A
// process that records its own child with ptrace must not waitpid() that child from another thread while
// recording (the wait would take the tracee's ptrace stops).
#pragma once

#include "scorch/recording.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace scorch {

enum class SamplerMode { Perf, Ptrace };

struct SamplerOptions {
    SamplerMode mode = SamplerMode::Perf;
    double frequency = 0;             ///< per thread and second; 0 = 999 (perf) / 99 (ptrace)
    double durationSeconds = 0;       ///< 0 = until stop() or the target exits
    int64_t pid = -1;                 ///< attach to this process ...
    std::vector<std::string> command; ///< ... or launch this command (argv[0] searched in PATH)
    std::string workingDirectory;     ///< for a launched command; empty = the current one
    /// A launched command's standard output and error go to this descriptor and its input is /dev/null
    /// (File > Record… shows the output); -1 = it inherits the recorder's three. The caller keeps and
    /// closes it; a file, not a pipe, so that a command left running never blocks or dies on a full or
    /// closed pipe.
    int outputFd = -1;
    uint32_t stackBytes = 8192; ///< perf: user stack bytes copied per sample for DWARF unwinding
    uint32_t maxDepth = 256;    ///< frames per sample
    /// Also record where threads wait (Recording::offCpu): perf records every context switch with the stack
    /// the thread left with (a `context-switches` event, which needs kernel.perf_event_paranoid <= 1 or
    /// CAP_PERFMON, and switch records), and weighs each on-CPU sample by the time since the thread's
    /// previous sample or switch-in; ptrace reads each interrupted thread's state and charges the time since
    /// its previous sample to it, on-CPU when it was running, off-CPU when it was blocked.
    bool offCpu = false;
};

/// Attaching or launching failed. what() is a complete message for the user; for permission problems it
/// names the kernel setting, its current value and the ways out.
class SamplerError : public std::runtime_error {
public:
    explicit SamplerError(const std::string& message, bool permission = false)
        : std::runtime_error(message)
        , permissionDenied(permission) {}
    bool permissionDenied;
};

class Sampler {
public:
    explicit Sampler(SamplerOptions options);
    /// Stops and detaches (if still recording) and waits for the worker.
    ~Sampler();
    Sampler(const Sampler&) = delete;
    Sampler& operator=(const Sampler&) = delete;

    /// Attaches or launches, then records on a worker thread. Throws SamplerError.
    void start();
    /// Asks the worker to stop; returns at once (async-signal-safe: it only stores to an atomic).
    void stop();
    /// Blocks until recording ended (stop(), duration, target exit or error).
    void wait();
    bool finished() const;

    int64_t pid() const;
    uint64_t samples() const;
    /// The modules and threads so far and the samples from index `fromSample` on (for live display).
    Recording snapshot(std::size_t fromSample = 0) const;
    /// The complete recording; call after wait().
    Recording take();
    /// An error that ended the recording early (empty when none).
    std::string error() const;
    /// Launch mode, after wait(): waits for the command to exit if it still runs (it keeps running untraced
    /// after the recording) and returns its exit code, 128 + signal when killed; -1 when attached.
    int waitCommand();
    /// Launch mode: sends `signal` to the command if it still runs (`scorch record --kill-after`, the record
    /// dialog's "Stop the command when the recording ends"); waitCommand() then returns how it ended.
    void stopCommand(int signal = 15 /* SIGTERM */);

    // A launched command keeps running after the recording (and after this Sampler) unless stopCommand() is
    // called. But it does not outlive a recording process that dies without destroying its Sampler (kill -9,
    // a crash): start() forks a small watchdog process that holds one end of a pipe and kills the command
    // (SIGKILL) when the pipe closes without a word from the Sampler's destructor. (PR_SET_PDEATHSIG in the
    // command cannot do this: it fires when the forking *thread* ends, which is the sampler's worker, and
    // also at a normal exit, after which the command is meant to keep running.)

    static double defaultFrequency(SamplerMode mode) { return mode == SamplerMode::Perf ? 999 : 99; }
    /// The fixed sampling period of an off-CPU recording's on-CPU samples at `frequency` Hz.
    static uint64_t periodNs(double frequency) { return static_cast<uint64_t>(1e9 / frequency + 0.5); }

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

/// The advice for a failed perf_event_open/ptrace with `err` (EPERM/EACCES/...): the setting, its current
/// value and the ways out. `attach` = attaching to an existing process (launching needs fewer rights).
std::string samplerPermissionAdvice(SamplerMode mode, int err, bool attach, int64_t pid);

} // namespace scorch
