#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile peers for `ddpwire listen --keep-open --echo` (immediate start-up,
markers and CRC), standard library only. Each kind runs in its own thread,
over and over, for the given time:

  garbage    random octets, then silence until the listener hangs up
  http       an HTTP request          tls       a TLS ClientHello
  half       half an FPDU, then silence (the frame deadline must cut it)
  trickle    good FPDUs, one octet every 100 ms (the frame deadline again)
  biglen     a 65535 ULPDU_Length with a short body, then silence
  badcrc     good FPDUs, then one with a corrupt CRC (MPA error 2)
  badptr     a marker with a wrong FPDUPTR under a valid CRC (MPA error 3)
  reset      half an FPDU, then a reset
  noread     good FPDUs as fast as the socket takes them, echoes never read
  churn      connect and close, by the thousand

Prints one JSON object: per kind, connections made and how they ended. Also
checks itself: the framer's FPDUs equal `ddpwire frame`'s when --ddpwire
is given. Exit status 0 when the peers ran (their verdicts are the caller's).

  hostile_peers.py HOST PORT SECONDS [--ddpwire BIN] [--only K,K] [--deadline MS]
"""
import json
import os
import random
import socket
import struct
import subprocess
import sys
import threading
import time

# ---- MPA framing (immediate start-up: MPA position 0 is the first octet) ----

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from wire_pcap import crc32c  # noqa: E402 (the capture tests' one CRC32c)


def fpdu(pos, ulpdu, bad_ptr=False):
    """The FPDU carrying ulpdu at MPA position pos (a multiple of 4): a
    marker at every multiple of 512, FPDUPTR back to the FPDU's first octet
    (MPA 7.1), pad to four, CRC32c over all of it, stored LSB first."""
    content = struct.pack(">H", len(ulpdu)) + ulpdu
    content += b"\0" * (-len(content) % 4)
    out, p = bytearray(), pos
    for i in range(0, len(content), 4):
        if p % 512 == 0:
            ptr = p - pos
            if bad_ptr and ptr:
                ptr ^= 0x100
            out += struct.pack(">HH", 0, ptr)
            p += 4
        out += content[i:i + 4]
        p += 4
    if p % 512 == 0:
        out += struct.pack(">HH", 0, p - pos ^ (0x100 if bad_ptr else 0))
    out += struct.pack("<I", crc32c(bytes(out)))
    return bytes(out)


def stream(records, pos=0, bad=None):
    """FPDUs for records from position pos; bad: {index: 'crc'|'ptr'}."""
    out = bytearray()
    for i, r in enumerate(records):
        f = fpdu(pos + len(out), r, bad_ptr=(bad or {}).get(i) == "ptr")
        if (bad or {}).get(i) == "crc":
            f = f[:-1] + bytes([f[-1] ^ 0x5A])
        out += f
    return bytes(out)


def self_check(ddpwire):
    recs = [bytes((i * 7 + k) & 0xFF for k in range(n)) for i, n in
            enumerate([1, 3, 100, 509, 510, 1400, 4000, 9000, 2, 777])]
    raw = b"".join(struct.pack(">H", len(r)) + r for r in recs)
    want = subprocess.run([ddpwire, "frame"], input=raw, capture_output=True, check=True).stdout
    if stream(recs) != want:
        sys.exit("hostile_peers: the framer disagrees with `ddpwire frame`")
    bad = stream(recs, bad={6: "ptr"})
    r = subprocess.run([ddpwire, "deframe"], input=bad, capture_output=True)
    if b"error 3" not in r.stderr:
        sys.exit("hostile_peers: a wrong FPDUPTR under a valid CRC is not MPA error 3: %r" % r.stderr)


# ---- the peers ----

class Kind:
    def __init__(self, name):
        self.name, self.lock = name, threading.Lock()
        self.n = {"connections": 0, "reset_by_listener": 0, "closed_by_listener": 0,
                  "still_open_at_end": 0, "refused": 0, "slowest_cut_s": 0.0}

    def add(self, key, v=1):
        with self.lock:
            self.n[key] += v

    def cut(self, secs):
        with self.lock:
            self.n["slowest_cut_s"] = max(self.n["slowest_cut_s"], round(secs, 2))


def connect(host, port, k):
    try:
        s = socket.create_connection((host, port), timeout=5)
    except OSError:
        k.add("refused")
        return None
    k.add("connections")
    return s


def wait_cut(s, k, until, t0):
    """Silence: wait for the listener to hang up (recording when)."""
    s.settimeout(0.2)
    while time.time() < until:
        try:
            d = s.recv(65536)
            if not d:
                k.add("closed_by_listener")
                k.cut(time.time() - t0)
                return
        except socket.timeout:
            continue
        except ConnectionResetError:
            k.add("reset_by_listener")
            k.cut(time.time() - t0)
            return
        except OSError:
            return
    k.add("still_open_at_end")


def send_some(s, data):
    try:
        s.sendall(data)
        return True
    except OSError:
        return False


def rst(s):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


TLS_HELLO = bytes.fromhex(
    "16030100a5010000a10303" + "00" * 32 + "000020c02bc02fc02cc030cca9cca8c013c014"
    "009c009d002f0035000a010000580000001800160000136578616d706c652e756c666865696d2e6e6574"
    "000500050100000000000a000a0008001d001700180019000b00020100000d0012001004010403050105"
    "030601060302010203ff0100010000120000")


def good(n, size=300):
    return [bytes(random.getrandbits(8) for _ in range(size)) for _ in range(n)]


def run_kind(name, host, port, until, k):
    # no new connection in the last seconds: those open are seen to their end
    grace = 12 if name == "noread" else 4  # noread: buffers fill, then the stall deadline
    while time.time() < until - grace:
        s = connect(host, port, k)
        if not s:
            time.sleep(0.05)
            continue
        t0 = time.time()
        if name == "garbage":
            send_some(s, os.urandom(random.randint(1, 4000)))
            wait_cut(s, k, until, t0)
        elif name == "http":
            send_some(s, b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
            wait_cut(s, k, until, t0)
        elif name == "tls":
            send_some(s, TLS_HELLO)
            wait_cut(s, k, until, t0)
        elif name == "half":
            f = stream(good(1, 1000))
            send_some(s, f[:len(f) // 2])
            wait_cut(s, k, until, t0)
        elif name == "biglen":
            send_some(s, b"\0\0\0\0" + struct.pack(">H", 65535) + os.urandom(100))
            wait_cut(s, k, until, t0)
        elif name == "trickle":
            data = stream(good(3, 200))
            s.settimeout(0.001)
            for b in data:
                if time.time() >= until or not send_some(s, bytes([b])):
                    break
                try:  # the echoes, and the listener's hang-up
                    if s.recv(65536) == b"":
                        break
                except (socket.timeout, BlockingIOError):
                    pass
                except OSError:
                    break
                time.sleep(0.1)
            wait_cut(s, k, until, t0)
        elif name in ("badcrc", "badptr"):
            recs = good(8, 700)
            send_some(s, stream(recs, bad={5: name[3:]}))
            wait_cut(s, k, until, t0)
        elif name == "reset":
            f = stream(good(2, 1500))
            send_some(s, f[:len(f) - 700])
            time.sleep(0.05)
            rst(s)
            continue
        elif name == "noread":
            data = stream(good(64, 1400))
            s.setblocking(False)
            sent, pos = 0, 0
            while time.time() < until:
                try:
                    n = s.send(data[pos:])
                    sent += n
                    pos = (pos + n) % len(data)  # ends are FPDU boundaries: whole stream
                    if pos:
                        continue
                    data = stream(good(64, 1400), pos=sent)
                except BlockingIOError:
                    time.sleep(0.05)
                except OSError:
                    k.add("reset_by_listener")
                    k.cut(time.time() - t0)
                    break
            else:
                k.add("still_open_at_end")
        elif name == "churn":
            s.close()
            for _ in range(50):
                c = connect(host, port, k)
                if c:
                    c.close()
            continue
        s.close()


KINDS = ["garbage", "http", "tls", "half", "trickle", "biglen", "badcrc", "badptr",
         "reset", "noread", "churn"]


def main():
    a = sys.argv[1:]
    if len(a) < 3:
        sys.exit(__doc__)
    host, port, secs = a[0], int(a[1]), float(a[2])
    only = KINDS
    if "--ddpwire" in a:
        self_check(a[a.index("--ddpwire") + 1])
    if "--only" in a:
        only = a[a.index("--only") + 1].split(",")
    until = time.time() + secs
    kinds = {n: Kind(n) for n in only}
    threads = [threading.Thread(target=run_kind, args=(n, host, port, until, kinds[n]))
               for n in only]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps({n: k.n for n, k in kinds.items()}, sort_keys=True))


if __name__ == "__main__":
    main()
