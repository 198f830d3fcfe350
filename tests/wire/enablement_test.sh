#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# MPA enablement errors (analysis text section 8) on loopback, quick form:
# runs scripts/enablement.sh --quick and checks its TSV. Every case must end;
# in every case our endpoint reports an enablement/protocol error or the
# non-MPA peer rejects (echo and discard excepted: the text says nobody can
# tell there); our listener never delivers a record made of non-MPA octets and
# no non-MPA program takes an MPA frame for valid application data (Figure 6's
# DNS answer and Figure 5's lower-left Hello are the two cases where the text
# itself says it does). Exit 77: cannot run here (no python3).
set -u
D=$1
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else bad "${2:-$1}"; fi; }
skip() { echo "skipped: $*"; exit 77; }

command -v python3 > /dev/null 2>&1 || skip "python3 is needed for the stand-in servers"
command -v timeout > /dev/null 2>&1 || skip "coreutils timeout is needed"
start=$(date +%s)
bash "$HERE/../../scripts/enablement.sh" --quick --ddpwire "$D" --out "$T" > "$T/log" 2>&1
rc=$?
check "[ $rc = 0 ]" "enablement.sh --quick exited $rc: $(tail -3 "$T/log")"
TSV=$T/enablement.tsv
[ -s "$TSV" ] || { bad "no TSV"; echo "$pass passed, $fail failed"; exit 1; }
rows=$(($(wc -l < "$TSV") - 1))
check "[ $rows -ge 8 ]" "only $rows cases ran"
# field: CASE-ID COLUMN-NAME
col() { awk -F'\t' -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
                                  $1 == '"$1"' { print $k[c] }' "$TSV"; }
# find SECT MODE PEER: the case id, empty when that case did not run
find() { awk -F'\t' -v s="$1" -v m="$2" -v p="$3" '$2 == s && $3 == m && $4 == p { print $1 }' "$TSV"; }

# every case: ended, detected where the text expects it, nothing misread
for id in $(awk -F'\t' 'NR > 1 { print $1 }' "$TSV"); do
  name="case $id ($(col "$id" sect) $(col "$id" mode) $(col "$id" peer))"
  err=$(col "$id" our_err) det=$(col "$id" detector) exp=$(col "$id" expect)
  mis=$(col "$id" peer_misread) del=$(col "$id" delivered)
  check "[ '$err' != HANG ]" "$name hung"
  case $exp in
    Q | T) check "[ '$det' != none ]" "$name: nobody detected the enablement error"
           check "[ '$mis' != yes ]" "$name: the non-MPA peer took MPA octets as valid data" ;;
  esac
  [ "$(col "$id" sect)" = B ] && check "[ '$del' = 0 ]" "$name: our listener delivered $del octets of non-MPA data"
done

# the key outcomes
expect_case() { # SECT MODE PEER COLUMN PATTERN
  local id
  id=$(find "$1" "$2" "$3")
  [ -n "$id" ] || return 0 # that program is not here
  local v
  v=$(col "$id" "$4")
  # shellcheck disable=SC2254 # PATTERN is a glob on purpose
  case $v in $5) ok ;; *) bad "$1 $2 $3: $4 is '$v', expected $5" ;; esac
}
expect_case A imm-m pyhttp our_err DW_ERR_ENABLEMENT
expect_case A imm-m pyhttp peer_result "HTTP code [45]*"
expect_case A imm-nom pyhttp our_err "DW_ERR_PROTO*"
expect_case A neg-m pyhttp our_err DW_ERR_TIMEOUT
expect_case A ift pyhttp our_err DW_ERR_ENABLEMENT
expect_case A imm-m tls peer_err yes
expect_case A neg-m echo our_err DW_ERR_ENABLEMENT
expect_case A imm-m "echo(load)" delivered "300 (own records, verified)"
expect_case A neg-m discard our_err DW_ERR_TIMEOUT
for s in chargen daytime time; do
  expect_case A imm-m $s our_err DW_ERR_ENABLEMENT
  expect_case A neg-m $s our_err DW_ERR_ENABLEMENT
done
for c in curl s_client; do
  for m in imm-m neg-m ift; do expect_case B $m $c our_err DW_ERR_ENABLEMENT; done
  expect_case B imm-m $c detector "ours*"
done
expect_case B neg-m nc-hello peer_misread yes
expect_case C imm-m nc-read peer_result "got * 00 00 00 00 *"
expect_case C imm-m curl peer_err yes
# quick detection where the marker is checked: under a second
id=$(find B imm-m curl)
[ -n "$id" ] && check "[ $(col "$id" our_ms) -lt 1000 ]" "B imm-m curl took $(col "$id" our_ms) ms"
id=$(find A imm-m pyhttp)
[ -n "$id" ] && check "[ $(col "$id" our_ms) -lt 1000 ]" "A imm-m pyhttp took $(col "$id" our_ms) ms"

echo "$rows cases in $(($(date +%s) - start)) s"
[ "$fail" = 0 ] || cat "$T/log" >&2
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
