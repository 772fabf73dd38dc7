#!/usr/bin/env bash
# Real-window smoke test: runs the real `scorch` executable on a private Xvfb server (the xcb platform, never
# offscreen), waits for its window, screenshots it and checks what the screenshots show.
#
#   smoke.sh SCORCH GOOD_FILE [CORRUPT_FILE]
#
# Phase 1  `scorch GOOD`          the window title names GOOD and the chart area shows a flame graph.
# Phase 2  `scorch GOOD CORRUPT`  the corrupt tab (current) shows the error page: the title names CORRUPT, the
#                                 page has the red "critical" icon and no chart; scorch is still alive seconds later.
# Phase 3  `scorch CORRUPT GOOD`  after the failed tab, the good file still loads and draws its chart.
#
# CORRUPT defaults to 64 KiB of random bytes. Screenshots (smoke-*.png) are written to the current directory
# (CTest: <build>/tests/smoke), or to $SCORCH_SMOKE_OUT. Exit status: 0 pass, 1 fail, 77 skipped (a tool is
# missing). Every wait ends as soon as what it waits for is there, and is bounded (the whole run stays under
# 240 s, a loaded machine with a sanitized scorch included); the trap always stops the Xvfb and scorch
# processes this script started.
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 SCORCH GOOD_FILE [CORRUPT_FILE]" >&2
    exit 2
fi
scorch=$1
good=$2
corrupt=${3:-}
out_dir=${SCORCH_SMOKE_OUT:-$PWD}

for tool in Xvfb xwininfo import convert; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "SKIPPED: $tool missing (packaging/install-deps.sh installs xvfb, x11-utils, imagemagick)"
        exit 77
    fi
done
[ -x "$scorch" ] || { echo "FAIL: $scorch is not an executable" >&2; exit 1; }
[ -r "$good" ] || { echo "FAIL: cannot read $good" >&2; exit 1; }

budget_end=$((SECONDS + 240)) # CTest's TIMEOUT is 300 s: finish (and clean up) well before it
xvfb_pid=
scorch_pid=
work=$(mktemp -d "${TMPDIR:-/tmp}/scorch-smoke.XXXXXX")

