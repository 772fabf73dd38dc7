#!/usr/bin/env bash
# sampler-bench.sh - cost and accuracy of Scorch's own sampler (`scorch record`).
#
# Usage: tests/bench/sampler-bench.sh [--build DIR] [--seconds S] [--runs N] [--no-perf]
#   --build DIR   build tree with app/scorch and tests/data/sampler-target (default: <repo>/build)
#   --seconds S   length of each target run (default 4)
#   --runs N      rounds; each round runs the target unrecorded, under perf mode and under ptrace
#                 mode, interleaved; medians are shown (default 5)
#   --no-perf     skip the accuracy comparison with `perf record`
# Exit status: 0 ok, 1 a tool failed, 2 usage / missing binaries.
#
# Target: tests/data/sampler-target (-O2 -g, no frame pointers): 4 threads, 3 of them busy (busy_work with
# an inlined mix(), 40-deep recursion, a thread started 300 ms in), the main thread sleeping. It prints
# the units of work each thread did; throughput = units per second of wall time, and per CPU-second of
# the target (its own user+sys time, from GNU time), which separates the sampler's cost from CPU
# contention on a shared machine.
#
# Cost: the target is started from this script and the recorder attaches to it (`scorch record -p PID`)
# until it exits, at the default rates (perf 999 Hz, ptrace 99 Hz per thread). Slowdown = 1 - throughput
# recorded / throughput unrecorded (medians). Recorder CPU = its user+sys time / recording wall time.
#
# Accuracy: one more target run recorded at the same time by `perf record -F 999 -e cpu-clock:u` and
# `scorch record` (perf mode; then another run with ptrace mode), both attached to the same process, user
# space only (cpu-clock:u; Scorch does not sample the kernel). A sample counts for its innermost
# non-inlined function: perf's leaf symbol (`perf script -F comm,tid,ip,sym`), Scorch's leaf frame of
# `scorch collapse` with inline frames (marked _[i]) folded into their caller, as perf script does not
# show them; parameter lists are dropped. Only the worker threads are compared (ptrace samples the sleeping main thread too).
# The table shows the top 10 functions by perf's share and the difference in percentage points.
# Needs: bash, GNU time, python3, perf (for the accuracy part).
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
build="$repo/build"
seconds=4
runs=5
withPerf=1
while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --no-perf) withPerf=0; shift ;;
    -h | --help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
scorch="$build/app/scorch"
target="$build/tests/data/sampler-target/sampler_target_nofp"
for f in "$scorch" "$target"; do
    [ -x "$f" ] || { echo "missing $f (build the scorch and sampler_target_nofp targets)" >&2; exit 2; }
done
if [ $withPerf = 1 ] && ! command -v perf > /dev/null; then
    echo "perf not found: accuracy part skipped" >&2
    withPerf=0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# start_target OUT TIME -> sets tpid (the target) and tw (the GNU time wrapper)
start_target() {
    /usr/bin/time -f '%U %S' -o "$2" "$target" "$seconds" > "$1" &
    tw=$!
    tpid=""
    for _ in $(seq 200); do
        tpid=$(pgrep -P "$tw" || true)
        [ -n "$tpid" ] && break
        sleep 0.005
    done
    [ -n "$tpid" ] || { echo "target did not start" >&2; exit 1; }
}

units() { awk -F'[ =]' '/^units/ { print $3 + $5 + $7 }' "$1"; }
cpu() { awk '{ print $1 + $2 }' "$1"; }

# one MODE ROUND: prints "units target_cpu recorder_cpu record_wall"
one() {
    local mode=$1 out="$tmp/$1-$2.out" tt="$tmp/$1-$2.ttime" rt="$tmp/$1-$2.rtime"
    start_target "$out" "$tt"
    local rcpu=0 rwall=0
    if [ "$mode" != none ]; then
        local t0 t1
        t0=$(date +%s.%N)
        /usr/bin/time -f '%U %S' -o "$rt" "$scorch" record --mode "$mode" -p "$tpid" -o "$tmp/$mode.rec" \
            2> "$tmp/$mode.err" || { cat "$tmp/$mode.err" >&2; exit 1; }
        t1=$(date +%s.%N)
        rcpu=$(cpu "$rt")
        rwall=$(echo "$t1 - $t0" | bc -l)
    fi
    wait "$tw" || { echo "target failed in mode $mode" >&2; exit 1; }
    grep -q '^errors=0$' "$out" || { echo "target reported errors in mode $mode" >&2; exit 1; }
    echo "$(units "$out") $(cpu "$tt") $rcpu $rwall"
}

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo "sampler-bench: $runs rounds of a ${seconds} s run of $(basename "$target") (4 threads, 3 busy) on $(nproc) CPUs"
declare -A thr percpu rec
for r in $(seq "$runs"); do
    for mode in none perf ptrace; do
        read -r u c rc rw < <(one "$mode" "$r")
        thr[$mode]+="$(echo "$u / $seconds" | bc -l)"$'\n'
        percpu[$mode]+="$(echo "$u / $c" | bc -l)"$'\n'
        if [ "$mode" != none ]; then
            rec[$mode]+="$(echo "100 * $rc / $rw" | bc -l)"$'\n'
        fi
    done
