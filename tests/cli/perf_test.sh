#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ddpwire perf over loopback: for MPA (markers and CRC, the exact fill), MPA
# with records of 1000 octets packed, IFT and plain TCP, the client's total
# and the server's report agree on the octets (and records), both are
# non-zero, no error is counted, every field of the JSON is there; the
# client's intervals add up to no more than its total. A client without
# markers against a server expecting them: the server reports the error and
# fails. -C: both ends run the congestion control named, an unknown name
# is exit 1 naming it. Speeds are printed, never judged.
set -u
D=$1
T=$(mktemp -d)
SP=""
trap '[ -n "$SP" ] && kill "$SP" 2> /dev/null; rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else bad "${2:-$1}"; fi; }
port=$((21000 + RANDOM % 9000))

# field FILE TYPE KEY: KEY of the line of TYPE
field() {
  python3 -c '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["type"] == sys.argv[2]:
        print(o[sys.argv[3]]); break' "$1" "$2" "$3"
}

# run NAME "SERVER OPTS" "CLIENT OPTS": one test; server and client exits in sst/cst
run() {
  local name=$1 so=$2 co=$3
  port=$((port + 1))
  $D perf -s "127.0.0.1:$port" --once --json $so > "$T/$name.s" 2> "$T/$name.serr" &
  SP=$!
  for _ in $(seq 50); do ss -Hltn 2> /dev/null | grep -q ":$port " && break; sleep 0.05; done
  $D perf -c "127.0.0.1:$port" -t 2 -i 1 --json $co > "$T/$name.c" 2> "$T/$name.cerr"
  cst=$?
  wait "$SP"
  sst=$?
  SP=""
}

for m in "mpa:" "packed:--record-size 1000 --pack" "ift:--framing ift" "plain:--plain"; do
  name=${m%%:*} opts=${m#*:}
  run "$name" "$opts" "$opts"
  check "[ $cst = 0 ] && [ $sst = 0 ]" "$name: exits $cst/$sst: $(cat "$T/$name.cerr" "$T/$name.serr")"
  co=$(field "$T/$name.c" total octets) so=$(field "$T/$name.s" server octets)
  check "[ -n '$co' ] && [ '$co' -gt 0 ] && [ '$co' = '$so' ]" "$name: client sent $co, server got $so"
  if [ "$name" != plain ]; then
    cr=$(field "$T/$name.c" total records) sr=$(field "$T/$name.s" server records)
    check "[ '$cr' -gt 0 ] && [ '$cr' = '$sr' ]" "$name: client sent $cr records, server got $sr"
  fi
  check "[ '$(field "$T/$name.s" server crc_errors)$(field "$T/$name.s" server marker_errors)$(field "$T/$name.s" server other_errors)' = 000 ]" \
    "$name: errors counted: $(cat "$T/$name.s")"
  for k in seconds gbit_per_second retrans retrans_octets emss rtt_microseconds congestion cpu_user_seconds cpu_sys_seconds host_softirq_seconds mode; do
    check "[ -n \"\$(field '$T/$name.c' total $k)\" ]" "$name: the total has no $k"
  done
  iv=$(python3 -c '
import json, sys
print(sum(json.loads(l)["octets"] for l in open(sys.argv[1]) if json.loads(l)["type"] == "interval"))' "$T/$name.c")
  check "[ '$(grep -c '"interval"' "$T/$name.c")' -ge 1 ] && [ '$iv' -le '$co' ]" \
    "$name: intervals $iv octets against a total of $co"
  echo "$name: $(field "$T/$name.c" total gbit_per_second) Gbit/s (loopback, not judged)"
done

# -C: the congestion control both ends' sockets take (reno is always built in)
for m in "mpa:" "plain:--plain"; do
  name=cc-${m%%:*} opts=${m#*:}
  run "$name" "$opts -C reno" "$opts -C reno"
  check "[ $cst = 0 ] && [ $sst = 0 ] && [ '$(field "$T/$name.c" total congestion)' = reno ]" \
    "$name: exits $cst/$sst, congestion $(field "$T/$name.c" total congestion): $(cat "$T/$name.cerr")"
  $D perf -c 127.0.0.1:1 -t 1 $opts -C no-such-cc > /dev/null 2> "$T/$name.err"
  check "[ $? = 1 ] && grep -q 'congestion control no-such-cc' '$T/$name.err'" "$name: an unknown -C: $(cat "$T/$name.err")"
done
$D perf -s "127.0.0.1:$((port + 1))" --once -C no-such-cc > /dev/null 2> "$T/cc-s.err"
check "[ $? = 1 ] && grep -q 'congestion control no-such-cc' '$T/cc-s.err'" "server, an unknown -C: $(cat "$T/cc-s.err")"

# markers expected, none sent: the server must see it
run mismatch "" "--no-markers"
check "[ $sst = 1 ]" "mismatch: the server exited $sst: $(cat "$T/mismatch.s")"
check "[ '$(field "$T/mismatch.s" server marker_errors)$(field "$T/mismatch.s" server other_errors)' != 00 ]" \
  "mismatch: no error counted: $(cat "$T/mismatch.s")"

$D perf -c 127.0.0.1:1 -t 1 > /dev/null 2>&1
check "[ $? = 1 ]" "a refused connection is not exit 1"
$D perf > /dev/null 2>&1
check "[ $? = 2 ]" "no mode is not a usage error"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
