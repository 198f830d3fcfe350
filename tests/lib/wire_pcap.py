#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Small pcap reader and MPA stream walker for the wire tests
(wire_tshark.sh, wire_align.sh). Standard library only.

Subcommands (DPORT selects the client->server direction of the one TCP
connection to that port in the capture):

  records  IN RS OUT              IN cut into records of RS octets (the last
                                  shorter), written as 2-octet length + data
                                  (the format of `ddpwire deframe` output)
  followhex FOLLOW OUT            client->server octets from the output of
                                  `tshark -q -z follow,tcp,raw,N`
  startup  STREAM                 length of the RFC 5044 request frame at the
                                  start of STREAM (20 + private data), or 0
  walk     STREAM SKIP MARKERS [OFF]
                                  walks the FPDUs of STREAM after SKIP octets
                                  (MPA position 0); prints fpdus=, lengths
                                  (ULPDU length histogram), boundary_end= (index
                                  of the first FPDU that ends exactly on a
                                  512-octet MPA position, -1 if none),
                                  tshark_break= (see tshark_break) and, with
                                  OFF (an MPA position), fpdu_of_off= (start
                                  position of the FPDU containing OFF) and
                                  fpdu_index_of_off= (its index)
  flip     PCAP OUT DPORT INDEX   copy of PCAP with one bit flipped in the
                                  middle of the INDEX-th (0-based) client->
                                  server data segment; prints frame= and
                                  offset= (TCP stream offset of the flipped
                                  octet, 0 = first octet after the SYN)
  tshark   VTEXT STREAM SKIP MARKERS
                                  compares what `tshark -V -O iwarp_mpa` said
                                  (VTEXT) with the FPDUs of STREAM: req=, rep=,
                                  fpdus=, decoded=, break= (the first FPDU
                                  tshark 4.0 cannot frame, see tshark_break),
                                  match= (how many FPDUs from the first one
                                  tshark decoded in order with our ULPDU length
                                  and, with markers, FPDUPTR values), and CRC
                                  verdicts and ULPDU lengths of the decoded
                                  FPDUs before the break (head_*: head_bad_fpdus
                                  are MPA positions) and after it (tail_*)
  fill     PCAP DPORT MARKERS CRC EMSS [T EMSS2]
                                  the exact-fill check (tests/wire/wire_gso.sh):
                                  walks the FPDUs of the client->server stream
                                  (MPA from the octet after the SYN), verifies
                                  every CRC (its own CRC32c, CRC field least
                                  significant octet first; CRC 0: the field must
                                  be 0) and every marker's FPDUPTR (either
                                  reading), and for each data segment, first
                                  copies and retransmissions apart (a segment
                                  starting where one already did, or inside
                                  octets already seen), whether it begins with
                                  an FPDU; FPDUs of exactly EMSS octets counted.
                                  With T (capture time, seconds) and EMSS2: the
                                  same for segments before T, after T, and after
                                  the first FPDU of EMSS2 octets (resized)
  align    PCAP DPORT SKIP MARKERS
                                  for every client->server data segment: does
                                  it begin at an FPDU start, does it end at an
                                  FPDU end, how many FPDUs does it hold; prints
                                  key=value totals and up to 20 segments that do
                                  not begin with an FPDU, with the evidence