done
base=$(printf '%s' "${thr[none]}" | median)
basec=$(printf '%s' "${percpu[none]}" | median)
printf '\n%-22s %14s %10s %16s %10s %14s\n' "mode (rate)" "units/s wall" "slowdown" "units/CPU-s" "slowdown" "recorder CPU"
printf '%-22s %14.0f %10s %16.0f %10s %14s\n' "not recorded" "$base" "-" "$basec" "-" "-"
for mode in perf ptrace; do
    rate=$([ $mode = perf ] && echo 999 || echo 99)
    t=$(printf '%s' "${thr[$mode]}" | median)
    c=$(printf '%s' "${percpu[$mode]}" | median)
    rc=$(printf '%s' "${rec[$mode]}" | median)
    printf '%-22s %14.0f %9.1f%% %16.0f %9.1f%% %13.2f%%\n' "$mode ($rate Hz)" "$t" \
        "$(echo "100 * (1 - $t / $base)" | bc -l)" "$c" "$(echo "100 * (1 - $c / $basec)" | bc -l)" "$rc"
done

echo "(wall throughput also moves with the machine's other load: a traced target woken from ptrace stops"
echo " can get a larger share of a contended CPU; the per-CPU-second column isolates the sampler's cost)"

[ $withPerf = 1 ] || exit 0

# Accuracy: perf record and scorch record on the same run, in its steady state (after the late thread
# started); perf record gets a second to start before scorch records `seconds`.
saved=$seconds
seconds=$((saved + 3))
for mode in perf ptrace; do
    start_target "$tmp/acc-$mode.out" "$tmp/acc-$mode.time"
    sleep 0.5
    perf record -q -F 999 -e cpu-clock:u -p "$tpid" -o "$tmp/acc-$mode.data" > /dev/null 2> "$tmp/perf.err" &
    pp=$!
    sleep 1
    "$scorch" record --mode "$mode" -d "$saved" -p "$tpid" -o "$tmp/acc-$mode.rec" 2> "$tmp/acc.err" \
        || { cat "$tmp/acc.err" >&2; exit 1; }
    wait "$tw"
    wait "$pp" || true
    perf script -i "$tmp/acc-$mode.data" -F comm,tid,ip,sym 2> /dev/null > "$tmp/acc-$mode.perf.txt"
    "$scorch" collapse "$tmp/acc-$mode.rec" > "$tmp/acc-$mode.scorch.folded" 2> /dev/null
done
seconds=$saved

python3 - "$tmp" << 'PY'
import re, sys
tmp = sys.argv[1]

def function(frame):
    frame = frame.strip()
    # drop a trailing parameter list "(...)" (balanced), keep "(anonymous namespace)::" prefixes
    if frame.endswith(')'):
        depth = 0
        for i in range(len(frame) - 1, -1, -1):
            depth += frame[i] == ')'
            depth -= frame[i] == '('
            if depth == 0:
                if i > 0:
                    frame = frame[:i]
                break
    return frame

def perf_shares(path):
    # perf script -F comm,tid,ip,sym without callchains: one line per sample, "comm tid ip sym"
    counts, total = {}, 0
    for line in open(path, encoding='utf-8', errors='replace'):
        parts = line.split(None, 3)
        if len(parts) < 3 or parts[0].startswith('sampler_target'):
            continue
        sym = re.sub(r'\+0x[0-9a-f]+$', '', parts[3].strip()) if len(parts) > 3 else '[unknown]'
        f = function(sym)
        counts[f] = counts.get(f, 0) + 1
        total += 1
    return {k: 100.0 * v / total for k, v in counts.items()}, total

def shares(path):
    counts, total = {}, 0
    for line in open(path, encoding='utf-8', errors='replace'):
        stack, _, n = line.rstrip('\n').rpartition(' ')
        frames = stack.split(';')
        if not frames or frames[0].startswith('sampler_target'):
            continue  # the main thread (sleeping; only ptrace samples it)
        while len(frames) > 1 and frames[-1].endswith('_[i]'):
            frames.pop()
        f = function(frames[-1])
        counts[f] = counts.get(f, 0) + int(n)
        total += int(n)
    return {k: 100.0 * v / total for k, v in counts.items()}, total

print()
for mode in ('perf', 'ptrace'):
    p, pn = perf_shares(f'{tmp}/acc-{mode}.perf.txt')
    s, sn = shares(f'{tmp}/acc-{mode}.scorch.folded')
    print(f'accuracy, same run: perf record -F 999 ({pn} samples) vs scorch record --mode {mode} ({sn} samples)')
    if mode == 'ptrace':
        print('  (ptrace samples wall-clock: a thread waiting for a CPU counts as much as a running one, so it')
        print('   differs from perf\'s on-CPU shares by design when the threads compete for CPUs)')
    print(f'  {"function":60} {"perf %":>8} {"scorch %":>9} {"diff":>7}')
    worst = 0.0
    for f in sorted(p, key=p.get, reverse=True)[:10]:
        d = s.get(f, 0.0) - p[f]
        worst = max(worst, abs(d))
        print(f'  {f[:60]:60} {p[f]:8.1f} {s.get(f, 0.0):9.1f} {d:+7.1f}')
    print(f'  largest difference among the top 10: {worst:.1f} points\n')
PY
