#!/usr/bin/env bash
# Installs every build and test dependency of Scorch from Debian 12 packages (run as root).
# Idempotent: prints nothing and exits 0 when everything is already installed.
set -euo pipefail

packages=(
    # toolchain
    g++ cmake ninja-build pkg-config git
    # Qt 6 (base, svg, tools) and the OpenGL headers Qt6Gui's CMake config wants
    qt6-base-dev qt6-base-dev-tools qt6-svg-dev qt6-tools-dev libgl-dev
    # core: compression, JSON, DWARF/ELF symbols, unwinding
    zlib1g-dev libzstd-dev liblzma-dev libdeflate-dev libsimdjson-dev libdw-dev libelf-dev libunwind-dev
    # core: fetching binaries, debug info and sources by build-id; tests: a real debuginfod server
    libdebuginfod-dev debuginfod
    # core: Rust symbol demangling (libiberty's rust_demangle); disassembly (capstone)
    libiberty-dev libcapstone-dev
    # perf.data: tests record with perf; `perf script` is the fallback for files not read natively
    linux-perf
    # tests: a real X server for window tests, compressors for fixtures, screenshots
    xvfb xauth x11-utils xz-utils zstd gzip imagemagick fonts-dejavu-core
    # tests: debug files split as distributions split them (objcopy comes with g++'s binutils; dwz's shared files)
    dwz
    # packaging: metadata validators, .deb building (cpack + dpkg-shlibdeps) and its test
    desktop-file-utils appstream libxml2-utils dpkg-dev file
    # fuzzing: clang with libFuzzer and the sanitizer runtimes; CI's sanitized clang build links with lld
    clang-14 libclang-rt-14-dev lld-14
)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps.sh: missing packages: ${missing[*]}; run as root (or: sudo $0)" >&2
    exit 1
fi
echo "install-deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
