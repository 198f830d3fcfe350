#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares what the Wireshark plugin shows (tshark -2 fields) with what
`ddpwire dump` says about the same capture. Standard library only.

  ws_check.py DUMP_V DUMP_JSONL TSHARK_FIELDS

DUMP_V: `dump -v` text; its ERROR lines give each error's packet and words.
DUMP_JSONL: `dump --json`; its fpdu and ift records are counted.
TSHARK_FIELDS: tshark -T fields -E occurrence=a -E aggregator='|' with
  frame.number, ddpwire.error, ddpwire.error.text, ddpwire.fpdu.role,
  ddpwire.ift.role (tab-separated, one line per frame).
Required: for every error dump names with a packet, the same words on that
frame (and no other error there); every error without a packet somewhere;
no error the plugin shows that dump does not; the same FPDU and IFT frame
counts. Prints one line of counts, or the differences (exit 1).
"""
import collections
import json
import re
import sys

LINE = re.compile(r'^flow \d+ (?:c2s|s2c) ERROR (.*)$')
IPOIB = re.compile(r'^pkt (\d+) ERROR (malformed IPoIB ARP)$')
PKT = re.compile(r' pkt (\d+)(?=: |$)')
OPT = re.compile(r'^(TCP RDMA option) pkt (\d+) (.*)$')


def dump_errors(path):
    """[(pkt or None, words)] of dump -v's ERROR lines."""
    out = []
    for line in open(path, encoding='utf-8', errors='replace'):
        line = line.rstrip('\n')
        m = IPOIB.match(line)
        if m:
            out.append((int(m.group(1)), m.group(2)))
            continue
        m = LINE.match(line)
        if not m:
            continue
        words = m.group(1)
        o = OPT.match(words)
        if o:
            out.append((int(o.group(2)), o.group(1) + ' ' + o.group(3)))
            continue
        p = PKT.search(words)
        if p:
            out.append((int(p.group(1)), words[:p.start()] + words[p.end():]))
        else:
            out.append((None, words))
    return out


def dump_counts(path):
    c = collections.Counter()
    for line in open(path, encoding='utf-8'):
        line = line.strip()
        if line:
            c[json.loads(line).get('type')] += 1
    return c


def split(v):
    return [x for x in v.split('|') if x] if v else []


def plugin(path):
    """{frame: [words]}, FPDUs, IFT frames (each counted where it starts)."""
    errs, fpdus, ifts = {}, 0, 0
    for line in open(path, encoding='utf-8', errors='replace'):
        f = line.rstrip('\n').split('\t')
        f += [''] * (5 - len(f))
        kinds, texts = split(f[1]), split(f[2])
        if len(kinds) != len(texts):
            raise SystemExit(f'frame {f[0]}: {len(kinds)} ddpwire.error, {len(texts)} texts')
        if texts:
            errs[int(f[0])] = texts
        fpdus += sum(r in ('whole', 'starts') for r in split(f[3]))
        ifts += sum(r in ('whole', 'starts') for r in split(f[4]))
    return errs, fpdus, ifts


def main():
    d_errs = dump_errors(sys.argv[1])
    counts = dump_counts(sys.argv[2])
    p_errs, fpdus, ifts = plugin(sys.argv[3])
    bad = []
    want = collections.defaultdict(collections.Counter)
    floating = collections.Counter()
    for pkt, words in d_errs:
        if pkt is None:
            floating[words] += 1
        else:
            want[pkt][words] += 1
    shown = collections.Counter()
    for frame, texts in p_errs.items():
        got = collections.Counter(texts)
        exp = want.get(frame, collections.Counter())
        extra = got - exp
        # what dump names with no packet may sit on any frame of its connection
        for w, n in list(extra.items()):
            take = min(n, floating[w])
            floating[w] -= take
            extra[w] -= take
        extra += collections.Counter()
        if extra:
            bad.append(f'frame {frame}: the plugin shows {dict(extra)} that dump does not')
        missing = exp - got
        if missing:
            bad.append(f'frame {frame}: dump names {dict(missing)}, the plugin does not')
        shown.update(texts)
    for frame, exp in want.items():
        if frame not in p_errs:
            bad.append(f'frame {frame}: dump names {dict(exp)}, the plugin shows no error')
    left = +floating
    if left:
        bad.append(f'errors without a packet not shown by the plugin: {dict(left)}')
    if fpdus != counts['fpdu']:
        bad.append(f'FPDUs: dump {counts["fpdu"]}, the plugin {fpdus}')
    if ifts != counts['ift']:
        bad.append(f'IFT frames: dump {counts["ift"]}, the plugin {ifts}')
    for b in bad:
        print(b)
    print(f'errors: dump {len(d_errs)}, plugin {sum(shown.values())} on {len(p_errs)} frames; '
          f'FPDUs {fpdus}/{counts["fpdu"]}; IFT frames {ifts}/{counts["ift"]}')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
