#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shared library's ABI against the committed baseline abi/SONAME.abi
# (libabigail; the policy: docs/ABI.md).
#
#   scripts/abi.sh check [LIB]   compares LIB (default: the library built here
#                                with the baseline's flags) with the baseline of
#                                its SONAME: 0 when the ABI is the same or only
#                                grew (functions added, enumerators added, fields
#                                appended to a versioned settings or callbacks
#                                struct); 1 with abidiff's
#                                report on any other change; 77 when it cannot
#                                check here (abidiff missing, LIB without -g)
#   scripts/abi.sh update        rebuilds the library and rewrites the baseline of
#                                its SONAME (other baselines in abi/ removed),
#                                printing what changed
#
# The library is built in ABI_BUILD (default build-abi) with fixed flags
# (RelWithDebInfo: -O2 -g, nothing but the library, no CFLAGS from the
# environment), so the same sources always give the same baseline. Only the
# types of the public headers (include/ddpwire) count.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ABI_DIR=$ROOT/abi
HDRS=$ROOT/include/ddpwire
BUILD=${ABI_BUILD:-$ROOT/build-abi}
usage() { awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0" >&2; exit 2; }
skip() { echo "abi: skipped: $*"; exit 77; }

need_tools() {
  command -v abidw > /dev/null && command -v abidiff > /dev/null ||
    { echo "abi: abidw/abidiff not installed (apt-get install abigail-tools)" >&2; return 1; }
}

# build: the library with the baseline's flags; prints its path
build() {
  env -u CFLAGS -u LDFLAGS -u CPPFLAGS cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDW_BUILD_TESTS=OFF -DDW_BUILD_TOOLS=OFF -DDW_BUILD_BENCH=OFF -DDW_BUILD_EXAMPLES=OFF \
    -DDW_BUILD_WIRESHARK=OFF -DDW_BUILD_FUZZERS=OFF -DDW_INSTALL=OFF -DDW_SANITIZE= \
    -DDW_CRC32C_X86=ON > "$BUILD.log" 2>&1 &&
    cmake --build "$BUILD" -j "$(nproc)" --target ddpwire_shared >> "$BUILD.log" 2>&1 ||
    { tail -20 "$BUILD.log" >&2; echo "abi: building the library failed (log: $BUILD.log)" >&2; return 1; }
  rm -f "$BUILD.log"
  find "$BUILD/lib" -maxdepth 1 -name 'libddpwire.so.*.*' -type f | head -1
}

soname() { readelf -d "$1" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p'; }

# abixml LIB: the library's ABI as the baseline stores it (no paths, no
# locations' directories, stable type ids). Types private to the library are
# kept in it but marked by the header they come from: abidiff given the
# public headers (--headers-dir1/2) then ignores them. (Not --drop-private-types:
# with libabigail 2.2 a baseline written so hides changes to structs reached
# through callbacks' function pointers, e.g. dw_mpa_rx_error.)
abixml() {
  abidw --headers-dir "$HDRS" --no-corpus-path --no-comp-dir-path --short-locs \
    --type-id-style hash "$1"
}

# appends_only: reads abidiff's leaf-mode report; 0 when every change in it is
# fields appended at the end of a dw_*_settings or dw_*_callbacks struct (the
# struct grew; each new field lies past its old end), else prints what is not
# and returns 1. (libabigail's own suppression, has_data_member_inserted_at,
# would also hide a changed field of such a struct, or a change to a type it
# points to: not used.)
appends_only() {
  awk -v q="'" '
    function no(why) {
      if (!told[block]++) print "abi: not allowed without a new SONAME (" why "): " block
      bad = 1
    }
    /^(Leaf changes summary|Changed leaf types summary|Removed\/Changed\/Added (functions|variables) summary):/ { next }
    /^$/ { next }
    /^[^ ]/ { block = $0 }
    $0 ~ "^" q "struct dw_[a-z0-9_]*_(settings|callbacks) at [^" q "]*" q " changed:$" { leaf = 1; old = -1; next }
    leaf && /^  type size changed from [0-9]+ to [0-9]+ \(in bits\)$/ {
      old = $5 + 0; if ($7 + 0 <= old) no("it did not grow"); next }
    leaf && /^  [0-9]+ data member insertions?:$/ { next }
    leaf && /^    .*, at offset [0-9]+ \(in bits\)/ {
      o = $0; sub(/.*, at offset /, "", o); o = o + 0
      if (old < 0 || o < old) no("inserted before the old end"); next }
    { leaf = 0; no("changed, and not by appending to a versioned settings or callbacks struct") }
    END { exit bad }'
}

# compare BASELINE LIB: abidiff's report on stdout (leaf types: each changed
# type once); 0 compatible, 1 not, 2 error. Compatible: no change, or only
# functions added, enumerators added (abidiff counts them harmless) and
# appends_only's fields.
compare() {
  local rc=0 out
  abidiff --leaf-changes-only --headers-dir1 "$HDRS" --headers-dir2 "$HDRS" "$1" "$2" || rc=$?
  [ $((rc & 3)) = 0 ] || { echo "abi: abidiff failed (exit $rc)" >&2; return 2; }
  [ "$rc" = 0 ] && return 0
  out=$(abidiff --leaf-changes-only --no-added-syms --headers-dir1 "$HDRS" --headers-dir2 "$HDRS" \
    "$1" "$2") && return 0
  [ $(($? & 8)) = 0 ] || return 1 # removed functions, variables
  appends_only <<< "$out"
}

cmd=${1:-}
case $cmd in
  check)
    need_tools || skip "abigail-tools not installed"
    if [ -n "${2:-}" ]; then
      lib=$2
      [ -f "$lib" ] || { echo "abi: no such library: $lib" >&2; exit 2; }
      readelf -S "$lib" | grep -q '\.debug_info' ||
        skip "$lib has no debug information (build with -g, e.g. CMAKE_BUILD_TYPE=RelWithDebInfo)"
    else
      lib=$(build)
    fi
    so=$(soname "$lib")
    base=$ABI_DIR/$so.abi
    # the baseline describes one architecture's ABI (x86-64)
    m=$(readelf -h "$lib" | sed -n 's/^ *Machine: *//p')
    if [ -f "$base" ] && grep -q "architecture='elf-amd-x86_64'" "$base" && [ "$m" != "Advanced Micro Devices X86-64" ]; then
      skip "the baseline is x86-64's; $lib is for $m"
    fi
    [ -f "$base" ] || { echo "abi: no baseline for $so ($base): a new SONAME needs" \
      "'scripts/abi.sh update' (docs/ABI.md)" >&2; exit 1; }
    rc=0 report=$(mktemp)
    compare "$base" "$lib" > "$report" || rc=$?
    cat "$report"
    rm -f "$report"
    case $rc in
      0) echo "abi: $so compatible with abi/$so.abi" ;;
      1) echo "abi: INCOMPATIBLE with abi/$so.abi (above: abidiff's report). Undo the change, or" \
           "break the ABI deliberately: bump the SONAME, then scripts/abi.sh update (docs/ABI.md)" >&2 ;;
    esac
    exit "$rc"
    ;;
  update)
    need_tools || exit 1
    lib=$(build)
    so=$(soname "$lib")
    mkdir -p "$ABI_DIR"
    new=$ABI_DIR/$so.abi.new
    abixml "$lib" > "$new"
    if [ -f "$ABI_DIR/$so.abi" ]; then
      echo "abi: changes from the previous abi/$so.abi:"
      abidiff --leaf-changes-only --headers-dir1 "$HDRS" --headers-dir2 "$HDRS" "$ABI_DIR/$so.abi" "$new" || true
    fi
    mv "$new" "$ABI_DIR/$so.abi"
    for f in "$ABI_DIR"/*.abi; do
      [ "$f" = "$ABI_DIR/$so.abi" ] || { echo "abi: removed $f (a former SONAME)"; rm -f "$f"; }
    done
    echo "abi: wrote abi/$so.abi ($(grep -c '<elf-symbol ' "$ABI_DIR/$so.abi") symbols); commit it"
    ;;
  *) usage ;;
esac
