#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`ddpwire bench mpa` of several builds in alternation: ROUNDS rounds, in each
every build in turn at every size (pinned to CPU 1 with taskset); prints per
build, row and size the median (range) of GB/s, of the in-run ratio to
CRC-only (to memcpy for frame-into) and of ns per FPDU. Ratios measured in
alternation are what to compare on a noisy machine (docs/PERFORMANCE.md).

  scripts/bench_mpa_alt.py ROUNDS SIZES ROWS DDPWIRE...
  scripts/bench_mpa_alt.py 5 1460,4096,16384,64768 frame-iov,rx OLD/ddpwire NEW/ddpwire
"""
import json
import statistics
import subprocess
import sys

if len(sys.argv) < 5:
    sys.exit(__doc__)
rounds, sizes, rows, bins = int(sys.argv[1]), sys.argv[2].split(','), sys.argv[3].split(','), sys.argv[4:]
res = {}
for _ in range(rounds):
    for b in bins:
        for sz in sizes:
            out = subprocess.run(['taskset', '-c', '1', b, 'bench', 'mpa', '--size', sz, '--json'],
                                 capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                d = json.loads(line)
                if d.get('impl') in rows:
                    ratio = d.get('ratio_vs_crc', d.get('ratio_vs_memcpy', 0))
                    res.setdefault((b, d['impl'], int(sz)), []).append(
                        (d['octets_per_second'] / 1e9, ratio, d.get('nanoseconds_per_fpdu', 0)))
for k in sorted(res, key=lambda k: (k[1], k[2], k[0])):
    g, q, n = zip(*res[k])
    print('%-24s %-12s %6d  GB/s %6.2f (%5.2f-%5.2f)  ratio %.3f (%.3f-%.3f)  ns %.1f' %
          (k[0], k[1], k[2], statistics.median(g), min(g), max(g),
           statistics.median(q), min(q), max(q), statistics.median(n)))
