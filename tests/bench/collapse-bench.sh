#!/usr/bin/env bash
# collapse-bench.sh - time `scorch collapse` against FlameGraph's stackcollapse-perf.pl
# on real `perf script` text, side by side in the same run.
#
# Usage: tests/bench/collapse-bench.sh [--scorch PATH] [--flamegraph DIR] [--data DIR]
#                                      [--runs N] [--perl-runs N] [--check] [--big MB] [--to LIST]
#                                      [workload...]
#   --scorch PATH     scorch binary (default: <repo>/build/app/scorch)
#   --flamegraph DIR  dir holding stackcollapse-perf.pl (default: /tmp/FlameGraph;
#                     keep it outside the repo)
#   --data DIR        workload dir (default: ${BENCH_DATA:-/tmp/bench-data})
#   --runs N          timed runs of scorch per workload; the median is shown (default 3)
#   --perl-runs N     timed runs of perl per workload (default: as --runs, but 1 on inputs above
#                     PERL_ONCE_MB, default 200: it needs ~20 s for 1.3 GB); on a machine whose speed
#                     drifts, 3 make the ratio less a matter of one run
#   --check           also compare both outputs as sorted line sets (LC_ALL=C sort + cmp)
#   --big MB          also time scorch alone on DATA/big.txt: fp-medium.txt (or fp-small.txt)
#                     concatenated until >= MB megabytes (built once), to show that peak
#                     RSS does not grow with input size
#   --to LIST         where scorch's output goes, one table row each, comma-separated: file (a file
#                     in TMPDIR, new each run), pipe (`| cat > /dev/null`), null (/dev/null);
#                     default file,pipe,null. Perl always writes to a file.
#   workload          name of DATA/<name>.txt (default: fp-small, and fp-medium if present)
# Exit status: 0 ok, 1 a tool failed or --check found a mismatch, 2 usage / missing input.
#
# Data: make it once with the shared recorder (nothing is downloaded):
#   BENCH_DATA=/tmp/bench-data bash ../shared/bench/make-workloads.sh small medium
#
# Method: each input is read once before timing (page cache warm). Every run is wrapped
# in GNU `/usr/bin/time` for peak RSS (KiB), CPU time (user + sys) and minor page faults of the
# timed tool; wall time comes from the clock around it (ms resolution, including ~1 ms of time's
# own start-up, and the pipe's reader). CPU time and page faults hardly depend on the load of a
# shared machine; wall time does. Output goes where --to says (perl's: to a file); before each run to a
# file, `sync` writes back what earlier runs left dirty.
# scorch runs N times (median wall and CPU, max RSS); perl runs N times too, but only once on
# inputs above PERL_ONCE_MB (default 200) unless --perl-runs says otherwise. The runs go in rounds (perl's
# run, then scorch's to each destination), so that a slow stretch of the machine falls on both tools, each
# timed run right after an untimed one of the same command (why: the rounds' loop below); so perl runs twice
# as often as it is timed. samples = event
# header lines (lines not starting with blank or '#'), cached in DATA/<w>.samples.
# Needs: bash, GNU time, perl, coreutils, grep, awk.
set -euo pipefail
shopt -s inherit_errexit   # errors inside $(...) abort too

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
SCORCH="$root/build/app/scorch"
FG=/tmp/FlameGraph
DATA=${BENCH_DATA:-/tmp/bench-data}
RUNS=3
PERL_RUNS=
CHECK=0
BIG_MB=0
DESTS=file,pipe,null
PERL_ONCE_MB=${PERL_ONCE_MB:-200}
MAKE_WORKLOADS=${MAKE_WORKLOADS:-$root/../shared/bench/make-workloads.sh}

usage() { sed -n '5,24p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
die() { echo "collapse-bench: $*" >&2; exit 2; }

workloads=()
while [ $# -gt 0 ]; do
  case $1 in
    --scorch)     SCORCH=${2:?--scorch needs a path}; shift 2 ;;
    --flamegraph) FG=${2:?--flamegraph needs a dir}; shift 2 ;;
    --data)       DATA=${2:?--data needs a dir}; shift 2 ;;
    --runs)       RUNS=${2:?--runs needs a number}; shift 2 ;;
    --perl-runs)  PERL_RUNS=${2:?--perl-runs needs a number}; shift 2 ;;
    --big)        BIG_MB=${2:?--big needs a size in MB}; shift 2 ;;
    --check)      CHECK=1; shift ;;
    --to)         DESTS=${2:?--to needs a list of file,pipe,null}; shift 2 ;;
    -h|--help)    usage 0 ;;
    -*)           echo "unknown option $1" >&2; usage 2 ;;
    *)            workloads+=("$1"); shift ;;
  esac
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer"
[ -z "$PERL_RUNS" ] || [[ $PERL_RUNS =~ ^[1-9][0-9]*$ ]] || die "--perl-runs must be a positive integer"
[[ $BIG_MB =~ ^[0-9]+$ ]] || die "--big must be a size in MB"
IFS=, read -r -a dests <<< "$DESTS"
[ ${#dests[@]} -gt 0 ] || die "--to needs at least one of file,pipe,null"
for d in "${dests[@]}"; do
  case $d in file | pipe | null) ;; *) die "--to: unknown destination '$d' (file, pipe or null)" ;; esac
