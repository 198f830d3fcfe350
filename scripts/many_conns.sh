#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# N concurrent MPA connections (default 100,000) against `ddpwire listen
# --keep-open --echo`, from `ddpwire load` spread over loopback source
# addresses (one has ports for about 28,000 connections to one listener).
# Every connection exchanges RECORDS echoes, then all stay open and idle
# for HOLD ms while the listeners' resident memory is sampled:
# (idle RSS - RSS before) / N is the memory per idle connection.
#
# One process may hold PER descriptors (the hard limit, 20,000 on the
# development machine, where the root user lacks CAP_SYS_RESOURCE): with
# more connections, ceil(N / PER) listeners share the port (--reuseport)
# and as many load processes split the connections.
#
#   scripts/many_conns.sh DDPWIRE [N] [-- LISTEN_OPTIONS...]
#   env: RECORDS (5), SIZE (100), HOLD (8000), STARTUP (immediate), PER (18000)
set -u
D=$1 N=${2:-100000}
shift $(( $# < 2 ? $# : 2 ))
[ "${1:-}" = "--" ] && shift
extra=("$@")
ulimit -n "$(ulimit -Hn)"
PER=${PER:-$(( $(ulimit -n) - 1000 ))}
P=$(( (N + PER - 1) / PER ))
port=$((22000 + RANDOM % 8000))
T=$(mktemp -d)
lps=()
for i in $(seq $P); do
  "$D" listen 127.0.0.1:$port --keep-open --echo --reuseport --max-conns $((PER + 500)) \
    --startup "${STARTUP:-immediate}" --idle-timeout 0 "${extra[@]}" 2> "$T/lerr.$i" &
  lps+=($!)
done
trap 'kill ${lps[*]} 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 50); do ss -ltn 2>/dev/null | grep -q ":$port " && break; sleep 0.1; done
sleep 0.5
rss_sum() { local s=0 p; for p in "${lps[@]}"; do s=$((s + $(awk '/VmRSS/ {print $2}' /proc/$p/status))); done; echo $s; }
fd_sum() { local s=0 p; for p in "${lps[@]}"; do s=$((s + $(ls /proc/$p/fd | wc -l))); done; echo $s; }
base=$(rss_sum)
t0=$(date +%s%N)
lds=()
for i in $(seq $P); do
  n=$(( i < P ? N / P : N - (P - 1) * (N / P) ))
  "$D" load 127.0.0.1:$port --connections "$n" --sources 4 --source-base "127.1.$i.1" \
    --records "${RECORDS:-5}" --record-size "${SIZE:-100}" --hold "${HOLD:-8000}" \
    --window 1000 --timeout 900000 --startup "${STARTUP:-immediate}" > "$T/load.$i" 2>&1 &
  lds+=($!)
done
idle=0
while :; do
  alive=0; holding=0
  for i in $(seq $P); do
    kill -0 "${lds[$((i - 1))]}" 2>/dev/null && alive=$((alive + 1))
    grep -q holding "$T/load.$i" && holding=$((holding + 1))
  done
  if [ "$holding" = "$P" ] && [ "$idle" = 0 ]; then
    t1=$(date +%s%N)
    sleep 2 # every echo verified on every connection: sample the idle listeners
    idle=$(rss_sum) fds=$(fd_sum)
  fi
  [ "$alive" = 0 ] && break
  sleep 0.2
done
rc=0
for i in $(seq $P); do wait "${lds[$((i - 1))]}" || rc=1; done
for i in $(seq $P); do echo "load $i: $(tr '\n' ' ' < "$T/load.$i")"; done
kill -TERM "${lps[@]}"; for p in "${lps[@]}"; do wait "$p"; done
for i in $(seq $P); do echo "listener $i: $(grep summary "$T/lerr.$i")"; grep -v summary "$T/lerr.$i" | head -3; done
echo "$N connections over $P listener(s): all open with every echo verified after $(( (${t1:-$t0} - t0) / 1000000 )) ms"
echo "listeners: RSS ${base} KB before, ${idle} KB with $N idle connections (${fds:-?} descriptors)"
[ "$idle" != 0 ] && echo "per idle connection: $(( (idle - base) * 1024 / N )) octets resident"
exit $rc
