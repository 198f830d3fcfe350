#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Corrupts a capture of MPA without markers (Linux siw) in one way, for
`ddpwire dump` to catch. Standard library only: the pcap walk and
reassembly of wire_pcap.py and the table CRC32c of dump_caps.py, nothing
of ddpwire's C code.

  siw_mutate.py KIND IN.pcap OUT.pcap

KIND: flip (one payload bit of an FPDU, CRC left as it was), drop (one
data segment of the middle of a direction removed), msn (a later Send's
MSN plus one, CRC recomputed), readresp (the first segment of a Read
Response given another request's Data Sink STag, or a changed one, CRC
recomputed). Prints what it did as key=value lines."""
import struct
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, __import__('os').path.dirname(__file__))
import dump_caps  # noqa: E402
import wire_pcap  # noqa: E402


def directions(pkts):
    """{(src, sport): [(frame, stream offset, payload, file offset)]}, the
    stream offset counted from the octet after that direction's SYN."""
    isn, segs = {}, {}
    for (n, src, sport, dst, dport, seq, flags, pl, poff) in pkts:
        k = (src, sport)
        if flags & 0x02:
            isn[k] = seq
            continue
        if pl and k in isn:
            segs.setdefault(k, []).append((n, (seq - isn[k] - 1) & 0xffffffff, pl, poff))
    return segs


def fpdus_of(stream):
    """(start, end, ulpdu length) of the FPDUs after the start-up frame."""
    base = wire_pcap.startup_len(stream)
    return [(base + a, base + b, u) for (a, b, u) in wire_pcap.walk(stream[base:], False, True)]


def patch(out, segs, off, octets):
    """Writes octets at stream offset off into every captured copy."""
    for i, b in enumerate(octets):
        for (_, so, pl, poff) in segs:
            if so <= off + i < so + len(pl):
                out[poff + off + i - so] = b


def recrc(stream, start, end):
    """The stream with the FPDU [start, end)'s CRC field recomputed."""
    body = bytes(stream[start:end - 4])
    crc = struct.pack('<I', dump_caps.crc32c(body))
    return crc if stream[end - 4:end] != b'\0\0\0\0' else b'\0\0\0\0'


def ulpdus(segs):
    """Every direction: (key, segments, stream, fpdus)."""
    for k, s in segs.items():
        stream = bytearray(wire_pcap.reassemble(s))
        yield k, s, stream, fpdus_of(stream)


def do_flip(out, segs):
    for k, s, stream, fp in ulpdus(segs):
        for (a, b, u) in fp:
            if u >= 64 and stream[b - 4:b] != b'\0\0\0\0':
                at = a + 2 + u // 2
                patch(out, s, at, bytes([stream[at] ^ 0x04]))
                return 'offset=%d' % at
    raise SystemExit('no FPDU with a CRC to flip')


def do_drop(out, segs, data, recs):
    for k, s in segs.items():
        if len(s) >= 8:
            n = s[len(s) // 2][0]
            return 'frame=%d' % n, n
    raise SystemExit('no direction long enough to drop a segment from')


def do_msn(out, segs):
    for k, s, stream, fp in ulpdus(segs):
        sends = [(a, b, u) for (a, b, u) in fp
                 if u >= 18 and not stream[a + 2] & 0x80 and stream[a + 3] & 0x0f in (3, 4, 5, 6)]
        if len(sends) >= 3:
            a, b, u = sends[len(sends) // 2]
            msn = struct.unpack('>I', stream[a + 12:a + 16])[0]
            new = struct.pack('>I', msn + 1)
            stream[a + 12:a + 16] = new
            patch(out, s, a + 12, new)
            patch(out, s, b - 4, recrc(stream, a, b))
            return 'offset=%d msn=%d' % (a, msn + 1)
    raise SystemExit('no direction with three Sends')


def do_readresp(out, segs):
    sinks = []
    for k, s, stream, fp in ulpdus(segs):
        for (a, b, u) in fp:
            if u >= 46 and not stream[a + 2] & 0x80 and stream[a + 3] & 0x0f == 1:
                sinks.append(struct.unpack('>IQ', stream[a + 20:a + 32]))
    for k, s, stream, fp in ulpdus(segs):
        for (a, b, u) in fp:
            if u < 14 or stream[a + 2] & 0x80 == 0 or stream[a + 3] & 0x0f != 2:
                continue
            stag, to = struct.unpack('>IQ', stream[a + 4:a + 16])
            if (stag, to) not in sinks:
                continue  # not a response's first segment
            other = [x for x in sinks if x[0] != stag]
            new = struct.pack('>I', other[0][0] if other else stag ^ 0x100)
            stream[a + 4:a + 8] = new
            patch(out, s, a + 4, new)
            patch(out, s, b - 4, recrc(stream, a, b))
            return 'offset=%d stag=0x%08x' % (a, struct.unpack('>I', new)[0])
    raise SystemExit('no Read Response to change')


def without_frame(data, frame):
    """The pcap file without record number frame (1-based)."""
    e = '<' if data[:4] in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1') else '>'
    out, off, n = bytearray(data[:24]), 24, 0
    while off + 16 <= len(data):
        incl = struct.unpack(e + 'I', data[off + 8:off + 12])[0]
        n += 1
        if n != frame:
            out += data[off:off + 16 + incl]
        off += 16 + incl
    return out


def main():
    kind, src, dst = sys.argv[1:4]
    data, pkts = wire_pcap.read_pcap(src)
    segs = directions(pkts)
    out = bytearray(data)
    if kind == 'drop':
        what, frame = do_drop(out, segs, data, pkts)
        out = without_frame(data, frame)
    else:
        what = {'flip': do_flip, 'msn': do_msn, 'readresp': do_readresp}[kind](out, segs)
    open(dst, 'wb').write(out)
    print('kind=%s' % kind)
    print(what)


if __name__ == '__main__':
    main()