done

# --- prerequisites ---------------------------------------------------------------
[ -x /usr/bin/time ] || die "GNU time missing: apt-get install time"
command -v perl >/dev/null || die "perl missing"
SC_PL="$FG/stackcollapse-perf.pl"
[ -f "$SC_PL" ] || die "no $SC_PL (extract it, outside the repo: git --git-dir=<FlameGraph mirror> show HEAD:stackcollapse-perf.pl > $SC_PL)"
[ -x "$SCORCH" ] || die "scorch binary not found or not executable: $SCORCH (build it, or pass --scorch PATH)"

if [ ${#workloads[@]} -eq 0 ]; then
  workloads=(fp-small)
  [ -f "$DATA/fp-medium.txt" ] && workloads+=(fp-medium)
fi
for w in "${workloads[@]}"; do
  if [ ! -f "$DATA/$w.txt" ]; then
    echo "collapse-bench: missing $DATA/$w.txt. Create the workloads with:" >&2
    echo "  BENCH_DATA=$DATA bash $MAKE_WORKLOADS small medium" >&2
    exit 2
  fi
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/collapse-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# --- helpers -----------------------------------------------------------------------
# samples FILE NAME: count event headers once, cache in DATA/NAME.samples
samples() {
  local f=$1 c="$DATA/$2.samples"
  if [ ! -s "$c" ] || [ "$f" -nt "$c" ]; then
    LC_ALL=C grep -c '^[^[:space:]#]' "$f" > "$c" || true
  fi
  cat "$c"
}

# once KEY DEST CMD...: one timed run of CMD, its stdout to DEST (file, pipe or null), appended to KEY's runs as
# "wall_s rss_kib cpu_s minor_faults"; a failed run marks KEY failed (its stderr is shown) and is not counted
once() {
  local key=$1 dest=$2 line; shift 2
  local t0 t1 ok=1
  rm -f "$TMP/out"
  # the dirty data of earlier runs (perl's 855 MB files, or the file just removed) written back first:
  # otherwise its writeback lands in this run's time (fp-medium to a file: 0.45 s, or 1.7 s after perl)
  [ "$dest" = file ] && sync
  t0=$(date +%s%N)
  case $dest in
    file) /usr/bin/time -f '%e %M %U %S %R' -o "$TMP/time" "$@" > "$TMP/out" 2> "$TMP/err" || ok=0 ;;
    pipe) /usr/bin/time -f '%e %M %U %S %R' -o "$TMP/time" "$@" 2> "$TMP/err" | cat > /dev/null || ok=0 ;;
    *)    /usr/bin/time -f '%e %M %U %S %R' -o "$TMP/time" "$@" > /dev/null 2> "$TMP/err" || ok=0 ;;
  esac
  t1=$(date +%s%N)
  rm -f "$TMP/out"
  if [ $ok = 0 ]; then
    echo "  FAILED: $* (exit status in: $(head -n 1 "$TMP/time"))" >&2
    tail -n 5 "$TMP/err" >&2
    : > "$TMP/failed.$key"
    return 0
  fi
  # wall time in ms resolution from the clock (GNU time's %e has only 10 ms), the rest from GNU time
  line=$(tail -n 1 "$TMP/time" | awk -v a="$t0" -v b="$t1" \
    '{ printf "%.3f %d %.2f %d", (b - a) / 1e9, $2, $3 + $4, $5 }')
  echo "$line" >> "$TMP/runs.$key"
  echo "  $key ($dest): $(awk '{ printf "%s s wall, %s s cpu, %d MiB, %d faults", $1, $3, $2 / 1024, $4 }' \
    <<< "$line")" >&2
}

