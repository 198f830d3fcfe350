#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the library and its unit tests for another architecture with
# Debian's cross compiler and runs every test under qemu-user:
#   scripts/cross_test.sh s390x|aarch64 [BUILD_DIR]
# s390x is big-endian, aarch64 little-endian with strict-alignment habits.
# Installs gcc-<arch>-linux-gnu and qemu-user with apt-get when missing
# (as root, else through sudo). The tool and the benchmarks are not built
# (they need the target's libpcap). DW_TEST_QUICK=1 is set unless
# CROSS_FULL=1; JOBS (default 2) sets build and test parallelism.
set -euo pipefail
arch=${1:-}
case "$arch" in
  s390x | aarch64) ;;
  *) echo "usage: $0 s390x|aarch64 [BUILD_DIR]" >&2; exit 2 ;;
esac
src=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$src/build-$arch}
jobs=${JOBS:-2}
triple=$arch-linux-gnu
debarch=$arch
[ "$arch" = aarch64 ] && debarch=arm64

missing=""
for p in "gcc-$triple" "libc6-dev-$debarch-cross" qemu-user cmake; do
  dpkg -s "$p" > /dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing > /dev/null
fi

t0=$(date +%s)
mkdir -p "$build"
cmake -S "$src" -B "$build" --toolchain "$src/cmake/toolchain-$arch.cmake" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDW_WERROR=ON -DDW_BUILD_TOOLS=OFF \
  -DDW_BUILD_BENCH=OFF -DDW_INSTALL=OFF > "$build/cross-configure.log" 2>&1 \
  || { cat "$build/cross-configure.log"; exit 1; }
cmake --build "$build" -j "$jobs" > "$build/cross-build.log" 2>&1 \
  || { tail -40 "$build/cross-build.log"; exit 1; }
t1=$(date +%s)
echo "== $arch: built in $((t1 - t0)) s ($($triple-gcc -dumpfullversion), $(qemu-$arch --version | head -1))"

mode=quick
if [ "${CROSS_FULL:-0}" = 1 ]; then mode=full; unset DW_TEST_QUICK; else export DW_TEST_QUICK=1; fi
rc=0
(cd "$build" && ctest -j "$jobs" --output-on-failure) || rc=$?
t2=$(date +%s)
echo "== $arch: tests ran in $((t2 - t1)) s ($mode); exit $rc"
exit $rc
