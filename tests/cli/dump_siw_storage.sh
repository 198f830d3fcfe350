#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ddpwire dump on real storage traffic over Linux soft-iWARP 6.1
# (tests/data/siw_storage, made by scripts/siw_storage.sh: NVMe over
# Fabrics, NFS over RDMA, SMB Direct, perftest ib_write_bw / ib_read_bw,
# lo MTU 1500 and 65536, CRC on and off):
#  - every capture checks clean: every CRC good (or off), every DDP/RDMAP
#    rule holding; the only errors allowed are the sender rules siw breaks
#    with the framing intact (non-zero PAD, ULPDUs above 64768), each
#    named in the flow summary, and no FPDU is lost to them (no sync_lost,
#    no resync; as many FPDUs as tshark frames, where tshark is installed);
#  - tshark decodes the same DDP/RDMAP fields, ULPDU by ULPDU;
#  - corrupted copies (tests/lib/siw_mutate.py: a flipped bit, a dropped
#    segment, an MSN skipped, a Read Response answering the wrong request)
#    are caught, each as what it is.
set -u
D=$1
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/../data/siw_storage
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else bad "${2:-$1}"; fi; }
MUT="python3 $HERE/../lib/siw_mutate.py"

# the errors of a JSON run, as "kind kind ..." (sorted, unique)
errors() {
  python3 - "$1" <<'PY'
import json, sys
err = {'crc', 'marker', 'marker_reserved', 'pad', 'length', 'oversize', 'startup_bad', 'mode',
       'mismatch', 'ddp_invalid', 'msn', 'mo', 'tagged', 'read_unmatched', 'read_mismatch',
       'read_depth', 'terminate', 'gap', 'dropped', 'truncated', 'sync_lost', 'resync'}
kinds = set()
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o['type'] == 'event' and o['kind'] in err:
        kinds.add(o['kind'])
print(' '.join(sorted(kinds)))
PY
}

