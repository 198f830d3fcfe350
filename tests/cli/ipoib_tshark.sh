#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The simulator's UD frames judged by an independent decoder: `ddpwire ipoib
# pcap` writes them in pcap link type 242, and tshark must decode the IPoIB
# header (type, reserved 0; the GRH of multicast, the destination address of
# unicast), ARP with InfiniBand hardware addresses (type 32, 20 octets, the
# capability flags in the first octet: draft QPN|RC|UC|RD = f0, draft RC =
# 40, RFC 4755 RC = 80) and the IPv4 inside (good checksums, ICMP echo
# request and reply, UDP to the bulk port), with no frame over the UD MTU
# (40 + 4 + 2044 octets). Reading a file needs no root; installing tshark
# does (exit 77 when it is missing and cannot be installed).
set -u
D=$1
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$HERE/../lib/wire_lib.sh"
need tshark:tshark
TS() { tshark -n -r "$1" -o ip.check_checksum:TRUE "${@:2}" 2> /dev/null; }

scenario() { # NAME A B FLAGS_A FLAGS_B
  local p="$T/$1.pcap" n
  n=$($D ipoib pcap -w "$p" "$2" "$3" --bulk 30000 --pings 3 2>&1 > /dev/null |
      sed -n 's/.*: \([0-9]*\) UD frames written.*/\1/p')
  check "[ -n '$n' ] && [ '$n' -gt 5 ]" "$1: pcap written ($n frames)"
  check "[ \"\$(TS $p | wc -l)\" = '$n' ]" "$1: tshark reads all $n frames"
  # every frame: IPoIB, reserved 0, type IPv4 or ARP, within the UD MTU
  TS "$p" -T fields -e frame.protocols -e ipoib.type -e ipoib.reserved -e frame.len > "$T/all"
  check "awk -F'\t' '\$1 !~ /^ipoib:(arp|ip)/ || (\$2 != \"0x0800\" && \$2 != \"0x0806\") || \$3 != \"0x0000\" || \$4 > 2088 {bad=1} END {exit bad}' $T/all" \
    "$1: every frame an IPoIB frame within the UD MTU"
  # ARP: request (broadcast, GRH) then reply (unicast), 20-octet addresses
  TS "$p" -Y arp -T fields -e arp.hw.type -e arp.hw.size -e arp.opcode -e arp.src.hw \
    -e arp.src.proto_ipv4 -e arp.dst.proto_ipv4 -e ipoib.grh.sqpn -e ipoib.dgid -e ipoib.daddr.qpn |
    tr -d ':' > "$T/arp"
  local req rep
  req=$(awk -F'\t' '$3 == 1' "$T/arp" | head -1)
  rep=$(awk -F'\t' '$3 == 2' "$T/arp" | head -1)
  check "[ \"\$(echo '$req' | cut -f1,2,5,6)\" = \"\$(printf '32\t20\t10.0.0.1\t10.0.0.2')\" ]" "$1: ARP request fields: $req"
  check "[ \"\$(echo '$rep' | cut -f1,2,5,6)\" = \"\$(printf '32\t20\t10.0.0.2\t10.0.0.1')\" ]" "$1: ARP reply fields: $rep"
  local sha_a sha_b
  sha_a=$(echo "$req" | cut -f4)
  sha_b=$(echo "$rep" | cut -f4)
  check "[ '${sha_a:0:2}' = '$4' ] && [ '${sha_b:0:2}' = '$5' ]" "$1: flags $4/$5 in the addresses, got ${sha_a:0:2}/${sha_b:0:2}"
  check "[ \${#sha_a} = 40 ] && [ \${#sha_b} = 40 ]" "$1: 20-octet hardware addresses"
  # the GRH of the broadcast request names A's QPN and the IPv4 broadcast GID
  check "[ \"\$(echo '$req' | cut -f7)\" = '0x${sha_a:2:6}' ]" "$1: GRH source QPN is A's"
  check "[ \"\$(echo '$req' | cut -f8)\" = 'ff12401bffffffffffff' ]" "$1: broadcast GID"
  # the unicast reply goes to A's QPN
  check "[ \"\$(echo '$rep' | cut -f9)\" = '0x${sha_a:2:6}' ]" "$1: reply destination QPN is A's"
  # IPv4: good header checksums, echo request and reply, bulk UDP
  TS "$p" -Y ip -T fields -e ip.checksum.status -e icmp.type -e icmp.checksum.status \
    -e udp.dstport > "$T/ip"
  check "awk -F'\t' '\$1 != 1 {bad=1} END {exit bad}' $T/ip" "$1: IPv4 header checksums good"
  check "[ \"\$(awk -F'\t' '\$2 == 8 && \$3 == 1' $T/ip | wc -l)\" -ge 1 ]" "$1: echo request decoded"
  check "[ \"\$(awk -F'\t' '\$2 == 0 && \$3 == 1' $T/ip | wc -l)\" -ge 1 ]" "$1: echo reply decoded"
  check "grep -q '5001\$' $T/ip" "$1: bulk UDP decoded"
}

scenario draft draft-all draft-rc f0 40
scenario rfc rfc-rc linux-rc 80 80
scenario mixed draft-qpn rfc-rcuc 80 c0
finish
