#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent CRC verdicts for the MPA connections of one capture
(tests/wire/siw_interop.sh, when a case fails with a CRC mismatch). Standard
library only: the pcap reader, reassembly and FPDU walk of wire_pcap.py
and the table CRC32c of dump_caps.py, nothing of ddpwire's C code.

  siw_crcscan.py PCAP PORT

For every TCP connection with PORT at one end, in capture order, and each
of its directions: the octets back in order (the first copy wins), the
RFC 5044 start-up frame skipped, then every FPDU walked (markers and CRC
as the frames' M and C bits say) and its CRC recomputed. One line per
direction:

  conn N DIR fpdus=F bad=OFF,OFF... [crc=off] [end=partial]

DIR is s2c (from PORT) or c2s; OFF are MPA stream offsets (0 = the octet
after the start-up frame, as ddpwire reports them). Exit 0.
"""
import sys

sys.dont_write_bytecode = True
import dump_caps  # noqa: E402
import wire_pcap  # noqa: E402


def crc_ok(s, start, end, markers):
    """MPA 6, 7.1: the CRC covers the FPDU's octets before its CRC field
    (markers included); the field is its last 4 octets that are no marker."""
    at, field = end, []
    while len(field) < 4:
        at -= 1
        if not (markers and at % 512 < 4):
            field.insert(0, s[at])
    return dump_caps.crc32c(s[start:at]) == int.from_bytes(bytes(field), 'little')


def startup_flags(s, kind):
    """(M, C) of the start-up frame of that kind at the head of s."""
    if len(s) >= 20 and s[:16] == b'MPA ID %s Frame' % kind:
        return bool(s[16] & 0x80), bool(s[16] & 0x40)
    return False, False


def connections(path, port):
    """[{'c2s': segs, 's2c': segs}] in capture order; segs as
    wire_pcap.client_segments gives them (offset 0 after the SYN)."""
    _, pkts = wire_pcap.read_pcap(path)
    conns, live, isn = [], {}, {}
    for (n, src, sport, dst, dport, seq, flags, pl, poff) in pkts:
        if port not in (sport, dport):
            continue
        key = (src, sport, dst, dport)
        name = 's2c' if sport == port else 'c2s'
        if flags & 0x02:  # SYN or SYN-ACK: a new connection's direction
            if dport == port:
                conns.append({'c2s': [], 's2c': []})
                live[key] = live[(dst, dport, src, sport)] = conns[-1]
            isn[key] = seq
        elif pl and key in live and key in isn:
            live[key][name].append((n, (seq - isn[key] - 1) & 0xffffffff, pl, poff))
    return conns


def main():
    path, port = sys.argv[1], int(sys.argv[2])
    for i, c in enumerate(connections(path, port)):
        try:
            req = wire_pcap.reassemble(c['c2s'])
            rep = wire_pcap.reassemble(c['s2c'])
        except SystemExit as e:
            print('conn %d %s' % (i, e))
            continue
        # RFC 5044 7.1: the Reply's C decides; each M asks the peer for markers
        crc = startup_flags(rep, b'Rep')[1]
        for name, s, mk in (('c2s', req, startup_flags(rep, b'Rep')[0]),
                            ('s2c', rep, startup_flags(req, b'Req')[0])):
            sl = wire_pcap.startup_len(s)
            if not sl or len(s) < sl:
                print('conn %d %s no start-up frame' % (i, name))
                continue
            s = s[sl:]
            fpdus = wire_pcap.walk(s, mk, partial=True)
            bad = [str(a) for (a, b, _) in fpdus if crc and not crc_ok(s, a, b, mk)]
            partial = (fpdus[-1][1] if fpdus else 0) < len(s)
            print('conn %d %s fpdus=%d bad=%s%s%s' % (
                i, name, len(fpdus), ','.join(bad) or '-',
                '' if crc else ' crc=off', ' end=partial' if partial else ''))


if __name__ == '__main__':
    main()
