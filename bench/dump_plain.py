#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Plain TCP (no MPA, no IFT) for `ddpwire dump`'s framing searches
(docs/PERFORMANCE.md): every direction without start-up frames is searched
for MPA and IFT over its first 256 KiB, so this is the worst case per
octet. Standard library only; deterministic.

  dump_plain.py OUT.pcap [FLOWS (40)] [KIND (mixed)]

Each flow: SYN, then 300 KiB client->server in 1448-octet segments. KIND:
random, zeros, text, sparse (3 of 7 octets zero), or mixed (in turn).
"""
import random
import struct
import sys


def main():
    out_path = sys.argv[1]
    flows = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    kind_arg = sys.argv[3] if len(sys.argv) > 3 else 'mixed'
    rnd = random.Random(1)
    out = open(out_path, 'wb')
    out.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))

    def pkt(src, sp, dst, dp, seq, flags, pl):
        tcp = struct.pack('>HHIIBBHHH', sp, dp, seq, 0, 5 << 4, flags, 65535, 0, 0) + pl
        ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(tcp), 0, 0, 64, 6, 0,
                         src, dst) + tcp
        fr = b'\0' * 12 + b'\x08\x00' + ip
        out.write(struct.pack('<IIII', 0, 0, len(fr), len(fr)) + fr)

    kinds = ['random', 'zeros', 'text', 'sparse']
    n = 300 * 1024
    for f in range(flows):
        kind = kinds[f % 4] if kind_arg == 'mixed' else kind_arg
        a, b = bytes([10, 0, f // 256, f % 256]), bytes([10, 1, 0, 1])
        sp = 20000 + f
        pkt(a, sp, b, 80, 999, 2, b'')
        if kind == 'random':
            data = rnd.randbytes(n)
        elif kind == 'zeros':
            data = bytes(n)
        elif kind == 'text':
            data = (b'GET /index.html HTTP/1.1\r\nHost: example\r\n\r\n' * (n // 40))[:n]
        else:
            data = bytes(rnd.choice((0, 0, 0, 1, 4, 18, 255)) for _ in range(n))
        for i in range(0, n, 1448):
            pkt(a, sp, b, 80, 1000 + i, 0x18, data[i:i + 1448])


if __name__ == '__main__':
    main()
