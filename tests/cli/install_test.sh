#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the build into a temporary prefix and builds a consumer with
# CMake's find_package(ddpwire) and with pkg-config, then runs both; checks
# that every place carrying the version agrees with project(VERSION), that
# the documents and man pages are installed, that every subcommand has a
# page naming each of its long options, and that groff renders every page
# without a warning.
#   install_test.sh BUILD_DIR PROJECT_VERSION SOURCE_DIR
set -eu
BUILD=$1 VERSION=$2 SRC=$3
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

# The documents.
DOC=$P/usr/share/doc/ddpwire
for f in README.md CHANGELOG.md LICENSE "$SRC"/docs/*.md; do
  [ -s "$DOC/$(basename "$f")" ] && ok || bad "$(basename "$f") not installed in share/doc/ddpwire"
done

# The tool and its man pages, when this build has it.
DW=$P/usr/bin/ddpwire MAN=$P/usr/share/man/man1
if [ -x "$DW" ]; then
  same "ddpwire --version" "$("$DW" --version | sed -n 's/^ddpwire //p')"
  cmds=$("$DW" --help | sed -n 's/^  \([a-z]\{1,\}\) .*/\1/p')
  [ "$(echo "$cmds" | wc -w)" -ge 12 ] && ok || bad "ddpwire --help lists only: $cmds"
  pages=ddpwire
  for c in $cmds; do [ "$c" = help ] || pages="$pages ddpwire-$c"; done
  for pg in $pages; do
    f=$MAN/$pg.1
    if [ ! -s "$f" ]; then bad "no man page $pg(1) in share/man/man1"; continue; fi
    for sec in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" ENVIRONMENT EXAMPLES "SEE ALSO"; do
      grep -q "^\.SH \"\{0,1\}$sec\"\{0,1\}$" "$f" || bad "$pg(1) has no $sec section"
    done
    grep -q DDPWIRE_CRC32C "$f" || bad "$pg(1) does not mention DDPWIRE_CRC32C"
    same "$pg(1)'s footer" "$(sed -n 's/^\.TH .*"ddpwire \([0-9][^"]*\)".*/\1/p' "$f")"
    # every long option of the command's --help (and of its modes' --help)
    c=${pg#ddpwire}; c=${c#-}
    case $c in
      "") helps=() ;; # its --help lists the commands (and bench's options)
      demo) helps=("demo --help" "demo --offline --help") ;;
      tcprdma) helps=("tcprdma --help" "tcprdma place --help") ;;
      analyze) helps=("analyze buffers --help" "analyze packing --help" "analyze align --help") ;;
      *) helps=("$c --help") ;;
    esac
    for h in "${helps[@]}"; do
      # shellcheck disable=SC2086
      for o in $("$DW" $h | grep -o -- '--[a-z0-9][a-z0-9-]*' | sort -u); do
        grep -qF -- "$(echo "$o" | sed 's/-/\\-/g')" "$f" || bad "$pg(1) does not describe $o (ddpwire $h)"
      done
    done
    ok
  done
  # renders without a warning; man finds the installed pages
  if command -v groff > /dev/null; then
    for f in "$MAN"/*.1; do
      w=$(groff -man -Tutf8 -ww -z "$f" 2>&1)
      [ -z "$w" ] && ok || bad "groff warns on $(basename "$f"): $w"
    done
    if command -v man > /dev/null; then
      MANWIDTH=80 man -M "$P/usr/share/man" ddpwire-dump 2> "$P/man.err" | grep -q "ddpwire-dump - check" \
        && [ ! -s "$P/man.err" ] && ok || bad "man -M PREFIX/share/man ddpwire-dump: $(cat "$P/man.err")"
    fi
  else
    echo "groff not installed (apt-get install groff-base): man pages not rendered"
  fi
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
