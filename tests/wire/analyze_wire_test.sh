#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ddpwire analyze packing / align: the analysis text's sections 6 and 7.2.
#
# Always (no root): the formula output against numbers computed here
# independently (awk for the text's formulas, python3 for FPDU lengths with
# markers and the packing rule): minimum FPDU 24, ~60x and ~22x, the
# worst-case ~2x and the marginal typical workloads. Deterministic.
# As root with network namespaces: short measured runs over a veth, and the
# namespaces gone afterwards, also after SIGTERM. Without them: exit 77
# (after the formula checks passed).
set -u
D=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else bad "${2:-$1}"; fi; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" = 0 ]; }
start=$(date +%s)

$D analyze packing --help | grep -q 'No Packing'; check "[ $? = 0 ]" "packing --help"
$D analyze align --help | grep -q '7.2'; check "[ $? = 0 ]" "align --help"
$D analyze packing --bogus > /dev/null 2>&1; check "[ $? = 2 ]" "packing: bad option exits 2"
$D analyze packing --count 0 > /dev/null 2>&1; check "[ $? = 2 ]" "packing: --count 0 exits 2"
$D analyze align --emss 100 > /dev/null 2>&1; check "[ $? = 2 ]" "align: --emss 100 exits 2"

P=$($D analyze packing); check "[ $? = 0 ]" "analyze packing failed"
A=$($D analyze align); check "[ $? = 0 ]" "analyze align failed"
check "[ \"\$P\" = \"\$($D analyze packing)\" ]" "packing output not deterministic"
echo "$P" | grep -q '= 24 octets (text: 24)'; check "[ $? = 0 ]" "minimum FPDU is not 24"

# The text's formulas, with its rounded inputs and exactly.
f() { awk -v s="$1" -v m="$2" 'BEGIN { printf "%.2f", (s - 4 * m) / 24 }'; }
for c in "1460 2.9" "536 1.05"; do
  set -- $c
  exact=$(awk -v s="$1" 'BEGIN { print s / 512 }')
  line=$(echo "$P" | grep -A3 "($1 octets per segment)" | grep 'its inputs')
  check "echo '$line' | grep -q 'its inputs $(f "$1" "$2"), exact $(f "$1" "$exact")'" \
    "$1: expected inputs $(f "$1" "$2") exact $(f "$1" "$exact"): $line"
done

# FPDU lengths with markers and the packing rule, computed here.
python3 - > "$T/pred" << 'EOF'
def fpdu(pos, ulen):  # MPA: a marker at every position p % 512 == 0
    r = 2 + ulen + (-(2 + ulen)) % 4 + 4
    p = pos
    while r > 0:
        if p % 512 == 0:
            p += 4
        t = min(r, 512 - p % 512)
        p, r = p + t, r - t
    return p - pos
def run(calls, emss):  # a segment ends where the next FPDU would pass EMSS
    pos = segs = 0
    for call in calls:
        g = 0
        for u in call:
            f = fpdu(pos, u)
            if g == 0 or g + f > emss:
                segs, g = segs + 1, 0
            g, pos = g + f, pos + f
    return segs, pos
def ddp(n, maxu):  # DDP segments of at most MULPDU, 14-octet tagged header
    out = []
    while True:
        c = min(n, maxu - 14); out.append(14 + c); n -= c
        if n == 0: return out
for e in (1460, 536):
    print("pack%d %d" % (e, run([[15] * 20000], e)[0]))
