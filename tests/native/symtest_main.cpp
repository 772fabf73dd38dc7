// Linked into tst_symbolizer: see symtest.h.
#include "symtest.h"

namespace symtest {

volatile int sink;

__attribute__((noinline)) void* captureReturn() {
    sink = sink + 1;
    return __builtin_return_address(0);
}

static inline __attribute__((always_inline)) void* inlinedHelper(int x) {
    sink = x;
    void* r = captureReturn(); // SYMTEST:call-capture
    sink = sink + 2;           // (work after the call: no tail call)
    return r;
}

__attribute__((noinline)) void* outerFunction(int x) { // SYMTEST:outer-decl
    sink = x * 2;
    void* r = inlinedHelper(x + 1); // SYMTEST:call-inlined
    sink = sink + 3;
    return r;
}

template <typename T>
__attribute__((noinline)) T Box<T>::twice(T value) {
    sink = sink + 1;
    return value + value;
}
template struct Box<int>;

} // namespace symtest

extern "C" __attribute__((noinline)) int symtest_c_function(int x) {
    symtest::sink = x;
    return x + 1;
}
