#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The examples against each other: epoll_echo serves three echo_clients at
# once (one of 5,000 records of up to 16 KB); each must get every echo back
# intact, and the server must stop after their three connections ended.
# DW_EMULATOR: a command to run them through (qemu-user in a cross build).
set -u
server=$1 client=$2
read -r -a emu <<< "${DW_EMULATOR:-}"
out=$(mktemp)
trap 'rm -f "$out"; kill $sp 2>/dev/null' EXIT
"${emu[@]}" "$server" 0 3 > "$out" &
sp=$!
for _ in $(seq 100); do grep -q listening "$out" && break; sleep 0.05; done
port=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' "$out")
[ -n "$port" ] || { echo "FAIL: the server did not start"; echo "0 passed, 1 failed"; exit 1; }
pass=0 fail=0
"${emu[@]}" "$client" 127.0.0.1 "$port" 5000 & c1=$!
"${emu[@]}" "$client" 127.0.0.1 "$port" 10 & c2=$!
"${emu[@]}" "$client" 127.0.0.1 "$port" 300 & c3=$!
for c in $c1 $c2 $c3; do
  if wait $c; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: a client"; fi
done
for _ in $(seq 100); do kill -0 $sp 2>/dev/null || break; sleep 0.05; done
if wait $sp; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: the server did not stop"; fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