stop_pid() { # stop_pid PID: TERM, then KILL after 3 s
    local pid=$1
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 30); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
cleanup() {
    local status=$?
    trap - EXIT INT TERM HUP
    stop_pid "$scorch_pid"
    stop_pid "$xvfb_pid"
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

fail() {
    echo "FAIL: $*" >&2
    if [ -n "${scorch_log:-}" ] && [ -s "$scorch_log" ]; then
        echo "--- scorch stderr ---" >&2
        cat "$scorch_log" >&2
    fi
    exit 1
}
remaining() { # seconds left of the budget, at most $1
    local left=$((budget_end - SECONDS))
    [ "$left" -lt "$1" ] && echo "$left" || echo "$1"
}

# --- a private X server on a free display --------------------------------------------------------------------------
display=
for n in $(seq 90 189); do
    [ "$SECONDS" -lt "$budget_end" ] || break
    [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] && continue
    # -noreset: by default the server resets when its last client disconnects (between two phases) and
    # refuses connections meanwhile, which a fast restart of scorch on a loaded machine runs into.
    Xvfb ":$n" -screen 0 1600x1000x24 -nolisten tcp -noreset >"$work/xvfb.log" 2>&1 &
    xvfb_pid=$!
    for _ in $(seq 300); do # up to 30 s; a lost race for the display makes Xvfb exit
        kill -0 "$xvfb_pid" 2>/dev/null || break
        if [ -S "/tmp/.X11-unix/X$n" ] && xwininfo -display ":$n" -root >/dev/null 2>&1; then
            display=":$n"
            break
        fi
        sleep 0.1
    done
    [ -n "$display" ] && break
    stop_pid "$xvfb_pid"
    xvfb_pid=
done
[ -n "$display" ] || { cat "$work/xvfb.log" >&2; fail "could not start Xvfb on any display :90..:189"; }
echo "Xvfb on $display (pid $xvfb_pid)"

# --- the corrupt input ------------------------------------------------------------------------------------------------
if [ -z "$corrupt" ]; then
    corrupt="$work/corrupt-random.bin"
    head -c 65536 /dev/urandom >"$corrupt"
fi
# Precondition: the headless importer rejects it (else the GUI has no error to show).
if "$scorch" info "$corrupt" >/dev/null 2>"$work/info.err"; then
    fail "scorch info accepted $corrupt, which was meant to be corrupt"
fi
echo "scorch info rejects the corrupt file: $(head -c 300 "$work/info.err")"

# --- helpers ------------------------------------------------------------------------------------------------------------
# start_scorch PHASE FILE...: a fresh scorch on our display with the xcb platform (CI exports
# QT_QPA_PLATFORM=offscreen globally; that must not reach the child), the Fusion style (the checks below know its
# colours) and private settings (a fresh default geometry, no recent-files list).
start_scorch() {
    local phase=$1
    shift
    local ready=
    scorch_log=
    for _ in $(seq 300); do # the server answers (up to 30 s)
        if xwininfo -display "$display" -root >/dev/null 2>&1; then
            ready=1
            break
        fi
        sleep 0.1
    done
    [ -n "$ready" ] || fail "the X server $display does not answer any more"
    local home="$work/home-$phase"
    mkdir -p "$home/config" "$home/runtime"
    chmod 700 "$home/runtime"
    scorch_log="$out_dir/smoke-$phase.stderr.txt"
    env -u QT_QPA_PLATFORM -u WAYLAND_DISPLAY -u QT_QPA_PLATFORMTHEME \
        DISPLAY="$display" QT_QPA_PLATFORM=xcb QT_STYLE_OVERRIDE=Fusion \
        HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_RUNTIME_DIR="$home/runtime" \
        "$scorch" "$@" >"$work/scorch-$phase.out" 2>"$scorch_log" &
    scorch_pid=$!
}

# wait_window NAME: sets $win to the id of the top-level window whose title contains NAME (max 120 s).
wait_window() {
    local name=$1 end=$((SECONDS + $(remaining 120)))
    win=
    while [ "$SECONDS" -lt "$end" ]; do
        kill -0 "$scorch_pid" 2>/dev/null || fail "scorch exited before its window showed \"$name\""
        win=$(xwininfo -display "$display" -root -tree 2>/dev/null | grep -F "\"" | grep -F -- "$name" |
            grep -F "Scorch" | awk 'NR == 1 { print $1 }' || true)
        [ -n "$win" ] && return 0
        sleep 0.2
    done
    xwininfo -display "$display" -root -tree >&2 || true
    fail "no window titled \"$name\" within 120 s"
}

window_title() {
    xwininfo -display "$display" -id "$win" 2>/dev/null | sed -n 's/^xwininfo: Window id: [^ ]* "\(.*\)"$/\1/p'
}

shot() { # shot FILE: screenshot of $win
    import -display "$display" -window "$win" "$1" 2>"$work/import.err" ||
        fail "import could not capture window $win: $(cat "$work/import.err")"
}

# region_stats IMAGE X0 Y0 X1 Y1 (percent of the image): sets colours, dominant (share of the most
# frequent colour, in ‰), saturated (share of strongly coloured pixels, max-min channel >= 80, in ‰), red (count
# of pure-red pixels: the Fusion "critical" icon) and sd (ImageMagick's standard deviation, 0..1).
region_stats() {
    local img=$1 w h x0 y0 x1 y1 crop
    read -r w h < <(convert "$img" -format '%w %h' info:)
    x0=$((w * $2 / 100)) y0=$((h * $3 / 100)) x1=$((w * $4 / 100)) y1=$((h * $5 / 100))
    crop="$((x1 - x0))x$((y1 - y0))+$x0+$y0"
    read -r _ colours dominant saturated red < <(
        convert "$img" -crop "$crop" +repage -format %c histogram:info:- | awk '
            { n = $1; sub(":", "", n); n += 0; split($2, c, /[(),]/); r = c[2] + 0; g = c[3] + 0; b = c[4] + 0
              total += n; kinds++; if (n > top) top = n
              hi = r; if (g > hi) hi = g; if (b > hi) hi = b; lo = r; if (g < lo) lo = g; if (b < lo) lo = b
              if (hi - lo >= 80) sat += n
              if (r >= 180 && g <= 90 && b <= 90) red += n }
            END { if (total == 0) total = 1
                  printf "%d %d %d %d %d\n", total, kinds, top * 1000 / total, sat * 1000 / total, red }')
    sd=$(convert "$img" -crop "$crop" +repage -format '%[fx:standard_deviation]' info:)
}

# The flame graph area (right of the thread list, above the tables, over the bottom rows of the flame graph,
# which span the whole width): many colours, a good part of them saturated (the "hot" palette). A blank chart,
# the loading page and the error page have no saturated pixels there at all; a flame graph has 48% (a 6-level
# profile, two-events.perf) to 95% (perf-vertx-stacks-01.txt).
chart_ok() {
    region_stats "$1" 30 40 90 58
    chart_desc="chart area x30-90% y40-58%: $colours colours, saturated $saturated‰, dominant $dominant‰, sd $sd"
    [ "$colours" -ge 16 ] && [ "$saturated" -ge 150 ]
}

# The error page below the tab bar: a plain page (no chart) with the red critical icon.
error_ok() {
    region_stats "$1" 0 8 100 100
    error_desc="page below the tab bar: $red red icon pixels, saturated $saturated‰, dominant colour $dominant‰"
    [ "$red" -ge 150 ] && [ "$saturated" -le 20 ] && [ "$dominant" -ge 900 ]
}

# wait_for CHECK FILE: screenshot into FILE until CHECK passes (max 120 s)
wait_for() {
    local check=$1 file=$2 end=$((SECONDS + $(remaining 120)))
    while :; do
        kill -0 "$scorch_pid" 2>/dev/null || fail "scorch died (see $scorch_log)"
        shot "$file"
        "$check" "$file" && return 0
        [ "$SECONDS" -lt "$end" ] || return 1
        sleep 0.5
    done
}

crash_check() { # scorch's stderr must not show a crash, an assertion or a fatal Qt message
    if grep -E -i -q 'segmentation|aborted|terminate called|assert|qfatal|fatal' "$scorch_log"; then
        fail "scorch's stderr reports a problem"
    fi
}

end_phase() {
    stop_pid "$scorch_pid"
    scorch_pid=
}

good_name=$(basename -- "$good")
corrupt_name=$(basename -- "$corrupt")

# --- phase 1: the good file draws a chart -------------------------------------------------------------------------------
echo "== phase 1: scorch $good"
start_scorch chart "$good"
wait_window "$good_name"
echo "window $win: \"$(window_title)\""
wait_for chart_ok "$out_dir/smoke-chart.png" || fail "no flame graph ($chart_desc), see $out_dir/smoke-chart.png"
echo "chart shown: $chart_desc"
crash_check
end_phase

# --- phase 2: good then corrupt: the corrupt tab is current and shows the error -----------------------------------------
echo "== phase 2: scorch $good $corrupt"
start_scorch error "$good" "$corrupt"
wait_window "$corrupt_name"
echo "window $win: \"$(window_title)\""
wait_for error_ok "$out_dir/smoke-error.png" || fail "no error page ($error_desc), see $out_dir/smoke-error.png"
echo "error page shown: $error_desc"
sleep 3
kill -0 "$scorch_pid" 2>/dev/null || fail "scorch died after showing the error"
wait_window "$corrupt_name" # the window is still there and still names the corrupt file
shot "$out_dir/smoke-error.png"
error_ok "$out_dir/smoke-error.png" || fail "the error page went away ($error_desc)"
echo "3 s later scorch (pid $scorch_pid) is alive, window \"$(window_title)\", $error_desc"
crash_check
end_phase

# --- phase 3: corrupt then good: a failed tab does not stop the next file from loading ----------------------------------
echo "== phase 3: scorch $corrupt $good"
start_scorch after-error "$corrupt" "$good"
wait_window "$good_name"
echo "window $win: \"$(window_title)\""
wait_for chart_ok "$out_dir/smoke-after-error.png" ||
    fail "no flame graph after the corrupt tab ($chart_desc), see $out_dir/smoke-after-error.png"
echo "chart shown: $chart_desc"
kill -0 "$scorch_pid" 2>/dev/null || fail "scorch died"
crash_check
end_phase

echo "PASS: screenshots in $out_dir: smoke-chart.png smoke-error.png smoke-after-error.png (${SECONDS} s)"
