#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Wireshark plugin's cost: tshark over a capture with the plugin disabled
# and enabled, alternated, ROUNDS times, pinned to one CPU; elapsed seconds
# and peak memory of each (docs/PERFORMANCE.md).
# usage: bench/ws_plugin.sh CAPTURE [ROUNDS (3)] [CPU (1)] [tshark options]
set -eu
CAP=$(readlink -f "$1")
ROUNDS=${2:-3}
CPU=${3:-1}
shift $(( $# < 3 ? $# : 3 ))
HERE=$(cd "$(dirname "$0")" && pwd)
cat "$CAP" > /dev/null # from the page cache
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)," \
     "family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2- | tr -d ' ') model $(grep -m1 '^model' /proc/cpuinfo | cut -d: -f2- | tr -d ' ')"
for r in $(seq "$ROUNDS"); do
  for mode in off on; do
    x=(); [ $mode = off ] && x=(--disable-protocol ddpwire)
    /usr/bin/time -f "round $r plugin $mode: %e s (user %U, sys %S), peak memory %M KB" \
      taskset -c "$CPU" "$HERE/../scripts/ws_run.sh" tshark -n "${x[@]}" "$@" -r "$CAP" 2>&1 > /dev/null | tail -1
  done
done