"""
import struct
import json
import sys


FRAME_TS = {}  # frame number -> capture time (seconds; pcap microseconds)


def read_pcap(path):
    """Yields (frame_number, src, sport, dst, dport, seq, flags, payload)
    for each IPv4/IPv6 TCP packet, and the raw records for rewriting."""
    with open(path, 'rb') as f:
        data = f.read()
    if len(data) < 24:
        raise SystemExit('%s: not a pcap file (%d octets)' % (path, len(data)))
    magic = data[:4]
    if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1'):
        e = '<'
    elif magic in (b'\xa1\xb2\xc3\xd4', b'\xa1\xb2\x3c\x4d'):
        e = '>'
    else:
        raise SystemExit('%s: not a pcap file (pcapng is not read here)' % path)
    linktype = struct.unpack(e + 'I', data[20:24])[0] & 0x0fffffff
    off, n = 24, 0
    out = []
    while off + 16 <= len(data):
        sec, usec = struct.unpack(e + 'II', data[off:off + 8])
        FRAME_TS[n + 1] = sec + usec / 1e6
        incl, orig = struct.unpack(e + 'II', data[off + 8:off + 16])
        pkt_off = off + 16
        pkt = data[pkt_off:pkt_off + incl]
        off = pkt_off + incl
        n += 1
        if incl != orig:
            raise SystemExit('%s: frame %d truncated by the snap length' % (path, n))
        if linktype == 1:          # Ethernet (lo and veth)
            l3, et = 14, struct.unpack('>H', pkt[12:14])[0]
            while et in (0x8100, 0x88a8):
                et = struct.unpack('>H', pkt[l3 + 2:l3 + 4])[0]
                l3 += 4
        elif linktype == 113:      # Linux cooked v1
            l3, et = 16, struct.unpack('>H', pkt[14:16])[0]
        elif linktype == 276:      # Linux cooked v2
            l3, et = 20, struct.unpack('>H', pkt[0:2])[0]
        else:
            raise SystemExit('%s: link type %d not handled' % (path, linktype))
        if et == 0x0800:
            ihl = (pkt[l3] & 15) * 4
            if pkt[l3 + 9] != 6:
                continue
            tot = struct.unpack('>H', pkt[l3 + 2:l3 + 4])[0]
            src, dst = pkt[l3 + 12:l3 + 16], pkt[l3 + 16:l3 + 20]
            l4, end = l3 + ihl, l3 + tot
        elif et == 0x86dd:
            if pkt[l3 + 6] != 6:
                continue
            plen = struct.unpack('>H', pkt[l3 + 4:l3 + 6])[0]
            src, dst = pkt[l3 + 8:l3 + 24], pkt[l3 + 24:l3 + 40]
            l4, end = l3 + 40, l3 + 40 + plen
        else:
            continue
        sport, dport, seq = struct.unpack('>HHI', pkt[l4:l4 + 8])
        doff = (pkt[l4 + 12] >> 4) * 4
        flags = pkt[l4 + 13]
        out.append((n, src, sport, dst, dport, seq, flags,
                    pkt[l4 + doff:end], pkt_off + l4 + doff))
    return data, out


def client_segments(path, dport):
    """(frame, stream offset, payload, file offset of payload) of the
    client->server data segments; stream offset 0 is the octet after the
    SYN. Also returns the raw file."""
    data, pkts = read_pcap(path)
    isn = None
    segs = []
    for (n, src, sport, dst, dp, seq, flags, pl, poff) in pkts:
        if dp != dport:
            continue
        if flags & 0x02:  # SYN
            isn = seq
            continue
        if not pl:
            continue
        if isn is None:
            raise SystemExit('%s: no SYN towards port %d in the capture' % (path, dport))
        segs.append((n, (seq - isn - 1) & 0xffffffff, pl, poff))
    return data, segs


def reassemble(segs):
    """In-order client->server octets (retransmissions and overlaps: the
    first copy wins); raises on a hole."""
    buf = bytearray()
    pending = sorted(segs, key=lambda s: s[1])
    for (_, so, pl, _) in pending:
        if so > len(buf):
            raise SystemExit('hole in the captured stream at offset %d' % len(buf))
        if so + len(pl) > len(buf):
            buf += pl[len(buf) - so:]
    return bytes(buf)


def pad_of(l):
    return (4 - (2 + l) % 4) % 4


def walk(stream, markers, partial=False):
    """FPDUs of stream (which starts at MPA position 0): list of
    (start, end, ulpdu_length). Markers: one before every content octet at
    a position that is a multiple of 512; a marker at an FPDU's first
    position belongs to that FPDU. A stream that ends inside an FPDU is an
    error, or with partial the whole FPDUs before it."""
    fpdus = []
    p, n = 0, len(stream)
    while p < n:
        q = p
        if markers and q % 512 == 0:
            q += 4
        if q + 2 > n:
            if partial:
                break
            raise SystemExit('stream ends inside an FPDU header at %d' % p)
        ulen = stream[q] << 8 | stream[q + 1]
        c = 2 + ulen + pad_of(ulen) + 4
        while c > 0:
            if markers and q % 512 == 0:
                q += 4
                continue
            take = min(c, 512 - q % 512) if markers else c
            q += take
            c -= take
        if q > n:
            if partial:
                break
            raise SystemExit('stream ends inside the FPDU at %d (needs %d, has %d)' % (p, q, n))
        fpdus.append((p, q, ulen))
        p = q
    return fpdus


def startup_len(stream):
    if stream[:16] in (b'MPA ID Req Frame', b'MPA ID Rep Frame') and len(stream) >= 20:
        return 20 + (stream[18] << 8 | stream[19])
    return 0


def cmd_records(a):
    data = open(a[0], 'rb').read()
    rs = int(a[1])
    with open(a[2], 'wb') as f:
        for i in range(0, len(data), rs):
            r = data[i:i + rs]
            f.write(struct.pack('>H', len(r)) + r)


def cmd_followhex(a):
    out = bytearray()
    seps = 0
    for line in open(a[0]):
        if line.startswith('====='):
            seps += 1
            continue
        if seps != 1 or line.startswith('\t'):
            continue
        s = line.strip()
        if not s or s.startswith(('Follow:', 'Filter:', 'Node ')):
            continue
        out += bytes.fromhex(s)
    open(a[1], 'wb').write(out)
    print('octets=%d' % len(out))


def cmd_startup(a):
    print(startup_len(open(a[0], 'rb').read()))


def cmd_walk(a):
    stream = open(a[0], 'rb').read()[int(a[1]):]
    markers = a[2] == '1'
    fpdus = walk(stream, markers)
    hist = {}
    for (_, _, l) in fpdus:
        hist[l] = hist.get(l, 0) + 1
    be = next((i for i, (s, e, l) in enumerate(fpdus) if markers and e % 512 == 0), -1)
    print('fpdus=%d' % len(fpdus))
    print('lengths=%s' % ','.join('%d:%d' % kv for kv in sorted(hist.items())))
    print('boundary_end=%d' % be)
    print('tshark_break=%d' % tshark_break(fpdus, markers))
    if len(a) > 3:
        off = int(a[3])
        i = next(i for i, (s, e, l) in enumerate(fpdus) if s <= off < e)
        print('fpdu_of_off=%d' % fpdus[i][0])
        print('fpdu_index_of_off=%d' % i)


def cmd_flip(a):
    data, segs = client_segments(a[0], int(a[2]))
    n, so, pl, poff = segs[int(a[3])]
    mid = len(pl) // 2
    out = bytearray(data)
    out[poff + mid] ^= 0x10
    open(a[1], 'wb').write(out)
    print('frame=%d' % n)
    print('offset=%d' % (so + mid))


def cmd_align(a):
    _, segs = client_segments(a[0], int(a[1]))
    skip, markers = int(a[2]), a[3] == '1'
    stream = reassemble(segs)
    fpdus = walk(stream[skip:], markers)
    starts = {s: i for i, (s, e, l) in enumerate(fpdus)}
    ends = {e for (s, e, l) in fpdus}
    data_segs = [s for s in segs if s[1] + len(s[2]) > skip]
    seen = set()
    tot = aligned = whole = retrans = 0
    maxlen = 0
    fp_in = []
    bad = []
    for (n, so, pl, _) in data_segs:
        key = (so, len(pl))
        again = key in seen
        retrans += again
        seen.add(key)
        tot += 1
        maxlen = max(maxlen, len(pl))
        b, e = so - skip, so - skip + len(pl)
        if b < 0:
            bad.append('frame %d: carries start-up octets and MPA data (stream %d..%d)' % (n, so, so + len(pl)))
            continue
        if b in starts:
            aligned += 1
            k = 0
            i = starts[b]
            while i < len(fpdus) and fpdus[i][1] <= e:
                k += 1
                i += 1
            fp_in.append(k)
            if e in ends:
                whole += 1
        else:
            f = next(i for i, (s, ee, l) in enumerate(fpdus) if s <= b < ee)
            s, ee, l = fpdus[f]
            bad.append('frame %d: MPA %d..%d (len %d) begins %d octets into FPDU #%d (%d..%d, ULPDU %d)%s' %
                       (n, b, e, len(pl), b - s, f, s, ee, l,
                        ' [retransmission]' if again else ''))
    print('segments=%d' % tot)
    print('aligned=%d' % aligned)
    print('whole=%d' % whole)
    print('one_fpdu=%d' % sum(1 for k in fp_in if k == 1))
    print('fpdus=%d' % len(fpdus))
    print('fpdus_in_aligned=%d' % sum(fp_in))
    print('max_len=%d' % maxlen)
    print('retransmissions=%d' % retrans)
    print('stream_octets=%d' % (len(stream) - skip))
    for line in bad[:20]:
        print('misaligned: ' + line)
    if len(bad) > 20:
        print('misaligned: ... %d more' % (len(bad) - 20))

def crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


CRC_T = crc32c_table()


def crc32c(b):
    """CRC32c (Castagnoli, reflected, init and final xor all ones)."""
    c = 0xFFFFFFFF
    t = CRC_T
    for x in b:
        c = t[(c ^ x) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def check_fpdu(stream, s, e, markers, crc_on):
    """(crc_ok, markers_ok) of the FPDU stream[s:e] at MPA position s."""
    mk_ok = True
    if markers:
        first = s if s % 512 == 0 else s + 512 - s % 512
        for m in range(first, e, 512):
            word = stream[m:m + 4]
            ptr = word[2] << 8 | word[3]
            want = (m - s, m - s - 4) if s % 512 == 0 and m > s else (m - s,)
            if word[:2] != b'\0\0' or (m > s and ptr not in want) or (m == s and ptr):
                mk_ok = False
    field = stream[e - 4:e]
    if not crc_on:
        return field == b'\0\0\0\0', mk_ok
    return struct.unpack('<I', field)[0] == crc32c(stream[s:e - 4]), mk_ok


def fill_counts(segs, starts, pred):
    """first copies, aligned first copies, retransmissions, aligned ones,
    for the segments where pred(frame, offset) holds."""
    seen, hi = set(), 0
    out = [0, 0, 0, 0]
    for (n, so, pl, _) in segs:
        again = so in seen or so < hi
        seen.add(so)
        hi = max(hi, so + len(pl))
        if not pred(n, so):
            continue
        k = 2 if again else 0
        out[k] += 1
        out[k + 1] += so in starts
    return out


def cmd_fill(a):
    _, segs = client_segments(a[0], int(a[1]))
    markers, crc_on, emss = a[2] == '1', a[3] == '1', int(a[4])
    stream = reassemble(segs)
    fpdus = walk(stream, markers)
    starts = {s for (s, e, l) in fpdus}
    bad_crc = bad_mk = exact = 0
    for (s, e, l) in fpdus:
        c, m = check_fpdu(stream, s, e, markers, crc_on)
        bad_crc += not c
        bad_mk += not m
        exact += e - s == emss
    print('fpdus=%d' % len(fpdus))
    print('fpdus_emss=%d' % exact)
    print('crc_bad=%d' % bad_crc)
    print('marker_bad=%d' % bad_mk)
    print('octets=%d' % len(stream))
    print('max_len=%d' % max(len(pl) for (_, _, pl, _) in segs))
    phases = [('', lambda n, so: True)]
    if len(a) > 6:
        t, emss2 = float(a[5]), int(a[6])
        resized = next((s for (s, e, l) in fpdus if e - s == emss2), len(stream))
        print('resized_at=%d' % resized)
        print('fpdus_emss2=%d' % sum(1 for (s, e, l) in fpdus if e - s == emss2))
        phases += [('before_', lambda n, so: FRAME_TS[n] < t),
                   ('after_', lambda n, so: FRAME_TS[n] >= t),
                   ('resized_', lambda n, so: so >= resized)]
    for (name, pred) in phases:
        f, fa, r, ra = fill_counts(segs, starts, pred)
        print('%ssegments=%d' % (name, f))
        print('%saligned=%d' % (name, fa))
        print('%sretrans=%d' % (name, r))
        print('%sretrans_aligned=%d' % (name, ra))
        print('%sshare=%.4f' % (name, fa / f if f else 0))



def parse_tshark_v(path):
    """MPA PDUs in `tshark -V -O iwarp_mpa` text, in order: [frame, source
    port, kind REQ/REP/FPDU, ULPDU length, CRC verdict good/bad/off, [FPDU
    back pointers]] (dump_check.py reads it too)."""
    import re
    out, frame, sport, cur = [], 0, 0, None
    for line in open(path, errors='replace'):
        m = re.match(r'Frame (\d+):', line)
        if m:
            frame, cur = int(m.group(1)), None
            continue
        m = re.match(r'Transmission Control Protocol, Src Port: (\d+)', line)
        if m:
            sport = int(m.group(1))
            continue
        t = line.strip()
        if line.startswith('    ') and not line.startswith('     '):
            if t in ('Request frame header', 'Reply frame header', 'FPDU'):
                kind = {'Request frame header': 'REQ', 'Reply frame header': 'REP'}.get(t, 'FPDU')
                cur = [frame, sport, kind, None, None, []]
                out.append(cur)
            continue
        if cur is None:
            continue
        m = re.match(r'ULPDU length: (\d+) byte', t)
        if m:
            cur[3] = int(m.group(1))
        elif t.startswith('CRC check:'):
            cur[4] = 'good' if 'Good CRC32' in t else 'bad' if 'Bad CRC32' in t else '?'
        elif t.startswith('CRC:'):
            cur[4] = 'off'
        else:
            m = re.match(r'FPDU back pointer: (\d+) byte', t)
            if m:
                cur[5].append(int(m.group(1)))
    return out


def tshark_break(fpdus, markers):
    """Index of the first FPDU that tshark 4.0 cannot frame, or len(fpdus).
    With markers it counts the markers of a segment (= one FPDU) as
    (len - first) / 512 + 1 whenever the first marker offset is inside the
    segment, one too many when the FPDU ends exactly on a 512-octet MPA
    position and holds a marker (leading or inside, i.e. end - start >= 512):
    the marker it counts at the end is the next FPDU's."""
    if markers:
        for i, (s, e, l) in enumerate(fpdus):
            if e % 512 == 0 and e - s >= 512:
                return i
    return len(fpdus)


