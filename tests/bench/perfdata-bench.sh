#!/usr/bin/env bash
# perfdata-bench.sh - time Scorch's native perf.data reader against `perf script`, `perf script | scorch
# collapse` and Hotspot's parser (hotspot-perfparser) on the same real recordings, side by side in one run.
#
# Usage: tests/bench/perfdata-bench.sh [--scorch PATH] [--data DIR] [--runs N] [--pause S] [--no-hotspot]
#                                     [--no-pipe] [--no-perf-script] [workload...]
#   --scorch PATH   scorch binary (default: <repo>/build/app/scorch)
#   --data DIR      recordings (default: ${BENCH_DATA:-/tmp/bench-data}); workload = DIR/<name>.data
#   --runs N        timed runs per tool and workload, the median is shown (default 3; 1 above 1 GB); taken
#                   in rounds of one run of each tool, so that a slow stretch of the machine falls on all
#                   alike, each right after an untimed run of the same command (see timed() below)
#   --pause S       sleep S seconds before every timed run (default 0: the runs follow each other). On a VM
#                   whose host takes back the guest's free memory (free page reporting), a run right after
#                   another reuses the memory that one freed, still backed by the host; after a pause of
#                   some seconds it draws memory the host backs anew, as a user's first open after a while
#                   does (scorch/hugepages.h). --pause 10 times that case, for every tool alike.
#   --no-hotspot    do not install or time hotspot-perfparser
#   --no-pipe       do not time `perf script | scorch collapse -` (perf script on --call-graph dwarf
#                   recordings is slow: ~10 minutes for dwarf-medium)
#   --no-perf-script  do not time `perf script` alone either (minutes on fp-large and DWARF recordings)
#   workload        default: every DIR/*.data (fp-small, fp-medium, dwarf-small, dwarf-medium, ...)
# The recordings come from ../shared/bench/make-workloads.sh (small medium dwarf-small dwarf-medium: the
# same mixed workload with frame pointers or --call-graph dwarf). When DIR has no DWARF recording and the
# workload's bin/regexfp exists, one is made here (DIR/dwarf-small.data, 2.5 s of regexfp alone).
#
# What is timed (wall clock from bash's $EPOCHREALTIME; GNU time: CPU = user + sys of all processes, peak RSS of the largest; page cache
# warm; output to /dev/null):
#   scorch        scorch info FILE: the complete call tree, symbolized (functions, inline frames, lines),
#                 as every open after the first: the uncompressed copies of compressed debug info (Debian's
#                 -dbg packages) kept by an earlier run (in a cache directory of this benchmark's own)
#   scorch 1st    the same as a first open on this machine: no kept copies (an empty cache directory each
#                 run), so the compressed debug info is inflated, and its copies are written, during the run
#   perf|collapse perf script -i FILE | scorch collapse -   (the text route)
#   perf script   perf script -i FILE alone (no symbol output formatting beyond its default)
#   perfparser    hotspot-perfparser --input FILE --max-frames 1024 (what Hotspot runs; apt-get install hotspot
#                 when missing, as root)
# Needs: bash, GNU time, perf (linux-perf), awk.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
SCORCH="$root/build/app/scorch"
DATA=${BENCH_DATA:-/tmp/bench-data}
RUNS=3
PAUSE=0
HOTSPOT=1
PIPE=1
SCRIPT=1
workloads=()
while [ $# -gt 0 ]; do
    case $1 in
    --scorch) SCORCH=${2:?}; shift 2 ;;
    --data) DATA=${2:?}; shift 2 ;;
    --runs) RUNS=${2:?}; shift 2 ;;
    --pause) PAUSE=${2:?}; shift 2 ;;
    --no-hotspot) HOTSPOT=0; shift ;;
    --no-pipe) PIPE=0; shift ;;
    --no-perf-script) PIPE=0; SCRIPT=0; shift ;;
    -h | --help) sed -n '2,35p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) workloads+=("$1"); shift ;;
    esac
