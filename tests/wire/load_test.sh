#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One `ddpwire listen --keep-open --echo` serves 10,000 concurrent MPA
# connections from `ddpwire load` on loopback, in each start-up mode;
# every record must come back intact. Prints the listener's resident
# memory per connection (peak RSS minus RSS before, over the connections).
set -u
D=$1
N=${DW_LOAD_CONNECTIONS:-10000}
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -lt $((N + 100)) ]; then
  N=$((hard - 100))
  echo "note: the descriptor limit is $hard; using $N connections"
fi
pass=0 fail=0
port=$((20000 + RANDOM % 10000)) # below the ephemeral range
for mode in immediate negotiate; do
  port=$((port + 1))
  # both spellings of the address: HOST:PORT, and netcat's (-l ADDR -p PORT, HOST PORT)
  if [ $mode = immediate ]; then at=(127.0.0.1:$port) to=(127.0.0.1:$port)
  else at=(-l 127.0.0.1 -p $port) to=(127.0.0.1 $port); fi
  "$D" listen "${at[@]}" --keep-open --echo --startup $mode 2> /tmp/dw_load_listen.$$ &
  lp=$!
  for _ in $(seq 50); do ss -ltn 2>/dev/null | grep -q ":$port " && break; sleep 0.1; done
  base=$(awk '/VmRSS/ {print $2}' /proc/$lp/status)
  if "$D" load "${to[@]}" --connections "$N" --records 5 --record-size 100 \
       --startup $mode --timeout 120000; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: load in $mode mode"
  fi
  peak=$(awk '/VmHWM/ {print $2}' /proc/$lp/status)
  echo "$mode: listener resident memory $(( (peak - base) * 1024 / N )) octets per connection" \
       "(peak $peak KB over $N connections)"
  if grep -q . /tmp/dw_load_listen.$$; then
    fail=$((fail + 1)); echo "FAIL: the listener reported:"; head -5 /tmp/dw_load_listen.$$
  else
    pass=$((pass + 1))
  fi
  kill $lp; wait $lp 2>/dev/null
  # the summary on SIGTERM: the records, the time and the rate
  if grep -Eq "summary: .*records $((N * 5)) \(.*; [0-9.]+ s, [0-9.]+ [kMGT]?bit/s in$" /tmp/dw_load_listen.$$; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: the listener's summary:"; cat /tmp/dw_load_listen.$$
  fi
  rm -f /tmp/dw_load_listen.$$
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
