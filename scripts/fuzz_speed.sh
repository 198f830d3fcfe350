#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Executions per CPU second of fuzz targets built from two trees, in turn,
# each run from a fresh copy of the same seed corpus for SECONDS (pinned to
# CPU), REPEATS times: prints each run and the median and range per build.
# CPU time (user + sys) rather than wall time, so that other processes on a
# shared machine count less; both builds see the same conditions in turn.
#
#   scripts/fuzz_speed.sh OLD_FUZZ_DIR NEW_FUZZ_DIR TARGET CORPUS [SECONDS] [REPEATS] [FLAGS...]
set -u
old=$1 new=$2 t=$3 corpus=$4 secs=${5:-60} reps=${6:-3}
shift $(( $# < 6 ? $# : 6 ))
cpu=${CPU:-0}
run() { # BIN [FLAGS...]: one run; prints execs/CPU-second
  local bin=$1 w
  shift
  w=$(mktemp -d)
  cp "$corpus"/* "$w"/
  /usr/bin/time -f "%U %S" -o "$w.t" taskset -c "$cpu" "$bin" -max_total_time="$secs" -seed=7 \
    -print_final_stats=1 "$@" "$w" > "$w.log" 2>&1
  local n; n=$(awk '/stat::number_of_executed_units/ {print $2}' "$w.log")
  tail -1 "$w.t" | awk -v n="$n" '{printf "%.0f\n", n / ($1 + $2)}'
  rm -rf "$w" "$w.t" "$w.log"
}
declare -A r
for i in $(seq "$reps"); do
  for b in old new; do
    dir=${!b}
    v=$(run "$dir/fuzz/$t" "$@")
    r[$b]="${r[$b]:-} $v"
    echo "$t $b run $i: $v execs per CPU second (load $(cut -d' ' -f1 /proc/loadavg))"
  done
done
for b in old new; do
  echo "$t $b: median $(echo ${r[$b]} | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'), range $(echo ${r[$b]} | tr ' ' '\n' | sort -n | head -1)-$(echo ${r[$b]} | tr ' ' '\n' | sort -n | tail -1)"
done
