#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CLI end to end: frame/deframe round trips with every option, and the
# promised behaviour on bad input (exit status, one line naming the MPA
# error code and the FPDU's offset, records before it still written).
set -u
D=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else bad "${2:-$1}"; fi; }

# records: 2-octet big-endian length + octets, sizes 1..64768 and edge sizes
python3 - "$T/recs" <<'PY'
import os, random, struct, sys
random.seed(11)
sizes = [1, 2, 3, 4, 5, 482, 506, 507, 508, 509, 1442, 64768] + \
        [random.choice([random.randint(1, 100), random.randint(1, 64768)]) for _ in range(300)]
with open(sys.argv[1], 'wb') as f:
    for n in sizes:
        f.write(struct.pack('>H', n) + os.urandom(n))
PY

for opts in "" "--no-markers" "--ptr-base rfc5044" "--start-seq 4294967000" "--emss 536"; do
  rx=""; [ "$opts" = "--no-markers" ] && rx="--no-markers"
  $D frame $opts < "$T/recs" > "$T/s" ; check "[ $? = 0 ]"
  $D deframe $rx < "$T/s" > "$T/back"; check "[ $? = 0 ]"
  check "cmp -s '$T/recs' '$T/back'"
done
# --no-markers output really has no markers: its length is the sum of FPDUs
$D frame --no-markers < "$T/recs" > "$T/nm"
$D frame < "$T/recs" > "$T/m"
check "[ $(stat -c %s "$T/nm") -lt $(stat -c %s "$T/m") ]"

# Figure 5 of the MPA text from a record: byte-exact
printf '\x00\x2a\x40\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00' > "$T/fig"
head -c 24 /dev/zero >> "$T/fig"
$D frame < "$T/fig" | od -An -tx1 | tr -d ' \n' > "$T/fighex"
fig5="00000000002a4003000000000000000000000001000000000000000000000000000000000000000000000000000000004c86b384"
check "[ \"\$(cat '$T/fighex')\" = $fig5 ]"

