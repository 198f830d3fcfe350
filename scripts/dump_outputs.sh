#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs `ddpwire dump` over every capture under tests/data (and the pcap
# inputs of fuzz/corpus/fuzz_dump) with several option sets, and writes
# each run's stdout and exit status under OUTDIR. Two trees made by two
# builds are compared with `diff -r`: a refactoring must leave them equal.
#
#   scripts/dump_outputs.sh DDPWIRE_BINARY OUTDIR
set -uo pipefail
bin=${1:?usage: dump_outputs.sh DDPWIRE_BINARY OUTDIR}
out=${2:?usage: dump_outputs.sh DDPWIRE_BINARY OUTDIR}
cd "$(dirname "$0")/.."
mkdir -p "$out"
variants=("" "-v" "--json" "--framing mpa -v" "--framing ift -v" "--framing none --json"
          "--markers off --crc off -v" "--mpa-start 7000 -v" "--max-flows 1 --store 0 --json")
is_capture() { # pcap, pcap-ns or pcapng magic
  local m; m=$(od -An -tx1 -N4 "$1" | tr -d ' ')
  case "$m" in d4c3b2a1|a1b2c3d4|4d3cb2a1|a1b23c4d|0a0d0d0a) return 0;; esac
  return 1
}
n=0
while IFS= read -r f; do
  is_capture "$f" || continue
  name=$(echo "$f" | tr '/' '_')
  for i in "${!variants[@]}"; do
    # shellcheck disable=SC2086
    "$bin" dump --no-progress ${variants[$i]} "$f" > "$out/$name.$i.out" 2>&1
    echo "exit $?" >> "$out/$name.$i.out"
    n=$((n + 1))
  done
done < <(find tests/data fuzz/corpus/fuzz_dump -type f | sort)
echo "$n runs written to $out"
