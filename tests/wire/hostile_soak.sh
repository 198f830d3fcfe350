#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Hostile-peer soak: `ddpwire listen --keep-open --echo` with short
# deadlines faces every peer of hostile_peers.py (garbage, HTTP, TLS, half
# an FPDU, one octet per 100 ms, a 65535 length, bad CRC, bad FPDUPTR,
# resets, peers that never read, connect/close churn) for SECONDS while good
# clients (`ddpwire load`, small and large records) run round after round.
# Pass: every good round gets every record back intact within BOUND s; the
# listener stays up; each hostile connection that must be cut is cut within
# its deadline (+1.5 s: the 100 ms sweep, a busy machine); once the peers
# are gone the listener's descriptors are back to the baseline and its
# resident memory within 1 MiB of it; the summary counts the failures.
# DW_SOAK_SANITIZED=1 (ctest in a sanitizer build): cuts may come 6 s late
# and memory is not checked (ASan keeps what is freed in quarantine).
#
#   hostile_soak.sh DDPWIRE [SECONDS]   (env DW_SOAK_SECONDS; default 25)
set -u
D=$1
SECS=${2:-${DW_SOAK_SECONDS:-25}}
BOUND=${DW_SOAK_BOUND:-10}
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }
ulimit -n 65536 2>/dev/null
port=$((21000 + RANDOM % 8000))
FRAME=2000 STALL=3000 STARTUP=2000 IDLE=8000
SAN=${DW_SOAK_SANITIZED:-0}
SLACK=$([ "$SAN" = 1 ] && echo 6 || echo 1.5)
"$D" listen 127.0.0.1:$port --keep-open --echo --startup-timeout $STARTUP \
  --frame-timeout $FRAME --stall-timeout $STALL --idle-timeout $IDLE --out-limit 65536 \
  --max-conns 4000 --show 0 2> "$T/lerr" &
lp=$!
trap 'kill $lp 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 50); do ss -ltn 2>/dev/null | grep -q ":$port " && break; sleep 0.1; done
fds() { ls /proc/$lp/fd 2>/dev/null | wc -l; }
rss() { awk '/VmRSS/ {print $2}' /proc/$lp/status; }
round() { # NAME CONNS RECORDS SIZE: one good round, its wall time checked
  local t0 t1 rc
  t0=$(date +%s%N)
  timeout $((BOUND + 5)) "$D" load 127.0.0.1:$port --connections "$2" --records "$3" \
    --record-size "$4" --timeout $((BOUND * 1000)) > "$T/round.out" 2>&1
  rc=$?
  t1=$(date +%s%N)
  echo "$1 $rc $(( (t1 - t0) / 1000000 ))" >> "$T/rounds" # ms
}
round warm 50 5 100
round warm 5 3 16000
sleep 1
base_fd=$(fds) base_rss=$(rss)
python3 "$here/hostile_peers.py" 127.0.0.1 $port "$SECS" --ddpwire "$D" > "$T/hostile.json" &
hp=$!
while kill -0 $hp 2>/dev/null; do
  round small 20 5 1000
  round large 5 3 16000
done
wait $hp; hrc=$?
check "[ $hrc = 0 ]" "hostile_peers.py failed: $(cat "$T/hostile.json")"
grep -v warm "$T/rounds" > "$T/good"
n=$(wc -l < "$T/good")
failed=$(awk '$2 != 0' "$T/good" | wc -l)
slowest=$(awk 'BEGIN {m = 0} $3 > m {m = $3} END {print m}' "$T/good")
echo "good rounds: $n, failed: $failed, slowest: ${slowest} ms (bound ${BOUND} s)"
check "[ $n -ge 4 ] && [ $failed = 0 ]" "good rounds failed: $(awk '$2 != 0' "$T/good" | head -3)"
check "[ $slowest -le $((BOUND * 1000)) ]" "a good round took ${slowest} ms > ${BOUND} s"
check "kill -0 $lp" "the listener died: $(tail -3 "$T/lerr")"
python3 - "$T/hostile.json" "$FRAME" "$STALL" "$SLACK" > "$T/verdict" <<'PY'
import json, sys
h = json.load(open(sys.argv[1])); frame = int(sys.argv[2]) / 1000; stall = int(sys.argv[3]) / 1000
slack = float(sys.argv[4])
bad = []
for k, v in sorted(h.items()):
    print("  %-8s %s" % (k, " ".join("%s=%s" % kv for kv in sorted(v.items()))))
    if not v["connections"]:
        bad.append("%s: no connection" % k)
    if k in ("half", "biglen", "trickle", "garbage", "http", "tls", "badcrc", "badptr"):
        if v["still_open_at_end"]:
            bad.append("%s: %d connections never cut" % (k, v["still_open_at_end"]))
    if k in ("half", "biglen", "trickle") and v["slowest_cut_s"] > frame + slack:
        bad.append("%s: cut after %.2f s (frame deadline %.1f s)" % (k, v["slowest_cut_s"], frame))
    # noread: the stall clock starts once the socket buffers are full (~1 s)
    if k == "noread" and (not v["reset_by_listener"] or v["still_open_at_end"] or
                          v["slowest_cut_s"] > stall + slack + 2):
        bad.append("noread: not cut within the stall deadline: %s" % v)
for b in bad:
    print("BAD " + b)
PY
cat "$T/verdict"
check "! grep -q '^BAD' '$T/verdict'" "hostile peers not handled as they must be"
sleep 3 # the last hostile connections go (their sockets closed, deadlines)
for _ in $(seq 50); do [ "$(fds)" -le "$base_fd" ] && break; sleep 0.2; done
end_fd=$(fds) end_rss=$(rss)
echo "listener: descriptors $base_fd before, $end_fd after; resident memory $base_rss KB before, $end_rss KB after"
check "[ $end_fd = $base_fd ]" "descriptors not back to the baseline: $base_fd -> $end_fd"
if [ "$SAN" = 1 ]; then
  echo "(sanitizer build: resident memory not checked)"
else
  check "[ $end_rss -le $((base_rss + 1024)) ]" "resident memory not back: $base_rss -> $end_rss KB"
fi
kill -TERM $lp; wait $lp; lrc=$?
check "[ $lrc = 0 ]" "the listener exited $lrc"
sed -n '/summary/,$p' "$T/lerr"
for kind in "enablement error" "frame timeout" "protocol error" "send stalled"; do
  check "grep -q '$kind' '$T/lerr'" "the summary counts no '$kind'"
done
check "grep -q 'MPA error 2' '$T/lerr' && grep -q 'MPA error 3' '$T/lerr'" "MPA errors 2 and 3 not both counted"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
