#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hand-built edge-case captures for `ddpwire dump`, and what it must say
about them: the independent oracle of tests/cli/dump_test.sh and
tests/cli/dump_tshark.sh. Python 3 standard library only; nothing here comes
from ddpwire's C code.

  dump_caps.py OUTDIR     writes the captures and OUTDIR/expected.json
                          (the committed ones are in tests/data/dump/)

tests/lib/dump_check.py compares what ddpwire dump and tshark say with
expected.json.

Everything is built from the spec texts (../../shared/specs): CRC32c
computed bit by bit (reflected 0x82F63B78, stored least significant octet
first), MPA framing (markers at every MPA position that is a multiple of
512, FPDUPTR back to the FPDU's first octet, 0 between FPDUs, pad to a
multiple of four, CRC over markers + header + ULPDU + pad), RFC 5044
start-up frames, IFT frames, the TCP RDMA option and IPoIB ARP; IPv4 and
TCP with correct checksums; pcap and pcapng files written by hand.

The expectations are the sender's ground truth: every FPDU as it was
built (position, offset, sequence number, lengths, markers, CRC as sent
and as it should be), and which captured packet first carried each of its
octets. Fields whose meaning DUMP.md leaves open for a capture (e.g. the
packing of a segment that re-sends old octets) are left out (None).
"""
import ipaddress
import json
import os
import struct
import sys

# ---------------------------------------------------------------- CRC32c

from wire_pcap import crc32c  # the capture tests' one CRC32c (tests/lib)


def crc_le(c):
    return struct.pack('<I', c)


def _selftest():
    assert crc32c(b'123456789') == 0xE3069283
    # MPA 7.2 Figure 5: the first FPDU of a stream, 24 zero octets of Send
    f5 = bytes(4) + b'\x00\x2a' + bytes.fromhex('4003' + '00' * 11 + '01' + '00' * 4) + bytes(24)
    assert crc_le(crc32c(f5)) == bytes.fromhex('4c86b384')
    tx = MpaTx(markers=True, crc=True)
    w = tx.fpdu(bytes.fromhex('4003' + '00' * 11 + '01' + '00' * 4) + bytes(24))
    assert w == f5 + bytes.fromhex('4c86b384')
    # Figure 6: the second FPDU after a first one of 492 octets
    tx = MpaTx(markers=True, crc=True)
    first = tx.fpdu(bytes(482))
    assert len(first) == 492, len(first)
    w = tx.fpdu(bytes.fromhex('4003' + '00' * 11 + '02' + '00' * 4) + bytes(24))
    assert w[:2] == b'\x00\x2a' and w[20:24] == bytes.fromhex('00000014')
    assert w[-4:] == bytes.fromhex('a19cd103'), w[-4:].hex()


# ---------------------------------------------------------------- MPA


def pad_of(n):
    return (4 - (2 + n) % 4) % 4


class MpaTx:
    """An MPA sender for one direction; keeps the ground truth of every
    FPDU it builds (positions relative to MPA position 0)."""

    def __init__(self, markers, crc, rfc_ptr=False):
        self.markers, self.crc, self.rfc_ptr = markers, crc, rfc_ptr
        self.pos = 0
        self.fpdus = []

    def fpdu(self, ulpdu, bad_crc=False, bad_ptr=None, corrupt_at=None):
        """Wire octets of one FPDU. bad_ptr: {marker position: function of
        the right FPDUPTR giving the one to send}; bad_crc: a wrong CRC field; corrupt_at: index in the
        ULPDU of an octet flipped after the CRC was computed."""
        start = self.pos
        body = struct.pack('>H', len(ulpdu)) + ulpdu + bytes(pad_of(len(ulpdu)))
        out = bytearray()
        marks = []
        cur = start
        uoff = []  # wire index of each ULPDU octet

        def marker():
            nonlocal cur
            exp = 0 if cur == start else cur - start
            ptr = exp
            if self.rfc_ptr and start % 512 == 0 and cur != start:
                ptr = exp - 4
            if bad_ptr and cur in bad_ptr:
                ptr = bad_ptr[cur](exp)
            ok = (ptr & ~3) == exp or (start % 512 == 0 and cur != start and (ptr & ~3) == exp - 4)
            marks.append({'pos': cur, 'wire': len(out), 'fpduptr': ptr, 'expected': exp, 'ok': ok})
            out.extend(struct.pack('>HH', 0, ptr))
            cur += 4

        for i, b in enumerate(body):
            if self.markers and cur % 512 == 0:
                marker()
            if 2 <= i < 2 + len(ulpdu):
                uoff.append(len(out))
            out.append(b)
            cur += 1
        if self.markers and cur % 512 == 0:
            marker()  # after the pad, before the CRC: inside this FPDU
        calc = crc32c(bytes(out))
        wire = calc if self.crc else 0
        if bad_crc:
            wire = calc ^ 0x00010000
        out.extend(crc_le(wire))
        cur += 4
        assert cur % 4 == 0 and (not self.markers or all(m['pos'] % 512 == 0 for m in marks))
        if corrupt_at is not None:
            out[uoff[corrupt_at]] ^= 0x10
            calc = crc32c(bytes(out[:-4]))
        verdict = 'off' if not self.crc else ('good' if calc == wire else 'bad')
        self.fpdus.append({'pos': start, 'ulpdu_len': len(ulpdu), 'pad': pad_of(len(ulpdu)),
                           'fpdu_len': len(out), 'crc': verdict, 'crc_wire': wire, 'crc_calc': calc,
                           'markers': marks})
        self.pos = cur
        return bytes(out)


def startup(kind, m, c, r=False, pd=b''):
    key = b'MPA ID Req Frame' if kind == 'request' else b'MPA ID Rep Frame'
    fl = (0x80 if m else 0) | (0x40 if c else 0) | (0x20 if r else 0)
    return key + bytes([fl, 1]) + struct.pack('>H', len(pd)) + pd


class Rand:
    def __init__(self, seed):
        self.x = seed & 0xFFFFFFFF

    def bytes(self, n):
        out = bytearray()
        for _ in range(n):
            self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
            out.append((self.x >> 16) & 0xFF)
        return bytes(out)


def send_ulpdu(msn, n, rnd):
    """An untagged DDP Send (RDMAP Send, queue 0, last) as Figure 5, but with
    the DDP and RDMAP versions of RFC 5041 and RFC 5040 (1, not the draft's 0)."""
    hdr = bytes([0x41, 0x43]) + bytes(4) + struct.pack('>III', 0, msn, 0)
    assert n >= 18
    return hdr + rnd.bytes(n - 18)


# ---------------------------------------------------------------- IP/TCP


def csum(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('>%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


FIN, SYN, RST, PSH, ACK = 1, 2, 4, 8, 16


def tcp_ipv4(src, dst, sport, dport, seq, ack, flags, payload, opts=b'', ipid=0):
    assert len(opts) % 4 == 0
    thl = 20 + len(opts)
    tcp = struct.pack('>HHIIBBHHH', sport, dport, seq, ack, (thl // 4) << 4, flags, 65535, 0, 0) + opts + payload
    s, d = ipaddress.IPv4Address(src).packed, ipaddress.IPv4Address(dst).packed
    ph = s + d + struct.pack('>BBH', 0, 6, len(tcp))
    c = csum(ph + tcp)
    tcp = tcp[:16] + struct.pack('>H', c) + tcp[18:]
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(tcp), ipid, 0x4000, 64, 6, 0, s, d)
    ip = ip[:10] + struct.pack('>H', csum(ip)) + ip[12:]
    return ip + tcp


MAC_C = bytes.fromhex('020000000001')
MAC_S = bytes.fromhex('020000000002')


def link_wrap(linktype, ip, from_client):
    if linktype == 1:
        src, dst = (MAC_C, MAC_S) if from_client else (MAC_S, MAC_C)
        return dst + src + b'\x08\x00' + ip
    if linktype == 276:  # SLL2: protocol, reserved, ifindex, ARPHRD, pkttype, addr len, addr
        return struct.pack('>HHIHBB', 0x0800, 0, 2, 1, 4 if from_client else 0, 6) + \
            (MAC_C if from_client else MAC_S) + b'\0\0' + ip
    if linktype == 101:
        return ip
    raise ValueError(linktype)


class Capture:
    def __init__(self, linktype=1, snaplen=65535):
        self.linktype, self.snaplen = linktype, snaplen
        self.recs = []  # (frame as captured, original length)
        self.meta = []  # per packet: dict

    def add(self, frame, meta=None):
        self.recs.append((frame[:self.snaplen], len(frame)))
        self.meta.append(meta or {})
        return len(self.recs)

    @staticmethod
    def usec(i):
        """Time stamp of packet i in microseconds."""
        return 1700000000 * 1000000 + i * 1000

    def pcap(self):
        out = bytearray(struct.pack('<IHHiIII', 0xA1B2C3D4, 2, 4, 0, 0, self.snaplen, self.linktype))
        for i, (f, orig) in enumerate(self.recs):
            out += struct.pack('<IIII', *divmod(self.usec(i), 1000000), len(f), orig) + f
        return bytes(out)

    def pcapng(self):
        def block(t, body):
            n = 12 + len(body)
            return struct.pack('<II', t, n) + body + struct.pack('<I', n)

        def opt(code, val):
            return struct.pack('<HH', code, len(val)) + val + bytes((-len(val)) % 4)
        shb = struct.pack('<IHHq', 0x1A2B3C4D, 1, 0, -1) + opt(4, b'dump_caps.py') + opt(0, b'')
        idb = struct.pack('<HHI', self.linktype, 0, self.snaplen) + opt(2, b'eth0') + opt(0, b'')
        out = bytearray(block(0x0A0D0D0A, shb) + block(1, idb))
        for i, (f, orig) in enumerate(self.recs):
            t = self.usec(i)
            body = struct.pack('<IIIII', 0, t >> 32, t & 0xFFFFFFFF, len(f), orig) + f + bytes((-len(f)) % 4)
            out += block(6, body)
        return bytes(out)


DIRS = ('c2s', 's2c')


class Conn:
    """One TCP connection in a capture. Each direction's stream is kept
    whole (what the sender wrote); segments say which octets went in
    which packet, captured or not."""

    def __init__(self, cap, cport=40000, sport=5000, cip='10.0.0.1', sip='10.0.0.2',
                 isn_c=1000, isn_s=5000):
        self.cap = cap
        self.ep = {'c2s': (cip, cport, sip, sport), 's2c': (sip, sport, cip, cport)}
        self.isn = {'c2s': isn_c, 's2c': isn_s}
        self.stream = {d: bytearray() for d in DIRS}
        self.segs = {d: [] for d in DIRS}  # (pkt, off, len, captured payload octets)
        self.pkts = {d: 0 for d in DIRS}
        self.fin = {d: False for d in DIRS}
        self.ipid = 1
        self.client, self.server = '%s:%d' % (cip, cport), '%s:%d' % (sip, sport)

    def _pkt(self, d, seq, flags, payload=b'', opts=b'', capture=True):
        src, sp, dst, dp = self.ep[d]
        o = 's2c' if d == 'c2s' else 'c2s'
        ack = (self.isn[o] + 1 + len(self.stream[o]) + self.fin[o]) & 0xFFFFFFFF
        if flags & SYN and d == 'c2s':
            ack = 0
        if not flags & ACK:
            ack = 0
        ip = tcp_ipv4(src, dst, sp, dp, seq & 0xFFFFFFFF, ack, flags, payload, opts, self.ipid)
        self.ipid += 1
        if not capture:
            return None
        self.pkts[d] += 1
        hdr = len(link_wrap(self.cap.linktype, b'', d == 'c2s')) + 20 + 20 + len(opts)
        return self.cap.add(link_wrap(self.cap.linktype, ip, d == 'c2s'),
                            {'dir': d, 'hdr': hdr, 'plen': len(payload), 'conn': self})

    def handshake(self, opts=b''):
        self._pkt('c2s', self.isn['c2s'], SYN, opts=opts)
        self._pkt('s2c', self.isn['s2c'], SYN | ACK, opts=opts)
        self._pkt('c2s', self.isn['c2s'] + 1, ACK)

    def write(self, d, data):
        off = len(self.stream[d])
        self.stream[d] += data
        return off

    def seg(self, d, off, n, capture=True, opts=b'', flags=PSH | ACK):
        payload = bytes(self.stream[d][off:off + n])
        assert len(payload) == n
        p = self._pkt(d, self.isn[d] + 1 + off, flags, payload, opts, capture)
        if p is not None:
            f, orig = self.cap.recs[p - 1]
            got = max(0, min(n, len(f) - self.cap.meta[p - 1]['hdr']))
            self.segs[d].append((p, off, n, got))
        return p

    def cut(self, d, points, lost=()):
        """One segment for the octets between each two successive stream
        offsets of points; the k-th not captured when k is in lost."""
        for k, (a, b) in enumerate(zip(points, points[1:])):
            self.seg(d, a, b - a, capture=k not in lost)

    def send(self, d, data, capture=True, opts=b''):
        off = self.write(d, data)
        return self.seg(d, off, len(data), capture, opts)

    def ack(self, d):
        self._pkt(d, self.isn[d] + 1 + len(self.stream[d]) + self.fin[d], ACK)

    def close(self):
        for d in DIRS:
            self._pkt(d, self.isn[d] + 1 + len(self.stream[d]), FIN | ACK)
            self.fin[d] = True
        # the last ACK: the flow ended with the second FIN (DUMP.md), so
        # it is not one of the flow's packets
        self.ack('c2s')
        self.pkts['c2s'] -= 1

    def first_map(self, d):
        """For each stream octet: (pkt, segment offset, segment length) of
        the first captured packet that carried it, or None."""
        m = [None] * len(self.stream[d])
        for (p, off, n, got) in self.segs[d]:
            for i in range(off, off + got):
                if m[i] is None:
                    m[i] = (p, off, n)
        return m


# ---------------------------------------------------------------- expectations


def seq_of(conn, d, off):
    return (conn.isn[d] + 1 + off) & 0xFFFFFFFF


def _count(xs):
    return sum(1 for x in xs if x)


def mpa_expect(conn, d, tx, base):
    """Expected fpdu records and direction summary of one MPA direction.
    base: stream offset of MPA position 0. The checker sees every FPDU
    whose header was captured, resuming after a loss only at an FPDU that
    begins with a marker."""
    m = conn.first_map(d)
    n = len(conn.stream[d])
    recs = []
    in_sync, resync = True, False
    for f in tx.fpdus:
        off = base + f['pos']
        end = off + f['fpdu_len']
        hl = 6 if f['pos'] % 512 == 0 and tx.markers else 2
        head_ok = off + hl <= n and all(m[i] is not None for i in range(off, off + hl))
        if not head_ok or not in_sync and not (tx.markers and f['pos'] % 512 == 0):
            if in_sync:
                resync = True
            in_sync = False
            continue
        in_sync = True
        have = end <= n and all(m[i] is not None for i in range(off, end))
        r = {'index': len(recs), 'pos': f['pos'], 'offset': off, 'seq': seq_of(conn, d, off),
             'ulpdu_len': f['ulpdu_len'], 'pad': f['pad'], 'fpdu_len': f['fpdu_len'],
             'crc': f['crc'] if have else 'missing', 'resync': resync}
        resync = False
        if have:
            pk = [m[i] for i in range(off, end)]
            r['crc_wire'] = '0x%08x' % f['crc_wire']
            r['crc_calc'] = '0x%08x' % f['crc_calc']
            r['first_pkt'], r['last_pkt'] = pk[0][0], pk[-1][0]
            r['segments'] = len({p[0] for p in pk})
            r['aligned'] = pk[0][1] == off
            r['markers'] = [{'pos': x['pos'], 'seq': seq_of(conn, d, base + x['pos']),
                             'pkt': m[base + x['pos']][0], 'fpduptr': x['fpduptr'],
                             'expected': x['expected'], 'ok': x['ok']} for x in f['markers']]
        else:
            r['first_pkt'] = m[off][0]
        r['_span'] = (off, min(end, n))
        recs.append(r)
    # packing: a segment that carried (part of) this FPDU also carried
    # (part of) another. Judged on the octets each packet delivered first
    # and on all the octets it carried; left open (None) when they differ.
    owner = {}
    for i, r in enumerate(recs):
        for o in range(*r.pop('_span')):
            owner[o] = i
    seg_sets_first, seg_sets_wire, starts_first = {}, {}, {}
    for o, i in owner.items():
        if m[o] is not None:
            seg_sets_first.setdefault(m[o][0], set()).add(i)
    for (p, off, n_, got) in conn.segs[d]:
        for o in range(off, off + got):
            if o in owner:
                seg_sets_wire.setdefault(p, set()).add(owner[o])
    for i, r in enumerate(recs):
        if 'first_pkt' in r:
            starts_first.setdefault(r['first_pkt'], set()).add(i)
        a, b = (any(len(s) > 1 for s in sets.values() if i in s) for sets in (seg_sets_first, seg_sets_wire))
        r['packed'] = a if a == b else None
    # packing rate: packed segments over segments that began an FPDU
    v1, v2, v3 = (_count(len(sets.get(p, ())) > 1 for p in starts_first)
                  for sets in (seg_sets_first, seg_sets_wire, starts_first))
    prate = (v1 / len(starts_first) if starts_first else 0.0) if v1 == v2 == v3 else None
    aligned = _count(r.get('aligned') for r in recs)
    summ = {'fpdus': len(recs),
            'crc_errors': _count(r['crc'] == 'bad' for r in recs),
            'marker_errors': _count(not x['ok'] for r in recs for x in r.get('markers', [])),
            'aligned': aligned,
            'alignment_rate': aligned / len(recs) if recs else 0.0,
            'packing_rate': prate,
            'markers': sum(len(r.get('markers', [])) for r in recs),
            'ulpdu_octets': sum(r['ulpdu_len'] for r in recs)}
    if any(r['crc'] == 'missing' for r in recs):  # incomplete: left open
        summ.update(dict.fromkeys(('aligned', 'alignment_rate', 'packing_rate', 'markers', 'ulpdu_octets')))
    summ['packets'] = conn.pkts[d]
    return recs, summ


def ift_frame(hdr, payload, bad_payload_crc=False, bad_header_crc=False):
    sizes = struct.pack('>HH', len(hdr), len(payload))
    hc = crc32c(sizes + hdr)
    pc = crc32c(payload)
    hw = hc ^ (0x100 if bad_header_crc else 0)
    pw = pc ^ (0x100 if bad_payload_crc else 0)
    return sizes + hdr + crc_le(hw) + payload + crc_le(pw), hw == hc, pw == pc


def tcpopt(a, u, rid, boff, doff, dlen, total=None):
    o = struct.pack('>BBBB', 25, 20 if total is not None else 16,
                    (0x80 if a else 0) | (0x40 if u else 0) | (rid >> 40 & 0x3F), rid >> 32 & 0xFF)
    o += struct.pack('>IIHH', rid & 0xFFFFFFFF, boff, doff, dlen)
    if total is not None:
        o += struct.pack('>I', total)
    return o


def layout(pos, ulen, markers):
    """(end, CRC start) of an FPDU with ULPDU length ulen at MPA position pos."""
    cur = pos
    for _ in range(2 + ulen + pad_of(ulen)):
        if markers and cur % 512 == 0:
            cur += 4
        cur += 1
    if markers and cur % 512 == 0:
        cur += 4
    return cur + 4, cur


def ulen_where(tx, pred, lo=18, hi=3000):
    """The smallest ULPDU length from lo whose FPDU, sent next, satisfies
    pred(start, end, crc_start)."""
    for u in range(lo, hi):
        e, c = layout(tx.pos, u, tx.markers)
        if pred(tx.pos, e, c):
            return u
    raise ValueError('no length')


def gaps_of(conn, d):
    m = conn.first_map(d)
    runs, i = [], 0
    while i < len(m):
        if m[i] is None:
            j = i
            while j < len(m) and m[j] is None:
                j += 1
            runs.append((i, j - i))
            i = j
        else:
            i += 1
    return runs


def run(exit_, *args):
    """One `ddpwire dump` run of a capture: its arguments and exit status."""
    return {'args': list(args), 'exit': exit_}


class Scenario:
    def __init__(self, name, desc, linktype=1, snaplen=65535, fmt='pcap'):
        self.name, self.desc, self.fmt = name, desc, fmt
        self.cap = Capture(linktype, snaplen)
        self.flows = []
        self.events = []
        # milestones and TCP events any capture may show
        self.allowed = {'start', 'out_of_order', 'retransmit', 'overlap'}
        self.runs = [run(0)]
        self.ift = []
        self.tcpopt = []
        self.ipoib = []
        self.startups = []
        self.tshark = None

    def conn(self, syn_opts=b'', **kw):
        c = Conn(self.cap, **kw)
        c.handshake(syn_opts)
        return c

    def event(self, flow, d, kind, **kw):
        self.events.append(dict(kw, flow=flow, dir=d, kind=kind))

    def mpa_start(self, c, m_c2s=True, m_s2c=True, crc_c=True, crc_s=True, pd_c=b'', pd_s=b'',
                  rfc_s2c=False):
        """RFC 5044 request (client) and reply (server). The client's M asks
        for markers towards it (s2c), the server's towards it (c2s); CRC
        when either side sets C."""
        for d, kind, m, crc, pd in (('c2s', 'request', m_s2c, crc_c, pd_c), ('s2c', 'reply', m_c2s, crc_s, pd_s)):
            p = c.send(d, startup(kind, m, crc, pd=pd))
            self.startups.append({'flow': len(self.flows) + 1, 'dir': d, 'pkt': p, 'offset': 0, 'kind': kind,
                                  'markers': m, 'crc': crc, 'reject': False, 'rev': 1, 'pd_len': len(pd)})
        crc = crc_c or crc_s
        tx = {'c2s': MpaTx(m_c2s, crc), 's2c': MpaTx(m_s2c, crc, rfc_s2c)}
        base = {'c2s': 20 + len(pd_c), 's2c': 20 + len(pd_s)}
        return tx, base

    def mpa_flow(self, c, tx, base):
        fl = len(self.flows) + 1
        flow = {'flow': fl, 'client': c.client, 'server': c.server, 'framing': 'mpa'}
        for d in DIRS:
            recs, summ = mpa_expect(c, d, tx[d], base[d])
            g = gaps_of(c, d)
            summ['gaps'] = len(g)
            summ['gap_octets'] = sum(n for _, n in g)
            errs = []  # (code, offset): marker errors, then the CRC, FPDU by FPDU
            for r in recs:
                bad_m = [x for x in r.get('markers', []) if not x['ok']]
                errs += [(3, base[d] + x['pos']) for x in bad_m] + [(2, r['offset'])] * (r['crc'] == 'bad')
                if r['crc'] == 'bad':
                    self.event(fl, d, 'crc', code=2, offset=r['offset'])
                for x in bad_m:
                    self.event(fl, d, 'marker', code=3, offset=base[d] + x['pos'], seq=x['seq'], pkt=x['pkt'])
            summ['first_error'] = {'code': errs[0][0], 'offset': errs[0][1]} if errs else None
            flow[d] = {'fpdu': recs, 'summary': summ, 'mode': {'markers': tx[d].markers, 'crc': tx[d].crc}}
            for (o, n) in g:
                self.event(fl, d, 'gap', offset=o, len=n)
            if any(r['resync'] for r in recs):
                self.event(fl, d, 'resync')
                self.allowed.add('sync_lost')
        self.flows.append(flow)
        return flow

    def entry(self):
        pk = len(self.cap.recs)
        tcp = sum(1 for m in self.cap.meta if 'conn' in m)
        ex = {'file': self.name, 'desc': self.desc, 'runs': self.runs, 'packets': pk, 'tcp_packets': tcp,
              'flows': self.flows, 'startup': self.startups, 'events': self.events,
              'allowed_events': sorted(self.allowed | {e['kind'] for e in self.events}),
              'ift': self.ift, 'tcpopt': self.tcpopt, 'ipoib': self.ipoib, 'tshark': self.tshark}
        return ex

    def write(self, outdir):
        data = self.cap.pcapng() if self.fmt == 'pcapng' else self.cap.pcap()
        with open(os.path.join(outdir, self.name), 'wb') as f:
            f.write(data)


# ---------------------------------------------------------------- MPA sessions


def F(d, *sizes, seg=None, **kw):
    """A plan step (a function of the Session): FPDUs with these ULPDU
    lengths from d, one a segment unless seg groups them ([2, 1]: two in
    the first segment, one in the next); kw goes to MpaTx.fpdu. A length
    (lo, pred) is the smallest from lo whose FPDU satisfies pred(start,
    end, CRC start)."""
    return lambda s: s.send(d, sizes, seg, **kw)


class Session:
    """One MPA connection of a scenario: the handshake (syn_opts on SYN and
    SYN-ACK), prelude octets ({dir: octets}), the RFC 5044 frames (start:
    options of Scenario.mpa_start; False: none, markers and CRC from the
    first octet after the prelude), the two senders and the ULPDU octets'
    random source."""

    def __init__(self, sc, seed, conn=None, syn_opts=b'', prelude=None, start=None):
        self.sc, self.rnd = sc, Rand(seed)
        self.c = sc.conn(syn_opts, **(conn or {}))
        prelude = prelude or {}
        for d, data in prelude.items():
            self.c.send(d, data)
        if start is False:
            self.tx = {d: MpaTx(True, True) for d in DIRS}
            self.base = {d: len(prelude.get(d, b'')) for d in DIRS}
        else:
            self.tx, self.base = sc.mpa_start(self.c, **(start or {}))

    def fpdus(self, d, sizes, **kw):
        """Builds FPDUs (DDP Sends numbered on from the last) without sending."""
        t, out = self.tx[d], []
        for n in sizes:
            if isinstance(n, tuple):
                n = ulen_where(t, n[1], lo=n[0])
            out.append(t.fpdu(send_ulpdu(len(t.fpdus) + 1, n, self.rnd), **kw))
        return out

    def send(self, d, sizes, seg=None, opts=b'', **kw):
        wires = self.fpdus(d, sizes, **kw)
        groups = seg or [1] * len(wires)
        assert sum(groups) == len(wires)
        for k, g in enumerate(groups):
            self.c.send(d, b''.join(wires[sum(groups[:k]):sum(groups[:k + 1])]), opts=opts)
        return wires

    def write(self, d, sizes):
        """Builds FPDUs and writes them to d's stream unsent: their stream
        offsets, then the end of the stream (for Conn.cut)."""
        o = [self.c.write(d, w) for w in self.fpdus(d, sizes)]
        return o + [len(self.c.stream[d])]

    def finish(self, close=True):
        if close:
            self.c.close()
        return self.sc.mpa_flow(self.c, self.tx, self.base)


def planned(name, desc, seed, plan, runs=None, cap=None, close=True, events=(), **sess):
    """A capture of one MPA session: plan's steps (functions of the
    Session, e.g. F), then closed. runs: its `ddpwire dump` runs, or a
    function of the Session giving them; events: (dir, kind) that the
    expectations do not work out."""
    sc = Scenario(name, desc, **(cap or {}))
    s = Session(sc, seed, **sess)
    for step in plan:
        step(s)
    s.finish(close)
    for d, kind in events:
        sc.event(1, d, kind)
    if runs is not None:
        sc.runs = runs(s) if callable(runs) else runs
    return sc


CLEAN = [F('c2s', 42, 100, 1000), F('s2c', 480, 64), F('c2s', 18, 600, 333, 77), F('s2c', 1400, 19)]
CLEAN_START = {'pd_c': b'ddpwire-pd!'}
CLEAN_DESC = ('markers and CRC, FPDUs of varied sizes both ways, one per segment; 11 octets of private data '
              'in the request (c2s MPA position 0 at offset 31)')
AT_512K = [60, 61, 62, 63,
           (18, lambda s, e, cs: e == 512),  # ends at 512, no marker inside
           900,  # begins with the zero marker at 512, holds the one at 1024
           (18, lambda s, e, cs: cs % 512 == 4 and cs - 4 > s),  # marker before CRC
           (300, lambda s, e, cs: e % 512 == 0),  # ends at 512k again
           40, 41]
MODES = [F('c2s', 30, 600, 50, 1200, 19, seg=[2, 1, 1, 1]), F('s2c', 700, 40, 41, 42, seg=[1, 3])]
# name, what it shows, markers c2s and s2c, C of the client and the server
MODE_CAPS = [('09_nomarkers.pcap', 'no markers either way (both M = 0), CRC; some packed', False, False, True, True),
             ('09_nocrc.pcap', 'no CRC (both C = 0: CRC fields zero); markers s2c only (the client asked for them)',
              False, True, False, False),
             ('09_plain.pcap', 'neither markers nor CRC', False, False, False, False),
             ('09_crc_one_side.pcap', 'markers c2s only; only the server set C (CRC used both ways)',
              True, False, False, True)]
BANNER = b'DDPWIRE v1\r\n\0'


# ---------------------------------------------------------------- captures


def span3(s):
    # FPDU 1 starts at position 108; the marker at 512 is at wire index 404
    o = s.write('c2s', [100, 1400, 50])
    s.c.cut('c2s', [o[0], o[1], o[1] + 406, o[1] + 1000, o[2], o[3]])
    # s2c: the first FPDU cut after its marker and one octet of the length,
    # the next one inside its CRC
    o = s.write('s2c', [700, 30])
    s.c.cut('s2c', [o[0], o[0] + 5, o[0] + 300, o[1], o[2] - 2, o[2]])


def retransmit(s):
    o = s.write('c2s', [200, 300, 400, 250, 90])
    s.c.cut('c2s', o[:3])
    # the same octets again, cut differently, then one segment again
    s.c.cut('c2s', [o[0], o[0] + 100, o[1] + 60, o[2]])
    s.c.cut('c2s', o[1:3])
    # FPDU 2 lost upstream, FPDU 3 captured (held), then the hole refilled
    s.c.cut('c2s', o[2:5], lost=(0,))
    s.c.cut('c2s', [o[2], o[2] + 150, o[3] + 60])
    s.c.cut('c2s', [o[2] + 150, o[3] + 60])
    s.c.cut('c2s', o[4:6])


def gap(s):
    # FPDU 2: 904..1536, its marker at 1024 within the lost 200 octets
    o = s.write('c2s', [300, 580, (250, lambda st, e, cs: e == 1536), 100, 900, 30])
    assert o[2] - o[0] == 904 and s.tx['c2s'].fpdus[3]['pos'] % 512 == 0
    s.c.cut('c2s', o[:3] + [o[2] + 200] + o[3:], lost=(2,))


def cut_short(s):
    """FPDU 3 (c2s): only its first 100 octets sent, then the capture ends."""
    s.c.send('c2s', s.fpdus('c2s', [600])[0][:100])


def s08_cut():
    sc = planned('08_cut.pcap', 'the capture ends inside an FPDU (c2s; its first 100 octets captured, no FIN)',
                 9, [F('c2s', 100, 200), F('s2c', 100), cut_short], runs=[run(3)], close=False,
                 events=[('c2s', 'truncated')])
    del sc.flows[0]['c2s']['summary']['first_error']  # an MPA error 1 or none: DUMP.md does not say
    return sc


def s13_ift(bad):
    name = '13_ift_badcrc.pcap' if bad else '13_ift.pcap'
    sc = Scenario(name, 'IFT frames both ways (unaligned, several per segment, one over three '
                  'segments)' + ('; frame 2 of c2s with a bad payload CRC' if bad else ''))
    rnd = Rand(14)
    c = sc.conn()
    frames = {'c2s': [], 's2c': []}
    for d, plan in (('c2s', [(18, 101), (14, 0), (18, 1501), (18, 7), (14, 333)]),
                    ('s2c', [(18, 64), (18, 2000), (14, 5)])):
        msn = 0
        for i, (hs, ps) in enumerate(plan):
            if hs == 18:  # a DDP Send (RFC 5041/5040 versions), MSN counting from 1
                msn += 1
                hdr = bytes([0x41, 0x43]) + struct.pack('>IIII', 0, 0, msn, 0)
            else:  # a one-segment RDMA Write to a random STag and TO
                hdr = bytes([0xC1, 0x40]) + rnd.bytes(hs - 2)
            wire, hok, pok = ift_frame(hdr, rnd.bytes(ps), bad_payload_crc=bad and d == 'c2s' and i == 2)
            off = c.write(d, wire)
            frames[d].append((off, len(wire), hs, ps, hok, pok))
    # segments: c2s frames 0+1 together, frame 2 over three, 3+4 together
    f = frames['c2s']
    c.cut('c2s', [0, f[2][0], f[2][0] + 700, f[2][0] + 1300, f[4][0], len(c.stream['c2s'])])
    c.cut('s2c', [0, frames['s2c'][1][0] + 1000, len(c.stream['s2c'])])
    c.close()
    sc.flows.append({'flow': 1, 'client': c.client, 'server': c.server, 'framing': 'ift'})
    for d in DIRS:
        m = c.first_map(d)
        for i, (off, n, hs, ps, hok, pok) in enumerate(frames[d]):
            pk = [m[j][0] for j in range(off, off + n)]
            sc.ift.append({'flow': 1, 'dir': d, 'index': i, 'offset': off, 'seq': seq_of(c, d, off),
                           'header_size': hs, 'payload_size': ps,
                           'header_crc': 'good' if hok else 'bad', 'payload_crc': 'good' if pok else 'bad',
                           'first_pkt': pk[0], 'last_pkt': pk[-1], 'segments': len(set(pk))})
            if not pok:
                sc.event(1, d, 'payload_crc')
    sc.runs = [run(int(bad)), run(int(bad), '--framing', 'ift')]
    return sc


def s14_tcpopt(bad):
    name = '14_tcpopt_bad.pcap' if bad else '14_tcpopt.pcap'
    sc = Scenario(name, 'TCP RDMA options (kind 25): length 2 on SYN and SYN-ACK, length 20 on the '
                  's2c data segments, a kind-25 option of length 26 (not ours: ignored)' +
                  ('; the last length-20 option describes data past the end of its segment' if bad else ''))
    s = Session(sc, 15, syn_opts=bytes([25, 2, 1, 1]))
    for p, d in ((1, 'c2s'), (2, 's2c')):
        sc.tcpopt.append({'pkt': p, 'flow': 1, 'dir': d, 'len': 2, 'valid': True})
    s.send('c2s', [100])
    # s2c: 3 FPDUs of one transfer (RID 42); data = the ULPDU after the
    # 18-octet DDP header (no marker inside these FPDUs but the leading one)
    sizes = [218, 218, 54]
    total = sum(n - 18 for n in sizes)
    boff = 0
    for i, n in enumerate(sizes):
        t = s.tx['s2c']
        lead = 4 if t.pos % 512 == 0 else 0
        w = s.fpdus('s2c', [n])[0]
        assert len(t.fpdus[-1]['markers']) == (1 if lead else 0)
        dl = n - 18 + (64 if bad and i == 2 else 0)
        p = s.c.send('s2c', w, opts=tcpopt(i == 0, False, 42, boff, lead + 2 + 18, dl, total))
        sc.tcpopt.append({'pkt': p, 'flow': 1, 'dir': 's2c', 'len': 20, 'a': i == 0, 'u': False, 'rid': 42,
                          'buffer_offset': boff, 'data_offset': lead + 20, 'data_length': dl,
                          'total_length': total, 'valid': not (bad and i == 2)})
        boff += n - 18
    # kind 25, length 26: someone else's option
    s.send('c2s', [60], opts=bytes([25, 26]) + s.rnd.bytes(24) + bytes([1, 1]))
    s.finish()
    sc.runs = [run(int(bad))]
    return sc


def s15_ipoib():
    sc = Scenario('15_ipoib.pcap', 'IPoIB (link type 242): ARP request (broadcast, GRH pseudo-header) '
                  'and reply (unicast) with 20-octet hardware addresses carrying capability flags',
                  linktype=242)
    a = (0x80, 0x000048, ipaddress.IPv6Address('fe80::2'), '10.0.0.1')
    b = (0xC0, 0x000123, ipaddress.IPv6Address('fe80::1:0:0:9'), '10.0.0.2')
    zero = (0x00, 0, ipaddress.IPv6Address('::'), '10.0.0.2')

    def hw(x):
        return bytes([x[0]]) + x[1].to_bytes(3, 'big') + x[2].packed

    def side(x):
        return {'flags': x[0], 'qpn': x[1], 'gid': str(x[2])}
    bgid = ipaddress.IPv6Address('ff12:401b:ffff::ffff:ffff')
    grh = bytes([0x60, 0, 0, 0, 0]) + a[1].to_bytes(3, 'big') + a[2].packed + bgid.packed
    uni = bytes(20) + bytes([0]) + a[1].to_bytes(3, 'big') + a[2].packed
    for pkt, (ph, op, s, t) in enumerate(((grh, 1, a, zero), (uni, 2, b, a)), 1):
        arp = struct.pack('>HHBBH', 32, 0x0800, 20, 4, op) + hw(s) + \
            ipaddress.IPv4Address(s[3]).packed + hw(t) + ipaddress.IPv4Address(t[3]).packed
        sc.cap.add(ph + b'\x08\x06\x00\x00' + arp)
        sc.ipoib.append({'pkt': pkt, 'ethertype': 0x0806, 'arp': {'op': op, 'sender': side(s), 'sender_ip': s[3],
                                                                  'target': side(t), 'target_ip': t[3]}})
    return sc


def scenarios():
    out = [planned('01_clean.pcap', CLEAN_DESC, 1, CLEAN, runs=[run(0), run(0, '--framing', 'mpa')],
                   start=CLEAN_START),
           planned('02_marker_between.pcap', 'FPDUs that end exactly at MPA position 512k: the next begins '
                   'with a zero marker (and one long enough to hold another marker: FPDUPTR 512; s2c uses the '
                   'RFC 5044 reading, 508); a marker after the pad, before the CRC', 2,
                   [F(d, *AT_512K) for d in DIRS], start={'rfc_s2c': True}),
           planned('03_span3.pcap', 'FPDUs spanning three segments: cut inside a marker, inside the '
                   'ULPDU_Length field, inside the CRC', 3, [span3]),
           # c2s: the wrap falls inside FPDU 0 (offset 699 of the stream, FPDU
           # 0 spans offsets 20..1032); s2c: inside the marker at position 512
           planned('04_seqwrap.pcap', 'ISNs near 2^32: the sequence numbers wrap inside an FPDU (c2s) and '
                   'inside a marker (s2c)', 4, [F('c2s', 1000, 200, 44), F('s2c', 300, 600, 20)],
                   conn={'isn_c': (1 << 32) - 700, 'isn_s': (1 << 32) - 535}),
           planned('05_retrans.pcap', 'retransmissions: old octets sent again cut differently and a '
                   'duplicate; a segment lost before the capture point, the next held, the hole filled by a '
                   're-segmented retransmission that overlaps the held one', 5, [retransmit, F('s2c', 100, 200)],
                   events=[('c2s', 'retransmit'), ('c2s', 'overlap')]),
           planned('06_badcrc.pcap', 'one octet of FPDU 2 (c2s) flipped after its CRC was computed', 6,
                   [F('c2s', 100, 700), F('c2s', 300, corrupt_at=150), F('c2s', 60, 800), F('s2c', 100, 200)],
                   runs=[run(1)]),
           planned('07_badptr.pcap', 'c2s: the marker at MPA position 512 says FPDUPTR+4 (CRC good); s2c: a '
                   'marker with the two reserved low bits of FPDUPTR set (must be ignored)', 7,
                   [F('c2s', 300), F('c2s', 500, bad_ptr={512: lambda e: e + 4}), F('c2s', 200, 100),
                    F('s2c', 400), F('s2c', 400, bad_ptr={512: lambda e: e | 3}), F('s2c', 30)], runs=[run(1)]),
           planned('08_snaplen.pcap', 'snap length 128: the FPDUs of 40 octets fit, the others are cut (CRC '
                   'missing)', 8, [F('c2s', 40, 300, 40, 700, 40), F('s2c', 40, 40)], runs=[run(3)],
                   cap={'snaplen': 128}),
           s08_cut(),
           planned('09_packed.pcap', 'packing: several whole FPDUs per segment (markers and CRC)', 10,
                   [F('c2s', 30, 40, 50, 300, 60, 70, 800, 20, 22, seg=[3, 1, 2, 1, 2]),
                    F('s2c', 100, 100, 100, 100, seg=[1, 3])])]
    for seed, (name, desc, m_c, m_s, crc_c, crc_s) in enumerate(MODE_CAPS, 16):
        out.append(planned(name, desc, seed, MODES,
                           start={'m_c2s': m_c, 'm_s2c': m_s, 'crc_c': crc_c, 'crc_s': crc_s}))
    out += [planned('10_gap.pcap', 'c2s: the segment with the first 200 octets of FPDU 2 never captured (its '
                    'header and the marker at 1024 lost); its tail is skipped and checking resumes at the zero '
                    'marker at MPA position 1536, where FPDU 3 begins', 11, [gap, F('s2c', 100, 300)],
                    runs=[run(3)]),
            planned('11_nostart.pcap', 'no start-up frames: MPA (markers, CRC) from the first data octet both '
                    'ways', 12, [F('c2s', 100, 700, 30), F('s2c', 600, 44)], start=False,
                    runs=[run(0), run(0, '--mpa-start', '5000')]),
            planned('11_prelude.pcap', 'no start-up frames; the server sends a 13-octet banner before MPA (MPA '
                    'position 0 at s2c offset 13), the client MPA from its first octet', 13,
                    [F('c2s', 100, 700, 30), F('s2c', 600, 44, 1000)], start=False, prelude={'s2c': BANNER},
                    runs=lambda s: [run(0), run(0, '--mpa-start', '5000:%d' % seq_of(s.c, 's2c', len(BANNER)))])]
    for (name, lt, fmt) in (('12_sll2.pcap', 276, 'pcap'), ('12_raw.pcap', 101, 'pcap'),
                            ('12_eth.pcapng', 1, 'pcapng')):
        out.append(planned(name, 'the clean session of 01 in link type %d (%s)' % (lt, fmt), 1, CLEAN,
                           start=CLEAN_START, cap={'linktype': lt, 'fmt': fmt}))
    out += [s13_ift(False), s13_ift(True), s14_tcpopt(False), s14_tcpopt(True), s15_ipoib()]
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    _selftest()
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    exp = []
    for sc in scenarios():
        sc.write(outdir)
        exp.append(sc.entry())
    with open(os.path.join(outdir, 'expected.json'), 'w') as f:
        # one capture a line
        f.write('{"generator": "tests/lib/dump_caps.py", "captures": [\n')
        f.write(',\n'.join(json.dumps(e, sort_keys=True, separators=(',', ':')) for e in exp))
        f.write('\n]}\n')


if __name__ == '__main__':
    main()
