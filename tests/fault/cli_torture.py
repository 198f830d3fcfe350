#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The CLI torture test (issue 27): each path of the tool is run once per
allocation with that allocation failing, and once per output write with that
write failing (ENOSPC), cut short or interrupted (EINTR), through the
LD_PRELOAD shim faultshim.so. Each run must end without a crash or hang in
either the full run's status and output, or status 5 ("could not complete")
with a "could not complete" line on stderr, its -w file absent and no
FILE.tmp-* left. Usage: cli_torture.py DDPWIRE SHIM SRCDIR [PATH...]
(DW_TORTURE_STEP=K tries every Kth failure point only; DW_TORTURE_ALL_ALLOCS=1
also fails the allocations of a path given allocs_too=False: none now)."""
import os, shutil, socket, subprocess, sys, tempfile, time

D, SHIM, SRC = sys.argv[1], sys.argv[2], sys.argv[3]
ONLY = sys.argv[4:]
STEP = int(os.environ.get("DW_TORTURE_STEP", "1"))
ALL_ALLOCS = os.environ.get("DW_TORTURE_ALL_ALLOCS") == "1"  # also the write-only paths' allocations
RES = 5
T = tempfile.mkdtemp(prefix="dw_torture.")
fails, stats = [], []


def run(argv, env=None, stdin=None, timeout=30):
    e = dict(os.environ)
    e.update(env or {})
    with open(stdin or os.devnull, "rb") as f:
        try:
            p = subprocess.run([D] + argv, env=e, stdin=f, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
    return p


def tree(path):
    """The files under path (a file or a directory): name -> content."""
    if not path or not os.path.exists(path):
        return {}
    if os.path.isfile(path):
        return {"": open(path, "rb").read()}
    out = {}
    for n in sorted(os.listdir(path)):
        out[n] = open(os.path.join(path, n), "rb").read()
    return out


def clean(path):
    if path and os.path.isdir(path):
        shutil.rmtree(path)
    elif path and os.path.exists(path):
        os.unlink(path)


VARYING = (b"    receiver:", b"    sender:")  # analyze's kernel counters that moved (or not)


def shape(b):
    """What a run's stdout must keep when its numbers vary (timing): its
    lines and each line's first word."""
    return [l.split(b" ")[0][:24] for l in b.split(b"\n") if not l.startswith(VARYING)]


def judge(name, point, p, base, out, stdout_full=True):
    """base: (rc, stdout, files). Returns '' or why this run is wrong."""
    if p is None:
        return "hung (timeout)"
    if p.returncode < 0 or p.returncode >= 128:
        return "crashed (status %d): %s" % (p.returncode, p.stderr[-300:])
    files = tree(out)
    left = [n for n in files if ".tmp-" in n] + (
        [f for f in os.listdir(os.path.dirname(out)) if f.startswith(os.path.basename(out) + ".tmp-")]
        if out and os.path.isdir(os.path.dirname(out)) else [])
    if left:
        return "left temporary files %s" % left
    rc, sout, bfiles = base
    same_out = p.stdout == sout if stdout_full else shape(p.stdout) == shape(sout)
    if p.returncode == rc and same_out and files == bfiles:
        return ""
    if p.returncode == RES and b"could not complete" in p.stderr:
        # what is left is whole: each file as in the full run
        for n, c in files.items():
            if bfiles.get(n) != c:
                return "status 5 but %s is cut (%d of %d octets)" % (
                    n or out, len(c), len(bfiles.get(n, b"")))
        return ""
    return "status %d (full run %d), stdout %s, stderr: %s" % (
        p.returncode, rc, "same" if same_out else "differs",
        p.stderr.decode(errors="replace")[-300:].strip() or "(nothing)")


