#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ddpwire as a CMake subproject: a parent project written here takes this
# source tree with add_subdirectory(), links ddpwire::ddpwire and runs.
# Checks that only the library is built (no tests, tool, benchmarks), that
# the parent's build type is left alone and that libpcap is not looked for.
#   subproject_test.sh SRC_DIR C_COMPILER
set -u
SRC=$1 CC_=$2
P=$(mktemp -d)
trap 'rm -rf "$P"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

mkdir -p "$P/parent"
cat > "$P/parent/CMakeLists.txt" <<C
cmake_minimum_required(VERSION 3.20)
project(parent C)
enable_testing()
add_subdirectory("$SRC" ddpwire)
add_executable(app app.c)
target_link_libraries(app PRIVATE ddpwire::ddpwire)
C
cat > "$P/parent/app.c" <<'C'
#include <ddpwire/crc32c.h>
#include <ddpwire/mpa.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
    int ok = dw_crc32c(0, "123456789", 9) == 0xE3069283u &&
             dw_mpa_mulpdu(1460, 1) == 1442 && !strcmp(dw_version(), DW_VERSION_STRING);
    printf("%s %s\n", ok ? "ok" : "wrong", dw_version());
    return !ok;
}
C
if cmake -S "$P/parent" -B "$P/b" -DCMAKE_C_COMPILER="$CC_" > "$P/configure.log" 2>&1; then ok
else bad "configure"; cat "$P/configure.log" >&2; fi
if cmake --build "$P/b" -j 2 > "$P/build.log" 2>&1; then ok
else bad "build"; tail -30 "$P/build.log" >&2; fi
if out=$("$P/b/app"); then ok; echo "app: $out"; else bad "app: $out"; fi

cache=$P/b/CMakeCache.txt
bt=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$cache")
[ -z "$bt" ] && ok || bad "the parent's CMAKE_BUILD_TYPE became '$bt'"
for o in DW_BUILD_TESTS DW_BUILD_TOOLS DW_BUILD_BENCH DW_INSTALL; do
  grep -q "^$o:BOOL=OFF$" "$cache" && ok || bad "$o is not OFF in a subproject"
done
grep -v "^//" "$cache" | grep -qi pcap && bad "libpcap was looked for" || ok
[ -e "$P/b/ddpwire/tools/ddpwire/ddpwire" ] && bad "the tool was built" || ok
n=$(cd "$P/b" && ctest -N | sed -n 's/^Total Tests: //p')
[ "$n" = 0 ] && ok || bad "the parent sees $n tests of ours"
inst=$P/b/ddpwire/cmake_install.cmake
[ -f "$inst" ] && ! grep -Eq 'ddpwire\.pc|ddpwireTargets|include/ddpwire' "$inst" \
  && ok || bad "a subproject installs itself"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
