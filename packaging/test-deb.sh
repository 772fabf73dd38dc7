#!/usr/bin/env bash
# CTest deb_install: builds the .deb with CPack from an already built tree, checks its computed Depends and
# its files, extracts it into a scratch root and runs the installed scorch from there (headless commands).
# Usage: test-deb.sh BUILD_DIR PROFILE APP_ID VERSION
set -euo pipefail

build=$1 profile=$2 id=$3 version=$4
fail() { echo "test-deb.sh: FAIL: $*" >&2; exit 1; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/scorch-deb.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

cd "$build"
cpack -G DEB -B "$scratch/out" --config "$build/CPackConfig.cmake" >"$scratch/cpack.log" 2>&1 ||
    { cat "$scratch/cpack.log" >&2; fail "cpack -G DEB failed"; }
debs=("$scratch"/out/scorch_*.deb)
if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then
    cat "$scratch/cpack.log" >&2
    fail "cpack did not write exactly one scorch_*.deb"
fi
deb=${debs[0]}
echo "package: $(basename "$deb") ($(stat -c %s "$deb") bytes)"

[ "$(dpkg-deb -f "$deb" Package)" = scorch ] || fail "Package is not scorch"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "Version is not $version"
[ "$(dpkg-deb -f "$deb" Section)" = devel ] || fail "Section is not devel"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
grep -Eq '(^|, )libc6( |,|$)' <<<"$depends" || fail "Depends lacks libc6"
grep -Eq '(^|, )libqt6[a-z0-9]+' <<<"$depends" || fail "Depends lacks libqt6 packages"

listing=$(dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|')
for f in /usr/bin/scorch \
    "/usr/share/applications/$id.desktop" \
    "/usr/share/metainfo/$id.metainfo.xml" \
    "/usr/share/mime/packages/$id.xml" \
    "/usr/share/icons/hicolor/scalable/apps/$id.svg"; do
    grep -qxF "$f" <<<"$listing" || fail "$f is not in the package"
done
for size in 16 32 48 64 128 256; do
    grep -qxF "/usr/share/icons/hicolor/${size}x${size}/apps/$id.png" <<<"$listing" ||
        fail "${size}x${size} icon is not in the package"
done
grep -Eq '^/usr/lib/.*scorch/libscorch_gui\.so$' <<<"$listing" || fail "libscorch_gui.so is not in the package"

root=$scratch/root
dpkg-deb -x "$deb" "$root"
for size in 16 32 48 64 128 256; do
    png=$root/usr/share/icons/hicolor/${size}x${size}/apps/$id.png
    file -b "$png" | grep -q "PNG image data, $size x $size" || fail "$png is not a ${size}x$size PNG"
done

# The installed tree as a whole: metainfo, its launchable desktop file and the icons agree on the id.
if command -v appstreamcli >/dev/null; then
    appstreamcli validate-tree --no-net --strict "$root" >"$scratch/tree.log" 2>&1 ||
        { cat "$scratch/tree.log" >&2; fail "appstreamcli validate-tree failed on the package"; }
fi

gui=$(find "$root/usr/lib" -name libscorch_gui.so)
! ldd "$gui" | grep -F 'not found' || fail "libscorch_gui.so has unresolved libraries"

out=$(env -u DISPLAY -u WAYLAND_DISPLAY "$root/usr/bin/scorch" --version) || fail "scorch --version failed"
[ "$(head -n 1 <<<"$out")" = "scorch $version" ] || fail "scorch --version printed '$out'"
out=$(env -u DISPLAY -u WAYLAND_DISPLAY "$root/usr/bin/scorch" info "$profile") || fail "scorch info failed"
grep -Eq '^format: +perf script$' <<<"$out" || { echo "$out" >&2; fail "scorch info: no 'format: perf script' line"; }
echo "installed scorch runs: --version and info OK"
