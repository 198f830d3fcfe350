#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares what `ddpwire dump --json` and tshark say about the captures of
tests/data/dump with expected.json (written by tests/lib/dump_caps.py).
Python 3 standard library only.

  dump_check.py check EXPECTED NAME RUN JSONL EXIT
                          `ddpwire dump --json` output and exit status for
                          run RUN of capture NAME (dump_test.sh)
  dump_check.py tshark EXPECTED NAME VTEXT [JSONL]
                          `tshark -V -O iwarp_mpa` text (and dump's FPDU
                          lines) for capture NAME (dump_tshark.sh)
  dump_check.py tshark-arp EXPECTED FIELDS
                          tshark's ARP fields of 15_ipoib.pcap

Every expected key is compared (None: not checked); hex strings and
numbers compare as numbers, addresses as addresses, rates to 4 decimals.
"""
import ipaddress
import json
import sys

sys.dont_write_bytecode = True  # no __pycache__ in tests/
from wire_pcap import parse_tshark_v  # noqa: E402 (next to this file)

DIRS = ('c2s', 's2c')


# ---------------------------------------------------------------- tshark


def tshark_limit(recs, markers, ts_markers):
    """How many FPDUs from the first tshark 4.0 frames as we do: it needs
    both RFC 5044 frames; it assumes markers both ways when either frame
    set M (ts_markers); with markers, it wants one whole FPDU per segment
    (kept to what it was seen to manage) and loses the framing at an FPDU
    that ends on a 512-octet MPA position and holds a marker."""
    if markers != ts_markers:
        return 0
    for i, r in enumerate(recs):
        if r['crc'] == 'missing' or r['resync']:
            return i
        if markers and (r['packed'] or r['segments'] != 1):
            return i
        if markers and (r['pos'] + r['fpdu_len']) % 512 == 0 and r['fpdu_len'] >= 512:
            return i
    return len(recs)


def cmd_tshark(a):
    """tshark EXPECTED NAME VTEXT [DUMP_JSONL]: prints what tshark said
    next to what we expect (and dump said); exit 1 when they disagree on
    an FPDU tshark frames (tshark_limit)."""
    exp = {c['file']: c for c in json.load(open(a[0]))['captures']}[a[1]]
    pdus = parse_tshark_v(a[2])
    dump = None
    if len(a) > 3:
        dump = []
        for line in open(a[3], errors='replace'):
            try:
                o = json.loads(line)
            except ValueError:
                continue
            if isinstance(o, dict) and o.get('type') == 'fpdu':
                dump.append(o)
    fails = []
    for fl in [f for f in exp['flows'] if f['framing'] == 'mpa']:
        sport = {'c2s': int(fl['client'].rsplit(':', 1)[1]), 's2c': int(fl['server'].rsplit(':', 1)[1])}
        for d in DIRS:
            recs = fl[d]['fpdu']
            markers = fl[d]['mode']['markers']
            ts = [p for p in pdus if p[1] == sport[d] and p[2] == 'FPDU']
            su = [x for x in exp['startup'] if x['flow'] == fl['flow']]
            k = tshark_limit(recs, markers, any(x['markers'] for x in su)) if len(su) == 2 else 0
            agree = 0
            for r, p in zip(recs[:k], ts):
                want_ptr = [x['fpduptr'] for x in r.get('markers', [])]
                if (p[0], p[3], p[4]) != (r['last_pkt'], r['ulpdu_len'], r['crc']) or \
                        (markers and p[5] != want_ptr):
                    fails.append('%s %s FPDU #%d: tshark frame %d ULPDU %s CRC %s FPDUPTRs %s; expected frame %d '
                                 'ULPDU %d CRC %s FPDUPTRs %s' % (a[1], d, r['index'], p[0], p[3], p[4], p[5],
                                                                  r['last_pkt'], r['ulpdu_len'], r['crc'], want_ptr))
                    break
                agree += 1
            if agree < k:
                if len(ts) < k and agree == len(ts):
                    fails.append('%s %s: tshark decoded %d FPDUs, %d expected' % (a[1], d, len(ts), k))
            if dump is not None:
                dd = [o for o in dump if o.get('flow') == fl['flow'] and o.get('dir') == d]
                for r, p in zip(recs[:k], ts):
                    g = dd[r['index']] if r['index'] < len(dd) else {}
                    if (g.get('last_pkt'), g.get('ulpdu_len'), g.get('crc')) != (p[0], p[3], p[4]):
                        fails.append('%s %s FPDU #%d: tshark says frame %d ULPDU %s CRC %s, dump says frame %s '
                                     'ULPDU %s CRC %s' % (a[1], d, r['index'], p[0], p[3], p[4], g.get('last_pkt'),
                                                         g.get('ulpdu_len'), g.get('crc')))
                        break
            crcs = ''.join({'good': 'g', 'bad': 'B', 'off': 'o', 'missing': 'm'}.get(r['crc'], '?') for r in recs)
            tcrc = ''.join({'good': 'g', 'bad': 'B', 'off': 'o'}.get(p[4], '?') for p in ts)
            print('%s %s: %d FPDUs (%s), tshark frames the first %d; it decoded %d (%s), agreeing on %d' %
                  (a[1], d, len(recs), crcs, k, len(ts), tcrc, agree))
    for f in fails:
        print('FAIL: ' + f)
    sys.exit(1 if fails else 0)


def cmd_tshark_arp(a):
    """tshark-arp EXPECTED FIELDS: tshark's ARP fields of 15_ipoib.pcap
    (frame, hw type, hw size, opcode, sender hw, sender IP, target hw,
    target IP, GRH source QPN, destination QPN) against the expectation."""
    exp = {c['file']: c for c in json.load(open(a[0]))['captures']}['15_ipoib.pcap']
    rows = [l.rstrip('\n').split('\t') for l in open(a[1]) if l.strip()]
    fails = []

    def hw(x):
        return '%02x%06x%s' % (x['flags'], x['qpn'], ipaddress.IPv6Address(x['gid']).packed.hex())
    if len(rows) != len(exp['ipoib']):
        fails.append('tshark shows %d ARP frames, expected %d' % (len(rows), len(exp['ipoib'])))
    for r, e in zip(rows, exp['ipoib']):
        r += [''] * (10 - len(r))
        x = e['arp']
        want = [str(e['pkt']), '32', '20', str(x['op']), hw(x['sender']), x['sender_ip'], hw(x['target']),
                x['target_ip']]
        got = r[:4] + [r[4].replace(':', ''), r[5], r[6].replace(':', ''), r[7]]
        if got != want:
            fails.append('frame %s: tshark %s, expected %s' % (r[0], got, want))
        qpn = r[8] or r[9]
        wq = x['sender']['qpn'] if x['op'] == 1 else x['target']['qpn']
        if not qpn or int(qpn, 16) != wq:
            fails.append('frame %s: pseudo-header QPN %s, expected 0x%06x' % (r[0], qpn, wq))
    print('15_ipoib.pcap: tshark decoded %d ARP frames%s' % (len(rows), '' if fails else ', as expected'))
    for f in fails:
        print('FAIL: ' + f)
    sys.exit(1 if fails else 0)


# ---------------------------------------------------------------- dump --json


def _num(v):
    """Hex strings ("0x80") and numbers compare as numbers."""
    if isinstance(v, str) and v.startswith('0x'):
        return int(v, 16)
    return v


def _same(want, got):
    if isinstance(want, float) or isinstance(got, float):
        # rates: 4 decimals are enough
        return isinstance(got, (int, float)) and not isinstance(got, bool) and abs(want - got) <= 5e-5
    if isinstance(want, str) and ':' in want and isinstance(got, str):
        try:
            return ipaddress.ip_address(want) == ipaddress.ip_address(got)
        except ValueError:
            pass
    return _num(want) == _num(got)


def _diff(want, got, where, out):
    """Every key of want (None: not checked) must be in got, equal."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            out.append('%s: %r, expected an object' % (where, got))
            return
        for k, v in want.items():
            if v is None:
                continue
            if k not in got:
                out.append('%s: no "%s" (expected %r)' % (where, k, v))
            else:
                _diff(v, got[k], '%s.%s' % (where, k), out)
    elif isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            out.append('%s: %r, expected %r' % (where, got, want))
            return
        for i, (w, g) in enumerate(zip(want, got)):
            _diff(w, g, '%s[%d]' % (where, i), out)
    elif not _same(want, got):
        out.append('%s: %r, expected %r' % (where, got, want))


