#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ddpwire bench ... --json`: a metadata line first (the tool's version, the
# CRC32c path in use, quick/full, time), then result lines whose keys name
# their units. Checks the shape only, never the speed.
#   bench_json_test.sh DDPWIRE
set -eu
DW=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
version=$("$DW" --version | sed -n 's/^ddpwire //p')
"$DW" bench framing --quick --json > "$T/framing.json"
DDPWIRE_CRC32C=portable "$DW" bench mpa --quick --json > "$T/mpa.json"
python3 - "$version" "$T/framing.json" "$T/mpa.json" <<'PY'
import json, re, sys
version, files = sys.argv[1], sys.argv[2:]
ok = bad = 0
def check(cond, what):
    global ok, bad
    if cond:
        ok += 1
    else:
        bad += 1
        print("FAIL:", what, file=sys.stderr)
meta_keys = {"type", "tool", "version", "bench", "mode", "timing", "time", "timestamp",
             "cpu_model", "cpus_online", "system", "crc32c_impl", "crc32c_forced", "crc32c_tuning",
             "tsc_hz"}
# every value key names its unit (or is a ratio or a count per frame)
unit = re.compile(r"^(octets_per_second|gbit_per_second|octets_per_tsc_cycle|segments_per_second|"
                  r"rtt_microseconds|iovecs_per_frame|nanoseconds_per_[a-z]+|ratio_vs_[a-z]+)$")
for f in files:
    lines = [json.loads(l) for l in open(f)]
    name = f.rsplit("/", 1)[1].split(".")[0]
    m = lines[0]
    check(m.get("type") == "meta" and set(m) == meta_keys, f"{name}: metadata keys {sorted(m)}")
    check(m.get("version") == version, f"{name}: version {m.get('version')} != {version}")
    check(m.get("bench") == name and m.get("mode") == "quick", f"{name}: bench/mode {m}")
    check(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", m.get("time", "")), f"{name}: time")
    check(m.get("crc32c_tuning") in ("generic", "zen3", "zen4", "zen5"),
          f"{name}: crc32c_tuning {m.get('crc32c_tuning')}")
    if name == "mpa":
        check(m["crc32c_impl"] == "portable" and m["crc32c_forced"] is True,
              f"mpa: DDPWIRE_CRC32C=portable not reported: {m}")
    res = lines[1:]
    check(len(res) > 10, f"{name}: only {len(res)} results")
    rates = 0
    for r in res:
        check(r.get("type") == "result" and r.get("bench") == name and
              isinstance(r.get("impl"), str) and isinstance(r.get("size_octets"), int),
              f"{name}: result head {r}")
        extra = set(r) - {"type", "bench", "impl", "size_octets"}
        check(extra and all(unit.match(k) for k in extra), f"{name}: keys {sorted(extra)}")
        if "octets_per_second" in r:
            rates += 1
            check(abs(r["gbit_per_second"] * 1e9 / 8 - r["octets_per_second"]) <=
                  max(2e6, 1e-3 * r["octets_per_second"]), f"{name}: units disagree {r}")
    check(rates > 0, f"{name}: no rates")
print(f"{ok} passed, {bad} failed")
sys.exit(1 if bad else 0)
PY