# settled KEY DEST CMD...: once KEY, right after an untimed run of the same command to the same destination
# (why: the rounds' loop below)
settled() {
  once "$1-warm" "${@:2}"
  rm -f "$TMP/runs.$1-warm" "$TMP/failed.$1-warm"
  once "$@"
}

# summary KEY: "median_wall_s max_rss_kib median_cpu_s median_minor_faults" of KEY's runs, or "FAIL" if one
# failed; KEY's runs are cleared
summary() {
  local key=$1
  if [ -e "$TMP/failed.$key" ] || [ ! -s "$TMP/runs.$key" ]; then
    rm -f "$TMP/failed.$key" "$TMP/runs.$key"
    echo FAIL; return 0
  fi
  awk '{ t[NR] = $1; c[NR] = $3; f[NR] = $4; if ($2 > m) m = $2 }
    function median(a, n,   i, j, x) {
      for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
      return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END { printf "%s %d %.2f %d\n", median(t, NR), m, median(c, NR), median(f, NR) }' "$TMP/runs.$key"
  rm -f "$TMP/runs.$key"
}

# check FILE NAME: compare scorch's and perl's folded output as sorted line sets
check() {
  local f=$1 w=$2 ref="$DATA/$2.folded"
  # perl reference output is cached (same file anchors.sh makes); redo if stale
  if [ ! -s "$ref" ] || [ "$f" -nt "$ref" ] || [ "$SC_PL" -nt "$ref" ]; then
    perl "$SC_PL" "$f" > "$ref.tmp" && mv "$ref.tmp" "$ref"
  fi
  "$SCORCH" collapse "$f" > "$TMP/scorch.folded" || { echo "scorch-failed"; return 0; }
  LC_ALL=C sort -S 25% "$ref" > "$TMP/perl.sorted"
  LC_ALL=C sort -S 25% "$TMP/scorch.folded" > "$TMP/scorch.sorted"
  rm -f "$TMP/scorch.folded"
  if cmp -s "$TMP/perl.sorted" "$TMP/scorch.sorted"; then
    rm -f "$DATA/check/$w.perl.sorted" "$DATA/check/$w.scorch.sorted"   # stale evidence
    echo "match($(wc -l < "$TMP/perl.sorted")-lines)"
  else
    # keep the evidence next to the data, show a short summary
    mkdir -p "$DATA/check"
    mv "$TMP/perl.sorted" "$DATA/check/$w.perl.sorted"
    mv "$TMP/scorch.sorted" "$DATA/check/$w.scorch.sorted"
    echo "  $w: $(LC_ALL=C comm -23 "$DATA/check/$w.perl.sorted" "$DATA/check/$w.scorch.sorted" | wc -l) lines only in perl," \
         "$(LC_ALL=C comm -13 "$DATA/check/$w.perl.sorted" "$DATA/check/$w.scorch.sorted" | wc -l) only in scorch;" \
         "sorted outputs kept in $DATA/check/" >&2
    echo "MISMATCH"
  fi
  rm -f "$TMP/perl.sorted" "$TMP/scorch.sorted"
}

# row W MB SAMPLES TOOL DEST RUNS "MEDIAN RSS CPU FAULTS" RATIO CHECK: one table line (FAIL-safe)
row() {
  local r=$7
  if [ "$r" = FAIL ]; then
    printf '%-10s %9s %8s %-8s %-5s %4s %9s\n' "$1" "$2" "$3" "$4" "$5" "$6" FAILED
    return
  fi
  local t k c f
  read -r t k c f <<< "$r"
  awk -v w="$1" -v mb="$2" -v s="$3" -v tool="$4" -v dest="$5" -v n="$6" -v t="$t" -v k="$k" \
      -v c="$c" -v f="$f" -v ratio="$8" -v chk="$9" 'BEGIN {
    tt = (t > 0) ? t : 0.001
    printf "%-10s %9s %8s %-8s %-5s %4s %9.3f %8.1f %9.1f %7.2f %8d %9.1f %11s  %s\n",
      w, mb, s, tool, dest, n, t, mb / tt, s / 1000 / tt, c, f, k / 1024, ratio, chk }'
}

# --- optional synthetic big input ------------------------------------------------
if [ "$BIG_MB" -gt 0 ]; then
  big="$DATA/big.txt"
  if [ ! -f "$big" ]; then
    src="$DATA/fp-medium.txt"; [ -f "$src" ] || src="$DATA/fp-small.txt"
    [ -f "$src" ] || die "--big needs $DATA/fp-medium.txt or fp-small.txt"
    echo "building $big (>= $BIG_MB MB) from $(basename "$src") ..." >&2
    : > "$big.tmp"
    # perf script text is a list of blank-line separated samples: concatenation is valid
    while [ "$(stat -L -c %s "$big.tmp")" -lt $((BIG_MB * 1000000)) ]; do cat "$src" >> "$big.tmp"; done
    mv "$big.tmp" "$big"
  fi
