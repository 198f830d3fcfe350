#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Wireshark plugin (wireshark/) against `ddpwire dump`, on the project's
# captures: the hand-built MPA, IFT, TCP RDMA option and IPoIB captures of
# tests/data/dump, Linux siw's rping and storage traffic (NVMe-oF, NFS/RDMA,
# SMB Direct's peers, MTU 1500 and 65536, CRC on and off), and siw storage
# captures corrupted by tests/lib/siw_mutate.py (a flipped bit, a dropped
# segment, a wrong MSN, a wrong Read Response). For each, tshark -2 with
# the plugin must show on each frame exactly the errors `dump -v` names
# there, in the same words, none on clean captures, and the same FPDU and
# IFT frame counts as `dump --json` (tests/lib/ws_check.py). Also: one pass
# (no -2) never shows an error dump does not name; `ddpwire.error` selects
# the frames; tshark -z expert lists each error once, with its severity; the
# preferences (framing, MPA start) change the verdict as dump's options do.
#   ws_plugin_test.sh DDPWIRE BUILD_DIR
set -u
D=$1
B=$2
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib/wire_lib.sh"
need tshark:tshark python3:python3
[ -f "$B/wireshark/plugins/"*/epan/ddpwire.so ] || { echo "FAIL: the plugin was not built (libwireshark-dev missing?)"; exit 1; }
T=$(mktemp -d)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
# tshark runs as nobody when we are root: copies it can read
mkdir -p "$T/caps"
cp "$HERE"/../data/dump/*.pcap* "$HERE"/../data/siw/*.pcap "$HERE"/../data/siw_storage/*.pcap "$T/caps/"
chmod -R a+rX "$T"
C=$T/caps
TS=("$HERE/../../scripts/ws_run.sh" -B "$B" tshark -n)
CHK="python3 $HERE/../lib/ws_check.py"
FIELDS=(-T fields -E occurrence=a -E aggregator='|' -e frame.number -e ddpwire.error
        -e ddpwire.error.text -e ddpwire.fpdu.role -e ddpwire.ift.role)

"$HERE/../../scripts/ws_run.sh" -B "$B" tshark -G plugins 2> /dev/null | grep -q '^ddpwire.so' && ok || bad "tshark does not load the plugin"

compare() { # NAME CAPTURE [tshark options] -- [dump options]
  local name=$1 cap=$2
  shift 2
  local ts=() du=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do ts+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  du=("$@")
  "$D" dump -v --no-progress "${du[@]}" "$cap" > "$T/$name.v" 2> /dev/null
  "$D" dump --json --no-progress "${du[@]}" "$cap" > "$T/$name.json" 2> /dev/null
  "${TS[@]}" -2 "${ts[@]}" -r "$cap" "${FIELDS[@]}" > "$T/$name.ts" 2> "$T/$name.err"
  if grep -qi "bug\|error" "$T/$name.err"; then bad "$name: tshark says: $(head -3 "$T/$name.err")"; fi
  if $CHK "$T/$name.v" "$T/$name.json" "$T/$name.ts" > "$T/$name.out"; then
    ok
    echo "$name: $(tail -1 "$T/$name.out")"
  else
    bad "$name: $(head -8 "$T/$name.out")"
  fi
}

for f in "$C"/*.pcap "$C"/*.pcapng; do
  compare "$(basename "$f")" "$f"
done

# corrupted siw storage traffic: CRC, gap, MSN and Read Response errors
for kind in flip drop msn readresp; do
  src=$C/nvmeof_mtu1500_crc.pcap
  [ $kind = readresp ] && src=$C/nfs_mtu1500_crc.pcap
  python3 "$HERE/../lib/siw_mutate.py" $kind "$src" "$T/mut_$kind.pcap" > /dev/null \
    && chmod 644 "$T/mut_$kind.pcap" && compare "mut_$kind" "$T/mut_$kind.pcap" \
    || bad "siw_mutate.py $kind failed"
done

# the preferences, as dump's options: --framing mpa, --mpa-start PORT
compare pref_framing "$C/11_nostart.pcap" -o ddpwire.framing:mpa -- --framing mpa
compare pref_start "$C/11_nostart.pcap" -o ddpwire.mpa_start:5000 -- --mpa-start 5000
compare pref_none "$C/06_badcrc.pcap" -o ddpwire.framing:none -- --framing none
"${TS[@]}" -2 -o ddpwire.mpa_start:notaport -r "$C/01_clean.pcap" -V -Y frame.number==1 \
  2> /dev/null | grep -q 'is not PORT\[:SEQ\]' && ok || bad "a bad MPA start preference is not reported"

# ddpwire.error selects exactly the frames with an error (06: CRC at frame 8 ...)
cap=$C/07_badptr.pcap
want=$("$D" dump -v --no-progress "$cap" | sed -n 's/.* ERROR .* pkt \([0-9]*\)\(:.*\)\?$/\1/p' | sort -un | tr '\n' ' ')
got=$("${TS[@]}" -2 -r "$cap" -Y ddpwire.error -T fields -e frame.number 2> /dev/null | tr '\n' ' ')
check "[ -n '$want' ] && [ '$want' = '$got' ]" "-Y ddpwire.error: frames '$got', dump names '$want'"

# tshark -z expert: each error once, errors as Error and sender rules as Warning
"${TS[@]}" -2 -q -z expert,ddpwire -r "$T/mut_flip.pcap" > "$T/expert" 2> /dev/null
n_err=$(awk '/^Errors/ {s=1; next} /^[A-Z][a-z]+ \(/ {s=0} s && /ddpwire/ {n += $1} END {print n+0}' "$T/expert")
n_dump=$(grep -c ' ERROR ' "$T/mut_flip.v")
check "[ '$n_err' -ge 1 ] && [ '$n_err' = '$n_dump' ]" "-z expert lists $n_err ddpwire errors, dump $n_dump: $(head -20 "$T/expert")"
cap=$C/nvmeof_mtu65536_crc_head.pcap
"${TS[@]}" -2 -q -z expert,ddpwire -r "$cap" > "$T/expert2" 2> /dev/null
check "grep -q '^Warns' '$T/expert2' && grep -A3 '^Warns' '$T/expert2' | grep -q 'ULPDU'" \
  "siw's oversize ULPDUs are not listed as warnings: $(head -20 "$T/expert2")"

# one pass: what it shows on a frame, dump names there too (late ones are referenced)
"${TS[@]}" -r "$T/mut_drop.pcap" "${FIELDS[@]}" > "$T/one.ts" 2> /dev/null
python3 -c "
import sys; sys.path.insert(0, '$HERE/../lib'); import ws_check as w
d = w.dump_errors('$T/mut_drop.v'); p, _, _ = w.plugin('$T/one.ts')
want = {}
[want.setdefault(k, []).append(t) for k, t in d]
bad = [(f, t) for f, ts in p.items() for t in ts if t not in want.get(f, []) and t not in want.get(None, [])]
sys.exit(1 if bad else 0)" && ok || bad "one pass: errors on frames dump does not name"

finish
