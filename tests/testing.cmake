# Included by the top-level CMakeLists.txt before any directory that adds tests (packaging/, tests/).

# Every test has a TIMEOUT, so that a hang fails with the test's name instead of stalling CI (test_timeouts
# checks that none lacks one). A directory that adds tests calls scorch_test_timeouts_here() (scorch_add_qtest
# does): at the end of the directory its tests without a TIMEOUT get SCORCH_TEST_TIMEOUT, and every TIMEOUT of
# the directory is multiplied by SCORCH_TEST_TIMEOUT_FACTOR (the sanitizer build runs several times slower).
# In a sanitized build (SCORCH_SANITIZE, as CI builds) every test also runs with SCORCH_SANITIZER_ENV: halt on
# the first report, leaks reported for our code (Qt and fontconfig internals suppressed by lsan.supp).
# Tests never need these limits to pass: their own waits end on events, each bounded by a generous time-out
# that only a broken program reaches.
set(SCORCH_TEST_TIMEOUT 120 CACHE STRING "TIMEOUT in seconds of the tests that set none")
set(_scorch_factor 1)
if(SCORCH_SANITIZE)
    set(_scorch_factor 2) # sanitized code runs several times slower
endif()
set(SCORCH_TEST_TIMEOUT_FACTOR ${_scorch_factor} CACHE STRING "Factor applied to every test TIMEOUT (sanitizer builds)")
function(scorch_test_timeouts)
    get_directory_property(tests TESTS)
    foreach(test IN LISTS tests)
        get_test_property(${test} TIMEOUT timeout)
        if(NOT timeout)
            set(timeout ${SCORCH_TEST_TIMEOUT})
        endif()
        math(EXPR timeout "${timeout} * ${SCORCH_TEST_TIMEOUT_FACTOR}")
        set_tests_properties(${test} PROPERTIES TIMEOUT ${timeout})
        if(SCORCH_SANITIZE)
            set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT ${SCORCH_SANITIZER_ENV})
        endif()
    endforeach()
endfunction()
function(scorch_test_timeouts_here)
    get_directory_property(deferred SCORCH_TEST_TIMEOUTS_DEFERRED)
    if(NOT deferred)
        set_directory_properties(PROPERTIES SCORCH_TEST_TIMEOUTS_DEFERRED ON)
        cmake_language(DEFER CALL scorch_test_timeouts)
    endif()
endfunction()
set(SCORCH_SANITIZER_ENV
    "ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0"
    "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"
    "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/sanitize/lsan.supp:print_suppressions=0")
