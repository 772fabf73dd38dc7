// Test program for the sampler: known hot functions in named threads.
//  - "busy":    busy_work(), which inlines mix() (the inlined hot function);
//  - "recurse": recurse() 40 levels deep, then recurse_leaf();
//  - "late":    starts after 300 ms, runs late_work();
//  - the main thread sleeps (blocked: only the ptrace mechanism sees it).
// Every unit of work is checked against a table computed before the threads start, so that a sampler that
// corrupts registers or memory shows up as errors=N. Usage: sampler_target SECONDS
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <thread>

namespace {

std::atomic<bool> stopFlag{false};
uint64_t expected[64];
std::atomic<uint64_t> errors{0};

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
    while (!stopFlag.load(std::memory_order_relaxed)) {
        uint64_t h = units % 64;
        for (int i = 0; i < 2000; ++i)
            h = mix(h + static_cast<uint64_t>(i));
        if (h != expected[units % 64])
            errors.fetch_add(1);
        ++units;
    }
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
    while (!stopFlag.load(std::memory_order_relaxed)) {
        if (unit(units % 64) != expected[units % 64])
            errors.fetch_add(1);
        ++units;
    }
    return units;
}

} // namespace

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
    for (uint64_t i = 0; i < 64; ++i)
        expected[i] = unit(i);
    uint64_t busyUnits = 0, recurseUnits = 0, lateUnits = 0, recurseRef = recurse(40, 7);
    std::thread busy([&] {
        pthread_setname_np(pthread_self(), "busy");
        busyUnits = busy_work();
    });
    std::thread rec([&] {
        pthread_setname_np(pthread_self(), "recurse");
        while (!stopFlag.load(std::memory_order_relaxed)) {
            if (recurse(40, 7) != recurseRef)
                errors.fetch_add(1);
            ++recurseUnits;
        }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::thread late([&] {
        pthread_setname_np(pthread_self(), "late");
        lateUnits = late_work();
    });
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds > 0.3 ? seconds - 0.3 : 0.0));
    stopFlag = true;
    busy.join();
    rec.join();
    late.join();
    std::printf("units busy=%llu recurse=%llu late=%llu\nerrors=%llu\n", (unsigned long long)busyUnits,
                (unsigned long long)recurseUnits, (unsigned long long)lateUnits,
                (unsigned long long)errors.load());
    return errors.load() == 0 && busyUnits > 0 && recurseUnits > 0 && lateUnits > 0 ? 0 : 1;
}
