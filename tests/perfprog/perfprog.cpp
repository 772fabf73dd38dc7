// The program tst_perfdata records with perf: known hot functions (hotLeaf ~3x warmLeaf), one always-inlined
// helper, a call chain main -> driveWork -> {hotLeaf, middle -> warmLeaf}. Built -O2 -g with frame pointers.
// Usage: scorch_perfprog THOUSANDS_OF_ITERATIONS (a fixed amount of work, so that a loaded machine gives the
// same number of cpu-clock samples, only later)
#include <cstdlib>

volatile unsigned long perfprogSink;

__attribute__((noinline)) unsigned long hotLeaf(unsigned long n) {
    unsigned long x = n;
    for (int i = 0; i < 3000; ++i)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    perfprogSink = x;
    return x;
}

static inline __attribute__((always_inline)) unsigned long inlinedMix(unsigned long x) {
    for (int i = 0; i < 1000; ++i)
        x ^= x >> 7, x ^= x << 9;
    return x;
}

__attribute__((noinline)) unsigned long warmLeaf(unsigned long n) {
    const unsigned long x = inlinedMix(n + 1);
    perfprogSink = x;
    return x;
}

__attribute__((noinline)) unsigned long middle(unsigned long n) {
    const unsigned long r = warmLeaf(n);
    perfprogSink = perfprogSink + 1;
    return r;
}

__attribute__((noinline)) unsigned long driveWork(long iterations) {
    unsigned long acc = 0;
    for (long i = 0; i < iterations; ++i) {
        acc += hotLeaf(acc);
        acc += middle(acc);
    }
    perfprogSink = acc;
    return acc;
}

int main(int argc, char** argv) {
    const long thousands = argc > 1 ? std::atol(argv[1]) : 100;
    perfprogSink = driveWork(thousands * 1000);
    return 0;
}
