#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ddpwire tcprdma end to end: synth writes captures of NFS READ, HTTP GET,
# CIFS read and described-layout connections (every link type, IPv6, loss,
# reordering, duplicates, sequence wrap, both segmentation policies), place
# reads them back with libpcap, and every placed body and pass-through
# stream must equal the original octets (cmp). Hostile captures (bad data
# offsets, transfers past or larger than their buffers, RID floods,
# misaligned options, truncated frames) must be refused with exit 1 and no
# crash, no file larger than its buffer, and the refused data passed on.
set -u
D=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else bad "${2:-$1}"; fi; }

# Every body and pass-through stream synth wrote equals what place wrote.
same() {
  local f b n=0
  for f in "$1"/*.bin; do
    b=$(basename "$f")
    case $b in whole-*) continue ;; esac
    cmp -s "$f" "$2/$b" || { echo "differs: $b" >&2; return 1; }
    n=$((n + 1))
  done
  [ "$n" -ge 3 ]
}

# case NAME EXPECTED_STATUS "synth args" "place args"
case_() {
  local name=$1 want=$2 sargs=$3 pargs=${4:-}
  rm -rf "$T/b" "$T/o"
  $D tcprdma synth -o "$T/c.pcap" --bodies "$T/b" $sargs > /dev/null 2> "$T/err"
  check "[ $? = 0 ]" "$name: synth $sargs ($(head -1 "$T/err"))"
  $D tcprdma place "$T/c.pcap" -o "$T/o" $pargs > "$T/out" 2>&1
  local rc=$?
  check "[ $rc = $want ]" "$name: place exit $rc, wanted $want: $(tail -3 "$T/out")"
}

Q=${DW_TEST_QUICK:+1}
BIG=$([ -n "$Q" ] && echo 60000 || echo 300000)

# the three workloads and a layout, clean and through loss/reorder/dups
for w in nfs http cifs; do
  sz=$([ $w = cifs ] && echo 65534 || echo $BIG)
  case_ "$w" 0 "--workload $w --size $sz --count 3"
  check "same '$T/b' '$T/o'" "$w: placed octets differ"
  check "grep -q '3 transfers complete' '$T/out'"
  check "grep -q 'RID 0x[0-9a-f]*: complete, $sz octets placed directly, 0 passed through' '$T/out'"
  for seed in 1 2 3; do
    case_ "$w seed $seed" 0 "--workload $w --size $sz --count 2 --loss 15 --reorder 15 --dup 10 --seed $seed --policy packed"
    check "same '$T/b' '$T/o'" "$w seed $seed: placed octets differ"
    check "grep -Eq '[1-9][0-9]* duplicate' '$T/out'" "$w seed $seed: no duplicates seen"
  done
done

# every link type, IPv4 and IPv6, sequence numbers wrapping early
for l in eth vlan sll sll2 raw ipv4 null loop ipoib; do
  case_ "link $l" 0 "--link $l --size 40000 --count 2 --isn 4294960000 --loss 10 --seed 4"
  check "same '$T/b' '$T/o'" "link $l: placed octets differ"
  [ $l = ipv4 ] && continue
  case_ "link $l v6" 0 "--ipv6 --link $l --workload http --size 40000 --isn 4294967000 --reorder 20 --seed 5"
  check "same '$T/b' '$T/o'" "link $l IPv6: placed octets differ"
done
case_ "link ipv6" 0 "--ipv6 --link ipv6 --workload cifs --size 30000 --timestamps"
check "same '$T/b' '$T/o'"

# layouts: section 4's stream (MSS 1020: 1000 octets of payload), unsolicited
# transfers with buffer offsets and a zero-length one, 16-octet options
case_ "section 4" 0 "--layout m:100,d:2000,s:100,m:100,d:2000 --mss 1020"
check "same '$T/b' '$T/o'"
check "grep -q 'RID 0x000000000001: complete, 4000 octets placed directly' '$T/out'"
case_ "section 4 packed" 0 "--layout m:100,d:2000,s:100,m:100,d:2000 --mss 1020 --policy packed"
check "same '$T/b' '$T/o'"
LAY=m:50,u,o:100,d:3000,s:10,z,m:20,d:500,s:7,n,o:9,d:7000,s:3,m:1,d:1
case_ "layout unsolicited" 0 "--layout $LAY --loss 20 --seed 8" "--unsol-size 8192"
check "same '$T/b' '$T/o'"
check "grep -q 'RID 0x000000000002: complete, 0 octets placed' '$T/out'" "zero-length transfer"
check "[ -f '$T/o/000000000002.bin' ] && [ ! -s '$T/o/000000000002.bin' ]"
case_ "nfs zero-length replies" 0 "--size 0 --count 3"
check "same '$T/b' '$T/o'"
case_ "no total" 1 "--workload http --size 20000 --count 2 --no-total --reorder 30"
check "same '$T/b' '$T/o'" "16-octet options: placed octets differ"
check "grep -q 'incomplete, 20000 octets placed directly' '$T/out'" "16-octet options complete"

# buffers: explicit ones, none, too small (a transfer larger than its buffer)
case_ "explicit buffer" 0 "--size 65536" "--no-auto --buffer 0x1000:65536"
check "same '$T/b' '$T/o'"
case_ "no buffer" 1 "--size 65536" "--no-auto"
check "grep -q 'no buffer registered for its RID' '$T/out'"
check "cmp -s '$T/b/whole-2049-40001.bin' '$T/o/stream-2049-40001.bin'" "unplaced data not passed on"
case_ "buffer too small" 1 "--size 100000" "--buffer-size 65536"
check "grep -q 'larger than the transfer.s buffer' '$T/out'"
check "cmp -s '$T/b/whole-2049-40001.bin' '$T/o/stream-2049-40001.bin'"
check "[ ! -e '$T/o/000000001000.bin' ]" "a refused transfer wrote its file"
case_ "16-octet past the buffer" 1 "--size 100000 --no-total" "--buffer-size 65536"
check "grep -q 'past the end of the transfer.s buffer' '$T/out'"
check "[ \$(stat -c %s '$T/o/000000001000.bin') -le 65536 ]" "wrote past the buffer"
check "cmp -s '$T/o/000000001000.bin' <(head -c \$(stat -c %s '$T/o/000000001000.bin') '$T/b/000000001000.bin')"
case_ "unsolicited quota" 1 "--layout m:10,u,d:9000 --seed 3" "--unsol-size 4096"
check "grep -q 'unsolicited transfer larger than its size quota' '$T/out'"

# hostile captures: refused, counted, nothing written outside a buffer, and
# the refused octets still reach the stream
for h in bad-offset oversize total rid-flood misaligned; do
  case_ "hostile $h" 1 "--size 50000 --hostile $h --loss 10 --seed 6" "--buffer-size 65536 --unsol-size 65536"
  check "grep -q ' refusals$' '$T/out' && ! grep -q '; 0 refusals' '$T/out'" "$h: no refusal"
  for f in "$T"/o/0*.bin; do
    [ -e "$f" ] && check "[ \$(stat -c %s '$f') -le 65536 ]" "$h: $(basename "$f") past its buffer"
  done
  placed=$(sed -n 's/^flow port 2049 -> 40001: .*segments ([0-9]* duplicate), \([0-9]*\) octets placed.*/\1/p' "$T/out")
  stream=$(stat -c %s "$T/o/stream-2049-40001.bin")
  check "[ $((placed + stream)) = $(stat -c %s "$T/b/whole-2049-40001.bin") ]" \
    "$h: placed $placed + stream $stream != the reply"
done
for h in oversize total misaligned; do
  case_ "hostile $h all" 1 "--size 50000 --hostile $h" "--buffer-size 65536"
  check "cmp -s '$T/b/whole-2049-40001.bin' '$T/o/stream-2049-40001.bin'" "$h: stream"
done
check "grep -q 'quota of outstanding unsolicited' <($D tcprdma synth -o $T/f.pcap --hostile rid-flood --size 200000 && $D tcprdma place $T/f.pcap -o $T/of --max-buffers 4)"

# captures cut short by a snap length, and files that are no capture
case_ "snaplen" 1 "--size 20000 --snaplen 300"
check "grep -q 'payload cut by the capture' '$T/out'"
check "grep -q ' unreadable (1[0-9] cut short)' '$T/out'"
head -c 1000 "$T/c.pcap" > "$T/cut.pcap"
$D tcprdma place "$T/cut.pcap" -o "$T/o2" > /dev/null 2>&1
check "[ $? -le 1 ]" "a capture cut mid-frame crashes place"
echo "not a capture" > "$T/junk.pcap"
$D tcprdma place "$T/junk.pcap" -o "$T/o3" > /dev/null 2> "$T/err"
check "[ $? = 1 ] && [ -s '$T/err' ]"
python3 - "$T/c.pcap" "$T/flip.pcap" <<'PY'
import random, sys
d = bytearray(open(sys.argv[1], 'rb').read())
random.seed(3)
for _ in range(300):   # random octets of the frames (not the file header)
    d[random.randrange(40, len(d))] ^= 1 << random.randrange(8)
open(sys.argv[2], 'wb').write(d)
PY
$D tcprdma place "$T/flip.pcap" -o "$T/o4" > /dev/null 2>&1
check "[ $? -le 1 ]" "a corrupted capture crashes place"

# usage
$D tcprdma synth --help | grep -q 'usage: ddpwire tcprdma synth'
check "[ \${PIPESTATUS[0]} = 0 ]"
$D tcprdma place --help > /dev/null
check "[ $? = 0 ]"
for args in "synth" "synth -o x --size" "synth -o x --bogus" "synth -o x --link foo" \
  "synth -o x --link ipv4 --ipv6" "synth -o x --mss 5000000" "place" "place x.pcap" \
  "place a b -o c" "place x -o y --rid-format z" "bogus"; do
  $D tcprdma $args > /dev/null 2> "$T/err"
  rc=$?
  check "[ $rc = 2 ] && [ \$(wc -l < '$T/err') = 1 ]" "tcprdma $args: exit $rc, $(cat "$T/err")"
done
$D tcprdma synth -o "$T/x.pcap" --layout m:5,q:3 > /dev/null 2>&1
check "[ $? = 2 ]" "bad layout"

# -o that is a file or an unwritable folder: one message naming it, exit 1
touch "$T/afile"
$D tcprdma place "$T/c.pcap" -o "$T/afile" > "$T/out" 2> "$T/err"
rc=$?
check "[ $rc = 1 ] && [ \"\$(wc -l < '$T/err')\" = 1 ] && grep -q afile '$T/err'" "place -o FILE: exit $rc, $(head -3 "$T/err")"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
