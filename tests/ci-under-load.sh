#!/usr/bin/env bash
# CI on a busy machine: clones the committed HEAD of this repository into a temporary directory (with the
# shared data beside it, as ../shared, through a symlink), starts two CPU-bound load processes
# (`stress-ng --cpu 2`, installed with apt-get when missing) and runs CI there (`CI=true bash .ci/run`), then
# reports the elapsed time and the exit code. The suite must pass so, within 30 minutes on a 2-core machine.
#
#   tests/ci-under-load.sh [--no-load] [--keep]
#     --no-load   no load processes (the same run on an idle machine: <= 15 minutes)
#     --keep      keep the clone and its build (by default removed after a successful run)
#
# Compiler launchers (ccache) of the calling shell are not passed on: the run starts from nothing, as CI does.
# The log is written to <tmp>/ci.log and its end shown on failure. Exit status: that of .ci/run.
set -uo pipefail

load=1
keep=0
for arg in "$@"; do
    case $arg in
    --no-load) load=0 ;;
    --keep) keep=1 ;;
    -h | --help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "unknown option $arg" >&2; exit 2 ;;
    esac
done

repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel) || exit 2
commit=$(git -C "$repo" rev-parse HEAD) || exit 2
shared=$(cd "$repo/../shared" 2>/dev/null && pwd) || { echo "no shared data at $repo/../shared" >&2; exit 2; }
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
    echo "note: uncommitted changes in $repo are not part of the run (it tests $commit)" >&2
fi

if [ $load = 1 ] && ! command -v stress-ng >/dev/null; then
    echo "installing stress-ng" >&2
    sudo=()
    [ "$(id -u)" -ne 0 ] && sudo=(sudo)
    "${sudo[@]}" apt-get install -y -qq stress-ng >/dev/null || { echo "cannot install stress-ng" >&2; exit 2; }
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/scorch-ci-load.XXXXXX")
stress_pid=
cleanup() {
    if [ -n "$stress_pid" ]; then
        kill -TERM "$stress_pid" 2>/dev/null # stress-ng stops its workers
        wait "$stress_pid" 2>/dev/null
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

mkdir -p "$tmp/x"
ln -s "$shared" "$tmp/x/shared"
git clone --quiet --no-checkout "$repo" "$tmp/x/main" && git -C "$tmp/x/main" checkout --quiet --detach "$commit" ||
    { echo "cannot clone $repo at $commit" >&2; exit 2; }
echo "CI of $commit in $tmp/x/main$([ $load = 1 ] && echo ", beside stress-ng --cpu 2")"

if [ $load = 1 ]; then
    stress-ng --cpu 2 --quiet &
    stress_pid=$!
fi
start=$(date +%s)
(cd "$tmp/x/main" &&
    env -u CMAKE_CXX_COMPILER_LAUNCHER -u CMAKE_C_COMPILER_LAUNCHER CI=true bash .ci/run) >"$tmp/ci.log" 2>&1
status=$?
elapsed=$(($(date +%s) - start))
cleanup
stress_pid=

printf 'elapsed: %dm%02ds, exit code %d, log: %s\n' $((elapsed / 60)) $((elapsed % 60)) "$status" "$tmp/ci.log"
if [ $status -ne 0 ]; then
    tail -n 60 "$tmp/ci.log"
elif [ $keep = 0 ]; then
    rm -rf "$tmp/x"
fi
exit $status
