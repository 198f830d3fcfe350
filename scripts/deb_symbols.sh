#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates debian/libddpwire1.symbols (dpkg-gensymbols) from the shared
# library as this tree builds it: run it after changing what the public
# headers export, and commit the result. The package build fails while the
# file and the library disagree (debian/rules: dpkg-gensymbols -c4).
#
#   scripts/deb_symbols.sh        build the library in DEB_SYMBOLS_BUILD
#                                 (default build-debsym) and rewrite the file
#
# Symbols already in the file keep their version; new ones get the version of
# debian/changelog; symbols gone from the library are dropped (removing one
# breaks the ABI: docs/ABI.md, scripts/abi.sh check).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BUILD=${DEB_SYMBOLS_BUILD:-$ROOT/build-debsym}
PKG=libddpwire1
OUT=debian/$PKG.symbols
for c in dpkg-gensymbols dpkg-parsechangelog dpkg-architecture; do
  command -v $c > /dev/null || { echo "deb_symbols: $c missing (apt-get install dpkg-dev)" >&2; exit 1; }
done
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
VERSION=$(dpkg-parsechangelog -S Version)

env -u CFLAGS -u LDFLAGS cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DDW_BUILD_TESTS=OFF -DDW_BUILD_TOOLS=OFF -DDW_BUILD_BENCH=OFF -DDW_BUILD_EXAMPLES=OFF \
  -DDW_BUILD_WIRESHARK=OFF -DDW_INSTALL=OFF -DDW_SANITIZE= > "$BUILD.log" 2>&1 &&
  cmake --build "$BUILD" -j "$(nproc)" --target ddpwire_shared >> "$BUILD.log" 2>&1 ||
  { tail -20 "$BUILD.log" >&2; echo "deb_symbols: the library did not build (log: $BUILD.log)" >&2; exit 1; }
rm -f "$BUILD.log"
lib=$(find "$BUILD/lib" -maxdepth 1 -name 'libddpwire.so.*.*' -type f | head -1)

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/usr/lib/$MA"
cp "$lib" "$stage/usr/lib/$MA/"
# -I: the current file (versions kept); -c0: report, never fail
ref=()
[ -f "$OUT" ] && ref=(-I"$OUT")
dpkg-gensymbols -p"$PKG" -P"$stage" -v"$VERSION" "${ref[@]}" -e"$stage/usr/lib/$MA/$(basename "$lib")" \
  -O"$stage/new.symbols" -c0 > "$stage/diff" 2>&1 || true
# only what the library exports now (gone symbols out, also those that
# dpkg-gensymbols keeps from the old file); the -dev package named for
# dpkg-shlibdeps (Build-Depends-Package)
nm -D --defined-only "$lib" | awk '{ print $NF }' > "$stage/exported"
awk -v dev="libddpwire-dev" 'FILENAME != ARGV[ARGC - 1] { have[$1] = 1; next }
    FNR == 1 { print; print "* Build-Depends-Package: " dev; next }
    /^\* Build-Depends-Package:/ || /^ #MISSING: / { next }
    /^ [^ ]+@[^ ]+ / { sym = $1; sub(/@.*/, "", sym)
      v = $1; sub(/^[^@]*@/, "", v); if (!have[sym "@@" v] && !have[sym "@" v] && !(sym == v && have[sym])) next }
    { print }' "$stage/exported" "$stage/new.symbols" > "$stage/out.symbols"
n=$(grep -c '^ dw_' "$stage/out.symbols")
[ "$n" -gt 100 ] || { echo "deb_symbols: only $n symbols in $lib?" >&2; exit 1; }
if [ -f "$OUT" ] && cmp -s "$stage/out.symbols" "$OUT"; then
  echo "deb_symbols: $OUT is up to date ($n symbols)"
else
  [ -f "$OUT" ] && diff -u "$OUT" "$stage/out.symbols" | grep '^[-+] ' | head -40 || true
  cp "$stage/out.symbols" "$OUT"
  echo "deb_symbols: wrote $OUT ($n symbols, new ones at $VERSION); commit it"
fi
