#!/usr/bin/env bash
# Builds the project a second time with sanitizers and runs its tests there, or builds and runs the fuzz
# targets. Called by CTest (see CMakeLists.txt here); the nested builds live inside the outer build dir.
#
#   run-nested.sh asan SOURCE_DIR BUILD_DIR       ASan + UBSan build, then its whole test suite
#   run-nested.sh fuzz SOURCE_DIR BUILD_DIR SECS   clang libFuzzer build, every fuzz target for a fixed number of
#                                                  inputs from a fixed seed (deterministic); a target still
#                                                  running after SECS seconds fails
#   run-nested.sh fuzz-run SOURCE_DIR OUT SECS FUZZ_DIR
#                                                  the same runs of the fuzz targets already built in FUZZ_DIR (a
#                                                  sanitized clang build has them), their logs in OUT
set -euo pipefail
mode=$1 src=$2 out=$3
case $mode in
asan)
    # the build CI makes (-O1 -g1, test TIMEOUTs doubled: CMakeLists.txt, tests/testing.cmake), nested in a plain one
    cmake -S "$src" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCORCH_SANITIZE=ON -DSCORCH_NESTED=ON \
        > "$out.configure.log" 2>&1 || { cat "$out.configure.log"; exit 1; }
    cmake --build "$out" 2>&1 | tail -n 20
    # (the sanitizers' settings are the tests' own: SCORCH_SANITIZER_ENV in tests/testing.cmake)
    export QT_QPA_PLATFORM=offscreen
    # (the nested build has no packaging: its tests would only re-package the sanitized build)
    ctest --test-dir "$out" --output-on-failure -j2
    ;;
fuzz | fuzz-run)
    secs=$4
    if [ "$mode" = fuzz-run ]; then
        fuzzers=$5
        rm -rf "$out"
        mkdir -p "$out"
    else
        fuzzers=$out/tests/fuzz
        clangxx=$(command -v clang++-14 || command -v clang++ || true)
        clangc=$(command -v clang-14 || command -v clang || true)
        if [ -z "$clangxx" ] || [ -z "$clangc" ]; then
            echo "SKIPPED: clang-14 is not installed (packaging/install-deps.sh installs it)"
            exit 77
        fi
        # -O2 with line tables only: crash reports keep file:line, without the time full debug information takes
        CC=$clangc CXX=$clangxx cmake -S "$src" -B "$out" -G Ninja -DSCORCH_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only" > "$out.configure.log" 2>&1 \
            || { cat "$out.configure.log"; exit 1; }
        cmake --build "$out" 2>&1 | tail -n 5
    fi
    # seeds: the committed fixtures and regressions, plus the shared corpus beside the repository if present
    seeds=("$src/tests/fuzz/corpus/import" "$src/tests/fuzz/regressions")
    for d in perf-script/inputs folded/inputs speedscope/inputs other/chrome/inputs other/trace-event/inputs \
        other/pprof/inputs; do
        [ -d "$src/../shared/corpus/$d" ] && seeds+=("$src/../shared/corpus/$d")
    done
    # Fixed seed and input count: every CI run explores the same inputs, so a red run is reproducible and
    # never depends on luck or on the machine's speed; SECS per target only guards against a hang (a target
    # stopped by it fails). Explore further by hand (README, Development) and add what breaks to
    # tests/fuzz/regressions. Two targets run at a time (each is single-threaded).
    # Detection is cheap per input, so its target does more: 40 000 inputs reach 98 % of the edges 100 000 do
    # (645 of 658 with the shared corpus's seeds, 2026-11-27) in 40 % of the time (100 000 took 307 s there,
    # the other ten targets 221 s together: the run waited on this one).
    runs_of() { [ "$1" = fuzz_detect ] && echo 40000 || echo 2500; }
    run_one() { # run_one FUZZER: output in $out/NAME.log, exit status in $out/NAME.status
        local fuzzer=$1 name work dict=()
        name=$(basename "$fuzzer")
        work="$out/$name.corpus" # fresh each time: what an earlier run found would change the inputs
        rm -rf "$work"
        mkdir -p "$work"
        [ -f "$src/tests/fuzz/dict/${name#fuzz_}.dict" ] && dict=(-dict="$src/tests/fuzz/dict/${name#fuzz_}.dict")
        # new inputs go to $work; the committed seeds and regressions are read only
        if "$fuzzer" -seed=1 -runs="$(runs_of "$name")" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
            -max_len=65536 "${dict[@]}" -artifact_prefix="$out/$name-" -print_final_stats=1 \
            "$work" "${seeds[@]}" > "$out/$name.log" 2>&1; then
            echo 0 > "$out/$name.status"
        else
            echo $? > "$out/$name.status"
        fi
    }
    names=()
    for fuzzer in "$fuzzers"/fuzz_*; do
        [ -x "$fuzzer" ] || continue
        names+=("$(basename "$fuzzer")")
        while [ "$(jobs -rp | wc -l)" -ge 2 ]; do
            wait -n || true
        done
        run_one "$fuzzer" &
    done
    wait
    if [ ${#names[@]} = 0 ]; then
        echo "FAILED: no fuzz targets in $fuzzers"
        exit 1
    fi
    status=0
    for name in "${names[@]}"; do
        runs=$(runs_of "$name")
        echo "== $name: $runs inputs, seed 1"
        tail -n 12 "$out/$name.log"
        done=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$out/$name.log" | tail -n 1)
        if [ "$(cat "$out/$name.status")" != 0 ]; then
            echo "FAILED: $name found a crash, leak, timeout or OOM; reproducer: $out/$name-*"
            status=1
        elif [ "${done:-0}" -lt "$runs" ]; then
            echo "FAILED: $name ran ${done:-0} of its $runs inputs within the ${secs} s guard (a hang?)"
            status=1
        fi
    done
    exit $status
    ;;
*)
    echo "usage: $0 asan|fuzz SOURCE_DIR BUILD_DIR [SECONDS]" >&2
    exit 2
    ;;
esac
