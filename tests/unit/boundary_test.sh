#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The library's public boundary:
#  0. every installed header is balanced: its include guard closes at its
#     end, one extern "C" block holds every declaration (a header broken
#     that way hides its declarations from the scan below);
#  1. the shared library exports exactly what include/ddpwire/*.h declares
#     (every declaration with DW_EXTERN, every export declared), each with a
#     symbol version of lib/ddpwire.map;
#  2. every global symbol of the library's objects has the dw_ prefix;
#  3. the core's objects (everything but lib/io/) call no socket, file,
#     poll, clock or printing function: only what this allowlist names.
#
#   boundary_test.sh SRCDIR LIBDDPWIRE.so CORE_OBJECTS... -- IO_OBJECTS...
set -u
src=$1 so=$2
shift 2
core=() io=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do core+=("$1"); shift; done
[ $# -gt 0 ] && shift
io=("$@")
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# the check itself: netsim.h as it shipped before 1.0 must be refused
if python3 "$src/scripts/api_decls.py" balance "$src/tests/data/headers/unbalanced_netsim.h" > "$T/fixture"; then
    bad "the balance check passed the unbalanced fixture"
else ok; fi
python3 "$src/scripts/api_decls.py" check "$src"/include/ddpwire/*.h > "$T/undecorated"
if [ -s "$T/undecorated" ]; then bad "headers unbalanced or declarations without DW_EXTERN: $(cat "$T/undecorated")"; else ok; fi
python3 "$src/scripts/api_decls.py" list "$src"/include/ddpwire/*.h | sort -u > "$T/declared"
# (the version script's node, DDPWIRE_x.y, is an absolute symbol, not an export;
# each export is NAME@@DDPWIRE_x.y: lib/ddpwire.map, docs/ABI.md)
nm -D --defined-only "$so" | awk '$2 != "A" { print $3 }' > "$T/versioned"
sed 's/@.*//' "$T/versioned" | sort -u > "$T/exported"
unversioned=$(grep -v '@@DDPWIRE_[0-9]' "$T/versioned")
if [ -n "$unversioned" ]; then bad "exports without a DDPWIRE_ version (lib/ddpwire.map):" $unversioned; else ok; fi
[ -s "$T/declared" ] && [ "$(wc -l < "$T/declared")" -gt 100 ] || bad "the header scan found too few declarations"
extra=$(comm -13 "$T/declared" "$T/exported")
missing=$(comm -23 "$T/declared" "$T/exported")
if [ -n "$extra" ]; then bad "exported but not declared:" $extra; else ok; fi
if [ -n "$missing" ]; then bad "declared but not exported:" $missing; else ok; fi

unprefixed=$(nm -g --defined-only --format=just-symbols "${core[@]}" "${io[@]}" | grep -v '^dw_' | sort -u)
if [ -n "$unprefixed" ]; then bad "global symbols without the dw_ prefix:" $unprefixed; else ok; fi

# libc's memory and string calls, snprintf (the checkers' detail texts),
# qsort, and what compilers and sanitizers insert (TLS: __tls_get_offset on s390x;
# _FORTIFY_SOURCE's checked copies, as Debian's package build uses).
allow='^(dw_.*|malloc|calloc|realloc|free|aligned_alloc|memcpy|memmove|memset|memcmp|memchr|strlen|strcmp|strncmp|strchr|strstr|snprintf|vsnprintf|__(memcpy|memmove|memset|snprintf|vsnprintf)_chk|qsort|getenv|__tls_get_addr|__tls_get_offset|_GLOBAL_OFFSET_TABLE_|__stack_chk_fail|__assert_fail|__cpu_indicator_init|__cpu_model|__(a|ub|l|t)san_.*|__sanitizer_.*|__asan.*|__ubsan.*)$'
calls=$(nm -u --format=just-symbols "${core[@]}" | sort -u | grep -Ev "$allow")
if [ -n "$calls" ]; then bad "the core calls outside the allowlist (I/O belongs in lib/io/):" $calls; else ok; fi
# the check itself: the socket adapter must be caught by it
iocalls=$(nm -u --format=just-symbols "${io[@]}" | sort -u | grep -Ev "$allow" | tr '\n' ' ')
case " $iocalls " in *" socket "*) ok ;; *) bad "the allowlist let lib/io's socket() through" ;; esac

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
