#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Exact-fill FPDUs cut by the kernel's own software GSO (MPA 7.3-b, 7.3-c,
# 7.3.1-c; docs/DESIGN.md "Aligned FPDUs through TSO/GSO").
#
# Three network namespaces of this test's own, sender - router - receiver,
# joined by veths with MTU 1500 (EMSS 1448 with TCP timestamps). The sender's
# veth has TSO off and GSO on,
# so TCP builds buffers of up to 64 KiB and the kernel's software GSO cuts
# them into segments of EMSS just before the veth; the receiver's veth has GRO
# off, so the capture on it shows those segments. `ddpwire send` (default:
# the transport cuts the input at the exact fill, many FPDUs per write) sends
# to `ddpwire listen` (markers and CRC on, immediate start-up), tcpdump
# captures the whole stream, and wire_pcap.py fill walks it on its own (its
# own FPDU walk, CRC32c and marker check, not the library's) and reports the
# share of data segments that begin with an FPDU, first copies and
# retransmissions apart:
#
#   steady       16 MiB, no loss: 100 % begin with an FPDU, every CRC and
#                marker good, nearly every FPDU exactly EMSS octets
#   loss         the same with 1 % of the data segments dropped by the router
#                (nftables numgen random; this kernel has no netem), so the
#                receiver's capture holds what it got: >= 99 % of first copies
#                begin with an FPDU, retransmissions counted apart
#   mtu          the veth MTU drops from 1500 to 1280 in a pause in the middle
#                of a transfer: alignment before, after, and from the first
#                FPDU of the new EMSS (1228) on, which must come within one
#                write (256 KiB); 100 % aligned before and after (the adapter
#                sees the route's MTU, not only the kernel's cached MSS)
#   slow         a receiver slower than the sender (the listener's output
#                goes through a pipe drained 64 KiB at a time with pauses),
#                so the peer's window is what limits the sender: writes cut
#                by the window, one FPDU beyond its edge and a wait, writes
#                without MSG_EOR inside it: >= 99.9 % of data segments begin
#                with an FPDU (one in about 11,700 did not in half the runs,
#                before issue 28's change too: a cut at the window's edge the
#                adapter cannot prevent, docs/DESIGN.md)
#
# Needs root (namespaces, capture, nftables), iproute2, ethtool, tcpdump,
# nftables, python3: installed when missing (as root). Exit 77 only where
# namespaces or veth cannot exist.
set -u
D=$1
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
A=dwgA.$$ B=dwgB.$$ R=dwgR.$$ VA=dwga$$ VB=dwgb$$ RA=dwgra$$ RB=dwgrb$$
CAP_PID="" LP="" NS_MADE=0 NS_LIST="$A $B $R"
. "$HERE/../lib/wire_lib.sh"
trap ns_cleanup EXIT
PY="python3 $HERE/../lib/wire_pcap.py"
start=$(date +%s)

[ "$(id -u)" = 0 ] || skip "network namespaces and capturing need root"
need ip:iproute2 ss:iproute2 tcpdump:tcpdump ethtool:ethtool python3:python3 nft:nftables

ip netns add "$A" 2> "$T/setup.err" || setup_fail "cannot create a network namespace"
NS_MADE=1
ip netns add "$B" 2> "$T/setup.err" || setup_fail "cannot create a second network namespace"
ip netns add "$R" 2> "$T/setup.err" || setup_fail "cannot create a third network namespace"
ip link add "$VA" type veth peer name "$RA" 2> "$T/setup.err" || setup_fail "cannot create a veth pair"
ip link add "$VB" type veth peer name "$RB" 2> "$T/setup.err" || setup_fail "cannot create a veth pair"
EA=(ip netns exec "$A")
EB=(ip netns exec "$B")
ER=(ip netns exec "$R")
setup_ok=1
# A (10.199.4.1) - R - B (10.199.5.1); the loss is made in R
ip link set "$VA" netns "$A" && ip link set "$VB" netns "$B" &&
  ip link set "$RA" netns "$R" && ip link set "$RB" netns "$R" &&
  ip -n "$A" addr add 10.199.4.1/24 dev "$VA" && ip -n "$R" addr add 10.199.4.2/24 dev "$RA" &&
  ip -n "$R" addr add 10.199.5.2/24 dev "$RB" && ip -n "$B" addr add 10.199.5.1/24 dev "$VB" &&
  for l in "$A $VA" "$B $VB" "$R $RA" "$R $RB"; do set -- $l; ip -n "$1" link set "$2" mtu 1500 up; done &&
  ip -n "$A" link set lo up && ip -n "$B" link set lo up &&
  ip -n "$A" route add default via 10.199.4.2 && ip -n "$B" route add default via 10.199.5.2 &&
  "${ER[@]}" sysctl -qw net.ipv4.ip_forward=1 || setup_ok=0
