// Test program for the sampler: known hot functions in named threads.
//  - "busy":    busy_work(), which inlines mix() (the inlined hot function);
//  - "recurse": recurse() 40 levels deep, then recurse_leaf();
//  - "late":    starts after 300 ms, runs late_work();
//  - the main thread sleeps (blocked: only the ptrace mechanism sees it).
// Every unit of work is checked against a table computed before the threads start, so that a sampler that
// corrupts registers or memory shows up as errors=N. Usage:
//   sampler_target SECONDS       the threads work for SECONDS of wall-clock time (benchmarks, by hand)
//   sampler_target wait          the threads work until SIGUSR1, SIGTERM or SIGINT arrives (tests: they stop
//                                the target once the sampler has the samples they need)
//   sampler_target cpu=SECONDS   each worker thread works until it consumed SECONDS of CPU time (a fixed
//                                amount of work: the same number of cpu-clock samples on a loaded machine)
// Each worker thread does at least one unit of work, however early the stop comes. At the end the program
// prints the units of work and the CPU time of each worker thread (CLOCK_THREAD_CPUTIME_ID), and the
// GLIBC_TUNABLES it was started with (a recorder must pass on its user's environment); its exit code is 0
// when no unit went wrong.
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <pthread.h>
#include <thread>

namespace {

std::atomic<bool> stopFlag{false};
uint64_t expected[64];
std::atomic<uint64_t> errors{0};
double cpuBudget = 0; ///< cpu=SECONDS: per worker thread; 0 = until stopFlag

double threadCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

/// Whether the calling worker thread should stop after `units` units: the stop flag, or its CPU budget used
/// up (looked at every 64 units, so that the clock's system call stays out of the profile).
bool done(uint64_t units) {
    return stopFlag.load(std::memory_order_relaxed) ||
           (cpuBudget > 0 && units % 64 == 0 && threadCpuSeconds() >= cpuBudget);
}

__attribute__((always_inline)) inline uint64_t mix(uint64_t x) {
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    return x ^ (x >> 33);
}

__attribute__((noinline)) uint64_t unit(uint64_t seed) {
    uint64_t h = seed;
    for (int i = 0; i < 2000; ++i)
        h = mix(h + static_cast<uint64_t>(i));
    return h;
}

__attribute__((noinline)) uint64_t busy_work() {
    uint64_t units = 0;
    do {
        uint64_t h = units % 64;
        for (int i = 0; i < 2000; ++i)
            h = mix(h + static_cast<uint64_t>(i));
        if (h != expected[units % 64])
            errors.fetch_add(1);
        ++units;
    } while (!done(units));
    return units;
}

__attribute__((noinline)) uint64_t recurse_leaf(uint64_t seed) {
    uint64_t h = seed;
    for (int i = 0; i < 2000; ++i) {
        h ^= h << 13;
        h ^= h >> 7;
        h ^= h << 17;
        asm volatile("" : "+r"(h));
    }
    return h;
}

__attribute__((noinline)) uint64_t recurse(int depth, uint64_t seed) {
    if (depth == 0)
        return recurse_leaf(seed);
    const uint64_t r = recurse(depth - 1, seed + 1);
    asm volatile("" : : "r"(r) : "memory"); // no tail call
    return r + 1;
}

__attribute__((noinline)) uint64_t late_work() {
    uint64_t units = 0;
    do {
        if (unit(units % 64) != expected[units % 64])
            errors.fetch_add(1);
        ++units;
    } while (!done(units));
    return units;
}

/// Blocks the calling thread until one of `signals` arrives or `seconds` (> 0) of wall-clock time passed.
void waitForSignal(const sigset_t& signals, double seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
        if (seconds <= 0) {
            if (sigwaitinfo(&signals, nullptr) > 0)
                return;
            continue; // EINTR (a tracer's interrupt)
        }
        const auto left = end - std::chrono::steady_clock::now();
        if (left <= std::chrono::steady_clock::duration::zero())
            return;
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
        const timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
        if (sigtimedwait(&signals, nullptr, &ts) > 0)
            return;
    }
}

} // namespace

int main(int argc, char** argv) {
    const char* arg = argc > 1 ? argv[1] : "1";
    const bool untilSignal = std::strcmp(arg, "wait") == 0;
    double seconds = 0;
    if (std::strncmp(arg, "cpu=", 4) == 0)
        cpuBudget = std::atof(arg + 4);
    else if (!untilSignal)
        seconds = std::atof(arg);
    // The stop signals end the work (the main thread takes them with sigwaitinfo; the workers inherit the
    // mask); with a CPU budget they keep their default action.
    sigset_t stopSignals;
    sigemptyset(&stopSignals);
    sigaddset(&stopSignals, SIGUSR1);
    sigaddset(&stopSignals, SIGTERM);
    sigaddset(&stopSignals, SIGINT);
    if (cpuBudget <= 0)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
    for (uint64_t i = 0; i < 64; ++i)
        expected[i] = unit(i);
    uint64_t busyUnits = 0, recurseUnits = 0, lateUnits = 0, recurseRef = recurse(40, 7);
    double busyCpu = 0, recurseCpu = 0, lateCpu = 0;
    std::thread busy([&] {
        pthread_setname_np(pthread_self(), "busy");
        busyUnits = busy_work();
        busyCpu = threadCpuSeconds();
    });
    std::thread rec([&] {
        pthread_setname_np(pthread_self(), "recurse");
        do {
            if (recurse(40, 7) != recurseRef)
                errors.fetch_add(1);
            ++recurseUnits;
        } while (!done(recurseUnits));
        recurseCpu = threadCpuSeconds();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::thread late([&] {
        pthread_setname_np(pthread_self(), "late");
        lateUnits = late_work();
        lateCpu = threadCpuSeconds();
    });
    if (cpuBudget <= 0) {
        waitForSignal(stopSignals, untilSignal ? 0.0 : (seconds > 0.3 ? seconds - 0.3 : 1e-9));
        stopFlag = true;
    }
    busy.join();
    rec.join();
    late.join();
    std::printf("units busy=%llu recurse=%llu late=%llu\ncpu busy=%.4f recurse=%.4f late=%.4f\nerrors=%llu\n",
                (unsigned long long)busyUnits, (unsigned long long)recurseUnits,
                (unsigned long long)lateUnits, busyCpu, recurseCpu, lateCpu,
                (unsigned long long)errors.load());
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    std::printf("GLIBC_TUNABLES=%s\n", tunables ? tunables : "(unset)");
    return errors.load() == 0 && busyUnits > 0 && recurseUnits > 0 && lateUnits > 0 ? 0 : 1;
}