def cmd_tshark(a):
    ents = parse_tshark_v(a[0])
    stream = open(a[1], 'rb').read()[int(a[2]):]
    markers = a[3] == '1'
    fpdus = walk(stream, markers)
    k = tshark_break(fpdus, markers)
    f = [e for e in ents if e[2] == 'FPDU']
    match = 0
    for (e, (s, end, l)) in zip(f, fpdus):
        # markers inside this FPDU (a leading one included) and the FPDUPTR
        # each should carry (the draft's reading, our senders' default: the
        # distance back to the FPDU's first octet)
        first = s if s % 512 == 0 else s + 512 - s % 512
        want = [m - s for m in range(first, end, 512)] if markers else []
        if e[3] != l or e[5] != want:
            break
        match += 1
    head, tail = f[:k], f[k:]

    def hist(es):
        h = {}
        for e in es:
            h[e[3]] = h.get(e[3], 0) + 1
        return ','.join('%s:%d' % kv for kv in sorted(h.items(), key=lambda kv: kv[0] or 0))
    hb = [i for i, e in enumerate(head) if e[4] == 'bad']
    print('req=%d' % sum(1 for e in ents if e[2] == 'REQ'))
    print('rep=%d' % sum(1 for e in ents if e[2] == 'REP'))
    print('fpdus=%d' % len(fpdus))
    print('decoded=%d' % len(f))
    print('break=%d' % k)
    print('match=%d' % match)
    print('head_good=%d' % sum(1 for e in head if e[4] == 'good'))
    print('head_bad=%d' % len(hb))
    print('head_bad_frames=%s' % ','.join(str(head[i][0]) for i in hb))
    print('head_bad_fpdus=%s' % ','.join(str(fpdus[i][0]) for i in hb))
    print('head_lengths=%s' % hist(head))
    print('tail_decoded=%d' % len(tail))
    print('tail_good=%d' % sum(1 for e in tail if e[4] == 'good'))
    print('tail_bad=%d' % sum(1 for e in tail if e[4] == 'bad'))
    print('tail_lengths=%s' % hist(tail))


