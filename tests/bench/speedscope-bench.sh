#!/usr/bin/env bash
# speedscope-bench.sh - speedscope JSON import speed and memory, side by side with the perf script import
# of the same recording.
#
# Usage: tests/bench/speedscope-bench.sh [--scorch PATH] [--data DIR] [--work DIR] [--runs N]
#                                        [--big] [--check] [workload]
#   --scorch PATH  scorch binary (default: <repo>/build/app/scorch)
#   --data DIR     recordings made by ../shared/bench/make-workloads.sh (default: ${BENCH_DATA:-/tmp/bench-data})
#   --work DIR     where the speedscope files are written and kept (default: /tmp/scorch-speedscope-bench)
#   --runs N       timed runs per input; medians are shown (default 5)
#   --big          also DATA/big.txt (fp-medium.txt four times, made by collapse-bench.sh --big)
#   --check        check that each speedscope file collapses to exactly what its perf script collapses to
#   workload       DATA/<name>.txt (default: fp-medium, the biggest recording)
#
# The speedscope files are made from the recording with `scorch convert --to speedscope`:
#   NAME.speedscope.json          the recording as it is: cpu-clock periods (ns) as weights, one entry per
#                                 distinct stack and thread (what `convert` writes for a time-weighted profile)
#   NAME.samples.speedscope.json  one entry per sample, as speedscope itself writes profiles: made from a copy
#                                 of the perf script text without the period column (so that samples are
#                                 counted), which is deleted again afterwards
# Each input is then imported by `scorch info` (import + summary), page cache warm, output discarded.
# Timing: bash's time (wall, user and system seconds, ms resolution) around GNU time (peak RSS). "cpu" = user + system: on a busy
# machine (shared CI workers) CPU time is the repeatable figure; wall time also counts waiting for a core.
# MB/s = input bytes / median time. perf script text is imported by two worker threads, so its CPU time is
# about twice its wall time; the speedscope importer runs on one thread.
# Exit status: 0 ok, 1 a run failed or --check found a difference, 2 usage or missing input.
set -euo pipefail
shopt -s inherit_errexit

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
SCORCH="$root/build/app/scorch"
DATA=${BENCH_DATA:-/tmp/bench-data}
WORK=/tmp/scorch-speedscope-bench
RUNS=5
BIG=0
CHECK=0
workload=fp-medium

usage() { sed -n '5,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
die() { echo "speedscope-bench: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case $1 in
    --scorch) SCORCH=${2:?--scorch needs a path}; shift 2 ;;
    --data)   DATA=${2:?--data needs a dir}; shift 2 ;;
    --work)   WORK=${2:?--work needs a dir}; shift 2 ;;
    --runs)   RUNS=${2:?--runs needs a number}; shift 2 ;;
    --big)    BIG=1; shift ;;
    --check)  CHECK=1; shift ;;
    -h|--help) usage 0 ;;
    -*)       echo "unknown option $1" >&2; usage 2 ;;
    *)        workload=$1; shift ;;
  esac
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer"
[ -x /usr/bin/time ] || die "GNU time missing: apt-get install time"
[ -x "$SCORCH" ] || die "scorch binary not found: $SCORCH (build it, or pass --scorch PATH)"
[ -f "$DATA/$workload.txt" ] || die "missing $DATA/$workload.txt; record it with: BENCH_DATA=$DATA bash $root/../shared/bench/make-workloads.sh medium"
names=("$workload")
if [ $BIG = 1 ]; then
  [ -f "$DATA/big.txt" ] || die "--big: missing $DATA/big.txt (tests/bench/collapse-bench.sh --big 4000 makes it)"
  names+=(big)
fi
mkdir -p "$WORK"

