#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Judges a ddpwire tcprdma synth capture from tshark's fields alone.

Input (stdin): tshark -T fields -E separator=/t with the fields
  frame.number tcp.srcport tcp.dstport tcp.seq_raw tcp.len tcp.flags.syn
  tcp.options tcp.option_kind tcp.option_len tcp.payload _ws.malformed
  tcp.checksum.status ip.checksum.status (checksums checked: -o
  tcp.check_checksum:TRUE -o ip.check_checksum:TRUE)
Arguments: WORKLOAD SERVER_PORT [--layout SPEC] [--table 1|2] [--no-abit]

The reply stream is reassembled from tshark's payloads, and where each
transfer's data lies is found by parsing the application protocol (NFSv3
READ replies, HTTP/1.1 responses, SMB READ_ANDX responses) or the layout
spec -- written here from the protocol texts, not from ddpwire's code.
Every frame must be TCP, not malformed, with good checksums (IPv4 and TCP).
Then, for every reply segment, the TCP RDMA option (kind 25) must be there
with length 16 or 20 exactly when the segment carries transfer data, and
say exactly which octets (data offset, data length), where they go (buffer
offset), the RID of section 5, the total length, the U bit, and the A bit
exactly on segments that start a message; tshark's own option kinds and
lengths must agree with the octets. --table compares the data segments with
the tables of section 4 of the TCP RDMA option text.
"""
import struct
import sys

fails = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond and len(fails) < 30:
        fails.append(what)


def parse_options(raw):
    """[(offset, kind, octets)] of a TCP options area."""
    out, i = [], 0
    while i < len(raw):
        k = raw[i]
        if k == 0:
            break
        if k == 1:
            out.append((i, 1, raw[i:i + 1]))
            i += 1
            continue
        n = raw[i + 1]
        out.append((i, k, raw[i:i + n]))
        i += n
    return out


def rdma_opt(raw):
    """The first option of kind 25 with length 2/4/16/20 (3.3), decoded."""
    for off, k, o in parse_options(raw):
        if k == 25 and len(o) in (2, 4, 16, 20):
            d = {'off': off, 'len': len(o), 'a': 0, 'u': 0, 'rid': 0}
            if len(o) >= 4:
                d['a'], d['u'] = o[2] >> 7, (o[2] >> 6) & 1
                d['rid'] = (struct.unpack('!H', o[2:4])[0] & 0x3fff) << 32
            if len(o) >= 16:
                d['rid'] |= struct.unpack('!I', o[4:8])[0]
                d['buf'], d['doff'], d['dlen'] = struct.unpack('!IHH', o[8:16])
            if len(o) == 20:
                d['total'] = struct.unpack('!I', o[16:20])[0]
            return d
    return None


# ---- where the transfers are, from the application protocol ----

def nfs(s):
    xfers, msgs, pos = [], [], 0
    while pos + 4 <= len(s):
        rec = struct.unpack('!I', s[pos:pos + 4])[0] & 0x7fffffff
        body = pos + 4
        msgs.append(pos)
        xid, = struct.unpack('!I', s[body:body + 4])
        n, = struct.unpack('!I', s[body + 124:body + 128])  # opaque data<> length
        xfers.append({'rid': xid, 'ranges': [(body + 128, n, 0)], 'total': n, 'u': 0})
        pos = body + rec
    return xfers, msgs


def http(s):
    xfers, msgs, pos, i = [], [], 0, 0
    while pos < len(s):
        msgs.append(pos)
        end = s.index(b'\r\n\r\n', pos)
        n = 0
        for line in s[pos:end].split(b'\r\n'):
            if line.lower().startswith(b'content-length:'):
                n = int(line.split(b':')[1])
        xfers.append({'rid': i, 'ranges': [(end + 4, n, 0)], 'total': n, 'u': 0})
        pos, i = end + 4 + n, i + 1
    return xfers, msgs


def cifs(s):
    xfers, msgs, pos = [], [], 0
    while pos < len(s):
        msgs.append(pos)
        length = struct.unpack('!I', s[pos:pos + 4])[0] & 0xffffff
        smb = pos + 4
        assert s[smb:smb + 4] == b'\xffSMB' and s[smb + 4] == 0x2e
        pid, = struct.unpack('<H', s[smb + 26:smb + 28])
        mid, = struct.unpack('<H', s[smb + 30:smb + 32])
        n, doff = struct.unpack('<HH', s[smb + 43:smb + 47])  # DataLength, DataOffset
        xfers.append({'rid': pid << 16 | mid, 'ranges': [(smb + doff, n, 0)],
                      'total': n, 'u': 0})
        pos = smb + length
    return xfers, msgs


def layout(spec, s):
    xfers, msgs, pos, cur = [], [], 0, None
    for tok in spec.split(','):
        c, n = tok[0], int(tok[2:], 0) if ':' in tok else 0
        if c in 'ms':
            if c == 'm':
                msgs.append(pos)
            pos += n
            continue
        if c == 'n':
            cur = None
            continue
        if c == 'z' or cur is None:
            cur = {'rid': len(xfers) + 1, 'ranges': [], 'u': 0, 'boff': 0}
            xfers.append(cur)
        if c == 'u':
            cur['u'] = 1
        elif c == 'o':
            cur['boff'] = n
        elif c in 'dz':
            n = 0 if c == 'z' else n
            b = cur['boff'] + sum(r[1] for r in cur['ranges'])
            cur['ranges'].append((pos, n, b - cur['boff']))
            pos += n
            if c == 'z':
                cur = None
    for x in xfers:
        x['total'] = sum(r[1] for r in x['ranges'])
        x['ranges'] = [(o, n, b + x['boff']) for o, n, b in x['ranges']]
    assert pos == len(s), 'layout length %d, stream %d' % (pos, len(s))
    return xfers, msgs


# Section 4: (sequence number, buffer offset, data offset, data length)
TABLES = {
    '1': [(0, 0, 100, 900), (1000, 900, 0, 1000), (2000, 1900, 0, 100),
          (2200, 2000, 100, 900), (3200, 2900, 0, 1000), (4200, 3900, 0, 100)],
    '2': [(0, 0, 100, 900), (1000, 900, 0, 1000), (2000, 1900, 0, 100),
          (2300, 2000, 0, 1000), (3300, 3000, 0, 1000)],
}


def main():
    args = sys.argv[1:]
    kind, sport = args[0], int(args[1])
    spec = args[args.index('--layout') + 1] if '--layout' in args else None
    table = args[args.index('--table') + 1] if '--table' in args else None
    abit = '--no-abit' not in args
    no_total = '--no-total' in args
    rows = []
    for line in sys.stdin:
        f = line.rstrip('\n').split('\t')
        f += [''] * (13 - len(f))
        check(f[1] != '' and f[10] == '' and f[11] == '1' and f[12] in ('', '1'),
              'frame %s: not TCP, malformed or a bad checksum: %s' % (f[0], f[10:13]))
        if not f[1]:
            continue
        rows.append({'n': int(f[0]), 'sport': int(f[1]), 'seq': int(f[3]), 'len': int(f[4]),
                     'syn': f[5] in ('1', 'True'), 'opts': bytes.fromhex(f[6].replace(':', '')),
                     'kinds': [int(k) for k in f[7].split(',') if k],
                     'lens': [int(k) for k in f[8].split(',') if k],
                     'pl': bytes.fromhex(f[9].replace(':', ''))})
    isn = [r['seq'] for r in rows if r['sport'] == sport and r['syn']][0]
    stream = bytearray()
    for r in rows:
        if r['sport'] == sport and r['len'] and not r['syn']:
            off = (r['seq'] - isn - 1) % (1 << 32)
            r['off'] = off
            if len(stream) < off + r['len']:
                stream.extend(b'\0' * (off + r['len'] - len(stream)))
            stream[off:off + r['len']] = r['pl']
    stream = bytes(stream)
    xfers, msgs = {'nfs': nfs, 'http': http, 'cifs': cifs}[kind](stream) if spec is None \
        else layout(spec, stream)
    zero_seen = set()
    data_rows = []
    for r in rows:
        d = rdma_opt(r['opts'])
        # tshark's kinds and lengths agree with the octets
        ours = parse_options(r['opts'])
        check(r['kinds'] == [k for _, k, _ in ours], 'frame %d: tshark kinds %s' % (r['n'], r['kinds']))
        check(r['lens'] == [len(o) for _, k, o in ours if k != 1],
              'frame %d: tshark lengths %s' % (r['n'], r['lens']))
        if r['syn']:
            check(d is not None and d['len'] == 2, 'frame %d: SYN without kind 25 length 2' % r['n'])
            check(d is None or d['off'] % 4 == 0, 'frame %d: SYN option misaligned (3.1.8)' % r['n'])
            continue
        if r['sport'] != sport or not r['len']:
            check(d is None, 'frame %d: kind 25 on a segment without reply data' % r['n'])
            continue
        s, e = r['off'], r['off'] + r['len']
        hits = []
        for x in xfers:
            for o, n, b in x['ranges']:
                a, z = max(o, s), min(o + n, e)
                if a < z:
                    hits.append((x, a, z, b + (a - o)))
        check(len(hits) <= 1, 'frame %d: data of %d ranges in one segment' % (r['n'], len(hits)))
        check(d is None or d['off'] % 4 == 0, 'frame %d: option misaligned (3.1.8)' % r['n'])
        want_a = int(abit and s in msgs)
        check((d['a'] if d else 0) == want_a, 'frame %d: A bit, want %d' % (r['n'], want_a))
        if hits:
            x, a, z, b = hits[0]
            data_rows.append(((r['seq'] - isn - 1) % (1 << 32), b, a - s, z - a))
            ok = d is not None and d['len'] == (16 if no_total else 20) and d['rid'] == x['rid'] \
                and d['doff'] == a - s and d['dlen'] == z - a and d['buf'] == b and \
                d['u'] == x['u'] and (no_total or d['total'] == x['total'])
            check(ok, 'frame %d: option %s, want RID %#x data %d+%d buffer %d total %d' %
                  (r['n'], d, x['rid'], a - s, z - a, b, x['total']))
            check(25 in r['kinds'] and (16 if no_total else 20) in r['lens'],
                  'frame %d: tshark does not show kind 25 with its length' % r['n'])
        elif d is not None and d['len'] >= 16:  # only a zero-length transfer here
            zs = [x for x in xfers if x['total'] == 0 and x['rid'] == d['rid'] and
                  x['ranges'][0][0] == s + d['doff']]
            check(d['dlen'] == 0 and len(zs) == 1, 'frame %d: option %s without data' % (r['n'], d))
            zero_seen.add(d['rid'])
        else:
            check(d is None or d['len'] == 4, 'frame %d: option %s' % (r['n'], d))
    for x in xfers:
        if x['total'] == 0:
            check(x['rid'] in zero_seen, 'zero-length transfer %#x has no option' % x['rid'])
    check(len(xfers) > 0, 'no transfers found in the reply')
    if table:
        seen, got = set(), []
        for row in data_rows:
            if row not in seen:
                seen.add(row)
                got.append(row)
        check(got == TABLES[table], 'section 4 table %s: %s' % (table, got))
    for f in fails:
        print('FAIL:', f)
    print('%d checks, %d failed (%d transfers, %d frames)' % (checks, len(fails), len(xfers), len(rows)))
    sys.exit(1 if fails else 0)


main()