# a flipped bit: exit 1, the error line names code 2 and the offset, earlier records kept
python3 - "$T/m" "$T/corrupt" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read()); d[len(d) // 2] ^= 0x20
open(sys.argv[2], 'wb').write(d)
PY
$D deframe < "$T/corrupt" > "$T/part" 2> "$T/err"; rc=$?
check "[ $rc = 1 ]"
check "grep -q 'MPA error 2 (CRC mismatch) in the FPDU at stream offset [0-9]' '$T/err'"
check "[ $(wc -l < "$T/err") = 1 ]"
check "[ -s '$T/part' ] && cmp -s '$T/part' <(head -c $(stat -c %s "$T/part") '$T/recs')"

# truncated stream: code 1
head -c 100003 "$T/m" | $D deframe > /dev/null 2> "$T/err"; rc=$?
check "[ $rc = 1 ] && grep -q 'MPA error 1' '$T/err'"
# a stream that does not start at MPA position 0 with markers: code 2 or 3
tail -c +9 "$T/m" | $D deframe > /dev/null 2> "$T/err"; rc=$?
check "[ $rc = 1 ] && grep -Eq 'MPA error [23]' '$T/err'"
# frame refuses a zero-length record and a truncated record
printf '\x00\x00' | $D frame > /dev/null 2>&1; check "[ $? = 1 ]"
printf '\x00\x09abc' | $D frame > /dev/null 2>&1; check "[ $? = 1 ]"
# usage errors are status 2
$D frame --emss x < /dev/null > /dev/null 2>&1; check "[ $? = 2 ]"
$D nosuch > /dev/null 2>&1; check "[ $? = 2 ]"
# the offline demo verifies its records and catches its corruption
$D demo --offline --bytes 8M > "$T/demo"; check "[ $? = 0 ] && grep -q 'all records verified' '$T/demo'"
check "grep -q 'corruption check.*MPA error 2.*as expected' '$T/demo'"
$D demo --offline --bytes 2M --no-markers --record-size 100 > "$T/demo"; check "[ $? = 0 ]"
# the TCP demo, in each start-up mode
$D demo --bytes 16M > "$T/demo"; check "[ $? = 0 ] && grep -q 'all records verified' '$T/demo'"
$D demo --bytes 16M --startup negotiate --pack --no-markers > "$T/demo"
check "[ $? = 0 ] && grep -q 'negotiated' '$T/demo'"
$D demo --bytes 16M --framing ift > "$T/demo"
check "[ $? = 0 ] && grep -q 'IFT over loopback' '$T/demo' && grep -q 'all records verified' '$T/demo'"
$D demo --framing ift --startup negotiate > /dev/null 2>&1; check "[ $? = 2 ]"  # a usage error

# listen/send over loopback TCP: byte-exact in every mode; --records keeps
# the boundaries; mismatched start-up modes fail on both ends
head -c 3000000 /dev/urandom > "$T/in"
port=$((20000 + RANDOM % 10000)) # below the ephemeral range
for m in "" "--startup negotiate" "--no-markers --pack" "--startup negotiate --pack" \
         "--framing ift" "--framing ift --pack"; do
  port=$((port + 1))
  $D listen 127.0.0.1:$port $m > "$T/out" 2>/dev/null & lp=$!
  for _ in 1 2 3 4 5 6 7 8 9 10; do ss -ltn 2>/dev/null | grep -q ":$port " && break; sleep 0.1; done
  $D send 127.0.0.1:$port "$T/in" $m 2>/dev/null; check "[ $? = 0 ]"
  wait $lp; check "[ $? = 0 ]"
  check "cmp -s '$T/in' '$T/out'"
done
port=$((port + 1))
$D listen "[::1]:$port" --records > "$T/recs_out" 2>/dev/null & lp=$!
sleep 0.3
$D send "[::1]:$port" "$T/in" --record-size 1000 2>/dev/null; check "[ $? = 0 ]"
wait $lp
check "[ $(stat -c %s "$T/recs_out") = $((3000000 + 3000 * 2)) ]"

# netcat's habits: HOST PORT, listen -l [ADDR] PORT, -p PORT; both ends
# print the time and rate at the end (-q: not)
wait_port() { for _ in $(seq 30); do ss -ltn 2>/dev/null | grep -q ":$1 " && break; sleep 0.1; done; }
rate='[0-9.]+ s, [0-9.]+ [kMGT]?bit/s'
for forms in "-l -p P|127.0.0.1 P" "-l 127.0.0.1 P|127.0.0.1:P" "::1 -p P|::1 P" \
             "--listen [::1] --port P|[::1] P -" "127.0.0.1 P|localhost P"; do
  port=$((port + 1))
  l=${forms%%|*} s=${forms#*|}
  $D listen ${l//P/$port} > "$T/out" 2> "$T/lerr" & lp=$!
  wait_port $port
  $D send ${s//P/$port} < "$T/in" $([ "${s% -}" = "$s" ] && echo "$T/in") 2> "$T/serr"
  check "[ $? = 0 ]" "send ${s//P/$port}: $(cat "$T/serr")"
  wait $lp; check "[ $? = 0 ]" "listen ${l//P/$port}: $(cat "$T/lerr")"
  check "cmp -s '$T/in' '$T/out'" "listen ${l//P/$port} | send ${s//P/$port}: not the input"
  check "grep -Eq '^ddpwire send: 3000000 octets in [0-9]+ records .*, $rate; 0 records' '$T/serr'" \
    "send: no time and rate: $(cat "$T/serr")"
  check "grep -Eq '^ddpwire listen: [0-9]+ records, 3000000 octets, $rate \(from ' '$T/lerr'" \
    "listen: no time and rate: $(cat "$T/lerr")"
done
port=$((port + 1))
$D listen -q -p $port > "$T/out" 2> "$T/lerr" & lp=$!
wait_port $port
$D send --quiet 127.0.0.1 $port "$T/in" 2> "$T/serr"; check "[ $? = 0 ]"
wait $lp; check "[ $? = 0 ] && [ ! -s '$T/lerr' ] && [ ! -s '$T/serr' ]" "-q: $(cat "$T/lerr" "$T/serr")"
# ports are 1..65535; one port; extra arguments are named
for a in "listen 99999" "listen 0" "listen -p 65536" "listen -l 127.0.0.1 0" "send 127.0.0.1:99999" \
         "send 127.0.0.1 0" "send [::1]:65536 -" "load localhost:70000" "load ::1 65536"; do
  $D $a < /dev/null > /dev/null 2> "$T/err"; rc=$?
  check "[ $rc = 2 ] && grep -q '^ddpwire ${a%% *}: port .* is not a number from 1 to 65535' '$T/err'" \
    "$a: exit $rc, $(cat "$T/err")"
done
$D listen -p 5000 6000 2> "$T/err"; check "[ $? = 2 ] && grep -q 'give the port once' '$T/err'"
$D listen 5000 6000 2> "$T/err"; check "[ $? = 2 ] && grep -q \"unexpected argument '6000'\" '$T/err'"
$D send 127.0.0.1 5000 "$T/in" extra 2> "$T/err"
check "[ $? = 2 ] && grep -q \"unexpected argument 'extra'\" '$T/err'"
$D send 127.0.0.1:5000 "$T/in" extra 2> "$T/err"
check "[ $? = 2 ] && grep -q \"unexpected argument 'extra'\" '$T/err'"
$D send somehost < /dev/null 2> "$T/err"; check "[ $? = 2 ] && grep -q 'has no port' '$T/err'"
$D load 127.0.0.1 5000 6000 2> "$T/err"; check "[ $? = 2 ] && grep -q \"unexpected argument '6000'\" '$T/err'"
# the file is named; an input that cannot be read resets the connection
$D send 127.0.0.1 5000 "$T/nosuch" 2> "$T/err"
check "[ $? = 1 ] && grep -q '^ddpwire send: cannot open $T/nosuch: No such file' '$T/err'"
port=$((port + 1))
$D listen $port > /dev/null 2> "$T/lerr" & lp=$!
wait_port $port
$D send 127.0.0.1 $port "$T" 2> "$T/serr"; rc=$?
check "[ $rc = 1 ] && grep -q '^ddpwire send: cannot read $T: Is a directory' '$T/serr'" "$(cat "$T/serr")"
wait $lp; check "[ $? = 1 ]" "listen: an input cut short was taken as whole: $(cat "$T/lerr")"

for pair in "--startup negotiate|" "|--startup negotiate" "--framing ift|" "|--framing ift" \
            "--framing ift|--no-markers" "--no-markers|--framing ift"; do
  port=$((port + 1))
  $D listen 127.0.0.1:$port ${pair%%|*} > /dev/null 2>"$T/lerr" & lp=$!
  sleep 0.3
  timeout 10 $D send 127.0.0.1:$port "$T/in" ${pair#*|} --timeout 3000 2>/dev/null; rc=$?
  check "[ $rc = 1 ]"
  wait $lp; check "[ $? = 1 ]"
  check "grep -q 'enablement error' '$T/lerr' || grep -q 'closed' '$T/lerr'"
done

# send reads what the peer sends: an echoing listener's records are counted
# and written with --records-out (length + octets, as listen --records)
python3 - "$T/in" "$T/want_recs" 1000 <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read(); n = int(sys.argv[3])
with open(sys.argv[2], 'wb') as f:
    for i in range(0, len(d), n):
        f.write(struct.pack('>H', len(d[i:i + n])) + d[i:i + n])
PY
for m in "" "--pack" "--startup negotiate" "--framing ift"; do
  port=$((port + 1))
  $D listen 127.0.0.1:$port --keep-open --echo $m 2> "$T/lerr" & lp=$!
  for _ in 1 2 3 4 5 6 7 8 9 10; do ss -ltn 2>/dev/null | grep -q ":$port " && break; sleep 0.1; done
  $D send 127.0.0.1:$port "$T/in" --record-size 1000 --records-out "$T/echoed" $m 2> "$T/serr"
  check "[ $? = 0 ]"
  check "grep -q '3000 records (3000000 octets) received' '$T/serr'"
  check "cmp -s '$T/want_recs' '$T/echoed'"
  kill $lp; wait $lp 2>/dev/null
  check "grep -Eq '^ddpwire listen: summary: .*; [0-9.]+ s, [0-9.]+ [kMGT]?bit/s in$' '$T/lerr'" \
    "listen --keep-open: no time and rate in the summary: $(cat "$T/lerr")"
done
$D send --help | grep -q -- '--records-out'; check "[ $? = 0 ]"
$D send 127.0.0.1:1 --records-out > /dev/null 2>&1; check "[ $? = 2 ]"

# a non-MPA or broken peer: one stand-in server per case (port in a file)
cat > "$T/srv.py" <<'PY'
import socket, struct, sys, time
# srv.py PORTFILE MODE REPLYFILE: one connection; sends the reply, then
# close: reads a little first and closes (a reset if our data is unread);
# reset: resets at once
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)
open(sys.argv[1] + '.tmp', 'w').write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + '.tmp', sys.argv[1])
s.settimeout(10); c, _ = s.accept(); c.settimeout(2)
if sys.argv[2] == 'close':
    try: c.recv(100)
    except OSError: pass
c.sendall(open(sys.argv[3], 'rb').read()); time.sleep(0.2)
if sys.argv[2] == 'reset':
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
c.close()
PY
srv() { # MODE REPLYFILE: starts the stand-in; its port in $sport
  rm -f "$T/sport"; python3 "$T/srv.py" "$T/sport" "$1" "$2" & sp=$!
  for _ in $(seq 50); do [ -s "$T/sport" ] && break; sleep 0.1; done
  sport=$(cat "$T/sport")
}
# a good FPDU ("hello", no markers) then one with a bad CRC at offset 12
printf '\x00\x05hello' > "$T/hello_rec"
$D frame --no-markers < "$T/hello_rec" > "$T/reply"
check "[ $(stat -c %s "$T/reply") = 12 ]"
printf '\x00\x04abcd\x00\x00\xde\xad\xbe\xef' >> "$T/reply"
srv close "$T/reply"
$D send 127.0.0.1:$sport "$T/in" --no-markers --records-out "$T/got" 2> "$T/serr"; rc=$?
wait $sp
check "[ $rc = 1 ] && [ \$(wc -l < '$T/serr') = 1 ]"
# messages speak to users: the address, no DW_ERR_* name unless -v
check "grep -q '^ddpwire send: 127.0.0.1:$sport: MPA error 2: CRC mismatch at stream offset 12; ' '$T/serr'"
check "! grep -q DW_ERR_ '$T/serr'" "a DW_ERR_ name without -v: $(cat "$T/serr")"
check "grep -q '1 records received' '$T/serr' && cmp -s '$T/hello_rec' '$T/got'"
# garbage that ends inside an FPDU: code 1 named, not a bare protocol error
printf 'HTTP/1.0 400 Bad request\r\n\r\n' > "$T/reply"
srv close "$T/reply"
$D send 127.0.0.1:$sport "$T/in" --no-markers -v 2> "$T/serr"; rc=$?
wait $sp
check "[ $rc = 1 ] && grep -q 'MPA error 1: .* at stream offset 0 (DW_ERR_PROTO)' '$T/serr'"
# with markers the first octets are no zero marker: an enablement error
srv close "$T/reply"
$D send 127.0.0.1:$sport "$T/in" 2> "$T/serr"; rc=$?
wait $sp
check "[ $rc = 1 ] && grep -q 'enablement error' '$T/serr' && ! grep -q DW_ERR_ '$T/serr'"
# the peer sends a record and resets while we send: the record is still
# read, the reset is the cause (not ENOTCONN from shutdown)
$D frame --no-markers < "$T/hello_rec" > "$T/reply"
srv reset "$T/reply"
$D send 127.0.0.1:$sport "$T/in" --no-markers --records-out "$T/got" 2> "$T/serr"; rc=$?
wait $sp
check "[ $rc = 1 ] && grep -Eq 'reset (the connection|it) .*; 1 records received' '$T/serr'"
check "! grep -q DW_ERR_ '$T/serr'"
check "! grep -q 'not connected' '$T/serr' && cmp -s '$T/hello_rec' '$T/got'"
# nobody listening: the library error is named
$D send 127.0.0.1:$sport "$T/in" 2> "$T/serr"; rc=$?
check "[ $rc = 1 ] && grep -q '^ddpwire send: 127.0.0.1:$sport: .*Connection refused$' '$T/serr'" "$(cat "$T/serr")"
$D send 127.0.0.1 $sport "$T/in" -v 2> "$T/serr"; rc=$?
check "[ $rc = 1 ] && grep -q 'Connection refused (DW_ERR_IO)' '$T/serr'"
$D send -vv "[::1]:$sport" "$T/in" 2> "$T/serr"; rc=$?
check "[ $rc = 1 ] && grep -q '^ddpwire send: \[::1\]:$sport: .*Connection refused (DW_ERR_IO)' '$T/serr'"
$D send 127.0.0.1 $sport "$T/in" -s 192.0.2.1 2> "$T/serr"; rc=$?
check "[ $rc = 1 ] && grep -q '^ddpwire send: 127.0.0.1:$sport from 192.0.2.1: ' '$T/serr'" "send -s: $(cat "$T/serr")"

# listen: a peer that never completes an FPDU fails it in bounded time,
# even when it trickles (one octet per 0.2 s: each read comes in time);
# in negotiated mode a partial start-up frame times out; the default is
# documented
$D listen --help | grep -q 'within 10 s (10000 ms)'; check "[ $? = 0 ]"
for lim in "--timeout 1000" "--timeout 1000 --startup negotiate -v"; do
  port=$((port + 1))
  $D listen 127.0.0.1:$port $lim > /dev/null 2> "$T/lerr" & lp=$!
  for _ in 1 2 3 4 5 6 7 8 9 10; do ss -ltn 2>/dev/null | grep -q ":$port " && break; sleep 0.1; done
  python3 - $port "$lim" <<'PY' &
import socket, sys, time
c = socket.create_connection(('127.0.0.1', int(sys.argv[1])))
try:
    for b in b'MPA ID Req Frame' if 'negotiate' in sys.argv[2] else b'\0' * 30:
        c.sendall(bytes([b])); time.sleep(0.2)
except OSError: pass
PY
  cp=$!
  t0=$(date +%s%N)
  wait $lp; rc=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
  kill $cp 2>/dev/null; wait $cp 2>/dev/null
  check "[ $rc = 1 ] && [ $ms -lt 5000 ]" "listen $lim: exit $rc after $ms ms"
  if [ "$lim" = "--timeout 1000" ]; then
    check "grep -q '^ddpwire listen: connection from 127.0.0.1:[0-9]*: timed out' '$T/lerr' &&
           ! grep -q DW_ERR_ '$T/lerr'" "listen $lim: $(cat "$T/lerr")"
  else
    check "grep -q 'timed out.*(DW_ERR_TIMEOUT)' '$T/lerr'" "listen $lim: $(cat "$T/lerr")"
  fi
  [ "$lim" = "--timeout 1000" ] &&
    check "grep -q 'timed out: no whole record within 1000 ms' '$T/lerr'"
done

# load: why a connection failed (the library error, the MPA error code)
printf '\x00\x04abcd\x00\x00\xde\xad\xbe\xef' > "$T/reply"
srv close "$T/reply"
$D load 127.0.0.1:$sport --connections 1 --records 3 --no-markers --timeout 3000 \
  > "$T/lout" 2> "$T/lerr"; rc=$?
wait $sp
check "[ $rc = 1 ] && grep -q FAILED '$T/lout'"
check "grep -q '^ddpwire load: 127.0.0.1:$sport: connection 0 failed.*; MPA error 2: CRC mismatch at stream offset 0' '$T/lerr'"
check "! grep -q DW_ERR_ '$T/lerr'" "a DW_ERR_ name without -v: $(cat "$T/lerr")"
$D load 127.0.0.1 $sport --connections 1 > /dev/null 2> "$T/lerr"; rc=$?
check "[ $rc = 1 ] && grep -q 'connection 0 failed to connect: .*refused; ' '$T/lerr' && ! grep -q DW_ERR_ '$T/lerr'"
$D load 127.0.0.1:$sport --connections 1 --verbose > /dev/null 2> "$T/lerr"; rc=$?
check "[ $rc = 1 ] && grep -q 'connection 0 failed to connect: .*(DW_ERR_IO)' '$T/lerr'"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