fi

# --- benchmark ---------------------------------------------------------------------
echo "collapse-bench: $(date -u +%FT%TZ), $(nproc) cores, scorch=$SCORCH, perl=$SC_PL, runs=$RUNS" >&2
table=()
for w in "${workloads[@]}"; do
  f="$DATA/$w.txt"
  bytes=$(stat -L -c %s "$f"); mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')
  n=$(samples "$f" "$w")
  cat "$f" > /dev/null                         # warm the page cache
  prun=$RUNS; [ "$bytes" -gt $((PERL_ONCE_MB * 1000000)) ] && prun=1
  [ -n "$PERL_RUNS" ] && prun=$PERL_RUNS
  echo "== $w: $mb MB, $n samples" >&2
  # In rounds: perl's run and one of scorch to each destination, so that a slow stretch of the machine (on a
  # VM it can last minutes) falls on both tools, not on one tool's runs. Every timed run follows an untimed
  # run of the same command to the same destination: on a VM whose host takes back the memory a guest
  # frees, the first touch of memory nothing used lately is dear, a write's page cache too (scorch to a file
  # right after its own run to a file 0.63-0.80 s, after runs to a pipe and /dev/null 1.1-1.3 s, all of the
  # difference in the kernel's copy into the page cache), so each run is timed as right after itself.
  for ((i = 0; i < (prun > RUNS ? prun : RUNS); i++)); do
    echo "  round $((i + 1))" >&2
    if [ "$i" -lt "$prun" ]; then settled perl file perl "$SC_PL" "$f"; fi
    if [ "$i" -lt "$RUNS" ]; then
      for d in "${dests[@]}"; do settled "scorch-$d" "$d" "$SCORCH" collapse "$f"; done
    fi
  done
  tp=$(summary perl)
  chk=-
  if [ "$CHECK" = 1 ]; then echo "  checking outputs ..." >&2; chk=$(check "$f" "$w"); fi
  for d in "${dests[@]}"; do
    ts=$(summary "scorch-$d")
    ratio=-
    if [ "$ts" != FAIL ] && [ "$tp" != FAIL ]; then
      ratio=$(awk -v p="$tp" -v q="$ts" 'BEGIN { split(p, a, " "); split(q, b, " ")
        printf "%.1fx/%.1fx", a[1] / (b[1] > 0 ? b[1] : 0.005), a[3] / (b[3] > 0 ? b[3] : 0.005) }')
    fi
    table+=("$(row "$w" "$mb" "$n" scorch "$d" "$RUNS" "$ts" "$ratio" "$chk")")
  done
  table+=("$(row "$w" "$mb" "$n" perl file "$prun" "$tp" 1x/1x -)")
done
if [ "$BIG_MB" -gt 0 ]; then
  f="$DATA/big.txt"
  mb=$(awk -v b="$(stat -L -c %s "$f")" 'BEGIN { printf "%.1f", b / 1e6 }')
  n=$(samples "$f" big)
  echo "== big: $mb MB, $n samples (scorch only)" >&2
  for ((i = 0; i < RUNS; i++)); do
    for d in "${dests[@]}"; do settled "scorch-$d" "$d" "$SCORCH" collapse "$f"; done
  done
  for d in "${dests[@]}"; do
    table+=("$(row big "$mb" "$n" scorch "$d" "$RUNS" "$(summary "scorch-$d")" - -)")
  done
fi

echo
printf '%-10s %9s %8s %-8s %-5s %4s %9s %8s %9s %7s %8s %9s %11s  %s\n' workload input_MB samples tool \
  to runs median_s MB/s ksmp/s cpu_s faults RSS_MiB speedup check
printf '%s\n' "${table[@]}"
echo "(median wall of 'runs' runs; cpu_s = median user+sys, faults = median minor page faults,"
echo " RSS = max peak RSS over runs; speedup = wall/cpu: perl's wall (to a file) / scorch's wall, and the"
echo " same for CPU time (user + sys; the figure to compare on a busy machine);"
echo " $(nproc) cores, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg): wall times need a quiet machine)"
# non-zero exit if any tool failed or any output check mismatched
case "${table[*]}" in *FAILED* | *MISMATCH* | *scorch-failed*) exit 1 ;; esac
