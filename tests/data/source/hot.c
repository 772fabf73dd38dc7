/* Test program for Scorch's source view: two hot functions and an inlined helper. */
#include <stdlib.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x) {
    x ^= x >> 13;
    x *= 0x9e3779b97f4a7c15ul;
    return x ^ (x >> 29);
}

__attribute__((noinline)) unsigned long hashing(unsigned long n) {
    unsigned long h = 0;
    for (unsigned long i = 0; i < n; ++i)
        h += mix(h + i);
    return h;
}

__attribute__((noinline)) unsigned long summing(unsigned long n) {
    unsigned long s = 0;
    for (unsigned long i = 0; i < n; ++i)
        s += i * i;
    return s;
}

int main(int argc, char** argv) {
    unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 20000000ul;
    for (int round = 0; round < 4; ++round) {
        sink += hashing(n);
        sink += summing(n / 2);
    }
    return 0;
}