def torture(name, argv, out=None, stdin=None, setup=None, stdout_full=True, allocs_too=True):
    """allocs_too False: only the output writes fail (for a path whose
    allocation failures are not yet reported as status 5: none now)."""
    if ONLY and name not in ONLY:
        return
    allocs_too = allocs_too or ALL_ALLOCS
    cnt = os.path.join(T, "count")
    clean(out)
    if os.path.exists(cnt):
        os.unlink(cnt)
    p = run(argv, {"LD_PRELOAD": SHIM, "DW_FAULT_COUNT": cnt}, stdin)
    if p is None or p.returncode >= 128:
        fails.append("%s: the full run failed" % name)
        return
    base = (p.returncode, p.stdout, tree(out))
    allocs, writes = map(int, open(cnt).read().split()[:2])
    n_run = 0
    points = [("alloc", k, {"DW_FAULT_ALLOC": str(k)})
              for k in range(1, allocs + 1 if allocs_too else 1, STEP)]
    for mode in ("enospc", "short", "eintr"):
        points += [("write-" + mode, k, {"DW_FAULT_WRITE": str(k), "DW_FAULT_MODE": mode})
                   for k in range(1, writes + 1, STEP)]
    bad = 0
    for kind, k, env in points:
        clean(out)
        env["LD_PRELOAD"] = SHIM
        q = run(argv, env, stdin)
        n_run += 1
        why = judge(name, k, q, base, out, stdout_full)
        if not why and kind in ("write-short", "write-eintr") and q.returncode != base[0]:
            why = "a %s write is not a failure: status %d" % (kind[6:], q.returncode)
        if why:
            bad += 1
            if bad <= 5:
                fails.append("%s: %s %d: %s" % (name, kind, k, why))
    if not writes and not allocs_too:  # a write path with no write seen: not tested
        fails.append("%s: no output write to fail (the shim did not see it)" % name)
    stats.append("%-26s %4s allocations, %3d output writes: %4d faults injected%s, %d wrong"
                 % (name, allocs if allocs_too else "-", writes, n_run,
                    "" if STEP == 1 else " (every %dth)" % STEP, bad))


def records(path, n, size):
    with open(path, "wb") as f:
        for i in range(n):
            r = bytes((i * 7 + j) & 255 for j in range(size - (i % 5)))
            f.write(len(r).to_bytes(2, "big") + r)


data = os.path.join(SRC, "tests", "data")
recs = os.path.join(T, "recs.bin")
records(recs, 300, 700)
stream = os.path.join(T, "stream.mpa")
with open(stream, "wb") as f:
    subprocess.run([D, "frame"], stdin=open(recs, "rb"), stdout=f, check=True)

caps = ["dump/01_clean.pcap", "dump/06_badcrc.pcap", "dump/10_gap.pcap", "dump/13_ift.pcap",
        "dump/14_tcpopt.pcap", "dump/15_ipoib.pcap", "siw/guest.pcap"]
for c in caps:
    cap = os.path.join(data, c)
    if os.path.exists(cap):
        torture("dump " + c, ["dump", "-q", "--no-progress", cap])
wout = os.path.join(T, "w.pcap")
torture("dump -w", ["dump", "--json", "--no-progress", os.path.join(data, "siw/guest.pcap"),
                    "-w", wout], out=wout)
torture("dump -w --only-errors", ["dump", "-q", "--no-progress",
                                  os.path.join(data, "dump/06_badcrc.pcap"), "-w", wout,
                                  "--only-errors"], out=wout)
torture("frame", ["frame"], stdin=recs)
torture("deframe", ["deframe"], stdin=stream)

# tcprdma place: a capture made once (synth), placed into a directory
tcap = os.path.join(T, "t.pcap")
subprocess.run([D, "tcprdma", "synth", "-o", tcap, "--size", "40000"], check=True,
               capture_output=True)
odir = os.path.join(T, "place")
torture("tcprdma place", ["tcprdma", "place", tcap, "-o", odir], out=odir)
torture("analyze placement", ["analyze", "placement", os.path.join(data, "siw/guest.pcap")])


# send and listen on loopback: the faults in one side, the other side plain
def listening(port):
    want = ":%04X" % port
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            for line in open(path).read().splitlines()[1:]:
                f = line.split()
                if f[1].endswith(want) and f[3] == "0A":
                    return True
        except OSError:
            pass
    return False


port = [20000 + os.getpid() % 9000]


