// The program the off-CPU tests record (issue 14). Built -O2 -g with frame pointers; every function that
// leaves the CPU reaches libc through one more frame-pointer function (`napFor`, `lockIt`), because a
// frame-pointer call chain skips the caller of the first function without one.
// Usage:
//   scorch_offcpuprog sleep   20 times: 50 ms of CPU time in computePhase, 50 ms of usleep in sleepPhase
//   scorch_offcpuprog mutex   3 times: holderThread computes 200 ms of CPU time holding a mutex while
//                             waiterThread blocks on it in waitForLock
#include <atomic>
#include <cstring>
#include <ctime>
#include <mutex>
#include <thread>
#include <unistd.h>

volatile unsigned long offcpuSink;

namespace {

long cpuNs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

std::mutex lock;
std::atomic<int> held{0}, waiting{0};

} // namespace

/// Computes until this thread has used `ms` of CPU time (preemption does not shorten the work).
__attribute__((noinline)) void computeFor(long ms) {
    const long end = cpuNs() + ms * 1000000L;
    unsigned long x = offcpuSink;
    while (cpuNs() < end)
        for (int i = 0; i < 2000; ++i)
            x = x * 6364136223846793005ul + 1442695040888963407ul;
    offcpuSink = x;
}

__attribute__((noinline)) void computePhase() {
    computeFor(50);
    offcpuSink = offcpuSink + 1;
}

__attribute__((noinline)) void napFor(unsigned us) {
    usleep(us);
    offcpuSink = offcpuSink + 1;
}

__attribute__((noinline)) void sleepPhase() {
    napFor(50000);
    offcpuSink = offcpuSink + 1;
}

__attribute__((noinline)) void lockIt() {
    lock.lock();
    offcpuSink = offcpuSink + 1;
}

__attribute__((noinline)) void waitForLock(int round) {
    waiting = round; // from here until the holder unlocks (>= 200 ms of its CPU time) this thread waits
    lockIt();
    lock.unlock();
    offcpuSink = offcpuSink + 1;
}

__attribute__((noinline)) void holderThread() {
    for (int round = 1; round <= 3; ++round) {
        lock.lock();
        held = round;
        while (waiting != round)
            usleep(1000);
        computeFor(200);
        lock.unlock();
        while (held != -round) // the waiter had its turn
            usleep(1000);
    }
}

__attribute__((noinline)) void waiterThread() {
    for (int round = 1; round <= 3; ++round) {
        while (held != round)
            usleep(1000);
        waitForLock(round); // blocks until the holder has computed 200 ms
        held = -round;
    }
}

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "mutex") == 0) {
        std::thread waiter(waiterThread);
        std::thread holder(holderThread);
        holder.join();
        waiter.join();
        return 0;
    }
    for (int i = 0; i < 20; ++i) {
        computePhase();
        sleepPhase();
    }
    return 0;
}
