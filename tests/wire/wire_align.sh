#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Segment alignment measured on a real link (MPA 5.1-a, 7.3-b, 7.3-c).
#
# Two network namespaces of this test's own, joined by a veth pair with MTU
# 1500 (EMSS 1448 with TCP timestamps) and addresses on a /30 that exists
# only inside them; segmentation, checksum and receive offloads off on both
# ends (TSO/GSO/GRO), so the capture shows the segments as they are on the
# wire. `ddpwire listen` runs in one namespace, `ddpwire send` in the other
# (--startup immediate: MPA position 0 is the first octet after the TCP
# handshake), and tcpdump captures in the receiver's namespace. From the
# capture, wire_pcap.py align walks the FPDUs of the stream itself
# (ULPDU_Length, pad, CRC, a marker before every octet at an MPA position
# that is a multiple of 512) and checks where each client->server data
# segment begins and ends.
#
#   aligned mode (each FPDU sent as its own record, MSG_EOR), records of
#   MULPDU for EMSS 1448 (1430 with markers), of 100 octets, and of the
#   default MULPDU without markers: every data segment begins with an FPDU,
#   holds exactly one FPDU and ends with it; no segment is longer than EMSS.
#   packed mode (--pack), 100-octet records: several FPDUs per segment on
#   average (measured and printed, with the share of segments that begin
#   with an FPDU, which packed mode does not promise).
#
# A segment that does not begin with an FPDU is printed with the evidence
# (frame, MPA positions, which FPDU it cuts and where).
# Needs root (namespaces, capture), iproute2, ethtool, tcpdump; they are
# installed when missing (as root).
set -u
D=$1
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
A=dwA.$$ B=dwB.$$ VA=dwa$$ VB=dwb$$
CAP_PID="" LP="" NS_MADE=0 NS_LIST="$A $B"
. "$HERE/../lib/wire_lib.sh"
trap ns_cleanup EXIT
PY="python3 $HERE/../lib/wire_pcap.py"
start=$(date +%s)

[ "$(id -u)" = 0 ] || skip "network namespaces and capturing need root"
need ip:iproute2 ss:iproute2 tcpdump:tcpdump ethtool:ethtool python3:python3

# Not allowed here (a container without CAP_SYS_ADMIN, a user namespace, no
# veth driver): cannot run here. Any other failure is a failure.
ip netns add "$A" 2> "$T/setup.err" || setup_fail "cannot create a network namespace"
NS_MADE=1
ip netns add "$B" 2> "$T/setup.err" || setup_fail "cannot create a second network namespace"
ip link add "$VA" type veth peer name "$VB" 2> "$T/setup.err" || setup_fail "cannot create a veth pair"
EA=(ip netns exec "$A")
EB=(ip netns exec "$B")
setup_ok=1
ip link set "$VA" netns "$A" && ip link set "$VB" netns "$B" &&
  ip -n "$A" addr add 10.199.0.1/30 dev "$VA" && ip -n "$B" addr add 10.199.0.2/30 dev "$VB" &&
  ip -n "$A" link set "$VA" mtu 1500 up && ip -n "$B" link set "$VB" mtu 1500 up &&
  ip -n "$A" link set lo up && ip -n "$B" link set lo up || setup_ok=0
check "[ $setup_ok = 1 ]" "could not configure the namespaces"
for nv in "$A $VA" "$B $VB"; do
  set -- $nv
  ip netns exec "$1" ethtool -K "$2" tso off gso off gro off 2> "$T/eth.err" ||
    bad "ethtool -K $2: $(cat "$T/eth.err")"
  off=$(ip netns exec "$1" ethtool -k "$2" |
    grep -cE '^(tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload): off')
  check "[ '$off' = 3 ]" "offloads still on for $2: $(ip netns exec "$1" ethtool -k "$2" | grep -E 'segmentation-offload|receive-offload')"
done

EMSS=1448 # MTU 1500 - 20 (IPv4) - 20 (TCP) - 12 (timestamps)
MULPDU=$((EMSS - (6 + 4 * ((EMSS + 511) / 512) + EMSS % 4))) # MPA 7.3.1
echo "EMSS $EMSS: MULPDU $MULPDU with markers"
head -c 4000037 /dev/urandom > "$T/big"
head -c 300000 /dev/urandom > "$T/small"

