#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ddpwire ipoib` end to end: service IDs (draft 4.2's examples, read back,
# RFC 4755 and Linux forms), the promised exit codes and one-line errors,
# the simulated matrix, and a pcap of link type 242.
set -u
D=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
# same OUT CMD...: stdout of CMD is exactly OUT and it exits 0
same() {
  local want=$1 got rc
  shift
  got=$("$@" 2> "$T/err"); rc=$?
  if [ "$rc" = 0 ] && [ "$got" = "$want" ]; then ok; else bad "$* -> '$got' (exit $rc), want '$want'"; fi
}
# refuses RC CMD...: exits RC with one line on stderr and nothing on stdout
refuses() {
  local want=$1 rc
  shift
  "$@" > "$T/out" 2> "$T/err"; rc=$?
  if [ "$rc" = "$want" ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" = 1 ]; then ok
  else bad "$* exited $rc (want $want), stderr: $(cat "$T/err")"; fi
}

# draft 4.2, examples 1 and 2
same "1:0:0:6:0:0:0:28" $D ipoib service-id tcp 40
same "1:0:0:11:0:0:0:0" $D ipoib service-id udp 0
same "1:0:0:6:0:0:0:28 0x0100000600000028" $D ipoib service-id tcp 40 --hex
same "1:0:0:84:0:0:ff:ff" $D ipoib service-id sctp 65535
same "1:0:0:84:0:0:0:50" $D ipoib service-id 132 80
same "1:0:0:2f:0:0:1:0" $D ipoib service-id 47 256
# read back
same "tcp 40" $D ipoib service-id 1:0:0:6:0:0:0:28
same "udp 0" $D ipoib service-id 1:0:0:11:0:0:0:0
same "47 256" $D ipoib service-id 1:0:0:2f:0:0:1:0
same "tcp 40 (reserved octets set: ignored)" $D ipoib service-id 1:aa:0:6:0:bb:0:28
for p in "tcp 1" "udp 53" "sctp 9899" "icmp 0" "200 65535"; do
  t=$($D ipoib service-id $p)
  same "$p" $D ipoib service-id "$t"
done
# RFC 4755 and Linux connected-mode service IDs
same "1:0:0:0:0:0:0:48" $D ipoib service-id --rfc4755 0x48
same "10:0:0:0:0:0:0:48 0x1000000000000048" $D ipoib service-id --linux 72 --hex
same "rfc4755 qpn 0xabcdef" $D ipoib service-id --cm 1:0:0:0:0:ab:cd:ef
same "linux qpn 0x000048" $D ipoib service-id --cm 10:0:0:0:0:0:0:48
# refusals: usage errors exit 2, valid text outside the block exits 1
refuses 2 $D ipoib service-id tcp 65536
refuses 2 $D ipoib service-id tcpp 40
refuses 2 $D ipoib service-id 1:0:0:6:0:0:28
refuses 2 $D ipoib service-id 1:0:0:6:0:0:0:028
refuses 2 $D ipoib service-id --rfc4755 0x1000000
refuses 2 $D ipoib service-id --rfc4755 1
refuses 2 $D ipoib service-id --bogus
refuses 1 $D ipoib service-id 2:0:0:6:0:0:0:28
refuses 1 $D ipoib service-id --cm 1:0:0:6:0:0:0:28
refuses 2 $D ipoib nonsense
refuses 2 $D ipoib sim draft-rc nosuchkind
refuses 2 $D ipoib matrix --seed
refuses 2 $D ipoib
$D ipoib --help > "$T/h" && grep -q "service-id PROTO PORT" "$T/h" && ok || bad "ipoib --help"
$D ipoib matrix --help > "$T/h" && grep -q "matrix" "$T/h" && ok || bad "ipoib matrix --help"
$D --help | grep -q "ipoib" && ok || bad "ddpwire --help lists ipoib"
same "$(printf 'draft-ud\ndraft-qpn\ndraft-rc\ndraft-uc\ndraft-rd\ndraft-all\nrfc-ud\nrfc-rc\nrfc-uc\nrfc-rcuc\nlinux-rc')" $D ipoib kinds

# the matrix: every pair ok, and rows as the draft and RFC 4755 make them
$D ipoib matrix --bulk 65536 > "$T/m"; rc=$?
[ "$rc" = 0 ] && ok || bad "matrix exit $rc"
grep -qx "121 pairs, 0 failed" "$T/m" && ok || bad "matrix summary: $(tail -1 "$T/m")"
[ "$(grep -c ' ok$' "$T/m")" = 121 ] && ok || bad "121 ok rows"
row() { awk -v a="$1" -v b="$2" '$1==a && $2==b {print $3, $4, $5, $6}' "$T/m"; }
[ "$(row draft-all draft-all)" = "RC 65520 RC 65520" ] && ok || bad "draft-all/draft-all: $(row draft-all draft-all)"
[ "$(row draft-rd draft-all)" = "RD 16384 RD 16384" ] && ok || bad "draft-rd/draft-all"
[ "$(row draft-uc draft-all)" = "UC 32768 UC 32768" ] && ok || bad "draft-uc/draft-all"
[ "$(row draft-qpn draft-all)" = "QPN 2044 QPN 2044" ] && ok || bad "draft-qpn/draft-all"
[ "$(row rfc-rc linux-rc)" = "RC 65520 RC 65520" ] && ok || bad "rfc-rc/linux-rc"
[ "$(row draft-all rfc-rcuc)" = "UD 2044 UD 2044" ] && ok || bad "draft-all/rfc-rcuc"
[ "$(row draft-ud rfc-ud)" = "UD 2044 UD 2044" ] && ok || bad "draft-ud/rfc-ud"

# a scenario and its pcap: link type 242, records of ARP (100 octets) first
$D ipoib sim draft-all draft-rc --bulk 20000 > "$T/s" && grep -q "RC  *65520.* ok$" "$T/s" && ok ||
  bad "sim: $(cat "$T/s")"
$D ipoib pcap -w "$T/c.pcap" rfc-rc linux-rc --bulk 10000 > /dev/null 2> "$T/err" && ok || bad "pcap: $(cat "$T/err")"
hdr=$(od -An -tx1 -N24 "$T/c.pcap" | tr -d ' \n')
[ "$hdr" = "d4c3b2a102000400000000000000000000000400f2000000" ] && ok || bad "pcap header $hdr"
[ "$(od -An -tu4 -j32 -N4 "$T/c.pcap" | tr -d ' ')" = 100 ] && ok || bad "first record is not a 100-octet ARP"
refuses 1 $D ipoib pcap -w /nonexistent/dir/x.pcap
sum=$(md5sum < "$T/c.pcap")
refuses 2 $D ipoib pcap "$T/c.pcap"
[ "$(md5sum < "$T/c.pcap")" = "$sum" ] && ok || bad "ipoib pcap FILE (no -w) changed FILE"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
