#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The unit-test harness (tests/unit/test.h) says what ran: a binary that
# checked nothing fails, one whose every test skipped exits 77 (ctest:
# skipped) with the reason, a table's failing row is named.
#   harness_test.sh PROBE [EMULATOR ...]   (cross builds: qemu-user runs PROBE)
set -u
P=$1 pass=0 fail=0
shift
EMU=("$@")
expect() { # MODE STATUS TEXT
  local out rc
  out=$("${EMU[@]}" "$P" "$1" 2>&1); rc=$?
  if [ "$rc" = "$2" ] && grep -qF -- "$3" <<< "$out"; then pass=$((pass + 1))
  else fail=$((fail + 1)); echo "FAIL: probe $1: status $rc (want $2), output:"; echo "$out"; fi
}
expect ok 0 "1 passed, 0 failed"
expect zero 1 "FAIL: no check ran"
expect bare 1 "FAIL: no check ran"
expect empty-run 1 "none                                     FAIL: no check ran"
expect skip 77 "skipped: no such CPU path here"
expect partial 0 "1 passed, 0 failed, 1 skipped"
expect table 1 "[case second row] t[i].in * 2 == t[i].want failed"
expect after-table 1 "harness_probe.c:"
out=$("${EMU[@]}" "$P" after-table 2>&1)
grep -q '\[case' <<< "$out" && { fail=$((fail + 1)); echo "FAIL: a case named after its loop: $out"; } ||
  pass=$((pass + 1))
# only the second row fails
out=$("${EMU[@]}" "$P" table 2>&1)
[ "$(grep -c 'failed: 0x' <<< "$out")" = 1 ] && pass=$((pass + 1)) ||
  { fail=$((fail + 1)); echo "FAIL: table: not exactly one failing row named: $out"; }
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
