#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the build into a temporary prefix and builds a consumer with
# CMake's find_package(ddpwire) and with pkg-config, then runs both.
set -eu
BUILD=$1
P=$(mktemp -d)
trap 'rm -rf "$P"' EXIT
cmake --install "$BUILD" --prefix "$P/usr" > /dev/null
mkdir -p "$P/src"
cat > "$P/src/use.c" <<'C'
#include <ddpwire/crc32c.h>
#include <ddpwire/mpa.h>
#include <stdio.h>
int main(void)
{
    int ok = dw_crc32c(0, "123456789", 9) == 0xE3069283u &&
             dw_mpa_mulpdu(1460, 1) == 1442;
    printf("%s\n", ok ? "ok" : "wrong");
    return !ok;
}
C
cat > "$P/src/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.20)
project(use C)
find_package(ddpwire REQUIRED)
add_executable(use use.c)
target_link_libraries(use PRIVATE ddpwire::ddpwire)
C
cmake -S "$P/src" -B "$P/b" -DCMAKE_PREFIX_PATH="$P/usr" > /dev/null
cmake --build "$P/b" > /dev/null
LD_LIBRARY_PATH="$P/usr/lib:$P/usr/lib64:$P/usr/lib/x86_64-linux-gnu" "$P/b/use"
PKG_CONFIG_PATH=$(dirname "$(find "$P/usr" -name ddpwire.pc)")
export PKG_CONFIG_PATH
cc "$P/src/use.c" -o "$P/use-pc" $(pkg-config --cflags --libs ddpwire | sed "s|$P/usr|$P/usr|g")
LD_LIBRARY_PATH=$(dirname "$(find "$P/usr" -name 'libddpwire.so' | head -1)") "$P/use-pc"
echo "2 passed, 0 failed"
