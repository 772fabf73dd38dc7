# The programs the suites profile, disassemble or symbolize (tests/native, tests/perfprog,
# tests/data/sampler-target) are compiled with GCC whatever compiler builds the rest, and never sanitized:
# the suites expect GCC's code for them (its inline frames, line tables and frame layout), and CI builds the
# project with clang (README, Development). They are what is profiled, not code under test.
find_program(SCORCH_GXX NAMES g++-12 g++ REQUIRED DOC "GCC's C++ compiler, for the test programs")

# scorch_gcc_program(NAME EXECUTABLE|SHARED|OBJECT SOURCE [OPTIONS ...]): a target NAME that builds SOURCE (in
# the current source directory) with GCC into gcc/ in the current binary directory; its SCORCH_FILE property
# is the output's path (for $<TARGET_PROPERTY:NAME,SCORCH_FILE>).
function(scorch_gcc_program name kind source)
    cmake_parse_arguments(ARG "" "" "OPTIONS" ${ARGN})
    if(kind STREQUAL "SHARED")
        set(out ${CMAKE_CURRENT_BINARY_DIR}/gcc/lib${name}.so)
        set(mode -shared -fPIC)
    elseif(kind STREQUAL "OBJECT")
        set(out ${CMAKE_CURRENT_BINARY_DIR}/gcc/${name}.o)
        set(mode -c -fPIC)
    else()
        set(out ${CMAKE_CURRENT_BINARY_DIR}/gcc/${name})
        set(mode)
    endif()
    set(src ${CMAKE_CURRENT_SOURCE_DIR}/${source})
    add_custom_command(OUTPUT ${out}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/gcc
        COMMAND ${SCORCH_GXX} -std=c++20 -Wall -Wextra ${ARG_OPTIONS} ${mode} -MD -MT ${out} -MF ${out}.d
                -o ${out} ${src}
        DEPENDS ${src}
        DEPFILE ${out}.d
        COMMENT "Building the test program ${name} with GCC"
        VERBATIM)
    add_custom_target(${name} ALL DEPENDS ${out})
    set_target_properties(${name} PROPERTIES SCORCH_FILE ${out})
endfunction()
