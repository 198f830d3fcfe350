#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The hand-built captures of tests/data/dump judged by an independent
# decoder, Wireshark's tshark, next to tests/lib/dump_caps.py's expectations
# and `ddpwire dump`:
#   - every frame of every capture: IPv4 and TCP checksums good (the
#     generator's framing);
#   - MPA: for each capture tshark can frame, the CRC verdict (iwarp_mpa.
#     crc_check, Good/Bad CRC32), ULPDU length, frame and FPDUPTRs of every
#     FPDU it frames must equal the expectation, and dump's verdict for the
#     same FPDU must equal tshark's;
#   - IPoIB (link type 242): tshark's ARP fields (20-octet addresses, IPs)
#     equal the expectation.
# tshark 4.0 limits (so only a prefix of some captures is compared; the
# rest is printed): it decodes FPDUs only after both RFC 5044 frames (none
# in 11_*, 13_*); it assumes markers both ways when either frame set M
# (09_nocrc c2s, 09_crc_one_side s2c have none); with markers it wants one
# whole FPDU per segment (packed or split FPDUs lose it: 03 s2c, 09_packed
# c2s) and loses the framing at an FPDU that ends on a 512-octet MPA
# position and holds a marker (wire_tshark.sh); it does not follow
# retransmissions that refill a hole (05) nor cut or missing octets (08,
# 10). Reading files needs no root; installing tshark does (exit 77 when it
# is missing and cannot be installed).
set -u
D=$1
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/../data/dump
EXP=$DATA/expected.json
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$HERE/../lib/wire_lib.sh"
need tshark:tshark python3:python3
CHK="python3 $HERE/../lib/dump_check.py"
TS=(tshark -n -o tcp.reassemble_out_of_order:TRUE -o tcp.try_heuristic_first:TRUE
    -o tcp.desegment_tcp_streams:TRUE -o tcp.check_checksum:TRUE -o ip.check_checksum:TRUE
    --enable-heuristic iwarp_mpa_tcp)
have_dump=0
"$D" dump --help > /dev/null 2>&1 && have_dump=1

# checksums, every frame of every capture at once (status 0 bad, 1 good,
# 2 unverified: cut by the snap length)
if command -v mergecap > /dev/null 2>&1 && mergecap -a -w "$T/all.pcapng" "$DATA"/*.pcap "$DATA"/*.pcapng 2> /dev/null; then
  "${TS[@]}" -r "$T/all.pcapng" -T fields -e frame.number -e tcp.checksum.status -e ip.checksum.status \
    2> /dev/null > "$T/sum"
  check "[ \$(grep -c . '$T/sum') -gt 300 ] && ! awk -F'\t' '\$2 == \"0\" || \$3 == \"0\"' '$T/sum' | grep -q ." \
    "bad IP or TCP checksums in frames (of all captures, concatenated) $(awk -F'\t' '$2 == "0" || $3 == "0" {print $1}' "$T/sum" | head -5 | tr '\n' ' ')"
else
  bad "mergecap (wireshark-common) could not concatenate the captures"
fi

for f in "$DATA"/*.pcap "$DATA"/*.pcapng; do
  name=$(basename "$f")
  # no RFC 5044 frames (tshark decodes nothing), IFT (no dissector),
  # IPoIB (below); DW_TEST_QUICK: the captures tshark frames in full
  case $name in 11_* | 13_* | 15_*) continue ;; esac
  case ${DW_TEST_QUICK:-}:$name in 1:0[358]_* | 1:09_[cp]a* | 1:10_* | 1:12_[rs]*) continue ;; esac
  "${TS[@]}" -r "$f" -Y iwarp_mpa -V -O iwarp_mpa > "$T/$name.v" 2> /dev/null
  if [ "$have_dump" = 1 ]; then
    "$D" dump --json --no-progress "$f" > "$T/$name.jsonl" 2> /dev/null
    $CHK tshark "$EXP" "$name" "$T/$name.v" "$T/$name.jsonl" > "$T/out" 2>&1
  else
    $CHK tshark "$EXP" "$name" "$T/$name.v" > "$T/out" 2>&1
  fi
  check "[ $? = 0 ]" "$name: $(grep FAIL "$T/out" | head -5)"
  grep -v FAIL "$T/out"
done

# IPoIB ARP: opcode, sender and target hardware (20 octets) and IPv4
"${TS[@]}" -r "$DATA/15_ipoib.pcap" -Y arp -T fields -e frame.number -e arp.hw.type -e arp.hw.size \
  -e arp.opcode -e arp.src.hw -e arp.src.proto_ipv4 -e arp.dst.hw -e arp.dst.proto_ipv4 \
  -e ipoib.grh.sqpn -e ipoib.daddr.qpn 2> /dev/null > "$T/arp"
$CHK tshark-arp "$EXP" "$T/arp" > "$T/out" 2>&1
check "[ $? = 0 ]" "15_ipoib.pcap: $(grep FAIL "$T/out" | head -5)"
cat "$T/out"
[ "$have_dump" = 1 ] || echo "note: ddpwire has no dump command yet; tshark checked against the expectations only"
finish
