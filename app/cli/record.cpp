#include "cli/command.h"

#include "scorch/recording.h"
#include "scorch/safetext.h"
#include "scorch/sampler.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace scorch::cli {

namespace {

constexpr std::string_view kNeedsPid = "record: -p needs a process id";
constexpr std::string_view kNeedsRate = "record: -F needs a rate between 1 and 100000 Hz";
constexpr std::string_view kNeedsDuration = "record: -d needs a positive number of seconds";
constexpr std::string_view kNeedsOutput = "record: -o needs a file name";
constexpr std::string_view kNeedsMode = "record: --mode is perf or ptrace";

std::atomic<int> gSignal{0};
std::atomic<bool> gStatus{false};

extern "C" void onSignal(int sig) {
    gSignal.store(sig);
}

extern "C" void onStatus(int) {
    gStatus.store(true);
}

int usageError(const std::string& message) {
    return scorch::cli::usageError(recordCommand(), message);
}

bool parseNumber(const char* text, double& out) {
    char* end = nullptr;
    errno = 0;
    out = std::strtod(text, &end);
    return errno == 0 && end != text && *end == 0;
}

/// "scorch: MESSAGE" on standard error, the message made safe for a terminal (paths, commands and errors
/// may hold control characters).
void say(const std::string& message) {
    std::fprintf(stderr, "scorch: %s\n", escapeText(message).c_str());
}

/// Where a recording goes when OUT cannot be written at the end: $XDG_CACHE_HOME/scorch (or ~/.cache/scorch),
/// created if needed; empty when there is no such place.
std::string fallbackDirectory() {
    std::string base;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
        base = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home)
        base = std::string(home) + "/.cache";
    else
        return {};
    for (const std::string& dir : {base, base + "/scorch"})
        if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
            return {};
    return base + "/scorch";
}

/// Writes `rec` to `output`, or, when that fails, to the fallback directory; says where. Returns 0 when
/// written to `output`, 1 otherwise.
int writeWithFallback(const Recording& rec, const std::string& output) {
    std::set<int64_t> tids;
    for (const RecordedSample& s : rec.samples)
        tids.insert(s.tid);
    char summary[200];
    std::snprintf(summary, sizeof summary, "%zu samples of %zu threads in %.2f s, %zu modules, %llu lost",
                  rec.samples.size(), tids.size(), static_cast<double>(rec.endNs - rec.startNs) / 1e9,
                  rec.modules.size(), static_cast<unsigned long long>(rec.lost));
    try {
        writeRecording(rec, output);
        say(std::string(summary) + "; written to " + output);
        return 0;
    } catch (const std::exception& e) {
        say(std::string("record: ") + e.what());
    }
    const std::string dir = fallbackDirectory();
    if (!dir.empty()) {
        const std::size_t slash = output.rfind('/');
        const std::string fallback = dir + "/" + std::to_string(getpid()) + "-" +
                                     (slash == std::string::npos ? output : output.substr(slash + 1));
        try {
            writeRecording(rec, fallback);
            say(std::string(summary) + "; saved to " + fallback + " instead of " + output);
            return 1;
        } catch (const std::exception& e) {
            say(std::string("record: ") + e.what());
        }
    }
    say("record: the recording is lost: neither " + output + " nor the cache directory (" +
        (dir.empty() ? std::string("$XDG_CACHE_HOME/scorch, ~/.cache/scorch") : dir) + ") could be written");
    return 1;
}

