#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The figures and the capture report as a person sees them: rendered by
# headless Chromium (Debian's `chromium`), screenshots kept in OUTDIR.
#   - analyze packing, align, buffers and placement --svg: well-formed
#     (xmllint), the caption names the command, rendered to a PNG;
#   - dump --report of the siw captures and the error captures: well-formed,
#     loads with no console error, and its DOM (chromium --dump-dom) shows
#     the verdict, connections, counts and error lines that dump --json and
#     dump -v give (report_check.py); a page with a line removed fails it;
#   - dump's own output and exit status are the same with --report;
#   - output rules: never over an input or -w's file; a report that cannot
#     be written completely is removed (exit 5), never left cut;
#   - a capture of 40,000 FPDUs gives a page bounded by pixels.
# usage: report_test.sh DDPWIRE OUTDIR. Exit 77 when chromium or xmllint
# is missing (scripts/deps.sh check installs them).
set -u
D=$(readlink -f "$1")
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/../data
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$HERE/../lib/wire_lib.sh"
need chromium:chromium xmllint:libxml2-utils python3:python3
mkdir -p "$OUT"
rm -f "$OUT"/*.png "$OUT"/*.svg "$OUT"/*.html
CHROME=(chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions
        --user-data-dir="$T/profile" --enable-logging=stderr --v=0)
# a PNG of a file: exists, is a PNG, and is more than a blank page
shot() {
  timeout 60 "${CHROME[@]}" --window-size="$3" --screenshot="$2" "file://$1" > "$T/shot.log" 2>&1
  [ -s "$2" ] && [ "$(head -c 4 "$2" | od -An -tx1 | tr -d ' ')" = 89504e47 ] &&
    [ "$(stat -c %s "$2")" -gt 8000 ]
}
# the DOM after loading; console errors and failed loads in $2.log
dom() {
  timeout 60 "${CHROME[@]}" --dump-dom "file://$1" > "$2" 2> "$2.log"
}
console_errors() { grep -E 'CONSOLE|Uncaught|ERR_FILE_NOT_FOUND|net::ERR' "$1"; }

# ---- figures ----------------------------------------------------------
cd "$T"
cp "$DATA/siw_storage/nfs_mtu1500_crc.pcap" nfs.pcap
"$D" analyze packing --count 2000 --svg packing.svg > /dev/null; check "[ $? = 0 ]" "analyze packing --svg"
"$D" analyze align --worst 200 --bulk 8 --rr 50 --svg align.svg > /dev/null; check "[ $? = 0 ]" "analyze align --svg"
"$D" analyze buffers --max-conns 10 --svg buffers.svg > /dev/null; check "[ $? = 0 ]" "analyze buffers --svg"
"$D" analyze placement --svg placement.svg nfs.pcap > /dev/null; check "[ $? = 0 ]" "analyze placement --svg"
for f in packing align buffers placement; do
  check "xmllint --noout $f.svg" "$f.svg is not well-formed XML"
  check "grep -q 'ddpwire analyze $f' $f.svg" "$f.svg: the caption does not name the command"
  check "grep -q '<polyline\|<circle\|<rect x' $f.svg" "$f.svg: nothing plotted"
  cp $f.svg "$OUT/"
  check "shot '$T/$f.svg' '$OUT/figure-$f.png' 800,640" "$f.svg: no screenshot"
  dom "$T/$f.svg" "$T/$f.dom"
  check "! console_errors '$T/$f.dom.log'" "$f.svg: console errors: $(console_errors "$T/$f.dom.log")"
done
# --svg never over an input
cp nfs.pcap keep.pcap
"$D" analyze placement --svg nfs.pcap nfs.pcap > /dev/null 2> err
check "[ $? = 2 ]" "placement --svg INPUT: not a usage error (exit 2)"
check "cmp -s nfs.pcap keep.pcap" "analyze placement --svg overwrote its input"

# ---- reports ------------------------------------------------------------
caps=("$DATA"/siw/*.pcap "$DATA"/dump/06_badcrc.pcap "$DATA"/dump/07_badptr.pcap
      "$DATA"/dump/08_cut.pcap "$DATA"/dump/08_snaplen.pcap "$DATA"/dump/10_gap.pcap
      "$DATA"/dump/13_ift_badcrc.pcap "$DATA"/dump/14_tcpopt_bad.pcap "$DATA"/dump/15_ipoib.pcap)
for c in "${caps[@]}"; do
  n=$(basename "$(dirname "$c")")-$(basename "$c" .pcap)
  "$D" dump -v "$c" > "$n.v" 2> /dev/null; want=$?
  "$D" dump --json "$c" > "$n.json" 2> /dev/null
  "$D" dump -v --report "$n.html" "$c" > "$n.v2" 2> "$n.err"
  check "[ $? = $want ]" "$n: exit status differs with --report"
  check "cmp -s '$n.v' '$n.v2'" "$n: dump -v output differs with --report"
  "$D" dump --json --report "$n.2.html" "$c" > "$n.json2" 2> /dev/null
  check "cmp -s '$n.json' '$n.json2'" "$n: dump --json output differs with --report"
  check "[ -s '$n.html' ]" "$n: no report: $(cat "$n.err")"
  check "xmllint --noout '$n.html'" "$n.html is not well-formed"
  check "! grep -Eq '<script|<link|src=|@import|url\\(' '$n.html'" "$n.html refers outside itself"
  dom "$T/$n.html" "$T/$n.dom"
  check "[ -s '$n.dom' ] && ! console_errors '$n.dom.log'" "$n.html: did not load cleanly: $(console_errors "$n.dom.log")"
  python3 "$HERE/report_check.py" "$n.dom" "$n.json" "$n.v" > "$n.chk" 2>&1
  check "[ $? = 0 ]" "$n: the page disagrees with dump: $(cat "$n.chk")"
  cp "$n.html" "$OUT/"
  check "shot '$T/$n.html' '$OUT/report-$n.png' 1250,1400" "$n.html: no screenshot"
done
# the checker can fail: a page with one error line removed, with a count changed
sed '0,/<li class="err">/s//<li class="gone">/' dump-06_badcrc.dom > cut.dom
python3 "$HERE/report_check.py" cut.dom dump-06_badcrc.json dump-06_badcrc.v > /dev/null
check "[ $? = 1 ]" "report_check.py accepted a page missing an error line"
sed 's/data-protocol-errors="1"/data-protocol-errors="0"/' dump-06_badcrc.dom > cnt.dom
python3 "$HERE/report_check.py" cnt.dom dump-06_badcrc.json dump-06_badcrc.v > /dev/null
check "[ $? = 1 ]" "report_check.py accepted a wrong error count"

# ---- output rules --------------------------------------------------------
c=$DATA/dump/06_badcrc.pcap
cp "$c" in.pcap
"$D" dump --report in.pcap in.pcap > /dev/null 2> err
check "[ $? = 2 ] && cmp -s in.pcap '$c'" "--report INPUT: not refused, or the input changed"
"$D" dump -w same.pcap --report same.pcap in.pcap > /dev/null 2> err
check "[ $? = 2 ]" "--report naming -w's file not refused"
"$D" dump --report nosuchdir/r.html in.pcap > /dev/null 2> err
check "[ $? = 2 ] && [ ! -e nosuchdir ]" "--report into a missing folder: not exit 2"
# a write that fails midway (file size limit): removed, exit 5 (could not complete), said why
(ulimit -f 4; trap '' XFSZ; exec "$D" dump --report big.html "$DATA/siw/host_data.pcap") > /dev/null 2> err
check "[ $? = 5 ] && [ ! -e big.html ] && ! ls big.html.tmp-* > /dev/null 2>&1" \
  "a report that could not be written was left behind or not reported: $(ls big.html* 2>&1)"
check "grep -q 'big.html' err" "the failed report was not named on stderr"
# an unreadable capture: no report at all
echo "not a capture" > junk.pcap
"$D" dump --report junk.html junk.pcap > /dev/null 2>&1
check "[ $? = 2 ] && [ ! -e junk.html ]" "a report was written for an unreadable capture"

# ---- bounded by pixels, not FPDUs ---------------------------------------
if DDPWIRE=$D python3 "$HERE/../../bench/dump_big.py" big.pcap 48 2 --loss 200 > /dev/null 2>&1; then
  "$D" dump --report bigr.html big.pcap > /dev/null 2>&1
  size=$(stat -c %s bigr.html 2> /dev/null || echo 0)
  fpdus=$("$D" dump --json -q big.pcap | python3 -c 'import json,sys
print(sum(r[d]["fpdus"] for r in map(json.loads, sys.stdin) if r["type"] == "flow" for d in ("c2s","s2c")))')
  echo "48 MB capture, $fpdus FPDUs: report $size octets"
  check "[ $fpdus -gt 40000 ] && [ $size -gt 0 ] && [ $size -lt 400000 ]" "report of $fpdus FPDUs is $size octets"
  check "xmllint --noout bigr.html" "the big report is not well-formed"
  cp bigr.html "$OUT/report-big.html"
  check "shot '$T/bigr.html' '$OUT/report-big.png' 1250,1400" "big report: no screenshot"
else
  bad "bench/dump_big.py could not make a capture"
fi

echo "screenshots in $OUT"
finish
