#include "cli/command.h"

#include "scorch/recording.h"
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
#include <thread>

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
    options.command = args.operands;
    if (options.command.empty() == (options.pid < 0))
        return usageError("record: give either -p PID or -- COMMAND [ARGS...]");

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
        if (modeGiven || options.mode != SamplerMode::Perf || !perfUnavailable) {
            std::fprintf(stderr, "scorch: record: %s\n", e.what());
            return 1;
        }
        // The default mechanism was refused: fall back to ptrace, and say so.
        std::fprintf(stderr, "scorch: record: %s\nscorch: record: falling back to --mode ptrace\n", e.what());
        options.mode = SamplerMode::Ptrace;
        sampler = std::make_unique<Sampler>(options);
        try {
            sampler->start();
        } catch (const SamplerError& e2) {
            std::fprintf(stderr, "scorch: record: %s\n", e2.what());
            return 1;
        }
    }
    const double rate = options.frequency > 0 ? options.frequency : Sampler::defaultFrequency(options.mode);
    std::fprintf(stderr, "scorch: recording %s %lld with %s at %g Hz%s\n", launch ? "command, pid" : "pid",
                 static_cast<long long>(sampler->pid()),
                 options.mode == SamplerMode::Perf ? "perf" : "ptrace", rate,
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
    const std::string error = sampler->error();
    if (!error.empty())
        std::fprintf(stderr, "scorch: record: %s\n", error.c_str());

    int commandExit = -1;
    if (launch) {
        if (rec.exitCode < 0) {
            std::fprintf(stderr, "scorch: recording stopped; waiting for the command (pid %lld) to exit\n",
                         static_cast<long long>(sampler->pid()));
            if (interrupted)
                kill(static_cast<pid_t>(sampler->pid()), interrupted);
        }
        // Forward further Ctrl+C/SIGTERM to the command while waiting for it.
        std::atomic<bool> waited{false};
        std::thread forward([&] {
            while (!waited) {
                if (const int sig = gSignal.exchange(0))
                    kill(static_cast<pid_t>(sampler->pid()), sig);
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        });
        commandExit = sampler->waitCommand();
        waited = true;
        forward.join();
    }

    if (rec.samples.empty()) {
        std::fprintf(stderr, "scorch: record: no samples were recorded%s; nothing written to %s\n",
                     options.mode == SamplerMode::Perf
                         ? " (the perf mechanism samples running threads only: was the target idle? "
                           "--mode ptrace also samples blocked threads)"
                         : "",
                     output.c_str());
        return 1;
    }
    try {
        writeRecording(rec, output);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "scorch: record: %s\n", e.what());
        return 1;
    }
    std::set<int64_t> tids;
    for (const RecordedSample& s : rec.samples)
        tids.insert(s.tid);
    std::fprintf(stderr,
                 "scorch: %zu samples of %zu threads in %.2f s, %zu modules, %llu lost; written to %s\n",
                 rec.samples.size(), tids.size(), static_cast<double>(rec.endNs - rec.startNs) / 1e9,
                 rec.modules.size(), static_cast<unsigned long long>(rec.lost), output.c_str());
    if (launch && commandExit >= 0)
        std::fprintf(stderr, "scorch: the command exited with code %d\n", commandExit);
    return 0;
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
                     .help = "the recording (default scorch.rec)",
                     .missing = kNeedsOutput}},
        .footer = "The target is detached and keeps running when the recording stops (Ctrl+C, SIGTERM, "
                  "duration).\n"
                  "SIGUSR1 prints the samples so far and how many threads they come from (as dd prints its "
                  "progress).\n",
        .readsProfiles = false,
        .operands = {.operandsEndOptions = true},
        .run = run,
    };
    return command;
}

} // namespace scorch::cli
