#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ddpwire dump` against hand-built captures: tests/data/dump/*.pcap(ng),
# written by tests/lib/dump_caps.py, whose expected.json says what dump must
# report for each (exit status; per flow and direction every FPDU with its
# position, lengths, CRC verdict, markers and segments; rates, gaps,
# events; IFT frames, TCP RDMA options, IPoIB ARP) -- computed by the
# generator from what it built, never by running dump.
#   - the generator reproduces the committed files byte for byte;
#   - usage: --help exits 0, bad options and unreadable files exit 2;
#   - every capture with every option set of expected.json, --json,
#     compared by dump_check.py check; stdin ('-') reads the same;
#   - the human output (-v and the default summary) a little.
set -u
D=$1
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/../data/dump
EXP=$DATA/expected.json
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else bad "${2:-$1}"; fi; }
PY="python3 $HERE/../lib/dump_caps.py"
CHK="python3 $HERE/../lib/dump_check.py"

# the committed captures are exactly what the generator writes
$PY "$T/gen" > "$T/gen.out" 2>&1
check "[ $? = 0 ]" "dump_caps.py failed: $(cat "$T/gen.out")"
check "[ \"\$(cd '$T/gen' && ls)\" = \"\$(cd '$DATA' && ls)\" ]" \
  "the generator writes other files than tests/data/dump holds"