int run(const Command&, const Args& args) {
    SamplerOptions options;
    std::string output = "scorch.rec";
    if (args.has("--pid")) {
        double pid = 0;
        if (!parseNumber(args.value("--pid").c_str(), pid) || pid < 1 ||
            pid != static_cast<double>(static_cast<int64_t>(pid)))
            return usageError(std::string(kNeedsPid));
        options.pid = static_cast<int64_t>(pid);
    }
    if (args.has("--freq") && (!parseNumber(args.value("--freq").c_str(), options.frequency) ||
                               options.frequency < 1 || options.frequency > 100000))
        return usageError(std::string(kNeedsRate));
    if (args.has("--duration") && (!parseNumber(args.value("--duration").c_str(), options.durationSeconds) ||
                                   options.durationSeconds <= 0))
        return usageError(std::string(kNeedsDuration));
    if (args.has("--output")) {
        output = args.value("--output");
        if (output.empty())
            return usageError(std::string(kNeedsOutput));
    }
    const bool modeGiven = args.has("--mode");
    if (modeGiven) {
        const std::string& m = args.value("--mode");
        if (m == "perf")
            options.mode = SamplerMode::Perf;
        else if (m == "ptrace")
            options.mode = SamplerMode::Ptrace;
        else
            return usageError(std::string(kNeedsMode));
    }
    options.offCpu = args.has("--off-cpu");
    options.command = args.operands;
    if (options.command.empty() == (options.pid < 0))
        return usageError("record: give either -p PID or -- COMMAND [ARGS...]");
    const bool killAfter = args.has("--kill-after");
    if (killAfter && options.command.empty())
        return usageError("record: --kill-after stops a launched command (-- COMMAND), not one attached to");
    // Before anything runs: the samples must not be lost at the end for want of a place to write them.
    try {
        checkRecordingTarget(output);
    } catch (const std::exception& e) {
        return fail(std::string("record: ") + e.what() + "; nothing was recorded");
    }

    // The ptrace mechanism waits for SIGCHLD in its worker thread; keep it away from this one.
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &chld, nullptr);
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGHUP, &sa, nullptr);
    sa.sa_handler = onStatus;
    sigaction(SIGUSR1, &sa, nullptr);

    const bool launch = !options.command.empty();
    auto sampler = std::make_unique<Sampler>(options);
    try {
        sampler->start();
    } catch (const SamplerError& e) {
        const std::string what = e.what();
        const bool perfUnavailable =
            e.permissionDenied || what.find("perf_event_open is not available") != std::string::npos;
        if (modeGiven || options.mode != SamplerMode::Perf || !perfUnavailable)
            return fail("record: " + what);
        // The default mechanism was refused: fall back to ptrace, and say so.
        say("record: " + what);
        say("record: falling back to --mode ptrace");
        options.mode = SamplerMode::Ptrace;
        sampler = std::make_unique<Sampler>(options);
        try {
            sampler->start();
        } catch (const SamplerError& e2) {
            return fail(std::string("record: ") + e2.what());
        }
    }
    const auto pid = static_cast<long long>(sampler->pid());
    const double rate = options.frequency > 0 ? options.frequency : Sampler::defaultFrequency(options.mode);
    std::fprintf(stderr, "scorch: recording %s %lld with %s at %g Hz%s%s\n", launch ? "command, pid" : "pid",
                 pid, options.mode == SamplerMode::Perf ? "perf" : "ptrace", rate,
                 options.offCpu ? ", off-CPU time too" : "",
                 options.durationSeconds > 0 ? "" : " (Ctrl+C stops)");
    int interrupted = 0;
    while (!sampler->finished()) {
        if (const int sig = gSignal.exchange(0)) {
            interrupted = sig;
            sampler->stop();
        }
        if (gStatus.exchange(false)) {
            const Recording sofar = sampler->snapshot();
            std::set<int64_t> sampled;
            for (const RecordedSample& s : sofar.samples)
                sampled.insert(s.tid);
            std::fprintf(stderr, "scorch: %zu samples of %zu threads so far\n", sofar.samples.size(),
                         sampled.size());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    sampler->wait();
    Recording rec = sampler->take();
    if (const std::string error = sampler->error(); !error.empty())
        say("record: " + error);

    // The recording is written at once, whatever the command does next.
    int status = 0;
    if (rec.samples.empty()) {
        say(std::string("record: no samples were recorded") +
            (options.mode == SamplerMode::Perf
                 ? " (the perf mechanism samples running threads only: was the target idle? "
                   "--mode ptrace also samples blocked threads)"
                 : "") +
            "; nothing written to " + output);
        status = 1;
    } else {
        status = writeWithFallback(rec, output);
    }

    if (!launch)
        return status;
    if (rec.exitCode >= 0) {
        std::fprintf(stderr, "scorch: the command exited with code %d\n", sampler->waitCommand());
        return status;
    }
    if (interrupted || killAfter) {
        // Ctrl+C/SIGTERM/SIGHUP of the recorder goes on to the command; --kill-after stops it (SIGTERM).
        const int sig = interrupted ? interrupted : SIGTERM;
        std::fprintf(stderr, "scorch: stopping the command (pid %lld) with signal %d%s\n", pid, sig,
                     killAfter ? " (--kill-after)" : "");
        sampler->stopCommand(sig);
        // Forward further Ctrl+C/SIGTERM to the command while waiting for it.
        std::atomic<bool> waited{false};
        std::thread forward([&] {
            while (!waited) {
                if (const int again = gSignal.exchange(0))
                    sampler->stopCommand(again);
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        });
        const int commandExit = sampler->waitCommand();
        waited = true;
        forward.join();
        if (commandExit >= 0)
            std::fprintf(stderr, "scorch: the command exited with code %d\n", commandExit);
        return status;
    }
    std::fprintf(stderr,
                 "scorch: the command (pid %lld) keeps running after the recording; --kill-after stops it\n",
                 pid);
    return status;
}

} // namespace

const Command& recordCommand() {
    static const Command command{
        .name = "record",
        .summary = "sample a running process or a launched command into a Scorch recording",
        .synopsis = "Usage: scorch record [OPTIONS] -p PID\n"
                    "       scorch record [OPTIONS] -- COMMAND [ARGS...]\n"
                    "\n"
                    "Samples the call stacks of a running process (all its threads, new ones included) or of "
                    "a command it\n"
                    "launches, and writes a Scorch recording that `scorch FILE` and `scorch info|collapse "
                    "FILE` open.\n",
        .options = {{.shortName = "-p",
                     .longName = "--pid",
                     .value = "PID",
                     .help = "attach to this process",
                     .missing = kNeedsPid},
                    {.shortName = "-F",
                     .longName = "--freq",
                     .value = "HZ",
                     .help = "samples per second and thread (default 999 perf, 99 ptrace)",
                     .missing = kNeedsRate},
                    {.shortName = "-d",
                     .longName = "--duration",
                     .value = "SEC",
                     .help = "stop after this many seconds (default: until Ctrl+C or the target exits)",
                     .missing = kNeedsDuration},
                    {.longName = "--mode",
                     .value = "perf|ptrace",
                     .help = "perf: perf_event_open cpu-clock, on-CPU only, cheap (default);\n"
                             "ptrace: interrupts every thread, also samples blocked threads (wall-clock)",
                     .missing = kNeedsMode},
                    {.shortName = "-o",
                     .longName = "--output",
                     .value = "FILE",
                     .help =
                         "the recording (default scorch.rec); checked before recording. If it cannot be\n"
                         "written at the end, the recording goes to $XDG_CACHE_HOME/scorch (~/.cache/scorch)",
                     .missing = kNeedsOutput},
                    {.longName = "--off-cpu",
                     .help = "also record where threads wait: cost types off-cpu and wall (ns) beside the\n"
                             "samples. perf: every context switch with its stack (needs\n"
                             "kernel.perf_event_paranoid <= 1); ptrace: blocked threads' samples"},
                    {.longName = "--kill-after",
                     .help = "stop (SIGTERM) a launched command when the recording ends (default: it keeps "
                             "running)"}},
        .footer =
            "The recording is written as soon as it stops (Ctrl+C, SIGTERM, the duration, the target's "
            "exit).\n"
            "An attached process is detached and keeps running. A launched command still running after "
            "-d SEC keeps\n"
            "running (scorch says so) unless --kill-after is given; Ctrl+C or SIGTERM of the recorder is "
            "passed on to it.\n"
            "If the recorder is killed (kill -9), a launched command is killed with it.\n"
            "SIGUSR1 prints the samples so far and how many threads they come from (as dd prints its "
            "progress).\n",
        .readsProfiles = false,
        .operands = {.operandsEndOptions = true},
        .run = run,
    };
    return command;
}

} // namespace scorch::cli