check "[ $setup_ok = 1 ]" "could not configure the namespaces"
# sender: TSO off, GSO on (software GSO cuts); receiver: GRO off (segments seen)
"${EA[@]}" ethtool -K "$VA" tso off gso on 2> "$T/eth.err" || bad "ethtool -K $VA: $(cat "$T/eth.err")"
"${EB[@]}" ethtool -K "$VB" gro off 2> "$T/eth.err" || bad "ethtool -K $VB: $(cat "$T/eth.err")"
# the router forwards segments as they come (no GRO merging them again)
"${ER[@]}" ethtool -K "$RA" gro off > /dev/null 2>&1
"${ER[@]}" ethtool -K "$RB" gro off > /dev/null 2>&1
k=$("${EA[@]}" ethtool -k "$VA")
check "echo '$k' | grep -q '^tcp-segmentation-offload: off' && echo '$k' | grep -q '^generic-segmentation-offload: on'" \
  "sender offloads: $(echo "$k" | grep -E '^(tcp|generic)-segmentation-offload')"
check "\"\${EB[@]}\" ethtool -k $VB | grep -q '^generic-receive-offload: off'" "receiver GRO still on"

CAP_SNAP=1600 # whole 1514-octet frames; a slot per frame in the capture ring
EMSS=1448 # MTU 1500 - 20 (IPv4) - 20 (TCP) - 12 (timestamps)
head -c 16777216 /dev/urandom > "$T/in"
port=7300

# kv_all FILE: the checker's key=value lines, on one line
kv_all() { tr '\n' ' ' < "$1"; }

# run NAME [loss]: one transfer of $T/in (or of the pipe in $T/feed.sh)
run() {
  local name=$1 how=${2:-}
  port=$((port + 1))
  cap_start "$T/$name.pcap" "$VB" "tcp port $port" "${EB[@]}" ||
    { bad "$name: tcpdump did not start: $(cat "$T/$name.pcap.err")"; return 1; }
  if [ "$how" = loss ]; then
    nft_loss_rules "$port" 1 | "${ER[@]}" nft -f - 2> "$T/nft.err" ||
      bad "$name: nft: $(cat "$T/nft.err")"
  fi
  if [ "$how" = slow ]; then
    # 64 KiB every 4 ms: about 16 MB/s, far below what the sender can do
    "${EB[@]}" bash -c "\"\$0\" listen 10.199.5.1:$port 2> '$T/$name.lerr' |
      python3 -c 'import sys, time
i, o = sys.stdin.buffer, sys.stdout.buffer
while True:
    b = i.read(65536)
    if not b: break
    o.write(b); time.sleep(0.004)'" "$D" > "$T/$name.out" &
  else
    "${EB[@]}" "$D" listen "10.199.5.1:$port" > "$T/$name.out" 2> "$T/$name.lerr" &
  fi
  LP=$!
  wait_listen "$port" "${EB[@]}" || bad "$name: listener not up"
  if [ "$how" = mtu ]; then
    bash "$T/feed.sh" | "${EA[@]}" "$D" send "10.199.5.1:$port" - 2> "$T/$name.serr"
  else
    "${EA[@]}" "$D" send "10.199.5.1:$port" "$T/in" 2> "$T/$name.serr"
  fi
  check "[ $? = 0 ]" "$name: send failed: $(cat "$T/$name.serr")"
  wait "$LP"
  check "[ $? = 0 ]" "$name: listen failed: $(cat "$T/$name.lerr")"
  LP=""
  cap_stop "$T/$name.pcap"
  if [ "$how" = loss ]; then
    NFT_DROPS=$("${ER[@]}" nft list ruleset | sed -n 's/.*counter packets \([0-9]*\).*/\1/p')
    "${ER[@]}" nft delete table inet dwloss
    echo "$name: the router dropped ${NFT_DROPS:-?} segments"
  fi
  check "[ '$CAP_DROPS' = 0 ]" "$name: tcpdump dropped $CAP_DROPS packets"
  check "cmp -s '$T/in' '$T/$name.out'" "$name: the listener's output differs from the input"
  echo "$name: $(cat "$T/$name.serr")"
}

