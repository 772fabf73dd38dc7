// The shared library of the symbolizer test program: see symtest.h.
#include "symtest.h"

namespace symtest {

namespace {
volatile int libSink;
}

__attribute__((noinline)) void* libCapture() {
    libSink = libSink + 1;
    return __builtin_return_address(0);
}

static inline __attribute__((always_inline)) void* libInlined(int x) {
    libSink = x;
    void* r = libCapture(); // SYMTEST:lib-call-capture
    libSink = libSink + 2;
    return r;
}

__attribute__((noinline)) void* libFunction(int x) {
    libSink = x * 2;
    void* r = libInlined(x + 1); // SYMTEST:lib-call-inlined
    libSink = libSink + 3;
    return r;
}

} // namespace symtest