n=0
for f in "$DATA"/*.pcap; do
  name=$(basename "$f" .pcap)
  "$D" dump --json --no-progress "$f" > "$T/$name.jsonl" 2>&1
  rc=$?
  e=$(errors "$T/$name.jsonl")
  fp=$(grep -c '"type":"fpdu"' "$T/$name.jsonl")
  viol=$(grep -o '"violations":[0-9]*' "$T/$name.jsonl" | grep -vc ':0$')
  case "$e" in
    "") check "[ $rc = 0 ] && [ $viol = 0 ]" "$name: exit $rc, DDP violations $viol" ;;
    *) check "[ $rc = 1 ] && [ -z \"\$(echo '$e' | tr ' ' '\n' | grep -vx 'pad\|oversize')\" ] && grep -q '\"peer_violations\":\[{' '$T/$name.jsonl' && [ $viol = 0 ]" \
         "$name: exit $rc, errors '$e', DDP violations $viol (only pad/oversize allowed, named)" ;;
  esac
  check "! grep -q '\"crc\":\"bad\"' '$T/$name.jsonl'" "$name: a bad CRC"
  check "grep -q '\"ulp\":\"\(nvme-of\|smb-direct\|rpc-rdma\|unknown\)\"' '$T/$name.jsonl'" "$name: no ulp member"
  case $name in
    nvmeof*) check "grep -q '\"ulp\":\"nvme-of\"' '$T/$name.jsonl'" "$name: NVMe-oF not named" ;;
    smb*) check "grep -q '\"ulp\":\"smb-direct\"' '$T/$name.jsonl'" "$name: SMB Direct not named" ;;
    nfs*) check "grep -q '\"ulp\":\"rpc-rdma\"' '$T/$name.jsonl'" "$name: RPC-over-RDMA not named" ;;
  esac
  if command -v tshark > /dev/null 2>&1; then
    tn=$(tshark -r "$f" -o tcp.try_heuristic_first:TRUE -o tcp.reassemble_out_of_order:TRUE \
           -T fields -e iwarp_mpa.ulpdulength 2> /dev/null | tr ',' '\n' | grep -c .)
    check "[ $tn = $fp ]" "$name: dump framed $fp FPDUs, tshark $tn"
  fi
  n=$((n + 1))
done
check "[ $n -ge 20 ]" "only $n captures in $DATA"

# tshark decodes the same DDP/RDMAP fields: opcode, STag and TO (tagged),
# QN, MSN and MO (untagged), ULPDU by ULPDU, per direction
if command -v tshark > /dev/null 2>&1; then
  for name in nvmeof_mtu1500_crc nfs_mtu65536_nocrc smb_mtu1500_crc readbw_mtu65536_crc_head; do
    tshark -r "$DATA/$name.pcap" -o tcp.try_heuristic_first:TRUE -T fields -E separator='|' \
      -e tcp.srcport -e tcp.dstport -e iwarp_rdma.opcode -e iwarp_ddp.stag -e iwarp_ddp.tagged_offset \
      -e iwarp_ddp.qn -e iwarp_ddp.msn -e iwarp_ddp.mo 2> /dev/null > "$T/$name.tsv"
    python3 - "$T/$name.jsonl" "$T/$name.tsv" > "$T/cmp" 2>&1 <<'PY'
import json, re, sys
names = ['Write', 'ReadReq', 'ReadResp', 'Send', 'SendInv', 'SendSE', 'SendSEInv', 'Terminate']
ours, port = {}, {}
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o['type'] == 'flow':
        c, v = int(o['client'].rsplit(':', 1)[1]), int(o['server'].rsplit(':', 1)[1])
        port[(o['flow'], 'c2s')], port[(o['flow'], 's2c')] = (c, v), (v, c)
    if o['type'] != 'fpdu' or not o['ddp']:
        continue
    w = o['ddp'].split()
    op = names.index(w[0])
    if op in (0, 2):
        key = (op, int(w[2], 16), int(w[4], 16))
    else:
        m = re.search(r'MSN (\d+)', o['ddp'])
        mo = re.search(r'MO (\d+)', o['ddp'])
        qn = 1 if op == 1 else int(re.search(r'QN (\d+)', o['ddp']).group(1))
        key = (op, qn, int(m.group(1)), int(mo.group(1)) if mo else 0)
    ours.setdefault((o['flow'], o['dir']), []).append(key)
theirs = {}
for l in open(sys.argv[2]):
    f = l.rstrip('\n').split('|')
    if not f[2]:
        continue
    cols = [c.split(',') for c in f[2:]]
    for i, op in enumerate(cols[0]):
        op = int(op, 16)
        g = lambda k: cols[k][i] if i < len(cols[k]) else ''
        if op in (0, 2):
            key = (op, int(g(1), 16), int(g(2), 16))
        else:
            key = (op, int(g(3)), int(g(4)), int(g(5)))
        theirs.setdefault((int(f[0]), int(f[1])), []).append(key)
n = 0
for k, seq in ours.items():
    t = theirs.get(port[k], [])
    assert seq == t[:len(seq)] and len(seq) == len(t), (k, len(seq), len(t),
        next(((i, a, b) for i, (a, b) in enumerate(zip(seq, t)) if a != b), None))
    n += len(seq)
print('%d ULPDUs agree' % n)
PY
    check "[ $? = 0 ]" "$name: dump and tshark decode DDP/RDMAP differently: $(tail -2 "$T/cmp")"
    echo "$name: $(tail -1 "$T/cmp")"
  done
fi

# corrupted copies, caught as what they are
for src in nvmeof_mtu1500_crc smb_mtu1500_crc nfs_mtu1500_crc readbw_mtu65536_crc_head; do
  for kind in flip drop msn readresp; do
    case "$src:$kind" in smb*:readresp) continue ;; esac # ksmbd's reads: RDMA Writes only
    if ! $MUT "$kind" "$DATA/$src.pcap" "$T/m.pcap" > "$T/m.txt" 2>&1; then
      case "$kind" in msn|readresp) continue ;; esac # nothing of that kind in it
      bad "$src $kind: $(cat "$T/m.txt")"
      continue
    fi
    "$D" dump --json --no-progress "$T/m.pcap" > "$T/m.jsonl" 2>&1
    rc=$?
    e=$(errors "$T/m.jsonl")
    case $kind in
      flip) want="crc"; wrc=1 ;;
      drop) want="gap"; wrc=3 ;;
      msn) want="msn"; wrc=1 ;;
      readresp) want="read_mismatch"; wrc=1 ;;
    esac
    case "$src" in *head*) [ "$wrc" = 3 ] || wrc=1 ;; esac
    check "echo ' $e ' | grep -q ' $want ' && { [ $rc = $wrc ] || [ $rc = 1 ]; }" \
      "$src $kind ($(tr '\n' ' ' < "$T/m.txt")): exit $rc, errors '$e', wanted $want"
  done
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
