#!/bin/bash
# SPDX-License-Identifier: MIT
# ddpwire rping: our client against our server over loopback TCP, rping's
# protocol end to end with the data verified: MPA revisions 1 and 2, CRC on and
# off, markers, 64 KiB buffers (segmentation), the RFC 6581 RTR kinds, the
# markers reject and its retry; bad options.
set -uo pipefail
D=$1
T=$(mktemp -d)
trap 'kill $SP 2> /dev/null; rm -rf "$T"' EXIT
fails=0
N=${DW_TEST_QUICK:+20}
N=${N:-100}
port() { echo $((17000 + RANDOM % 3000)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# pair NAME SERVER_ARGS -- CLIENT_ARGS: one connection, both sides must succeed
pair() {
  local name=$1 sa=() ca=() p
  shift
  while [ "$1" != -- ]; do sa+=("$1"); shift; done
  shift
  ca=("$@")
  p=$(port)
  "$D" rping -s -p "$p" "${sa[@]}" > "$T/s.out" 2> "$T/s.err" &
  SP=$!
  for _ in $(seq 50); do ss -Hltn "sport = :$p" | grep -q LISTEN && break; sleep 0.05; done
  "$D" rping -c -p "$p" "${ca[@]}" > "$T/c.out" 2> "$T/c.err"
  local crc=$? src=0
  if [[ " ${sa[*]} " == *" -P "* ]]; then # persistent: stop it
    kill $SP
    wait $SP 2> /dev/null
  else
    wait $SP
    src=$?
  fi
  if [ $crc = 0 ] && [ $src = 0 ] && grep -q "data verified.*: ok" "$T/c.err"; then
    echo "ok: $name: $(grep -h 'MPA rev' "$T/c.err")"
  else
    bad "$name: client $crc server $src: $(cat "$T/c.err" "$T/s.err")"
  fi
}

pair rev1 -S 1000 -- -C "$N" -S 1000 -V --rev 1
pair rev2 -S 1000 -- -C "$N" -S 1000 -V --rev 2
pair rev2-nocrc --no-crc -S 100 -- -C "$N" -S 100 -V --no-crc
grep -q "CRC off" "$T/c.err" || bad "CRC was not off"
# rdma-core's flags: -I (source address), -t (type of service), -d, -q
pair rdma-core-flags -S 100 -- -C 3 -S 100 -V -I 127.0.0.2 -t 16 -d -q
grep -q "completion op" "$T/c.err" || bad "-d: no completion printed"
pair markers --markers -S 2000 -- -C "$N" -S 2000 -V --markers --rev 1
grep -q "markers on/on" "$T/c.err" || bad "markers were not on"
pair big -S 65535 -- -C "$N" -S 65535 -V
for k in send write read; do
  pair "p2p-$k" --p2p "$k" -- -C 10 -S 64 -V --p2p "$k"
  grep -q "peer-to-peer RTR $k" "$T/c.err" || bad "p2p $k: no RTR agreed"
done
pair retry -P -- -C 10 -V --markers --retry-no-markers
# the verbose text is rping's
pair verbose -v -- -C 2 -S 40 -V -v
grep -qx "ping data: rdma-ping-1: BCDEFGHIJKLMNOPQRSTUVWXYZ\\[" "$T/c.out" ||
  bad "verbose: $(cat "$T/c.out")"

# a client whose buffer is larger than the server's: refused, both fail
p=$(port)
"$D" rping -s -p "$p" -S 64 > /dev/null 2> "$T/s.err" &
SP=$!
sleep 0.3
"$D" rping -c -p "$p" -S 100 -C 1 -V > /dev/null 2> "$T/c.err" && bad "oversized client succeeded"
wait $SP && bad "server accepted an oversized buffer"
grep -q "exceeds ours" "$T/s.err" || bad "oversized: $(cat "$T/s.err")"

# options
"$D" rping --help | grep -q "usage: ddpwire rping" || bad "--help"
for a in "-c -S 10" "-c -S 70000" "-c --rev 3" "-c --p2p x" "-c --bogus" ""; do
  "$D" rping $a > /dev/null 2>&1
  [ $? = 2 ] || bad "'rping $a' did not exit 2"
done
"$D" rping -c -p 1 -C 1 > /dev/null 2>&1
[ $? = 1 ] || bad "a refused connection did not exit 1"

[ $fails = 0 ] && echo "rping: all passed" && exit 0
exit 1