# judge NAME EMSS [T EMSS2]: the independent walk of the capture
judge() {
  local name=$1
  shift
  $PY fill "$T/$name.pcap" "$port" 1 1 "$@" > "$T/$name.fill" 2> "$T/$name.ferr"
  check "[ $? = 0 ]" "$name: capture analysis failed: $(cat "$T/$name.ferr")"
  echo "$name: $(kv_all "$T/$name.fill")"
  local f=$T/$name.fill
  check "[ '$(kv crc_bad "$f")' = 0 ] && [ '$(kv marker_bad "$f")' = 0 ]" \
    "$name: $(kv crc_bad "$f") bad CRCs, $(kv marker_bad "$f") bad markers"
  check "[ '$(kv max_len "$f")' -le $EMSS ]" "$name: a segment of $(kv max_len "$f") octets"
}

run steady && judge steady $EMSS
f=$T/steady.fill
check "[ '$(kv segments "$f")' -gt 10000 ] && [ '$(kv aligned "$f")' = '$(kv segments "$f")' ]" \
  "steady: $(kv aligned "$f")/$(kv segments "$f") data segments begin with an FPDU"
check "[ '$(kv fpdus_emss "$f")' -ge $(( $(kv fpdus "$f") * 99 / 100 )) ]" \
  "steady: only $(kv fpdus_emss "$f") of $(kv fpdus "$f") FPDUs are $EMSS octets"

run loss loss && judge loss $EMSS
f=$T/loss.fill
check "[ '${NFT_DROPS:-0}' -gt 50 ] && [ '$(kv retrans "$f")' -gt 0 ]" \
  "loss: ${NFT_DROPS:-0} segments dropped, $(kv retrans "$f") retransmissions seen"
check "awk -v s='$(kv share "$f")' 'BEGIN { exit !(s >= 0.99) }'" \
  "loss: $(kv aligned "$f")/$(kv segments "$f") first copies begin with an FPDU"
echo "loss: $(kv retrans_aligned "$f")/$(kv retrans "$f") retransmissions begin with an FPDU"

run slow slow && judge slow $EMSS
f=$T/slow.fill
check "[ '$(kv segments "$f")' -gt 10000 ] && [ $(( $(kv aligned "$f") * 1000 )) -ge $(( $(kv segments "$f") * 999 )) ]" \
  "slow: $(kv aligned "$f")/$(kv segments "$f") data segments begin with an FPDU"
echo "slow: $(kv aligned "$f")/$(kv segments "$f") segments begin with an FPDU (slow receiver)"

# mtu: 8 MiB, a pause in which the path MTU drops to 1280, the other 8 MiB
EMSS2=1228 # 1280 - 52
cat > "$T/feed.sh" << EOF
head -c 8388608 '$T/in'
sleep 1
for l in "$A $VA" "$R $RA" "$R $RB" "$B $VB"; do set -- \$l; ip -n "\$1" link set "\$2" mtu 1280; done
date +%s.%N > '$T/mtu.t'
sleep 0.2
tail -c +8388609 '$T/in'
EOF
run mtu mtu && judge mtu $EMSS "$(cat "$T/mtu.t")" $EMSS2
f=$T/mtu.fill
check "[ '$(kv before_aligned "$f")' = '$(kv before_segments "$f")' ]" \
  "mtu: before the drop $(kv before_aligned "$f")/$(kv before_segments "$f") begin with an FPDU"
check "[ '$(kv after_aligned "$f")' = '$(kv after_segments "$f")' ]" \
  "mtu: after the drop $(kv after_aligned "$f")/$(kv after_segments "$f") begin with an FPDU"
check "[ '$(kv resized_segments "$f")' -gt 4000 ] && [ '$(kv resized_aligned "$f")' = '$(kv resized_segments "$f")' ]" \
  "mtu: from the first $EMSS2-octet FPDU on $(kv resized_aligned "$f")/$(kv resized_segments "$f") begin with an FPDU"
check "[ \$(( $(kv resized_at "$f") - 8388608 )) -le 262144 ]" \
  "mtu: FPDUs of $EMSS2 octets began $(( $(kv resized_at "$f") - 8388608 )) octets after the pause (more than one write)"
echo "mtu: before $(kv before_aligned "$f")/$(kv before_segments "$f"), after the drop" \
  "$(kv after_aligned "$f")/$(kv after_segments "$f"), from the first $EMSS2-octet FPDU" \
  "$(kv resized_aligned "$f")/$(kv resized_segments "$f") segments begin with an FPDU;" \
  "resized $(( $(kv resized_at "$f") - 8388608 )) octets after the pause"

echo "time: $(( $(date +%s) - start )) s"
finish
