#!/usr/bin/env python3
"""Independent CRC verdicts for the MPA connections of one capture
(tests/siw_interop.sh, when a case fails with a CRC mismatch). Standard
library only: the pcap reader of wire_pcap.py and the table CRC32c of
dump_caps.py, nothing of ddpwire's C code.

  siw_crcscan.py PCAP PORT

For every TCP connection with PORT at one end, in capture order, and each
of its directions: the octets back in order (the first copy wins; a later
copy with other octets is counted as a mismatch), the RFC 5044 start-up
frame skipped, then every FPDU walked (markers and CRC as that frame's M
and C bits say) and its CRC recomputed. One line per direction:

  conn N DIR fpdus=F bad=OFF,OFF... mismatch=M [crc=off] [end=partial]

DIR is s2c (from PORT) or c2s; OFF are MPA stream offsets (0 = the octet
after the start-up frame, as ddpwire reports them). Exit 0.
"""
import sys

sys.dont_write_bytecode = True
import dump_caps  # noqa: E402
import wire_pcap  # noqa: E402


class Dir:
    def __init__(self, isn):
        self.isn = isn
        self.buf = bytearray()
        self.late = []      # (offset, payload) beyond the in-order end
        self.mismatch = 0

    def add(self, seq, pl):
        off = (seq - self.isn - 1) & 0xffffffff
        self.late.append((off, pl))
        progress = True
        while progress:
            progress = False
            for i, (o, p) in enumerate(self.late):
                if o > len(self.buf):
                    continue
                held = self.buf[o:o + len(p)]
                if bytes(held) != p[:len(held)]:
                    self.mismatch += 1
                self.buf += p[len(held):]
                del self.late[i]
                progress = True
                break


def walk(stream, markers):
    """(start, ulpdu_len, crc_ok) of each whole FPDU, and whether the stream
    ends inside one. MPA: a marker at every position that is a multiple of
    512 (one at an FPDU's first octet belongs to it); the CRC covers the
    FPDU's octets before the CRC field, markers included."""
    out, p, n = [], 0, len(stream)
    while p < n:
        q, body, content = p, bytearray(), bytearray()
        need, crc_at = 2, None
        while len(content) < need:
            if markers and q % 512 == 0:
                if q + 4 > n:
                    return out, True
                body += stream[q:q + 4]
                q += 4
                continue
            take = need - len(content)
            if markers:
                take = min(take, 512 - q % 512)
            if crc_at is None and len(content) < need - 4:
                take = min(take, need - 4 - len(content))
            if q + take > n:
                return out, True
            body += stream[q:q + take]
            content += stream[q:q + take]
            q += take
            if need == 2 and len(content) == 2:
                ulen = content[0] << 8 | content[1]
                need = 2 + ulen + wire_pcap.pad_of(ulen) + 4
            if crc_at is None and len(content) == need - 4:
                crc_at = len(body)
        wire = int.from_bytes(content[-4:], 'little')
        out.append((p, ulen, dump_caps.crc32c(bytes(body[:crc_at])) == wire))
        p = q
    return out, False


def startup_flags(s, kind):
    """(M, C) of the start-up frame of that kind at the head of s."""
    if len(s) >= 20 and s[:16] == b'MPA ID %s Frame' % kind:
        return bool(s[16] & 0x80), bool(s[16] & 0x40)
    return False, False


def main():
    path, port = sys.argv[1], int(sys.argv[2])
    _, pkts = wire_pcap.read_pcap(path)
    conns, live = [], {}
    for (_, src, sport, dst, dport, seq, flags, pl, _) in pkts:
        if port not in (sport, dport):
            continue
        key = (src, sport, dst, dport)
        if flags & 0x02:  # SYN or SYN-ACK: a new connection's direction
            if dport == port:
                conns.append({})
                live[(dst, dport, src, sport)] = conns[-1]
                live[key] = conns[-1]
            name = 's2c' if sport == port else 'c2s'
            if key in live:
                live[key][name] = Dir(seq)
            continue
        c = live.get(key)
        name = 's2c' if sport == port else 'c2s'
        if pl and c is not None and name in c:
            c[name].add(seq, pl)
    for i, c in enumerate(conns):
        for name in ('c2s', 's2c'):
            d = c.get(name)
            if d is None:
                continue
            s = bytes(d.buf)
            sl = wire_pcap.startup_len(s)
            if not sl or len(s) < sl:
                print('conn %d %s no start-up frame' % (i, name))
                continue
            req = bytes(c['c2s'].buf) if 'c2s' in c else b''
            rep = bytes(c['s2c'].buf) if 's2c' in c else b''
            # RFC 5044 7.1: the Reply's C decides; each M asks the peer for markers
            crc = startup_flags(rep, b'Rep')[1]
            markers = startup_flags(req if name == 's2c' else rep, b'Req' if name == 's2c' else b'Rep')[0]
            fpdus, partial = walk(s[sl:], markers)
            bad = [str(p) for (p, _, ok) in fpdus if crc and not ok]
            print('conn %d %s fpdus=%d bad=%s mismatch=%d%s%s' % (
                i, name, len(fpdus), ','.join(bad) or '-', d.mismatch,
                '' if crc else ' crc=off', ' end=partial' if partial else ''))


if __name__ == '__main__':
    main()