e = 1460
mul = e - (6 + 4 * -(-e // 512) + e % 4)
w = ((e // 2 + 1 + 3) & ~3) - 6
s, tot = run([[w]] * 2000, e)
print("worst %d %d %.3f" % (s, -(-tot // e), s / -(-tot // e)))
s, tot = run([ddp(65536, mul)] * 64, e)
print("bulk %d %d %.3f" % (s, -(-tot // e), s / -(-tot // e)))
def calls(msgs, e):  # one send call per message; plain: each message alone
    pos = mpa = plain = 0
    for lens in msgs:
        g = ln = 0
        for u in lens:
            f = fpdu(pos, u)
            if g == 0 or g + f > e:
                mpa, g = mpa + 1, 0
            g, pos, ln = g + f, pos + f, ln + f
        plain += -(-ln // e)
    return mpa, plain
a, b = calls([ddp(100, mul)] * 500, e), calls([ddp(8192, mul)] * 500, e)
print("request/response %d %d %.3f" % (a[0] + b[0], a[1] + b[1], (a[0] + b[0]) / (a[1] + b[1])))
print("mulpdu %d" % mul)
EOF
check "[ -s '$T/pred' ]" "python3 prediction failed"
p1460=$(awk '$1 == "pack1460" {print $2}' "$T/pred")
p536=$(awk '$1 == "pack536" {print $2}' "$T/pred")
echo "$P" | grep -A4 '(1460 octets' | grep -q "$p1460 segments packed, 20000 not"
check "[ $? = 0 ]" "EMSS 1460: packer segments differ from $p1460"
echo "$P" | grep -A4 '(536 octets' | grep -q "$p536 segments packed, 20000 not"
check "[ $? = 0 ]" "EMSS 536: packer segments differ from $p536"
check "awk -v a=$p1460 -v b=$p536 'BEGIN { r = 20000 / a; q = 20000 / b; exit !(r > 59 && r < 61 && q > 21.5 && q < 22.5) }'" \
  "the text's ~60x / ~22x: 20000/$p1460, 20000/$p536"
for wl in worst bulk request/response; do
  set -- $(awk -v w=$wl '$1 == w {print $2, $3, $4}' "$T/pred")
  check "echo \"\$A\" | grep -E '^  $wl[a-z ]* [0-9]+ +$1 +$2 +$3 ' > /dev/null" \
    "align $wl: expected $1 MPA, $2 TCP segments, ratio $3: $(echo "$A" | grep "^  $wl")"
done
check "echo \"\$A\" | grep -q 'MULPDU $(awk '$1 == "mulpdu" {print $2}' "$T/pred") '" "MULPDU"
ratio() { echo "$A" | awk -v w="^  $1" '$0 ~ w { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+$/) print $i }'; }
check "awk -v w=$(ratio worst) -v b=$(ratio bulk) 'BEGIN { exit !(w > 1.9 && b < 1.05) }'" \
  "the text's claims: worst case ~2x, bulk marginal"

# Measured -------------------------------------------------------------------
[ "$(id -u)" = 0 ] || { finish || exit 1; echo "skipped: the measured runs need root"; exit 77; }
for c in ip:iproute2 ethtool:ethtool; do
  command -v "${c%%:*}" > /dev/null ||
    { finish || exit 1; echo "skipped: needs ${c#*:} (not installed)"; exit 77; }
done
before=$(ip netns list 2> /dev/null | grep -c '^dwan')
$D analyze packing --measure --count 2000 > "$T/pm" 2> "$T/pm.err"
rc=$?
if [ $rc = 77 ]; then
  finish || exit 1
  echo "skipped: $(tail -1 "$T/pm.err")"
  exit 77
fi
check "[ $rc = 0 ]" "packing --measure: $(cat "$T/pm.err")"
cat "$T/pm" | sed -n '/^Measured/,$p'
for l in 'MTU 1500' 'MSS 536'; do
  al=$(sed -n "/^$l/,/^\$/p" "$T/pm" | awk '$1 == "aligned" {print $2}')
  pk=$(sed -n "/^$l/,/^\$/p" "$T/pm" | awk '$1 == "packed" {print $2}')
  # no packing: one segment per ULPDU (2000); packing: far fewer
  check "[ -n '$al' ] && [ '$al' -ge 1600 ]" "$l: no packing sent $al segments for 2000 ULPDUs"
  check "[ -n '$pk' ] && [ '$pk' -le 100 ]" "$l: packing sent $pk segments for 2000 ULPDUs"
done
check "grep -q 'MSS 536: EMSS 536' '$T/pm'" "the MSS 536 run did not get EMSS 536"
$D analyze align --measure --worst 400 --bulk 8 --rr 100 > "$T/am" 2> "$T/am.err"
check "[ $? = 0 ]" "align --measure: $(cat "$T/am.err")"
sed -n '/^Measured/,$p' "$T/am"
ratios=$(awk '/MPA\/TCP segments: measured/ {sub("x,", "", $4); printf "%s ", $4}' "$T/am")
check "[ \$(echo $ratios | wc -w) = 3 ] && echo $ratios |
  awk '{ exit !(\$1 > 1.8 && \$2 < 1.05 && \$3 < 1.05) }'" \
  "align ratios (worst, bulk, rr): $ratios"
check "[ \$(ip netns list | grep -c '^dwan') = $before ]" "namespaces left behind"

# SIGTERM in the middle: the namespaces go too
$D analyze packing --measure --count 200000 > /dev/null 2>&1 &
pid=$!
sleep 0.5
kill -TERM $pid
wait $pid 2> /dev/null
check "! ip netns list | grep -q '^dwan[AB]\.$pid'" "namespaces of $pid left after SIGTERM"
check "! ip link show 2> /dev/null | grep -q 'dwn[ab]$pid'" "veth of $pid left after SIGTERM"

echo "time: $(($(date +%s) - start)) s"
finish