class NetRun:
    """run() for send/listen: the faulted side's result."""

    def __init__(self, side):
        self.side = side

    def __call__(self, argv, env=None, stdin=None, timeout=30):
        port[0] += 1
        pt = str(port[0])
        e = dict(os.environ)
        fe = dict(e)
        fe.update(env or {})
        lenv, senv = (fe, e) if self.side == "listen" else (e, fe)
        lout = open(os.path.join(T, "lout"), "wb")
        lp = subprocess.Popen([D, "listen", "127.0.0.1:" + pt], env=lenv, stdout=lout,
                              stderr=subprocess.PIPE)
        t0 = time.time()
        while not listening(port[0]) and lp.poll() is None and time.time() - t0 < 5:
            time.sleep(0.01)
        sp = subprocess.Popen([D, "send", "127.0.0.1:" + pt, recs], env=senv,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            so, se = sp.communicate(timeout=timeout)
            # a sender that failed before connecting leaves the listener waiting
            _, le = lp.communicate(timeout=timeout if self.side == "listen" else 3)
        except subprocess.TimeoutExpired:
            if self.side == "listen" or sp.returncode is None:
                sp.kill(), lp.kill(), sp.wait(), lp.wait()
                return None
            lp.kill()
            _, le = lp.communicate()
        lout.close()
        got = open(os.path.join(T, "lout"), "rb").read()
        if self.side == "listen":
            return subprocess.CompletedProcess([], lp.returncode, got, le)
        # the sender's run is whole when the listener received every octet
        ok = lp.returncode == 0 and got == open(recs, "rb").read()
        return subprocess.CompletedProcess([], sp.returncode, so + (b"" if ok else b"LOST"), se)


plain_run = run
for side in ("listen", "send"):
    run = NetRun(side)
    torture(side + " (loopback)", [side], stdout_full=True)
run = plain_run


class PairRun:
    """run() for a server and a client on loopback: the faults in one side
    (faulted: "server" or "client"), the other plain; the faulted side's
    result. argv templates take {port}; a server that does not end by itself
    (keep) is stopped once the client is done."""

    def __init__(self, server, client, faulted, keep=False):
        self.server, self.client, self.faulted, self.keep = server, client, faulted, keep

    def __call__(self, argv, env=None, stdin=None, timeout=30):
        port[0] += 1
        pt = str(port[0])
        e = dict(os.environ)
        fe = dict(e)
        fe.update(env or {})
        senv, cenv = (fe, e) if self.faulted == "server" else (e, fe)
        sp = subprocess.Popen([D] + [a.format(port=pt) for a in self.server], env=senv,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        t0 = time.time()
        while not listening(port[0]) and sp.poll() is None and time.time() - t0 < 5:
            time.sleep(0.01)
        cp = subprocess.Popen([D] + [a.format(port=pt) for a in self.client], env=cenv,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            co, ce = cp.communicate(timeout=timeout)
            if self.keep:
                sp.terminate()
            if self.faulted == "client":
                # a client that failed before connecting leaves the server
                # waiting: only the client's result is judged
                try:
                    sp.communicate(timeout=5)
                except subprocess.TimeoutExpired:
                    sp.kill(), sp.wait()
                return subprocess.CompletedProcess([], cp.returncode, co, ce)
            so, se = sp.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            cp.kill(), sp.kill(), cp.wait(), sp.wait()
            return None
        if self.faulted == "server":
            return subprocess.CompletedProcess([], sp.returncode, so, se)
        return subprocess.CompletedProcess([], cp.returncode, co, ce)


# The other commands: their output writes (stdout, -o/-w files), each failing.
synth = os.path.join(T, "synth.pcap")
torture("tcprdma synth -o", ["tcprdma", "synth", "-o", synth, "--size", "40000"], out=synth,
        allocs_too=True)
bodies = os.path.join(T, "bodies")
torture("tcprdma synth --bodies", ["tcprdma", "synth", "-o", synth, "--size", "40000",
                                   "--bodies", bodies], out=bodies, allocs_too=True)
ipcap = os.path.join(T, "ib.pcap")
torture("ipoib pcap -w", ["ipoib", "pcap", "-w", ipcap], out=ipcap, allocs_too=True)
# every allocation of every pair (a small bulk: the same allocations, less to simulate)
torture("ipoib matrix", ["ipoib", "matrix", "--bulk", "8192", "--pings", "2"], allocs_too=True)
torture("ipoib service-id", ["ipoib", "service-id", "tcp", "40", "--hex"], allocs_too=True)
torture("demo --offline", ["demo", "--offline", "--bytes", "1M"], stdout_full=False,
        allocs_too=True)
torture("demo (loopback)", ["demo", "--bytes", "1M"], stdout_full=False, allocs_too=True)
torture("analyze packing", ["analyze", "packing"], allocs_too=True)
svg = os.path.join(T, "p.svg")
torture("analyze placement --svg", ["analyze", "placement", os.path.join(data, "siw/guest.pcap"),
                                    "--svg", svg], out=svg, stdout_full=False, allocs_too=True)
rep = os.path.join(T, "r.html")
torture("dump --report", ["dump", "-q", "--no-progress", os.path.join(data, "dump/01_clean.pcap"),
                          "--report", rep], out=rep, stdout_full=False, allocs_too=True)
torture("bench crc --json", ["bench", "crc", "--quick", "--size", "64", "--json"],
        stdout_full=False, allocs_too=True)
pairs = [
    ("rping", ["rping", "-s", "-a", "127.0.0.1", "-p", "{port}", "-C", "3", "-V", "-v"],
     ["rping", "-c", "-a", "127.0.0.1", "-p", "{port}", "-C", "3", "-V", "-v"], False),
    ("perf", ["perf", "-s", "127.0.0.1:{port}", "--once", "--json"],
     ["perf", "-c", "127.0.0.1:{port}", "-t", "1", "-i", "0", "--json"], False),
    ("load", ["listen", "127.0.0.1:{port}", "--keep-open", "--echo"],
     ["load", "127.0.0.1:{port}", "--connections", "8", "--records", "2"], True),
]
for name, server, client, keep in pairs:
    for side in ("client", "server") if not keep else ("client",):
        run = PairRun(server, client, side, keep)
        torture("%s (loopback, %s)" % (name, side), [name], stdout_full=False, allocs_too=True)
run = plain_run


class ServerOn:
    """run() for a server that serves on after its client (perf -s without
    --once, listen --keep-open): the faults in the server. After the client
    is done the server has `grace` seconds to end by itself (a fault it
    cannot carry on from); one still serving is stopped with SIGTERM and
    its status is what it says then (killed by that signal: RUNNING). The
    full run is one that served on; a fault must end it with status 5, or
    change nothing."""
    RUNNING = 100

    def __init__(self, server, client, grace):
        self.server, self.client, self.grace = server, client, grace

    def __call__(self, argv, env=None, stdin=None, timeout=30):
        port[0] += 1
        pt = str(port[0])
        fe = dict(os.environ)
        fe.update(env or {})
        # stdout to a file: a pipe nobody reads yet would hold the server
        so_path, se_path = os.path.join(T, "srv.out"), os.path.join(T, "srv.err")
        with open(so_path, "wb") as so, open(se_path, "wb") as se:
            sp = subprocess.Popen([D] + [a.format(port=pt) for a in self.server], env=fe,
                                  stdout=so, stderr=se)
        t0 = time.time()
        while not listening(port[0]) and sp.poll() is None and time.time() - t0 < 5:
            time.sleep(0.01)
        cp = subprocess.Popen([D] + [a.format(port=pt) for a in self.client],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            cp.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            cp.kill(), sp.kill(), cp.wait(), sp.wait()
            return None
        def result(rc):
            return subprocess.CompletedProcess([], rc, open(so_path, "rb").read(),
                                               open(se_path, "rb").read())
        try:
            sp.wait(timeout=self.grace)
            return result(sp.returncode)
        except subprocess.TimeoutExpired:
            pass
        sp.terminate()
        try:
            sp.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            sp.kill(), sp.wait()
            return None
        return result(self.RUNNING if sp.returncode == -15 else sp.returncode)


# perf -s without --once: a failed write of a report ends it (status 5), it
# does not go on to the next test
run = ServerOn(["perf", "-s", "127.0.0.1:{port}", "--json"],
               ["perf", "-c", "127.0.0.1:{port}", "-t", "1", "-i", "0", "--json"], 1.0)
torture("perf -s (loopback, serving on)", ["perf"], stdout_full=False, allocs_too=True)
# listen --keep-open writing the records: a record it cannot write ends it
run = ServerOn(["listen", "127.0.0.1:{port}", "--keep-open", "-q"],
               ["send", "127.0.0.1:{port}", recs], 0.5)
torture("listen --keep-open (loopback)", ["listen"], allocs_too=True)
run = plain_run
torture("analyze buffers", ["analyze", "buffers", "--fpdus", "100", "--max-conns", "1",
                            "--loss-ppm", "50000"], allocs_too=True)

# analyze align --measure: two network namespaces, a veth, a capture child and
# the two sides in forked children (the shim counts their allocations in the
# run's one sequence; ip and ethtool run plain). Root only, and long (about
# 300 failure points of up to 2.5 s): its own ctest, cli_torture_measure,
# names it; the plain run leaves it out.
MEASURE = "analyze align --measure"
if MEASURE in ONLY and os.geteuid() != 0:
    print("%s: skipped: needs root (network namespaces, a veth, a capture)" % MEASURE)
    shutil.rmtree(T, ignore_errors=True)
    sys.exit(77)
if MEASURE in ONLY:
    torture(MEASURE, ["analyze", "align", "--measure", "--worst", "50", "--bulk", "2",
                      "--rr", "10"], stdout_full=False, allocs_too=True)

shutil.rmtree(T, ignore_errors=True)
print("\n".join(stats))
if fails:
    print("FAILED:\n  " + "\n  ".join(fails))
    sys.exit(1)
print("cli_torture: every failure point handled")
