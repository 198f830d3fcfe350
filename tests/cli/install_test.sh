#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the build into a temporary prefix and builds a consumer with
# CMake's find_package(ddpwire) and with pkg-config, then runs both; checks
# that every place carrying the version agrees with project(VERSION).
#   install_test.sh BUILD_DIR PROJECT_VERSION
set -eu
BUILD=$1 VERSION=$2
P=$(mktemp -d)
trap 'rm -rf "$P"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
same() { # WHAT VALUE
  if [ "$2" = "$VERSION" ]; then ok; else bad "$1 says '$2', project(VERSION) is '$VERSION'"; fi
}

cmake --install "$BUILD" --prefix "$P/usr" > /dev/null
mkdir -p "$P/src"
cat > "$P/src/use.c" <<'C'
#include <ddpwire/crc32c.h>
#include <ddpwire/mpa.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--version")) {
        printf("%s %s %d.%d.%d\n", DW_VERSION_STRING, dw_version(), DW_VERSION_MAJOR,
               DW_VERSION_MINOR, DW_VERSION_PATCH);
        return 0;
    }
    int ok = dw_crc32c(0, "123456789", 9) == 0xE3069283u &&
             dw_mpa_mulpdu(1460, 1) == 1442;
    printf("%s\n", ok ? "ok" : "wrong");
    return !ok;
}
C
cat > "$P/src/CMakeLists.txt" <<C
cmake_minimum_required(VERSION 3.20)
project(use C)
find_package(ddpwire $VERSION EXACT REQUIRED)
file(WRITE \${PROJECT_BINARY_DIR}/pkg_version.txt "\${ddpwire_VERSION}")
add_executable(use use.c)
target_link_libraries(use PRIVATE ddpwire::ddpwire)
C
cmake -S "$P/src" -B "$P/b" -DCMAKE_PREFIX_PATH="$P/usr" > /dev/null
cmake --build "$P/b" > /dev/null
LIBS="$P/usr/lib:$P/usr/lib64:$P/usr/lib/x86_64-linux-gnu"
if LD_LIBRARY_PATH=$LIBS "$P/b/use"; then ok; else bad "the CMake consumer"; fi
same "the CMake package (ddpwire_VERSION)" "$(cat "$P/b/pkg_version.txt")"
read -r hdr lib parts < <(LD_LIBRARY_PATH=$LIBS "$P/b/use" --version)
same "DW_VERSION_STRING" "$hdr"
same "dw_version()" "$lib"
same "DW_VERSION_MAJOR.MINOR.PATCH" "$parts"

PKG_CONFIG_PATH=$(dirname "$(find "$P/usr" -name ddpwire.pc)")
export PKG_CONFIG_PATH
same "pkg-config --modversion" "$(pkg-config --modversion ddpwire)"
cc "$P/src/use.c" -o "$P/use-pc" $(pkg-config --cflags --libs ddpwire)
if LD_LIBRARY_PATH=$(dirname "$(find "$P/usr" -name 'libddpwire.so' | head -1)") "$P/use-pc"; then ok
else bad "the pkg-config consumer"; fi

# The tool, when this build has it.
if [ -x "$P/usr/bin/ddpwire" ]; then
  same "ddpwire --version" "$("$P/usr/bin/ddpwire" --version | sed -n 's/^ddpwire //p')"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