for f in "$T"/gen/*; do
  check "cmp -s '$f' '$DATA/$(basename "$f")'" "$(basename "$f"): the generator no longer reproduces it"
done

# usage
"$D" dump --help > "$T/help" 2> "$T/help.err"
check "[ $? = 0 ] && grep -q -- --json '$T/help'" "dump --help: not exit 0 with the usage on stdout"
for a in "--no-such-option $DATA/01_clean.pcap" "" "--framing nope $DATA/01_clean.pcap" \
  "--markers maybe $DATA/01_clean.pcap" "--mpa-start notaport $DATA/01_clean.pcap" \
  "-c notanumber $DATA/01_clean.pcap"; do
  "$D" dump $a > /dev/null 2> "$T/err"
  rc=$?
  check "[ $rc = 2 ] && [ -s '$T/err' ]" "dump $a: exit $rc, expected 2 and a message on stderr"
done
"$D" dump "$T/no-such-file.pcap" > /dev/null 2> "$T/err"
rc=$?
check "[ $rc = 2 ] && grep -q 'no-such-file' '$T/err'" "dump of a missing file: exit $rc, expected 2 and a message naming it"
"$D" dump "$EXP" > /dev/null 2> "$T/err"
rc=$?
check "[ $rc = 2 ] && [ -s '$T/err' ]" "dump of a file that is no capture: exit $rc, expected 2 and a message"
head -c 1000 "$DATA/01_clean.pcap" > "$T/short.pcap"
"$D" dump --json "$T/short.pcap" > "$T/short.jsonl" 2>&1
rc=$?
check "[ $rc = 3 ] && tail -1 '$T/short.jsonl' | grep -q '\"reason\":\".*truncated'" \
  "dump of a pcap cut inside a record: exit $rc, expected 3 with the reason: $(tail -1 "$T/short.jsonl")"

# getopt habits: --opt=value, --, -V, -r, several files as one capture,
# -w / --only-errors never overwriting an input, -q, nothing checked
"$D" dump --json --no-progress --framing=mpa "$DATA/01_clean.pcap" > "$T/eq.jsonl" 2>&1
check "[ $? = 0 ] && grep -q '\"type\":\"fpdu\"' '$T/eq.jsonl'" "--framing=mpa: not taken"
"$D" dump --no-progress -- "$DATA/01_clean.pcap" > /dev/null 2>&1
check "[ $? = 0 ]" "dump -- FILE: not exit 0"
"$D" dump --no-progress -r "$DATA/01_clean.pcap" -r "$DATA/06_badcrc.pcap" > "$T/two.txt" 2>&1
rc=$?
check "[ $rc = 1 ] && grep -q '34 packets' '$T/two.txt'" "-r A -r B: exit $rc, $(tail -1 "$T/two.txt")"
"$D" dump --no-progress "$DATA/01_clean.pcap" "$DATA/06_badcrc.pcap" 'tcp port 5000' > "$T/two.txt" 2>&1
check "[ $? = 1 ] && grep -q '34 packets' '$T/two.txt'" "dump A B BPF: $(tail -1 "$T/two.txt")"
cp "$DATA/06_badcrc.pcap" "$T/in.pcap"
"$D" dump --no-progress -w "$T/in.pcap" "$T/in.pcap" > /dev/null 2> "$T/err"
check "[ $? = 2 ] && cmp -s '$T/in.pcap' '$DATA/06_badcrc.pcap'" "-w onto an input: not refused, or the input changed"
"$D" dump --no-progress -q -w "$T/errs.pcap" --only-errors "$DATA/06_badcrc.pcap" > "$T/q.txt" 2>&1
check "[ $? = 1 ] && [ \"\$(wc -l < '$T/q.txt')\" = 1 ]" "-q: more than the summary: $(head -3 "$T/q.txt")"
n=$("$D" dump --json --no-progress "$T/errs.pcap" | grep -c '"type"')
check "[ -s '$T/errs.pcap' ] && [ $n -ge 1 ]" "--only-errors wrote no packet"
"$D" dump --json --no-progress -V -c 3 "$DATA/01_clean.pcap" > "$T/c.jsonl" 2>&1
rc=$?
check "[ $rc = 0 ] && tail -1 '$T/c.jsonl' | grep -q '\"packets\":3,'" "-V -c 3: exit $rc, $(tail -1 "$T/c.jsonl")"
for v in "-v -v" "-vv"; do
  "$D" dump --no-progress $v "$DATA/01_clean.pcap" > /dev/null 2>&1
  check "[ $? = 0 ]" "dump $v: not accepted"
done
"$D" dump --no-progress "$DATA/01_clean.pcap" extra words 2> "$T/err" > /dev/null
check "[ $? = 2 ] && grep -q \"filter 'extra words'\" '$T/err'" "trailing words are a filter: $(cat "$T/err")"

# every capture, every option set in expected.json
python3 -c 'import json, sys
for c in json.load(open(sys.argv[1]))["captures"]:
    for i, r in enumerate(c["runs"]):
        print(c["file"], i, " ".join(r["args"]))' "$EXP" > "$T/runs"
while read -r name i args; do
  # shellcheck disable=SC2086
  "$D" dump --json --no-progress $args "$DATA/$name" > "$T/out.jsonl" 2> "$T/err"
  rc=$?
  if $CHK check "$EXP" "$name" "$i" "$T/out.jsonl" "$rc" > "$T/check" 2>&1; then
    ok
  else
    bad "$name $args: $(grep -c FAIL "$T/check") differences"
    grep FAIL "$T/check" | head -15 >&2
    [ -s "$T/err" ] && sed 's/^/  stderr: /' "$T/err" | head -3 >&2
  fi
done < "$T/runs"

# stdin
"$D" dump --json --no-progress - < "$DATA/01_clean.pcap" > "$T/stdin.jsonl" 2>&1
rc=$?
"$D" dump --json --no-progress "$DATA/01_clean.pcap" > "$T/file.jsonl" 2>&1
check "[ $rc = 0 ] && cmp -s '$T/stdin.jsonl' '$T/file.jsonl'" "dump - (stdin): exit $rc or output differs from the file's"
$CHK check "$EXP" 12_eth.pcapng 0 /dev/stdin 0 < <("$D" dump --json --no-progress - < "$DATA/12_eth.pcapng") > "$T/check" 2>&1
check "[ $? = 0 ]" "pcapng on stdin: $(grep FAIL "$T/check" | head -3)"

# --port: only connections with that port
"$D" dump --json --no-progress --port 9 "$DATA/01_clean.pcap" > "$T/port.jsonl" 2>&1
check "[ $? = 4 ] && ! grep -q '\"type\": *\"fpdu\"' '$T/port.jsonl' && tail -1 '$T/port.jsonl' | grep -q '\"flows\": *0.*nothing checked'" \
  "--port 9: connections to port 5000 reported, or not 'nothing checked' (4): $(tail -1 "$T/port.jsonl")"
"$D" dump --json --no-progress --port 5000 "$DATA/06_badcrc.pcap" > "$T/port.jsonl" 2>&1
check "[ $? = 1 ]" "--port 5000 on 06_badcrc.pcap: not exit 1"
# -c COUNT: 5 packets (handshake and the two start-up frames)
"$D" dump --json --no-progress -c 5 "$DATA/01_clean.pcap" > "$T/c.jsonl" 2>&1
check "tail -1 '$T/c.jsonl' | grep -q '\"packets\": *5[,}]' && ! grep -q '\"type\": *\"fpdu\"' '$T/c.jsonl'" \
  "-c 5: $(tail -1 "$T/c.jsonl")"

# human output: -v one line per FPDU/event; the default a summary per flow
"$D" dump -v --no-progress "$DATA/06_badcrc.pcap" > "$T/v.txt" 2>&1
rc=$?
n=$(wc -l < "$T/v.txt")
check "[ $rc = 1 ] && [ $n -ge 7 ] && grep -qi crc '$T/v.txt' && grep -qiE 'bad|mismatch' '$T/v.txt'" \
  "dump -v 06_badcrc.pcap: exit $rc, $n lines, no word of the bad CRC"
"$D" dump -v --no-progress "$DATA/07_badptr.pcap" > "$T/v.txt" 2>&1
rc=$?
check "[ $rc = 1 ] && grep -qiE 'fpduptr|marker' '$T/v.txt'" "dump -v 07_badptr.pcap: exit $rc, no word of the marker"
"$D" dump --no-progress "$DATA/01_clean.pcap" > "$T/s.txt" 2>&1
rc=$?
check "[ $rc = 0 ] && [ -s '$T/s.txt' ] && grep -q 10.0.0.1 '$T/s.txt'" "dump 01_clean.pcap: exit $rc, no summary"
check "[ \$(wc -l < '$T/s.txt') -lt \$(wc -l < '$T/v.txt') ] || [ \$(wc -l < '$T/s.txt') -le 6 ]" \
  "dump without -v is not shorter than with it"

# TCP RDMA options on a whole synthesized NFS connection (ddpwire tcprdma synth):
# clean, every option valid (the SYNs' length-2 option on a 4-octet boundary,
# 3.1.8); with the total RDMA length changed within a transfer, 3.1.4 broken
"$D" tcprdma synth -o "$T/nfs.pcap" --count 3 --size 20000 > /dev/null 2>&1
"$D" dump --json --no-progress "$T/nfs.pcap" > "$T/nfs.jsonl" 2>&1
rc=$?
n=$(grep -c '"type":"tcpopt"' "$T/nfs.jsonl")
check "[ $rc = 0 ] && [ $n -ge 40 ] && ! grep -q '\"valid\":false' '$T/nfs.jsonl'" \
  "tcprdma synth capture: exit $rc, $n options, invalid: $(grep -m1 '"valid":false' "$T/nfs.jsonl")"
"$D" tcprdma synth -o "$T/nfs2.pcap" --count 3 --size 20000 --hostile total-change > /dev/null 2>&1
"$D" dump --json --no-progress "$T/nfs2.pcap" > "$T/nfs2.jsonl" 2>&1
rc=$?
n=$(grep -c '"valid":false.*3\.1\.4' "$T/nfs2.jsonl")
check "[ $rc = 1 ] && [ $n -ge 2 ]" "total changed within a transfer: exit $rc, $n options refused for 3.1.4"

# Captures that begin mid-connection (no SYN, no start-up frames): the first
# packets of 01_clean and 13_ift cut away. MPA is found by the marker search
# at a marker with a non-zero FPDUPTR, IFT by the header-CRC search (in auto
# mode beside the MPA search, confirmed by two good frames); every FPDU/frame
# after the start is whole and good. ift_mid2 begins inside a frame; ift_bad1
# is 13_ift with a DDP header octet of the first c2s frame flipped.
python3 - "$DATA" "$T" <<'PY'
import struct, sys
def cut(src, dst, skip):
    d = open(src, 'rb').read()
    out, off, n = bytearray(d[:24]), 24, 0
    while off < len(d):
        incl = struct.unpack('<I', d[off + 8:off + 12])[0]
        n += 1
        if n > skip:
            out += d[off:off + 16 + incl]
        off += 16 + incl
    open(dst, 'wb').write(out)
cut(sys.argv[1] + '/01_clean.pcap', sys.argv[2] + '/mpa_mid.pcap', 7)
cut(sys.argv[1] + '/13_ift.pcap', sys.argv[2] + '/ift_mid.pcap', 4)
cut(sys.argv[1] + '/13_ift.pcap', sys.argv[2] + '/ift_mid2.pcap', 5)
d = bytearray(open(sys.argv[1] + '/13_ift.pcap', 'rb').read())
d[24 + 3 * (16 + 54) + 16 + 54 + 6] ^= 0x10  # packet 4: SYN, SYN-ACK, ACK have no options
open(sys.argv[2] + '/ift_bad1.pcap', 'wb').write(d)
PY
"$D" dump --json --no-progress "$T/mpa_mid.pcap" > "$T/mpa_mid.jsonl" 2>&1
rc=$?
n=$(grep -c '"type":"fpdu".*"crc":"good"' "$T/mpa_mid.jsonl")
check "[ $rc = 0 ] && [ $n -ge 8 ] && grep -q 'mid-stream' '$T/mpa_mid.jsonl'" \
  "MPA mid-stream: exit $rc, $n good FPDUs, start: $(grep -m1 '"kind":"start"' "$T/mpa_mid.jsonl")"
"$D" dump --json --no-progress --framing ift "$T/ift_mid.pcap" > "$T/ift_mid.jsonl" 2>&1
rc=$?
n=$(grep -c '"type":"ift".*"payload_crc":"good"' "$T/ift_mid.jsonl")
check "[ $rc = 0 ] && [ $n = 6 ]" "IFT mid-stream: exit $rc, $n good frames (want 6)"
# ift: whether dump (auto mode) found IFT both ways, the good frames, exit
ift() {
  "$D" dump --json --no-progress "$@" > "$T/ift.jsonl" 2>&1
  echo "rc=$? good=$(grep -c '"type":"ift".*"payload_crc":"good"' "$T/ift.jsonl") bad=$(grep -c '"type":"ift".*_crc":"bad"' "$T/ift.jsonl") framing=$(grep -o '"framing":"[a-z]*"' "$T/ift.jsonl" | sort -u | tr '\n' ' ')"
}
r=$(ift "$T/ift_mid.pcap")
check "[ '$r' = 'rc=0 good=6 bad=0 framing=\"framing\":\"ift\" ' ]" "IFT mid-stream, auto mode: $r"
r=$(ift "$T/ift_mid2.pcap")
check "[ '$r' = 'rc=0 good=5 bad=0 framing=\"framing\":\"ift\" ' ] && grep -q '\"kind\":\"start\".*\"offset\":831' '$T/ift.jsonl'" \
  "IFT begun inside a frame, auto mode: $r $(grep -m1 '"kind":"start"' "$T/ift.jsonl")"
r=$(ift "$T/ift_bad1.pcap")
check "[ '$r' = 'rc=0 good=7 bad=0 framing=\"framing\":\"ift\" ' ] && grep -q '\"kind\":\"start\".*\"offset\":131' '$T/ift.jsonl'" \
  "IFT with a damaged first frame, auto mode (found at the second): $r"
r=$(ift --framing ift "$T/ift_bad1.pcap")
check "[ '$r' = 'rc=1 good=7 bad=1 framing=\"framing\":\"ift\" ' ] && grep -q '\"kind\":\"header_crc\".*\"offset\":0,' '$T/ift.jsonl'" \
  "IFT with a damaged first frame, --framing ift: $r"

# Plain TCP whose data begins like an FPDU (a zero "marker" and a plausible
# length, then random octets) is not MPA: no FPDU may validate, exit 0.
python3 - "$T/zeros.pcap" <<'PY'
import random, struct, sys
rnd = random.Random(5)
def frame(seq, payload):
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 40 + len(payload), 0, 0x4000, 64, 6, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    tcp = struct.pack('>HHIIBBHHH', 40000, 6000, seq, 1, 0x50, 0x18, 65535, 0, 0)
    return b'\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00' + ip + tcp + payload
data = bytes(6) [:4] + b'\x00\x40' + bytes(rnd.getrandbits(8) for _ in range(3000))
out = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
for i in range(0, len(data), 1000):
    f = frame(1000 + i, data[i:i + 1000])
    out += struct.pack('<IIII', 1, i, len(f), len(f)) + f
open(sys.argv[1], 'wb').write(out)
# zero-heavy data: 3 of 7 octets zero. With CRC off, zero pads and zero CRC
# fields are everywhere: the searches must still find neither MPA nor IFT.
data = bytes(rnd.choice((0, 0, 0, 1, 4, 18, 255)) for _ in range(200000))
out = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
for i in range(0, len(data), 1448):
    f = frame(1000 + i, data[i:i + 1448])
    out += struct.pack('<IIII', 1, i, len(f), len(f)) + f
open(sys.argv[1].replace('zeros', 'sparse'), 'wb').write(out)
PY
for f in zeros sparse; do
  "$D" dump --json --no-progress "$T/$f.pcap" > "$T/$f.jsonl" 2>&1
  rc=$?
  check "[ $rc = 0 ] && ! grep -q '\"type\":\"fpdu\"' '$T/$f.jsonl' && grep -q '\"framing\":\"tcp\"' '$T/$f.jsonl'" \
    "plain TCP ($f): exit $rc, $(grep -c '"type":"fpdu"' "$T/$f.jsonl") FPDUs, $(grep -c '"type":"ift"' "$T/$f.jsonl") IFT frames"
done

# Real Linux soft-iWARP traffic (../shared/siw-peer captures, copied to
# tests/data/siw): revision 2 start-up with IRD/ORD, CRC on and off, rping's
# Send / Read Request / Read Response. Every FPDU there lies in one segment, so
# each verdict is recomputed here from the packet with an independent CRC32c
# (dump_caps.py's bitwise one). guest.pcap holds one FPDU sent with a broken
# CRC on purpose, answered by siw with a Terminate: exactly that one is bad.
SIW=$HERE/../data/siw
for f in host_data guest; do
  "$D" dump --json --no-progress "$SIW/$f.pcap" > "$T/siw-$f.jsonl" 2>&1
  echo "rc=$?" >> "$T/siw-$f.jsonl"
done
python3 - "$SIW" "$T" "$HERE" > "$T/siw.out" 2>&1 <<'PY'
import json, sys
sys.path.insert(0, sys.argv[3] + "/../lib")
sys.dont_write_bytecode = True
import wire_pcap, dump_caps
siw, tmp = sys.argv[1], sys.argv[2]
for name, want_rc, want_bad in (('host_data', 0, 0), ('guest', 1, 1)):
    lines = open('%s/siw-%s.jsonl' % (tmp, name)).read().split('\n')
    rc = int([l for l in lines if l.startswith('rc=')][0][3:])
    objs = [json.loads(l) for l in lines if l.startswith('{')]
    pkts = {p[0]: (p[5], p[7]) for p in wire_pcap.read_pcap('%s/%s.pcap' % (siw, name))[1]}
    fpdus = [o for o in objs if o['type'] == 'fpdu']
    bad = 0
    for o in fpdus:
        assert o['first_pkt'] == o['last_pkt'], o
        seq, p = pkts[o['first_pkt']]
        at = (o['seq'] - seq) % 2**32
        p = p[at:at + o['fpdu_len']]
        assert len(p) == o['fpdu_len'] and (p[0] << 8 | p[1]) == o['ulpdu_len'], o
        calc = dump_caps.crc32c(p[:-4])
        wire = int.from_bytes(p[-4:], 'little')
        assert int(o['crc_calc'], 16) == calc and int(o['crc_wire'], 16) == wire, o
        want = 'good' if calc == wire else ('off' if wire == 0 else 'bad')
        assert o['crc'] == want, (o, want)
        bad += want == 'bad'
    ddp = ' '.join(o['ddp'] for o in fpdus)
    assert rc == want_rc and bad == want_bad, (name, rc, bad)
    assert 'ReadReq' in ddp and 'ReadResp' in ddp and 'Send' in ddp, ddp
    revs = {o['rev'] for o in objs if o['type'] == 'startup'}
    print('%s: %d FPDUs, %d bad CRC, exit %d, start-up revisions %s' % (name, len(fpdus), bad, rc, sorted(revs)))
PY
check "[ $? = 0 ]" "siw captures: $(tail -3 "$T/siw.out")"
cat "$T/siw.out"
# siw_interop.sh's judge of CRC errors finds exactly that one bad FPDU too;
# with markers (one between pad and CRC in 02), the flipped octet of 06
python3 "$HERE/../lib/siw_crcscan.py" "$SIW/guest.pcap" 19999 > "$T/scan.out"
check "[ \"\$(grep -v 'bad=-' '$T/scan.out' | grep -c bad=)\" = 1 ] && grep -q '^conn 11 c2s fpdus=1 bad=0$' '$T/scan.out'" \
  "siw_crcscan.py on guest.pcap: $(grep -v 'bad=-' "$T/scan.out" | grep bad=)"
r=$(for f in 02_marker_between 06_badcrc; do python3 "$HERE/../lib/siw_crcscan.py" "$DATA/$f.pcap" 5000; done | tr '\n' ' ')
check "[ '$r' = 'conn 0 c2s fpdus=10 bad=- conn 0 s2c fpdus=10 bad=- conn 0 c2s fpdus=5 bad=824 conn 0 s2c fpdus=2 bad=- ' ]" \
  "siw_crcscan.py on 02 and 06: $r"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
