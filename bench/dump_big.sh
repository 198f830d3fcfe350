#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ddpwire dump on a big capture: speed and peak memory (docs/PERFORMANCE.md).
# usage: bench/dump_big.sh DDPWIRE [SIZE_MB (1024)] [FLOWS (8)] [extra dump_big.py options]
# Writes the capture to a temporary folder, runs `ddpwire dump` on it under
# /usr/bin/time and prints packets, seconds, MB/s and the maximum resident set.
set -eu
D=$(readlink -f "$1")
SIZE=${2:-1024}
FLOWS=${3:-8}
shift $(( $# < 3 ? $# : 3 ))
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
DDPWIRE=$D python3 "$HERE/dump_big.py" "$T/big.pcap" "$SIZE" "$FLOWS" "$@"
bytes=$(stat -c %s "$T/big.pcap")
cat "$T/big.pcap" > /dev/null # from the page cache, as a re-read capture is
set +e
/usr/bin/time -f "%e %U %S %M" -o "$T/time" "$D" dump --no-progress "$T/big.pcap" > "$T/out"
rc=$?
set -e
read -r el us sy rss < <(tail -1 "$T/time")
echo "capture: $((bytes >> 20)) MiB, $FLOWS flows ($*); dump exit $rc"
tail -1 "$T/out"
awk -v b="$bytes" -v e="$el" -v u="$us" -v s="$sy" -v m="$rss" 'BEGIN {
  printf "%.2f s (user %.2f, sys %.2f): %.0f MB/s; peak memory %.1f MiB\n", e, u, s, b / 1e6 / (e > 0 ? e : 0.01), m / 1024 }'
