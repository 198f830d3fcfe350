#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The io_uring pump (uring_mpa, around dw_conn) against the socket pump's
# CLI, both ways, in every start-up form and framing: as client of
# `ddpwire listen`, and as server for `ddpwire send`; what arrives must equal
# what was sent, octet for octet. Exit 77 (skipped) with the reason where
# io_uring cannot run: liburing missing at configure time, or the kernel
# refuses it (sysctl kernel.io_uring_disabled, no support).
#   run_uring.sh URING_MPA|"" DDPWIRE
set -u
uring=$1 D=$2
[ -n "$uring" ] || { echo "skipped: liburing-dev was not found when configuring (pkg-config liburing)"; exit 77; }
T=$(mktemp -d)
trap 'kill $(jobs -p) 2> /dev/null; rm -rf "$T"' EXIT
# shellcheck source=tests/lib/wire_lib.sh
. "$(dirname "$0")/../tests/lib/wire_lib.sh"
"$uring" accept 0 > /dev/null 2> "$T/probe.err" & pp=$!
for _ in $(seq 50); do grep -q 'listening\|no io_uring' "$T/probe.err" && break; sleep 0.05; done
kill $pp 2> /dev/null; wait $pp 2> /dev/null
grep -q 'no io_uring' "$T/probe.err" && skip "$(cat "$T/probe.err")"
head -c 300000 /dev/urandom > "$T/in"
printf 'x' > "$T/one" # a one-octet record

# name | uring_mpa's options | ddpwire's options | what uring_mpa must report
cases=(
  "mpa immediate markers crc||--startup immediate|markers 1/1, crc 1"
  "mpa immediate no markers|--no-markers|--startup immediate --no-markers|markers 0/0, crc 1"
  "mpa immediate no markers no crc|--no-markers --no-crc|--no-markers --no-crc|markers 0/0, crc 0"
  "mpa negotiated rfc5044|--negotiate|--startup negotiate|rev 1, markers 1/1, crc 1"
  "mpa negotiated rfc5044 no markers no crc|--negotiate --no-markers --no-crc|--startup negotiate --no-markers --no-crc|rev 1, markers 0/0, crc 0"
  "mpa negotiated rfc6581 enhanced|--negotiate --rev 2|--startup negotiate --mpa-rev 2|rev 2 enhanced, markers 1/1, crc 1, ird 1 ord 1"
  "mpa negotiated rfc6581 enhanced no markers|--negotiate --rev 2 --no-markers|--startup negotiate --mpa-rev 2 --no-markers|rev 2 enhanced, markers 0/0"
  "ift crc|--ift|--framing ift|MPA mode: ift"
  "ift no crc|--ift --no-crc|--framing ift --no-crc|crc 0"
)
for c in "${cases[@]}"; do
  IFS='|' read -r name uo co want <<< "$c"
  for input in in one; do
    # uring_mpa as client: ddpwire listen writes what it received
    port=$(pick_port)
    # shellcheck disable=SC2086
    "$D" listen "127.0.0.1:$port" $co -q > "$T/got" 2> "$T/listen.err" & lp=$!
    wait_listen "$port" || true
    # shellcheck disable=SC2086
    "$uring" connect 127.0.0.1 "$port" $uo --record 1400 < "$T/$input" > /dev/null 2> "$T/u.err"
    ur=$?
    wait $lp; lr=$?
    check "[ $ur = 0 ] && [ $lr = 0 ] && cmp -s '$T/$input' '$T/got'" \
      "$name ($input): uring_mpa -> ddpwire listen (uring $ur, listen $lr: $(tr '\n' ' ' < "$T/u.err") $(tr '\n' ' ' < "$T/listen.err"))"
    check "grep -qF '$want' '$T/u.err'" "$name: client start-up reported: $(head -1 "$T/u.err")"
    # uring_mpa as server: it writes what ddpwire send sent
    "$uring" accept 0 $uo > "$T/got" 2> "$T/u.err" & up=$!
    for _ in $(seq 100); do grep -q listening "$T/u.err" && break; sleep 0.05; done
    port=$(sed -n 's/^listening on //p' "$T/u.err")
    # shellcheck disable=SC2086
    "$D" send "127.0.0.1:$port" "$T/$input" $co -q 2> "$T/send.err"; sr=$?
    wait $up; ur=$?
    check "[ $ur = 0 ] && [ $sr = 0 ] && cmp -s '$T/$input' '$T/got'" \
      "$name ($input): ddpwire send -> uring_mpa (uring $ur, send $sr: $(tr '\n' ' ' < "$T/u.err") $(tr '\n' ' ' < "$T/send.err"))"
    check "grep -qF '$want' '$T/u.err'" "$name: server start-up reported: $(sed -n 2p "$T/u.err")"
  done
done
# start-up forms that differ (immediate client, negotiating listener): both
# sides fail (an enablement error at the listener), nothing is delivered
port=$(pick_port)
"$D" listen "127.0.0.1:$port" --startup negotiate --timeout 3000 -q > "$T/got" 2> /dev/null & lp=$!
wait_listen "$port" || true
"$uring" connect 127.0.0.1 "$port" < "$T/in" > /dev/null 2> "$T/u.err"; ur=$?
wait $lp; lr=$?
check "[ $ur != 0 ] && [ $lr != 0 ] && [ ! -s '$T/got' ]" "immediate client against a negotiating listener must fail ($ur, $lr)"
finish
