#include "record.h"

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

constexpr const char* kRecordUsage =
    "Usage: scorch record [OPTIONS] -p PID\n"
    "       scorch record [OPTIONS] -- COMMAND [ARGS...]\n"
    "\n"
    "Samples the call stacks of a running process (all its threads, new ones included) or of a command it\n"
    "launches, and writes a Scorch recording that `scorch FILE` and `scorch info|collapse FILE` open.\n"
    "  -p, --pid PID        attach to this process\n"
    "  -F, --freq HZ        samples per second and thread (default 999 perf, 99 ptrace)\n"
    "  -d, --duration SEC   stop after this many seconds (default: until Ctrl+C or the target exits)\n"
    "  --mode perf|ptrace   perf: perf_event_open cpu-clock, on-CPU only, cheap (default);\n"
    "                       ptrace: interrupts every thread, also samples blocked threads (wall-clock)\n"
    "  -o, --output FILE    the recording (default scorch.rec)\n"
    "  -h, --help           show this help\n"
    "The target is detached and keeps running when the recording stops (Ctrl+C, SIGTERM, duration).\n"
    "SIGUSR1 prints the samples so far and how many threads they come from (as dd prints its progress).\n";

std::atomic<int> gSignal{0};
std::atomic<bool> gStatus{false};

extern "C" void onSignal(int sig) {
    gSignal.store(sig);
}

extern "C" void onStatus(int) {
    gStatus.store(true);
}

int usageError(const std::string& message) {
    std::fprintf(stderr, "scorch: %s\n%s", message.c_str(), kRecordUsage);
    return 2;
}

bool parseNumber(const char* text, double& out) {
    char* end = nullptr;
    errno = 0;
    out = std::strtod(text, &end);
    return errno == 0 && end != text && *end == 0;
}

} // namespace

int record(int argc, char** argv) {
    SamplerOptions options;
    std::string output = "scorch.rec";
    bool modeGiven = false;
    for (int i = 2; i < argc; ++i) {
        const std::string_view a = argv[i];
        auto value = [&](const char* what) -> const char* {
            const std::size_t eq = a.find('=');
            if (a.starts_with("--") && eq != std::string_view::npos)
                return argv[i] + eq + 1;
            if (i + 1 >= argc)
                return nullptr;
            (void)what;
            return argv[++i];
        };
        auto is = [&](std::string_view s, std::string_view l) {
            return a == s || a == l || (a.starts_with(l) && a.size() > l.size() && a[l.size()] == '=');
        };
        if (a == "-h" || a == "--help") {
            std::fputs(kRecordUsage, stdout);
            return 0;
        } else if (is("-p", "--pid")) {
            const char* v = value("pid");
            double pid = 0;
            if (!v || !parseNumber(v, pid) || pid < 1 ||
                pid != static_cast<double>(static_cast<int64_t>(pid)))
                return usageError("record: -p needs a process id");
            options.pid = static_cast<int64_t>(pid);
        } else if (is("-F", "--freq")) {
            const char* v = value("freq");
            if (!v || !parseNumber(v, options.frequency) || options.frequency < 1 ||
                options.frequency > 100000)
                return usageError("record: -F needs a rate between 1 and 100000 Hz");
        } else if (is("-d", "--duration")) {
            const char* v = value("duration");
            if (!v || !parseNumber(v, options.durationSeconds) || options.durationSeconds <= 0)
                return usageError("record: -d needs a positive number of seconds");
        } else if (is("-o", "--output")) {
            const char* v = value("output");
            if (!v || !*v)
                return usageError("record: -o needs a file name");
            output = v;
        } else if (is("", "--mode")) {
            const char* v = value("mode");
            const std::string_view m = v ? v : "";
            modeGiven = true;
            if (m == "perf")
                options.mode = SamplerMode::Perf;
            else if (m == "ptrace")
                options.mode = SamplerMode::Ptrace;
            else
                return usageError("record: --mode is perf or ptrace");
        } else if (a == "--") {
            for (++i; i < argc; ++i)
                options.command.emplace_back(argv[i]);
        } else if (a.size() > 1 && a[0] == '-') {
            return usageError("record: unknown option " + std::string(a));
        } else {
            for (; i < argc; ++i)
                options.command.emplace_back(argv[i]);
        }
    }
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

} // namespace scorch::cli