def cmd_dumpsum(a):
    """dumpsum DUMP.jsonl: what `ddpwire dump --json` said, as key=value."""
    fp = {'c2s': [], 's2c': []}
    kinds, flows, summ = {}, [], {}
    for line in open(a[0]):
        o = json.loads(line)
        if o['type'] == 'fpdu':
            fp[o['dir']].append(o)
        elif o['type'] == 'event':
            kinds[o['kind']] = kinds.get(o['kind'], 0) + 1
        elif o['type'] == 'flow':
            flows.append(o)
        elif o['type'] == 'summary':
            summ = o
    allf = fp['c2s'] + fp['s2c']
    bad = [o for o in allf if o['crc'] == 'bad']
    mk = [m for o in allf for m in o['markers']]
    print('flows=%d' % len(flows))
    print('c2s_fpdus=%d' % len(fp['c2s']))
    print('s2c_fpdus=%d' % len(fp['s2c']))
    print('crc_good=%d' % sum(1 for o in allf if o['crc'] == 'good'))
    print('crc_bad=%d' % len(bad))
    print('bad_pos=%s' % ','.join(str(o['pos']) for o in bad))
    print('bad_pkts=%s' % ','.join('%d-%d' % (o['first_pkt'], o['last_pkt']) for o in bad))
    print('c2s_lengths=%s' % ','.join(str(o['ulpdu_len']) for o in fp['c2s']))
    print('markers=%d' % len(mk))
    print('marker_bad=%d' % sum(1 for m in mk if not m['ok']))
    print('aligned=%d' % sum(1 for o in allf if o['aligned']))
    print('events=%s' % ','.join('%s:%d' % kv for kv in sorted(kinds.items())))
    print('exit=%s' % summ.get('exit'))


def main():
    cmds = {'dumpsum': cmd_dumpsum, 'tshark': cmd_tshark, 'records': cmd_records, 'followhex': cmd_followhex, 'startup': cmd_startup,
            'walk': cmd_walk, 'flip': cmd_flip, 'align': cmd_align,
            'fill': cmd_fill}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        sys.exit(__doc__)
    cmds[sys.argv[1]](sys.argv[2:])


if __name__ == '__main__':
    main()
