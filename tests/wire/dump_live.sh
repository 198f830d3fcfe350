#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ddpwire dump on a live interface: `dump -i lo` with a BPF filter watches
# `ddpwire send` -> `ddpwire listen` (RFC 5044 start-up, markers, CRC) and,
# stopped with SIGINT, reports the connection: every record sent as an FPDU
# with a good CRC and right FPDUPTRs, in both its text and its JSON form.
# Needs root (capture on lo); exits 77 when it cannot capture here.
set -u
D=$1
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
DP="" LP=""
cleanup() {
  [ -n "$DP" ] && kill -INT "$DP" 2> /dev/null
  [ -n "$LP" ] && kill "$LP" 2> /dev/null
  rm -rf "$T"
}
trap cleanup EXIT
. "$HERE/../lib/wire_lib.sh"
PY="python3 $HERE/../lib/wire_pcap.py"

[ "$(id -u)" = 0 ] || skip "capturing on the loopback interface needs root"
need ss:iproute2 python3:python3
head -c 200001 /dev/urandom > "$T/in"

# live NAME FORMAT-OPTION: one transfer watched by dump -i lo
live() {
  local name=$1 fmt=$2 port try
  for try in 1 2 3; do
    port=$(pick_port)
    "$D" dump -i lo $fmt --no-progress "tcp port $port" > "$T/$name.out" 2> "$T/$name.err" &
    DP=$!
    sleep 1 # libpcap opens the interface
    kill -0 "$DP" 2> /dev/null || {
      grep -qiE 'permission|not permitted|socket' "$T/$name.err" &&
        skip "cannot capture on lo here: $(head -1 "$T/$name.err")"
      bad "$name: dump -i lo did not start: $(cat "$T/$name.err")"; DP=""; return; }
    "$D" listen "127.0.0.1:$port" --startup negotiate --records > "$T/$name.rec" 2> /dev/null &
    LP=$!
    wait_listen "$port" || bad "$name: listener not up"
    "$D" send "127.0.0.1:$port" "$T/in" --startup negotiate --record-size 1000 2> /dev/null
    wait "$LP"
    LP=""
    sleep 0.5 # the last ACKs and FINs
    kill -INT "$DP"
    wait "$DP"
    RC=$?
    DP=""
    # a kernel drop shows as a gap (exit 3): try again on a busy machine
    [ "$RC" != 3 ] && break
    echo "$name: capture incomplete (busy machine), try $try of 3"
  done
}

live json --json
$PY dumpsum "$T/json.out" > "$T/json.ds"
check "[ $RC = 0 ]" "dump -i lo --json exit $RC: $(tail -3 "$T/json.err")"
check "[ '$(kv flows "$T/json.ds")' = 1 ] && [ '$(kv c2s_fpdus "$T/json.ds")' = 201 ]" \
  "json: $(kv flows "$T/json.ds") flows, $(kv c2s_fpdus "$T/json.ds") client FPDUs (want 1 and 201)"
check "[ '$(kv crc_bad "$T/json.ds")' = 0 ] && [ '$(kv marker_bad "$T/json.ds")' = 0 ] && [ '$(kv markers "$T/json.ds")' -gt 300 ]" \
  "json: $(kv crc_bad "$T/json.ds") bad CRCs, $(kv marker_bad "$T/json.ds") bad of $(kv markers "$T/json.ds") markers"
grep -q '"type":"startup".*"kind":"request"' "$T/json.out"; check "[ $? = 0 ]" "json: no start-up request reported"

live text ""
check "[ $RC = 0 ]" "dump -i lo exit $RC: $(tail -3 "$T/text.err")"
grep -q "MPA markers crc: 201 FPDUs, 200001 ULPDU octets; CRC 201 good, 0 bad" "$T/text.out"
check "[ $? = 0 ]" "text summary: $(cat "$T/text.out")"
grep -q "all correct" "$T/text.out"; check "[ $? = 0 ]" "text: no 'all correct' line"
finish
