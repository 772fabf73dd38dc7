// Test program of the symbolizer tests (tst_symbolizer): known functions, always-inlined functions and a
// shared library, built -O2 -g. Lines marked "SYMTEST:<name>" are found by the test, not hard-coded.
#pragma once

namespace symtest {

/// A return address inside `outerFunction`, in the code inlined from `inlinedHelper`.
void* outerFunction(int x);
/// The same inside the shared library: `libFunction` with `libInlined` inlined into it.
void* libFunction(int x);

template <typename T>
struct Box {
    static T twice(T value);
};
extern template struct Box<int>;

} // namespace symtest

extern "C" int symtest_c_function(int x);
