#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Our MPA on the wire, judged by an independent decoder (Wireshark's tshark)
# and by our own receiver from the same capture.
#
# `ddpwire listen` and `ddpwire send` exchange RFC 5044 start-up frames
# (--startup negotiate: tshark only decodes FPDUs of a connection whose
# request and reply it has seen) and then 1000-octet records (3 MB and a
# short last one) and 100-octet records, with markers off and on, and
# 490-octet records with markers, over loopback, captured with tcpdump.
# For each capture:
#   - tshark decodes the request and reply (revision 1, CRC flag, M flag as
#     asked) and the FPDUs: every FPDU it decodes has a good CRC, none a bad
#     one; the ULPDU lengths it reports are the record sizes sent, in order
#     (with markers also the FPDUPTR of every marker it shows);
#   - the client->server octets as tshark reassembles them (follow,tcp,raw),
#     less the 20-octet request frame, go through `ddpwire deframe`, which
#     must accept them and give back exactly the records sent, as the
#     listener did (--records).
# `ddpwire dump` reads the same capture: it must find every FPDU with the
# lengths sent, every CRC good and every FPDUPTR right.
# Then one octet is flipped in a captured segment: tshark must call exactly
# that FPDU's CRC bad, `ddpwire deframe` must stop with MPA error 2 at the
# same FPDU, after writing every record before it, and `ddpwire dump` must
# call the same FPDU bad, in the same frame, and exit 1.
#
# tshark 4.0 limitations met here (assert what is true, see also
# ../../shared/specs/README.md):
#   - With markers it takes each TCP segment as one FPDU and counts the
#     segment's markers as (length - first marker offset) / 512 + 1, one too
#     many when the FPDU ends exactly on a 512-octet MPA position and holds a
#     marker (the marker at its end belongs to the next FPDU). It then asks
#     TCP reassembly for 4 more octets and loses the FPDU boundaries for the
#     rest of the connection, decoding little or nothing after, sometimes a
#     misframed "FPDU" with a bad CRC. Any steady stream of records of 499
#     octets or more reaches such an FPDU: #126 (0-based) here for 1000-octet
#     records. So with markers we require every FPDU before that one
#     (wire_pcap.py tshark_break) to be decoded in order with a good CRC, the
#     ULPDU length sent and the FPDUPTRs of our walk, and only report what
#     tshark makes of the rest. Records under 499 octets never trigger it,
#     so the 490- and 100-octet runs with markers are checked in full
#     (490-octet FPDUs often hold a marker, with the pad and CRC after it).
#   - Loopback TCP on two CPUs reorders segments (the sender's and the
#     ACK-clocked transmissions are queued on different CPUs' backlogs),
#     and TCP then retransmits. tshark's marker arithmetic cannot follow an
#     out-of-order segment, so both ends run on CPU 0 (taskset) while
#     capturing; tcp.reassemble_out_of_order is on as well.
#   - The MPA dissector is a TCP heuristic; try_heuristic_first keeps a
#     port-registered dissector from taking a segment first.
#
# Needs root (capture) and tshark + tcpdump (installed when missing, as root).
set -u
D=$1
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
CAP_PID="" LP=""
cleanup() {
  [ -n "$CAP_PID" ] && kill -INT "$CAP_PID" 2> /dev/null
  [ -n "$LP" ] && kill "$LP" 2> /dev/null
  if [ -n "${DW_KEEP:-}" ]; then echo "kept: $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
. "$HERE/../lib/wire_lib.sh"
PY="python3 $HERE/../lib/wire_pcap.py"
start=$(date +%s)

[ "$(id -u)" = 0 ] || skip "capturing on the loopback interface needs root"
need tshark:tshark tcpdump:tcpdump ss:iproute2 python3:python3
# root without the right to capture (a container without CAP_NET_RAW, a user
# namespace): cannot run here. Any other tcpdump failure is a failure.
if ! cap_start "$T/probe.pcap" lo "tcp port 9"; then
  grep -qiE 'permission|not permitted' "$T/probe.pcap.err" &&
    skip "cannot capture on the loopback interface here: $(head -1 "$T/probe.pcap.err")"
  bad "tcpdump does not start: $(cat "$T/probe.pcap.err")"
  finish
  exit 1
fi
cap_stop "$T/probe.pcap"
PIN=""
command -v taskset > /dev/null 2>&1 && PIN="taskset -c 0"
TS=(tshark -n -o tcp.reassemble_out_of_order:TRUE -o tcp.try_heuristic_first:TRUE
    -o tcp.desegment_tcp_streams:TRUE --enable-heuristic iwarp_mpa_tcp)

# inputs: 3 MB + 337 octets (records of 1000, the last 337), 200003 octets
# (records of 100, the last 3), 1000001 octets (records of 490, the last 401)
head -c 3000337 /dev/urandom > "$T/big"
head -c 200003 /dev/urandom > "$T/small"
head -c 1000001 /dev/urandom > "$T/mid"

# run NAME INPUT RECORD_SIZE MARKERS(0|1): capture one transfer, check it
run() {
  local name=$1 in=$2 rs=$3 markers=$4 nm="" port
  [ "$markers" = 0 ] && nm=--no-markers
  $PY records "$in" "$rs" "$T/$name.want"
  # a capture the kernel dropped packets from proves nothing either way:
  # on a busy machine, capture the transfer again (up to 3 times)
  local try
  for try in 1 2 3; do
    port=$(pick_port)
    cap_start "$T/$name.pcap" lo "tcp port $port" ||
      { bad "$name: tcpdump did not start: $(cat "$T/$name.pcap.err")"; return; }
    $PIN "$D" listen "127.0.0.1:$port" --startup negotiate $nm --records \
      > "$T/$name.out" 2> "$T/$name.lerr" &
    LP=$!
    wait_listen "$port" || bad "$name: listener not up"
    $PIN "$D" send "127.0.0.1:$port" "$in" --startup negotiate $nm --record-size "$rs" \
      2> "$T/$name.serr"
    check "[ $? = 0 ]" "$name: send failed: $(cat "$T/$name.serr")"
    wait "$LP"
    check "[ $? = 0 ]" "$name: listen failed: $(cat "$T/$name.lerr")"
    LP=""
    cap_stop "$T/$name.pcap"
    [ "$CAP_DROPS" = 0 ] && break
    echo "$name: tcpdump dropped $CAP_DROPS packets (busy machine), capture $try of 3"
  done
  check "[ '$CAP_DROPS' = 0 ]" "$name: tcpdump dropped $CAP_DROPS packets"
  check "cmp -s '$T/$name.want' '$T/$name.out'" "$name: the listener's records differ from those sent"
  echo "$name: $(cat "$T/$name.serr")"

  # the stream as tshark reassembles it, through our deframer
  "${TS[@]}" -r "$T/$name.pcap" -q -z follow,tcp,raw,0 > "$T/$name.follow" 2> "$T/$name.terr"
  $PY followhex "$T/$name.follow" "$T/$name.stream" > /dev/null
  local skip
  skip=$($PY startup "$T/$name.stream")
  check "[ '$skip' = 20 ]" "$name: the stream does not begin with a 20-octet MPA request frame ($skip)"
  tail -c +$((skip + 1)) "$T/$name.stream" | "$D" deframe $nm > "$T/$name.deframed" 2> "$T/$name.derr"
  check "[ $? = 0 ]" "$name: ddpwire deframe refused the captured stream: $(cat "$T/$name.derr")"
  check "cmp -s '$T/$name.want' '$T/$name.deframed'" "$name: deframed records differ from those sent"
  $PY walk "$T/$name.stream" "$skip" "$markers" > "$T/$name.walk"
  local n
  n=$(kv fpdus "$T/$name.walk")
  local want_n=$(( ($(stat -c %s "$in") + rs - 1) / rs ))
  check "[ '$n' = $want_n ]" "$name: $n FPDUs in the captured stream, $want_n records sent"

  # the start-up frames: request and reply, revision 1, CRC, M = markers
  "${TS[@]}" -r "$T/$name.pcap" -T fields -e iwarp_mpa.marker_flag -e iwarp_mpa.crc_flag \
    -e iwarp_mpa.rej_flag -e iwarp_mpa.rev -Y 'iwarp_mpa.req || iwarp_mpa.rep' \
    2>> "$T/$name.terr" | tr '\t\n' ', ' > "$T/$name.su"
  check "[ \"\$(cat '$T/$name.su')\" = '$markers,1,0,1 $markers,1,0,1 ' ]" \
    "$name: tshark's start-up frames (M,C,R,Rev per frame): $(cat "$T/$name.su")"

  # every FPDU tshark decodes
  "${TS[@]}" -r "$T/$name.pcap" -Y iwarp_mpa -V -O iwarp_mpa > "$T/$name.v" 2>> "$T/$name.terr"
  $PY tshark "$T/$name.v" "$T/$name.stream" "$skip" "$markers" > "$T/$name.ts"
  local f=$T/$name.ts
  local dec=$(kv decoded "$f") k=$(kv break "$f") match=$(kv match "$f")
  local hgood=$(kv head_good "$f") hbad=$(kv head_bad "$f") hl=$(kv head_lengths "$f")
  local last=$(( $(stat -c %s "$in") - (want_n - 1) * rs ))
  check "[ '$(kv req "$f")' = 1 ] && [ '$(kv rep "$f")' = 1 ]" \
    "$name: tshark did not decode one request and one reply"
  # every FPDU up to tshark's break (all of them without markers) decoded in
  # order, with the ULPDU length sent (and FPDUPTRs) and a good CRC
  check "[ '$match' -ge '$k' ] && [ '$hgood' = '$k' ] && [ '$hbad' = 0 ]" \
    "$name: of the first $k FPDUs tshark decoded $match in order with the right lengths/FPDUPTRs, $hgood with a good CRC, $hbad with a bad one (frames $(kv head_bad_frames "$f"))"
  # our own dissector on the same capture: every FPDU of the connection,
  # lengths as sent, every CRC good, every FPDUPTR right
  "$D" dump --json --no-progress "$T/$name.pcap" > "$T/$name.dump" 2> "$T/$name.dumperr"
  local drc=$? ds=$T/$name.ds
  $PY dumpsum "$T/$name.dump" > "$ds"
  local wl
  wl=$(python3 -c "print(','.join(['$rs'] * ($n - 1) + ['$last']))")
  check "[ $drc = 0 ] && [ '$(kv c2s_lengths "$ds")' = '$wl' ] && [ '$(kv crc_bad "$ds")' = 0 ] && [ '$(kv marker_bad "$ds")' = 0 ]" \
    "$name: ddpwire dump exit $drc, $(kv c2s_fpdus "$ds") client FPDUs (want $n), $(kv crc_bad "$ds") bad CRCs, $(kv marker_bad "$ds") wrong FPDUPTRs, events $(kv events "$ds")"
  [ "$markers" = 1 ] && check "[ '$(kv markers "$ds")' -gt 0 ]" "$name: ddpwire dump saw no markers"
  echo "$name: ddpwire dump: $(kv c2s_fpdus "$ds") + $(kv s2c_fpdus "$ds") FPDUs, $(kv crc_good "$ds") good CRC," \
    "$(kv markers "$ds") markers all right, $(kv aligned "$ds") header-aligned; events: $(kv events "$ds" | grep . || echo none)"
  if [ "$k" = "$n" ]; then
    check "[ '$dec' = '$n' ] && [ '$hl' = '$last:1,$rs:$((n - 1))' ]" \
      "$name: tshark decoded $dec of $n FPDUs, ULPDU lengths $hl"
    echo "$name: tshark decoded $dec of $n FPDUs in order: $hgood good CRC, $hbad bad;" \
      "ULPDU lengths $hl (length:count)"
  else
    # markers: FPDU #k ends on a 512-octet MPA position and holds a marker;
    # tshark counts one marker too many there and loses the FPDU boundaries
    # (see the top); what it decodes after that is only reported
    echo "$name: tshark decoded FPDUs #0..#$((k - 1)) of $n in order: $hgood good CRC, $hbad bad," \
      "ULPDU lengths $hl, FPDUPTRs as sent; FPDU #$k ends on a 512 boundary with a marker inside:" \
      "tshark loses the framing there (known limitation); after it, not checked:" \
      "$(kv tail_decoded "$f") decoded, $(kv tail_good "$f") good CRC, $(kv tail_bad "$f") bad," \
      "ULPDU lengths $(kv tail_lengths "$f" | grep . || echo none)"
  fi
}

# corrupt NAME RECORD_SIZE MARKERS SEGMENT: flip a bit in the middle of that
# client->server data segment of NAME's capture; tshark and deframe must
# agree on the FPDU
corrupt() {
  local name=$1 rs=$2 markers=$3 idx=$4 nm="" port skip
  [ "$markers" = 0 ] && nm=--no-markers
  [ -s "$T/$name.stream" ] || { bad "$name-bad: no capture of $name to corrupt"; return; }
  port=$("${TS[@]}" -r "$T/$name.pcap" -T fields -e tcp.dstport -c 1 2> /dev/null)
  skip=$($PY startup "$T/$name.stream")
  $PY flip "$T/$name.pcap" "$T/$name-bad.pcap" "$port" "$idx" > "$T/$name.flip"
  local frame=$(kv frame "$T/$name.flip") off=$(kv offset "$T/$name.flip")
  $PY walk "$T/$name.stream" "$skip" "$markers" $((off - skip)) > "$T/$name.bwalk"
  local fpdu=$(kv fpdu_of_off "$T/$name.bwalk") fidx=$(kv fpdu_index_of_off "$T/$name.bwalk")
  "${TS[@]}" -r "$T/$name-bad.pcap" -q -z follow,tcp,raw,0 > "$T/$name-bad.follow" 2> /dev/null
  $PY followhex "$T/$name-bad.follow" "$T/$name-bad.stream" > /dev/null
  tail -c +$((skip + 1)) "$T/$name-bad.stream" | "$D" deframe $nm > "$T/$name-bad.deframed" 2> "$T/$name-bad.derr"
  local rc=$?
  local said
  said=$(sed -n 's/.*MPA error 2 (CRC mismatch) in the FPDU at stream offset \([0-9]*\).*/\1/p' "$T/$name-bad.derr")
  check "[ $rc = 1 ] && [ '$said' = '$fpdu' ]" \
    "$name-bad: deframe exit $rc, said '$(cat "$T/$name-bad.derr")', the flipped octet is in the FPDU at $fpdu"
  local sz=$(stat -c %s "$T/$name-bad.deframed")
  check "[ $sz = $((fidx * (rs + 2))) ] && cmp -s '$T/$name-bad.deframed' <(head -c $sz '$T/$name.want')" \
    "$name-bad: deframe wrote $sz octets, not exactly the $fidx records before the bad FPDU"
  "${TS[@]}" -r "$T/$name-bad.pcap" -Y iwarp_mpa -V -O iwarp_mpa > "$T/$name-bad.v" 2> /dev/null
  $PY tshark "$T/$name-bad.v" "$T/$name.stream" "$skip" "$markers" > "$T/$name-bad.ts"
  local f=$T/$name-bad.ts
  local tb=$(kv head_bad "$f") tf=$(kv head_bad_frames "$f") tp=$(kv head_bad_fpdus "$f")
  check "[ '$(kv match "$f")' -ge '$(kv break "$f")' ] && [ '$tb' = 1 ] && [ '$tf' = '$frame' ] && [ '$tp' = '$fpdu' ]" \
    "$name-bad: tshark bad CRCs before its break: $tb in frames '$tf' (FPDUs at '$tp'); flipped frame $frame, FPDU at $fpdu"
  # ddpwire dump agrees with tshark: exactly that FPDU, in that frame
  "$D" dump --json --no-progress "$T/$name-bad.pcap" > "$T/$name-bad.dump" 2> /dev/null
  local drc=$?
  $PY dumpsum "$T/$name-bad.dump" > "$T/$name-bad.ds"
  local dbp=$(kv bad_pos "$T/$name-bad.ds") dbk=$(kv bad_pkts "$T/$name-bad.ds")
  check "[ $drc = 1 ] && [ '$dbp' = '$fpdu' ] && [ '${dbk%%-*}' = '$frame' ]" \
    "$name-bad: ddpwire dump exit $drc, bad CRC in FPDUs at '$dbp' (packets '$dbk'); tshark: FPDU at $fpdu, frame $frame"
  echo "$name-bad: bit flipped in frame $frame (MPA position $((off - skip)), FPDU at $fpdu):" \
    "tshark: $tb bad CRC, in frame $tf; $(cat "$T/$name-bad.derr")"
}

run nomark-1000 "$T/big" 1000 0
run nomark-100 "$T/small" 100 0
run mark-1000 "$T/big" 1000 1
run mark-100 "$T/small" 100 1
run mark-490 "$T/mid" 490 1
corrupt nomark-1000 1000 0 1500
corrupt mark-1000 1000 1 50

echo "time: $(( $(date +%s) - start )) s"
finish