# The event kinds DUMP.md lists.
EVENT_KINDS = {'startup_bad', 'start', 'no_start', 'crc', 'marker', 'marker_reserved', 'pad', 'length', 'gap',
               'sync_lost', 'resync', 'truncated', 'mode', 'retransmit', 'overlap', 'mismatch', 'out_of_order',
               'dropped', 'out_of_window', 'after_fin', 'rst', 'header_crc', 'payload_crc', 'size', 'no_sync'}


def cmd_check(a):
    """check EXPECTED NAME RUN JSONL EXIT: compares `ddpwire dump --json`
    output (JSONL) and exit status with the expectations of capture NAME;
    prints the differences, exit 1 if any."""
    exp = {c['file']: c for c in json.load(open(a[0]))['captures']}[a[1]]
    run, rc = exp['runs'][int(a[2])], int(a[4])
    out = []
    where = '%s %s' % (a[1], ' '.join(run['args']) or '(no options)')
    if rc != run['exit']:
        out.append('exit status %d, expected %d' % (rc, run['exit']))
    lines = []
    for n, line in enumerate(open(a[3], errors='replace'), 1):
        try:
            o = json.loads(line)
        except ValueError:
            out.append('line %d is not JSON: %s' % (n, line.strip()[:100]))
            continue
        if not isinstance(o, dict) or 'type' not in o:
            out.append('line %d has no "type": %s' % (n, line.strip()[:100]))
            continue
        lines.append(o)
    by = {}
    for o in lines:
        by.setdefault(o['type'], []).append(o)
    known = {'fpdu', 'ift', 'startup', 'event', 'tcpopt', 'ipoib', 'flow', 'summary'}
    for t in by:
        if t not in known:
            out.append('unknown line type "%s"' % t)
    # summary: the last line
    if not lines or lines[-1]['type'] != 'summary':
        out.append('the last line is not the summary')
    else:
        sm = lines[-1]
        _diff({'packets': exp['packets'], 'tcp_packets': exp['tcp_packets'], 'flows': len(exp['flows']),
               'exit': rc}, sm, 'summary', out)
        pe, inc = sm.get('protocol_errors'), sm.get('incomplete')
        ok = {0: pe == 0 and inc == 0, 1: isinstance(pe, int) and pe > 0,
              3: pe == 0 and isinstance(inc, int) and inc > 0}.get(run['exit'], True)
        if not ok:
            out.append('summary: protocol_errors %r, incomplete %r for exit %d' % (pe, inc, run['exit']))
    # per FPDU / IFT frame, per flow and direction, in stream order
    for t, key in (('fpdu', 'fpdu'), ('ift', None)):
        got = {}
        for o in by.get(t, []):
            got.setdefault((o.get('flow'), o.get('dir')), []).append(o)
        want = {}
        if key:
            for fl in exp['flows']:
                for d in DIRS:
                    if d in fl and fl[d][key]:
                        want[(fl['flow'], d)] = fl[d][key]
        else:
            for f in exp['ift']:
                want.setdefault((f['flow'], f['dir']), []).append(f)
        for k in sorted(set(want) | set(got), key=str):
            w, g = want.get(k, []), got.get(k, [])
            if len(w) != len(g):
                out.append('flow %s %s: %d %s lines, expected %d' % (k[0], k[1], len(g), t, len(w)))
            for i, (x, y) in enumerate(zip(w, g)):
                _diff(x, y, 'flow %s %s %s #%d' % (k[0], k[1], t, i), out)
    # flows
    gf = {o.get('flow'): o for o in by.get('flow', [])}
    if len(by.get('flow', [])) != len(exp['flows']):
        out.append('%d flow lines, expected %d' % (len(by.get('flow', [])), len(exp['flows'])))
    bad_flows = {e['flow'] for e in exp['events'] if e['kind'] in ('crc', 'marker', 'payload_crc', 'header_crc')}
    bad_flows |= {o['flow'] for o in exp['tcpopt'] if not o['valid']}
    for fl in exp['flows']:
        g = gf.get(fl['flow'])
        if g is None:
            out.append('no flow line for flow %d' % fl['flow'])
            continue
        w = {k: fl[k] for k in ('client', 'server', 'framing')}
        for d in DIRS:
            if d in fl:
                w[d] = fl[d]['summary']
        if run['exit'] != 3:
            w['ok'] = fl['flow'] not in bad_flows
        _diff(w, g, 'flow %d' % fl['flow'], out)
    # start-up frames, TCP RDMA options, IPoIB frames: all, in order
    for t, w in (('startup', exp['startup']), ('tcpopt', exp['tcpopt']), ('ipoib', exp['ipoib'])):
        g = by.get(t, [])
        if len(g) != len(w):
            out.append('%d %s lines, expected %d' % (len(g), t, len(w)))
        for i, (x, y) in enumerate(zip(w, g)):
            _diff(x, y, '%s #%d' % (t, i), out)
    # events: each expected one matched by a distinct actual one; no other
    # kinds; no other MPA error codes
    evs = by.get('event', [])
    used = set()
    for e in exp['events']:
        for i, g in enumerate(evs):
            if i not in used and all(_same(v, g.get(k)) for k, v in e.items()):
                used.add(i)
                break
        else:
            out.append('no event %s' % json.dumps(e, sort_keys=True))
    for i, g in enumerate(evs):
        if g.get('kind') not in EVENT_KINDS:
            out.append('event kind not in DUMP.md: %s' % json.dumps(g, sort_keys=True))
        elif g.get('kind') not in exp['allowed_events']:
            out.append('unexpected event %s' % json.dumps(g, sort_keys=True))
        elif i not in used and g.get('code') not in (0, None):
            out.append('unexpected error event %s' % json.dumps(g, sort_keys=True))
    for x in out[:40]:
        print('FAIL: %s: %s' % (where, x))
    if len(out) > 40:
        print('FAIL: %s: ... %d more' % (where, len(out) - 40))
    print('%s: %s' % (where, 'as expected' if not out else '%d differences' % len(out)))
    sys.exit(1 if out else 0)


def main():
    cmds = {'check': cmd_check, 'tshark': cmd_tshark, 'tshark-arp': cmd_tshark_arp}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        sys.exit(__doc__)
    cmds[sys.argv[1]](sys.argv[2:])


if __name__ == '__main__':
    main()
