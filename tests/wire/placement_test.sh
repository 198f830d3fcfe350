#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ddpwire analyze placement` on captures of real Linux TCP between two
# network namespaces, with loss on the sender's side (nftables dropping 1 %
# of the data segments at random: this machine's kernel has no netem, so
# no reordering beyond what loss and retransmission make):
# MPA (negotiated start-up, markers, CRC) from `ddpwire send` to
# `ddpwire listen`, captured where the receiver sees it (its GRO off).
# Every ULPDU must be placed (as many as the independent FPDU walk of
# wire_pcap.py counts, as many as records were sent), none with an MPA
# error, some before their turn (a lost or reordered segment holds back
# the in-order point while markers locate later FPDUs: MPA 7.4), the held
# octets reported, and analyze buffers' model given beside them.
# Needs root; exit 77 where namespaces cannot be made.
set -u
D=$1
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
A=dwpA.$$ B=dwpB.$$ VA=dwpa$$ VB=dwpb$$ R=dwpR.$$ RA=dwpra$$ RB=dwprb$$
CAP_PID="" LP="" NS_MADE=0 NS_LIST="$A $B $R"
. "$HERE/../lib/wire_lib.sh"
trap ns_cleanup EXIT

[ "$(id -u)" = 0 ] || skip "network namespaces and capturing need root"
need ip:iproute2 ss:iproute2 tcpdump:tcpdump ethtool:ethtool nft:nftables python3:python3
ip netns add "$A" 2> "$T/setup.err" || setup_fail "cannot create a network namespace"
NS_MADE=1
{ ip netns add "$B" && ip netns add "$R" && ip link add "$VA" type veth peer name "$RA" &&
  ip link add "$VB" type veth peer name "$RB"; } 2> "$T/setup.err" || setup_fail "cannot create the namespaces and veths"
EA=(ip netns exec "$A")
EB=(ip netns exec "$B")
ER=(ip netns exec "$R")
# A - R - B: the loss is made in R, so B's capture shows what a receiver gets
ip link set "$VA" netns "$A" && ip link set "$VB" netns "$B" &&
  ip link set "$RA" netns "$R" && ip link set "$RB" netns "$R" &&
  ip -n "$A" addr add 10.198.1.1/24 dev "$VA" && ip -n "$R" addr add 10.198.1.2/24 dev "$RA" &&
  ip -n "$R" addr add 10.198.2.2/24 dev "$RB" && ip -n "$B" addr add 10.198.2.1/24 dev "$VB" &&
  for l in "$A $VA" "$B $VB" "$R $RA" "$R $RB"; do set -- $l; ip -n "$1" link set "$2" mtu 1500 up; done &&
  ip -n "$A" link set lo up && ip -n "$B" link set lo up &&
  ip -n "$A" route add default via 10.198.1.2 && ip -n "$B" route add default via 10.198.2.2 &&
  "${ER[@]}" sysctl -qw net.ipv4.ip_forward=1
check "[ $? = 0 ]" "could not configure the namespaces"
"${EA[@]}" ethtool -K "$VA" tso off gso off > /dev/null 2>&1
"${EB[@]}" ethtool -K "$VB" gro off > /dev/null 2>&1

# a rate the capture keeps up with on a busy machine (tbf: no netem here)
"${EA[@]}" tc qdisc add dev "$VA" root tbf rate 100mbit burst 64kb latency 200ms 2> /dev/null
head -c 2000000 /dev/urandom > "$T/in"
port=$(pick_port "${EB[@]}")
nft_loss_rules "$port" 1 | "${ER[@]}" nft -f - 2> "$T/setup.err" || setup_fail "nftables"
cap_start "$T/c.pcap" "$VB" "tcp port $port" "${EB[@]}" || bad "tcpdump did not start: $(cat "$T/c.pcap.err")"
"${EB[@]}" "$D" listen "10.198.2.1:$port" --startup negotiate > "$T/out" 2> "$T/lerr" &
LP=$!
wait_listen "$port" "${EB[@]}" || bad "listener not up"
"${EA[@]}" "$D" send "10.198.2.1:$port" "$T/in" --startup negotiate 2> "$T/serr"
check "[ $? = 0 ]" "send failed: $(cat "$T/serr")"
wait "$LP"
check "[ $? = 0 ]" "listen failed: $(cat "$T/lerr")"
LP=""
cap_stop "$T/c.pcap"
# scripts/figures.sh keeps this capture for docs/figures/placement.svg
[ -n "${DW_KEEP_CAPTURE:-}" ] && cp "$T/c.pcap" "$DW_KEEP_CAPTURE"
"${ER[@]}" nft list ruleset | grep -o "counter packets [0-9]*" | sed "s/^/nft drops: /"
check "cmp -s '$T/in' '$T/out'" "the listener's output differs from the input"
check "[ '$CAP_DROPS' = 0 ]" "tcpdump dropped $CAP_DROPS packets"

"$D" analyze placement --json "$T/c.pcap" > "$T/pl.jsonl" 2> "$T/pl.err"
check "[ $? = 0 ]" "analyze placement failed: $(cat "$T/pl.err")"
python3 - "$T/pl.jsonl" "$T/c.pcap" "$port" "$HERE/../lib" > "$T/r" 2>&1 <<'PY'
import json, sys
sys.path.insert(0, sys.argv[4])
sys.dont_write_bytecode = True
import wire_pcap
rows = [json.loads(l) for l in open(sys.argv[1])]
c2s = [r for r in rows if r['dir'] == 'c2s' and r['ulpdus']]
assert len(c2s) == 1, rows
r = c2s[0]
data, segs = wire_pcap.client_segments(sys.argv[2], int(sys.argv[3]))
stream = wire_pcap.reassemble(segs)
base = wire_pcap.startup_len(stream)
n = len(wire_pcap.walk(stream[base:], True))
assert r['ulpdus'] == n, ('placed', r['ulpdus'], 'FPDUs walked', n)
assert r['mpa_error'] == 0, r
assert r['placed_early'] > 0, ('nothing placed before its turn', r)
assert r['retransmits'] > 0, ('no loss seen', r)
# aligned FPDUs are placed whole on arrival: at most one partial FPDU held
# (the analysis text's BufferSizeAF), and the model says the same
assert r['aligned'] and r['held_peak'] <= r['emss'], r
assert r['model'] is not None and r['model']['placed_early'] > 0, r
print('c2s: %d ULPDUs (as walked), %d placed before their turn, held peak %d, mean %d; '
      '%d segments, %d sent again, %d out of order; model: %d of %d early, peak %d'
      % (r['ulpdus'], r['placed_early'], r['held_peak'], r['held_mean'], r['segments'],
         r['retransmits'], r['out_of_order'], r['model']['placed_early'], r['model']['ulpdus'],
         r['model']['held_peak']))
PY
check "[ $? = 0 ]" "placement: $(cat "$T/r")"
cat "$T/r"
finish