# --- make the speedscope files (kept; remade when the recording or scorch is newer) ---------------------
fresh() { [ -s "$1" ] && [ "$1" -nt "$2" ] && [ "$1" -nt "$SCORCH" ]; }
for n in "${names[@]}"; do
  txt="$DATA/$n.txt"
  weighted="$WORK/$n.speedscope.json"
  samples="$WORK/$n.samples.speedscope.json"
  if ! fresh "$weighted" "$txt"; then
    echo "making $weighted" >&2
    "$SCORCH" convert --to speedscope "$txt" -o "$weighted"
  fi
  if ! fresh "$samples" "$txt"; then
    echo "making $samples (via a copy of $n.txt without periods)" >&2
    counted="$WORK/$n.counted.txt"
    # `comm pid [cpu] time:     250000 cpu-clock:pppH:` -> `comm pid [cpu] time: cpu-clock:pppH:`
    sed -E '/^[^[:space:]]/s/:[[:space:]]+[0-9]+ ([^ ]+:)/: \1/' "$txt" > "$counted"
    "$SCORCH" convert --to speedscope "$counted" -o "$samples"
    if [ $CHECK = 1 ]; then
      # the sample-counted copy and its speedscope file must give the same folded stacks
      cmp <("$SCORCH" collapse "$counted") <("$SCORCH" collapse "$samples") ||
        { echo "speedscope-bench: $samples does not collapse like $counted" >&2; exit 1; }
      echo "check: $samples collapses exactly like the sample-counted perf script" >&2
    fi
    rm -f "$counted"
  fi
  if [ $CHECK = 1 ]; then
    cmp <("$SCORCH" collapse "$txt") <("$SCORCH" collapse "$weighted") ||
      { echo "speedscope-bench: $weighted does not collapse like $txt" >&2; exit 1; }
    echo "check: $weighted collapses exactly like $txt" >&2
  fi
done

# --- time the imports --------------------------------------------------------------------------------------
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
bytes_of() { stat -c %s "$1"; }
samples_of() { "$SCORCH" info "$1" | awk '/^samples:/ {print $2}'; }

printf '%-34s %-12s %9s %9s %8s %8s %9s %9s %9s\n' input format MB samples "wall s" "cpu s" "MB/s wall" "MB/s cpu" "peak RSS"
for n in "${names[@]}"; do
  for input in "$DATA/$n.txt" "$WORK/$n.speedscope.json" "$WORK/$n.samples.speedscope.json"; do
    cat "$input" > /dev/null # page cache warm
    walls=() cpus=() rss=0
    for ((r = 0; r < RUNS; ++r)); do
      # bash's time gives ms resolution for wall, user and system time; GNU time the peak RSS
      out=$( { TIMEFORMAT='%3R %3U %3S'; time /usr/bin/time -f '%M' -o "$WORK/rss" "$SCORCH" info "$input" > /dev/null; } 2>&1 | tail -1)
      read -r wall user sys <<< "$out"
      kib=$(tail -1 "$WORK/rss")
      [[ $wall =~ ^[0-9.]+$ && $kib =~ ^[0-9]+$ ]] || { echo "speedscope-bench: scorch info $input failed: $out" >&2; exit 1; }
      walls+=("$wall")
      cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.3f", u + s}')")
      [ "$kib" -gt "$rss" ] && rss=$kib
    done
    wall=$(printf '%s\n' "${walls[@]}" | median)
    cpu=$(printf '%s\n' "${cpus[@]}" | median)
    size=$(bytes_of "$input")
    case $input in *.json) format=speedscope ;; *) format="perf script" ;; esac
    awk -v name="$(basename "$input")" -v f="$format" -v b="$size" -v s="$(samples_of "$input")" -v w="$wall" \
        -v c="$cpu" -v r="$rss" 'BEGIN {
      printf "%-34s %-12s %9.1f %9d %8.3f %8.3f %9.0f %9.0f %6.0f MiB\n", name, f, b / 1e6, s, w, c,
             (w > 0 ? b / 1e6 / w : 0), (c > 0 ? b / 1e6 / c : 0), r / 1024 }'
  done
done
