#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The TCP RDMA option on the wire, judged by an independent decoder: tshark
# reads captures written by `ddpwire tcprdma synth` (NFS, HTTP, CIFS and
# layout workloads, loss/reordering/duplicates, IPv6, every link type) and
#   - finds no malformed packet, every IPv4 header and TCP checksum good,
#     every frame decoded down to TCP (our IPoIB, SLL2, null... framing);
#   - decodes the application (NFS READ replies matched to their calls,
#     HTTP responses, SMB Read AndX responses);
#   - shows option kind 25 with the right length on exactly the segments
#     that carry transfer data (tcprdma_check.py reassembles the reply from
#     tshark's payloads, finds the data by parsing the application protocol,
#     and checks every option field against it, and tshark's own
#     tcp.option_kind / tcp.option_len lists against the octets);
#   - reproduces both tables of section 4 from real packets.
# tshark 4.0 shows kind 25 as "TCP Option - Unknown", "Kind: Unassigned
# (25)", its Length, and the rest as tcp.options.unknown.payload; NOP and EOL
# have no tcp.option_len entry, so the kind and length lists do not line up.
# Needs tshark (installed when missing, as root); exit 77 when impossible.
set -u
D=$1
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$HERE/../lib/wire_lib.sh"
need tshark:tshark python3:python3

FIELDS="-e frame.number -e tcp.srcport -e tcp.dstport -e tcp.seq_raw -e tcp.len
  -e tcp.flags.syn -e tcp.options -e tcp.option_kind -e tcp.option_len -e tcp.payload
  -e _ws.malformed -e tcp.checksum.status -e ip.checksum.status"

# judge NAME KIND PORT [checker args] -- synth args
judge() {
  local name=$1 kind=$2 port=$3
  shift 3
  local cargs=()
  while [ "$1" != "--" ]; do cargs+=("$1"); shift; done
  shift
  if ! $D tcprdma synth -o "$T/c.pcap" "$@" > "$T/synth.out" 2>&1; then
    bad "$name: synth failed: $(cat "$T/synth.out")"
    return
  fi
  if ! tshark -n -r "$T/c.pcap" -o tcp.check_checksum:TRUE -o ip.check_checksum:TRUE \
    -T fields -E separator=/t $FIELDS > "$T/f.tsv" 2> "$T/tshark.err"; then
    bad "$name: tshark: $(head -2 "$T/tshark.err")"
    return
  fi
  if python3 "$HERE/../lib/tcprdma_check.py" "$kind" "$port" "${cargs[@]}" < "$T/f.tsv" > "$T/check.out"; then
    ok
  else
    bad "$name: $(head -5 "$T/check.out")"
  fi
}

judge "nfs lossy" nfs 2049 -- --size 200000 --count 3 --loss 15 --reorder 15 --dup 10 --seed 1 --isn 4294960000
check "[ \$(tshark -n -o tcp.reassemble_out_of_order:TRUE -r '$T/c.pcap' -Y 'nfs.procedure_v3 == 6 && rpc.msgtyp == 1 && nfs.status == 0' 2> /dev/null | wc -l) = 3 ]" \
  "tshark does not see 3 NFS READ replies"
judge "nfs zero-length" nfs 2049 -- --size 0 --count 3
judge "http packed" http 80 -- --workload http --size 50000 --count 3 --policy packed --timestamps
check "[ \$(tshark -n -r '$T/c.pcap' -Y 'http.response.code == 200' 2> /dev/null | wc -l) = 3 ]" \
  "tshark does not see 3 HTTP responses"
judge "http v6 16" http 80 --no-total -- --workload http --size 30000 --count 2 --ipv6 --link sll2 --reorder 20 --seed 2 --no-total
judge "cifs" cifs 445 -- --workload cifs --size 65534 --count 2 --link vlan --loss 10 --seed 3
check "[ \$(tshark -n -o tcp.reassemble_out_of_order:TRUE -r '$T/c.pcap' -Y 'smb.cmd == 0x2e && smb.flags.response == 1' 2> /dev/null | wc -l) = 2 ]" \
  "tshark does not see 2 SMB Read AndX responses"
judge "cifs no A" cifs 445 --no-abit -- --workload cifs --size 1000 --count 3 --no-abit
LAY=m:50,u,o:100,d:3000,s:10,z,m:20,d:500,s:7,n,o:9,d:7000,s:3,m:1,d:1
judge "layout" layout 5999 --layout "$LAY" -- --layout "$LAY" --link ipoib --loss 20 --seed 8
# what tshark 4.0 calls the option
check "tshark -n -r '$T/c.pcap' -V 2> /dev/null | grep -q 'Kind: Unassigned (25)'"
S4=m:100,d:2000,s:100,m:100,d:2000
judge "section 4 table 1" layout 5999 --layout $S4 --table 1 -- --layout $S4 --mss 1020
judge "section 4 table 2" layout 5999 --layout $S4 --table 2 -- --layout $S4 --mss 1020 --policy packed

# every link type carrying IPv4 and IPv6 (two connections in one capture
# where the link type allows): all TCP, nothing malformed, checksums good
for l in sll raw null loop ipoib ipv4 ipv6; do
  v6=""; [ $l = ipv6 ] && v6=--ipv6
  $D tcprdma synth -o "$T/l.pcap" --size 20000 --link $l $v6 > /dev/null
  if [ $l != ipv4 ] && [ $l != ipv6 ]; then
    $D tcprdma synth -o "$T/l6.pcap" --workload http --size 20000 --link $l --ipv6 > /dev/null
    tail -c +25 "$T/l6.pcap" >> "$T/l.pcap"
  fi
  tshark -n -r "$T/l.pcap" -o tcp.check_checksum:TRUE -o ip.check_checksum:TRUE -T fields \
    -E separator=/t -e tcp.srcport -e _ws.malformed -e tcp.checksum.status \
    -e ip.checksum.status -e tcp.option_kind > "$T/l.tsv" 2> /dev/null
  n=$(awk -F'\t' '$1 == "" || $2 != "" || $3 != "1" || ($4 != "" && $4 != "1")' "$T/l.tsv" | wc -l)
  all=$(grep -c '25' "$T/l.tsv")
  check "[ $n = 0 ] && [ $all -gt 12 ]" "link $l: $n bad frames, $all with kind 25"
done

finish
