#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# docs/figures/*.svg, the figures of docs/ANALYSIS.md, from real runs:
# analyze packing and align measured over real TCP between two network
# namespaces (root), buffers from the simulator, placement on a capture of
# real Linux TCP with 1 % loss (tests/wire/placement_test.sh keeps it).
# usage: scripts/figures.sh DDPWIRE [OUTDIR (docs/figures)]   (`make figures`)
set -euo pipefail
D=$(readlink -f "$1")
HERE=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "${2:-$HERE/docs/figures}"
OUT=$(cd "${2:-$HERE/docs/figures}" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$HERE"
M=--measure
[ "$(id -u)" = 0 ] || { M=; echo "not root: packing and align without --measure" >&2; }
# the caption names the command as run here, relative to the source tree
rel=${OUT#"$HERE"/}
"$D" analyze packing $M --svg "$rel/packing.svg" > "$T/packing.txt"
"$D" analyze align $M --svg "$rel/align.svg" > "$T/align.txt"
"$D" analyze buffers --max-conns 100 --svg "$rel/buffers.svg" > "$T/buffers.txt"
if DW_KEEP_CAPTURE="$T/loss.pcap" bash tests/wire/placement_test.sh "$D" > "$T/pl.log" 2>&1 &&
  [ -s "$T/loss.pcap" ]; then
  cp "$T/loss.pcap" "$T/capture-1pct-loss.pcap"
  (cd "$T" && "$D" analyze placement --svg placement.svg capture-1pct-loss.pcap) > "$T/pl.txt"
  mv "$T/placement.svg" "$OUT/placement.svg"
else
  echo "no loss capture (placement_test.sh: $(tail -1 "$T/pl.log")); placement from a siw capture" >&2
  "$D" analyze placement --svg "$rel/placement.svg" tests/data/siw_storage/nfs_mtu1500_crc.pcap > "$T/pl.txt"
fi
# and a real siw capture (NFS over RDMA, MTU 1500): siw does not align
"$D" analyze placement --svg "$rel/placement-siw.svg" tests/data/siw_storage/nfs_mtu1500_crc.pcap > "$T/pl-siw.txt"
for f in packing align buffers placement placement-siw; do xmllint --noout "$OUT/$f.svg"; done
tail -n +1 "$T"/*.txt
