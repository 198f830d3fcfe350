#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""dump_big.py OUT.pcap SIZE_MB [FLOWS] [--loss PPM] [--reorder PPM]

Writes a large Ethernet pcap of FLOWS concurrent TCP connections (default
8), interleaved segment by segment, each carrying the same MPA stream
(RFC 5044 request/reply, markers, CRC) made by `ddpwire frame` from random
1000-octet records, until the file is SIZE_MB megabytes. Used to measure
`ddpwire dump` speed and memory on a big capture (bench/dump_big.sh).
Checksums are left zero (dump does not judge them). --loss drops that many
segments per million (gaps); --reorder swaps that many with the next.
"""
import argparse
import os
import random
import struct
import subprocess
import sys

MSS = 1448


def mpa_stream(ddpwire, nbytes):
    """nbytes of MPA framing (markers, CRC) from MPA position 0."""
    recs = bytearray()
    rnd = random.Random(1)
    block = bytes(rnd.getrandbits(8) for _ in range(1000))
    while len(recs) < nbytes:
        recs += struct.pack('>H', 1000) + block
    out = subprocess.run([ddpwire, 'frame'], input=bytes(recs), capture_output=True, check=True)
    return out.stdout


def frame_hdr(sport, dport, seq, ack, flags, plen):
    eth = b'\x02\0\0\0\0\x02' + b'\x02\0\0\0\0\x01' + b'\x08\x00'
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 40 + plen, 0, 0x4000, 64, 6, 0,
                     bytes([10, 0, 0, 1 if sport != 5000 else 2]),
                     bytes([10, 0, 0, 2 if sport != 5000 else 1]))
    tcp = struct.pack('>HHIIBBHHH', sport, dport, seq & 0xffffffff, ack & 0xffffffff, 0x50,
                      flags, 65535, 0, 0)
    return eth + ip + tcp


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument('out')
    ap.add_argument('size_mb', type=int)
    ap.add_argument('flows', type=int, nargs='?', default=8)
    ap.add_argument('--loss', type=int, default=0)
    ap.add_argument('--reorder', type=int, default=0)
    o = ap.parse_args()
    out, size, flows, loss, reorder = o.out, o.size_mb << 20, o.flows, o.loss, o.reorder
    ddpwire = os.environ.get('DDPWIRE', 'ddpwire')
    per_flow = size // flows
    req = b'MPA ID Req Frame' + bytes([0xC0, 1, 0, 0])
    rep = b'MPA ID Rep Frame' + bytes([0xC0, 1, 0, 0])
    body = mpa_stream(ddpwire, per_flow)
    rnd = random.Random(7)
    f = open(out, 'wb')
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    t = [0]

    def pkt(data):
        t[0] += 1
        f.write(struct.pack('<IIII', t[0] // 1000000, t[0] % 1000000, len(data), len(data)))
        f.write(data)

    isn = [(0xfffff000 + k * 7919) & 0xffffffff for k in range(flows)]
    cports = [40000 + k for k in range(flows)]
    for k in range(flows):
        pkt(frame_hdr(cports[k], 5000, isn[k], 0, 0x02, 0))
        pkt(frame_hdr(5000, cports[k], 1000, isn[k] + 1, 0x12, 0))
        pkt(frame_hdr(cports[k], 5000, isn[k] + 1, 1001, 0x18, len(req)) + req)
        pkt(frame_hdr(5000, cports[k], 1001, isn[k] + 21, 0x18, len(rep)) + rep)
    wire = req + body
    off = 20
    held = None
    while off < len(wire):
        n = min(MSS, len(wire) - off)
        seg = wire[off:off + n]
        for k in range(flows):
            fr = frame_hdr(cports[k], 5000, isn[k] + 1 + off, 1021, 0x18, n) + seg
            if loss and rnd.randrange(1000000) < loss:
                continue
            if held is not None:
                pkt(fr)
                pkt(held)
                held = None
            elif reorder and rnd.randrange(1000000) < reorder:
                held = fr
            else:
                pkt(fr)
        off += n
    if held is not None:
        pkt(held)
    for k in range(flows):
        end = isn[k] + 1 + len(wire)
        pkt(frame_hdr(cports[k], 5000, end, 1021, 0x11, 0))
        pkt(frame_hdr(5000, cports[k], 1021, end + 1, 0x11, 0))
    f.close()


if __name__ == '__main__':
    main()
