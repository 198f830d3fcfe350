#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A fuzzing campaign: each target in turn (one core, low priority), with its
# dictionary, starting from its corpus, for at least MIN_SECONDS and until it
# has run GOAL executions (or MAX_SECONDS); then its findings are merged into
# fuzz/corpus/<target> (-merge=1 keeps only inputs that add coverage). One
# line per target goes to OUT/summary.tsv: target, seconds, executions,
# executions per second, coverage, features, corpus files before and after,
# crashes.
#
#   scripts/fuzz_campaign.sh BUILD_FUZZ_DIR OUT TARGET[:GOAL] ...
#   env: MIN_SECONDS (1800), MAX_SECONDS (7200), CPU (1), NICE (10),
#        FUZZ_FLAGS (extra libFuzzer flags for every target)
set -u
bdir=$1 out=$2
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
min=${MIN_SECONDS:-1800} max=${MAX_SECONDS:-7200} cpu=${CPU:-1} nic=${NICE:-10}
mkdir -p "$out/bin"
[ -f "$out/summary.tsv" ] || printf 'target\tseconds\texecutions\texec_per_s\tcov\tft\tcorpus_before\tcorpus_after\tcrashes\n' > "$out/summary.tsv"

stat_of() { grep "stat::$2:" "$1" | tail -1 | awk '{print $2}'; }

for spec in "$@"; do
  t=${spec%%:*} goal=${spec#*:}
  [ "$goal" = "$spec" ] && goal=10000000
  cp "$bdir/fuzz/$t" "$out/bin/$t" # later rebuilds do not touch a running campaign
  work=$out/$t.work
  mkdir -p "$work" "$out/$t.artifacts"
  cp -n "$src/fuzz/corpus/$t"/* "$work"/ 2>/dev/null
  dict=()
  [ -f "$src/fuzz/$t.dict" ] && dict=(-dict="$src/fuzz/$t.dict")
  extra=()
  [ "$t" = fuzz_dump ] && extra=(-entropic=0) # see docs/PERFORMANCE.md, fuzzing
  secs=0 execs=0 crashes=0 cov=0 ft=0 part=0
  before=$(ls "$src/fuzz/corpus/$t" | wc -l)
  while [ "$secs" -lt "$min" ] || { [ "$execs" -lt "$goal" ] && [ "$secs" -lt "$max" ]; }; do
    left=$(( secs < min ? min - secs : max - secs < 900 ? max - secs : 900 ))
    log=$out/$t.$part.log
    start=$(date +%s)
    nice -n "$nic" taskset -c "$cpu" "$out/bin/$t" -max_total_time="$left" -print_final_stats=1 \
      -artifact_prefix="$out/$t.artifacts/" "${dict[@]}" "${extra[@]}" ${FUZZ_FLAGS:-} \
      "$work" > "$log" 2>&1
    rc=$?
    secs=$(( secs + $(date +%s) - start ))
    n=$(stat_of "$log" number_of_executed_units)
    execs=$(( execs + ${n:-0} ))
    l=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(echo "$l" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$l" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    part=$((part + 1))
    if [ "$rc" != 0 ]; then
      crashes=$((crashes + 1))
      echo "$t: libFuzzer exited $rc (see $log)" >&2
      break
    fi
  done
  nice -n "$nic" taskset -c "$cpu" "$out/bin/$t" -merge=1 "$src/fuzz/corpus/$t" "$work" > "$out/$t.merge.log" 2>&1
  after=$(ls "$src/fuzz/corpus/$t" | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$secs" "$execs" \
    "$(( secs ? execs / secs : 0 ))" "${cov:-?}" "${ft:-?}" "$before" "$after" "$crashes" \
    >> "$out/summary.tsv"
done