done
[ -x "$SCORCH" ] || { echo "perfdata-bench: no scorch binary at $SCORCH (use --scorch)" >&2; exit 2; }
command -v perf > /dev/null || { echo "perfdata-bench: perf is not installed (linux-perf)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "perfdata-bench: GNU time (/usr/bin/time) is needed" >&2; exit 2; }

# DWARF recording of the shared workload's frame-pointer program when there is none.
if [ ${#workloads[@]} -eq 0 ] && ! ls "$DATA"/dwarf-*.data > /dev/null 2>&1 && [ -x "$DATA/bin/regexfp" ]; then
    echo "recording $DATA/dwarf-small.data (--call-graph dwarf, 2.5 s)" >&2
    perf record -q -e cpu-clock -F 4000 --call-graph dwarf -o "$DATA/dwarf-small.data" -- \
        timeout 2.5 "$DATA/bin/regexfp" > /dev/null 2>&1 || true
fi
if [ ${#workloads[@]} -eq 0 ]; then
    for f in "$DATA"/*.data; do
        [ -f "$f" ] && workloads+=("$(basename "$f" .data)")
    done
fi
[ ${#workloads[@]} -gt 0 ] || { echo "perfdata-bench: no recordings in $DATA (run ../shared/bench/make-workloads.sh)" >&2; exit 2; }

PARSER=
if [ $HOTSPOT = 1 ]; then
    PARSER=$(dpkg -L hotspot 2> /dev/null | grep -m1 '/hotspot-perfparser$' || true)
    if [ -z "$PARSER" ] && [ "$(id -u)" = 0 ]; then
        echo "installing hotspot (for hotspot-perfparser)" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hotspot > /dev/null 2>&1 || true
        PARSER=$(dpkg -L hotspot 2> /dev/null | grep -m1 '/hotspot-perfparser$' || true)
    fi
    [ -n "$PARSER" ] || echo "perfdata-bench: hotspot-perfparser not available; its column is skipped" >&2
fi

# run CMD: one timed run; prints "<wall s> <cpu s (user+sys, all processes)> <peak RSS KiB>"
run() {
    [ "$PAUSE" = 0 ] || sleep "$PAUSE"
    # wall clock from bash's microsecond clock (GNU time's %e has 10 ms steps, too coarse for small files)
    local t0=$EPOCHREALTIME out t1
    out=$(/usr/bin/time -f '%U %S %M' bash -c "$1" 2>&1 > /dev/null | tail -n 1)
    t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" -v o="$out" 'BEGIN { split(o, f, " "); printf "%.3f %.2f %s", b - a, f[1] + f[2], f[3] }'
}
# median of the numbers given
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
# timed TOOL=CMD...: every tool's runs in rounds, one run of each tool a round (so that a slow stretch of the
# machine, which on a VM can last a minute, falls on all of them alike, not on one tool's runs); fills
# res[TOOL] with "<median wall> <median cpu> <max peak RSS KiB>". Each timed run follows an untimed one of
# the same command: on a VM whose host takes back the memory a guest frees, a run right after another
# tool's is slower by what that tool freed (scorch info fp-medium right after perfparser 0.50 s, right
# after itself 0.39 s, 7 alternated runs), so each tool is timed as right after itself, as a second open is
# (--pause times the other case).
timed() {
    local n=$RUNS i spec tool out w c r
    [ "$size" -gt 1000000000 ] && n=1
    declare -A walls=() cpus=() peak=()
    for ((i = 0; i < n; i++)); do
        for spec in "$@"; do
            tool=${spec%%=*}
            bash -c "${spec#*=}" > /dev/null 2>&1 || true
            out=$(run "${spec#*=}")
            read -r w c r <<< "$out"
            walls[$tool]+=" $w"
            cpus[$tool]+=" $c"
            [ "$r" -gt "${peak[$tool]:-0}" ] 2> /dev/null && peak[$tool]=$r
        done
    done
    for spec in "$@"; do
        tool=${spec%%=*}
        # shellcheck disable=SC2086 # (the lists split into their numbers)
        res[$tool]="$(median ${walls[$tool]}) $(median ${cpus[$tool]}) ${peak[$tool]:-0}"
    done
}

# the kept copies of inflated debug info: this benchmark's own, not the user's (XDG_CACHE_HOME/scorch)
cache=$(mktemp -d "${TMPDIR:-/tmp}/perfdata-bench-cache.XXXXXX")
trap 'rm -rf "$cache"' EXIT
export XDG_CACHE_HOME="$cache/kept"

printf '%-13s %7s %7s | %-14s %8s %8s %8s | %8s %8s %8s\n' workload size samples tool wall cpu "peak RSS" "wall x" "cpu x" \
    "x 1st"
for w in "${workloads[@]}"; do
    f="$DATA/$w.data"
    [ -f "$f" ] || { echo "perfdata-bench: no $f" >&2; exit 2; }
    size=$(stat -c %s "$f")
    cat "$f" > /dev/null # page cache warm
    samples=$("$SCORCH" info "$f" 2> /dev/null | awk '/^samples:/{print $2}') # (also keeps the copies)
    q=$(printf '%q' "$f")
    s=$(printf '%q' "$SCORCH")
    declare -A res=()
    tools=("scorch=$s info $q" "scorch 1st=XDG_CACHE_HOME=$(printf '%q' "$cache")/first-\$BASHPID $s info $q")
    [ $PIPE = 1 ] && tools+=("perf|collapse=perf script -i $q 2>/dev/null | $s collapse -")
    [ $SCRIPT = 1 ] && tools+=("perf script=perf script -i $q 2>/dev/null")
    [ -n "$PARSER" ] && tools+=("perfparser=$(printf '%q' "$PARSER") --input $q --max-frames 1024 2>/dev/null")
    timed "${tools[@]}"
    read -r bwall bcpu _ <<< "${res[scorch]}"
    read -r fwall _ _ <<< "${res[scorch 1st]}"
    for tool in scorch "scorch 1st" "perf|collapse" "perf script" perfparser; do
        [ -n "${res[$tool]:-}" ] || continue
        read -r wall cpu rss <<< "${res[$tool]}"
        printf '%-13s %6.1fM %7s | %-14s %7.3fs %7.2fs %7.0fM | %7.1fx %7.1fx %7.1fx\n' "$w" \
            "$(awk -v b="$size" 'BEGIN{print b/1e6}')" "$samples" "$tool" "$wall" "$cpu" \
            "$(awk -v k="$rss" 'BEGIN{print k/1024}')" "$(awk -v a="$wall" -v b="$bwall" 'BEGIN{print (b > 0 ? a / b : 0)}')" \
            "$(awk -v a="$cpu" -v b="$bcpu" 'BEGIN{print (b > 0 ? a / b : 0)}')" \
            "$(awk -v a="$wall" -v b="$fwall" 'BEGIN{print (b > 0 ? a / b : 0)}')"
    done
    rm -rf "$cache"/first-*
    unset res
done
echo "wall x / cpu x = the tool's wall / cpu time divided by scorch's (higher: scorch is faster);"
echo "x 1st = the tool's wall time divided by that of scorch's first open (no kept copies of inflated debug info)."
echo "$(nproc) cores; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (wall times need a quiet machine)."