port=7000
# run NAME INPUT MODE(aligned|packed) MARKERS(0|1) [RECORD_SIZE]
run() {
  local name=$1 in=$2 mode=$3 markers=$4 rs=${5:-} opts=""
  [ "$markers" = 0 ] && opts="--no-markers"
  [ "$mode" = packed ] && opts="$opts --pack"
  port=$((port + 1))
  cap_start "$T/$name.pcap" "$VB" "tcp port $port" "${EB[@]}" ||
    { bad "$name: tcpdump did not start: $(cat "$T/$name.pcap.err")"; return; }
  "${EB[@]}" "$D" listen "10.199.0.2:$port" $opts > "$T/$name.out" 2> "$T/$name.lerr" &
  LP=$!
  wait_listen "$port" "${EB[@]}" || bad "$name: listener not up"
  "${EA[@]}" "$D" send "10.199.0.2:$port" "$in" $opts ${rs:+--record-size $rs} 2> "$T/$name.serr"
  check "[ $? = 0 ]" "$name: send failed: $(cat "$T/$name.serr")"
  wait "$LP"
  check "[ $? = 0 ]" "$name: listen failed: $(cat "$T/$name.lerr")"
  LP=""
  cap_stop "$T/$name.pcap"
  check "[ '$CAP_DROPS' = 0 ]" "$name: tcpdump dropped $CAP_DROPS packets"
  check "cmp -s '$in' '$T/$name.out'" "$name: the listener's output differs from the input"
  echo "$name: $(cat "$T/$name.serr")"
  check "grep -q '(EMSS $EMSS,' '$T/$name.serr'" "$name: the sender did not see EMSS $EMSS"
  $PY align "$T/$name.pcap" "$port" 0 "$markers" > "$T/$name.al" 2> "$T/$name.alerr"
  check "[ $? = 0 ]" "$name: capture analysis failed: $(cat "$T/$name.alerr")"
  local f=$T/$name.al
  local segs=$(kv segments "$f") al=$(kv aligned "$f") whole=$(kv whole "$f") one=$(kv one_fpdu "$f")
  local n=$(kv fpdus "$f") maxl=$(kv max_len "$f") rt=$(kv retransmissions "$f")
  local sent=$(( ($(stat -c %s "$in") + ${rs:-1} - 1) / ${rs:-1} ))
  [ -n "$rs" ] && check "[ '$n' = $sent ]" "$name: $n FPDUs in the capture, $sent records sent"
  check "[ '$maxl' -le $EMSS ]" "$name: a segment of $maxl octets, more than EMSS $EMSS (offloads?)"
  local pct
  pct=$(awk -v a="$al" -v s="$segs" 'BEGIN { printf "%.1f", s ? 100 * a / s : 0 }')
  if [ "$mode" = aligned ]; then
    echo "$name: $al/$segs segments begin with an FPDU ($pct%), $one hold exactly one FPDU," \
      "$whole end with an FPDU; $n FPDUs; longest segment $maxl; $rt retransmitted"
    check "[ '$segs' -gt 0 ] && [ '$al' = '$segs' ]" "$name: $al/$segs segments begin with an FPDU ($pct%)"
    check "[ '$one' = '$segs' ] && [ '$whole' = '$segs' ]" \
      "$name: of $segs segments $one hold exactly one FPDU and $whole end with an FPDU"
  else
    local per
    per=$(awk -v n="$n" -v s="$segs" 'BEGIN { printf "%.1f", s ? n / s : 0 }')
    echo "$name: $per FPDUs per segment ($n FPDUs in $segs segments); $al/$segs segments" \
      "begin with an FPDU ($pct%), $whole end with one; longest segment $maxl; $rt retransmitted"
    check "awk -v n='$n' -v s='$segs' 'BEGIN { exit !(s > 0 && n / s > 1) }'" \
      "$name: packed mode put $per FPDUs per segment"
  fi
  grep '^misaligned:' "$f" | sed "s/^/$name: /"
}

run aligned-mulpdu "$T/big" aligned 1 "$MULPDU"
run aligned-100 "$T/small" aligned 1 100
run aligned-nomark "$T/big" aligned 0
run packed-100 "$T/small" packed 1 100

echo "time: $(( $(date +%s) - start )) s"
finish
