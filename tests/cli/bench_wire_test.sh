#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ddpwire bench wire --json`, briefly (1 s runs at MTU 1500): a meta record
# naming the machine and the iperf3 used, a run record per mode that moved
# octets, summaries whose ratios are the ratios of their medians (to plain
# TCP and, when iperf3 is there, to iperf3); then again with DDPWIRE_IPERF3
# naming no program: a note on stderr, no iperf3 runs or ratios, the same
# exit status; --alt: modes ending in @alt run with a second binary (here the
# same one behind a script that notes each start) beside the others, and refused (2) without --alt;
# --cc reno: every run and the meta record say reno (the default otherwise). Checks the
# shape only, never the speed. Skipped (77, with the
# reason) without root or network namespaces.
#   bench_wire_test.sh DDPWIRE
set -u
DW=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
[ "$(id -u)" = 0 ] || { echo "SKIP: bench wire needs root (network namespaces)"; exit 77; }
for c in ip ethtool taskset ss; do
  command -v $c > /dev/null || { echo "SKIP: bench wire needs $c"; exit 77; }
done
ns=dwbwt.$$
ip netns add "$ns" 2> "$T/ns.err" || { echo "SKIP: cannot create a network namespace: $(cat "$T/ns.err")"; exit 77; }
ip netns del "$ns"

modes="plain iperf3 mpa mpa-nomarkers"
"$DW" bench wire --quick --mtu 1500 --modes "$modes" --json > "$T/a.json" 2> "$T/a.err"
rc_a=$?
DDPWIRE_IPERF3=/nonexistent/iperf3 "$DW" bench wire --quick --mtu 1500 --modes "$modes" --json \
  > "$T/b.json" 2> "$T/b.err"
rc_b=$?
"$DW" bench wire --quick --mtu 1500 --modes "plain mpa" > "$T/c.txt" 2> "$T/c.err"
rc_c=$?
printf '#!/bin/sh\necho "$1 $2" >> "%s/alt.ran"\nexec "%s" "$@"\n' "$T" "$(readlink -f "$DW")" > "$T/alt.sh"
chmod +x "$T/alt.sh" # the second binary: the same one, saying when it runs
"$DW" bench wire --quick --mtu 1500 --modes "mpa mpa@alt" --alt "$T/alt.sh" --cc reno --json \
  > "$T/d.json" 2> "$T/d.err"
rc_d=$?
"$DW" bench wire --quick --mtu 1500 --modes "mpa mpa@alt" > "$T/e.txt" 2> "$T/e.err"
rc_e=$?
python3 - "$T" "$rc_a" "$rc_b" "$rc_c" "$(command -v iperf3 || true)" "$rc_d" "$rc_e" << 'PY'
import json, sys
T, rc_a, rc_b, rc_c, have_ip3, rc_d, rc_e = sys.argv[1:]
ok = bad = 0
def check(cond, what):
    global ok, bad
    if cond:
        ok += 1
    else:
        bad += 1
        print("FAIL:", what, file=sys.stderr)
def load(name):
    try:
        return [json.loads(l) for l in open(f"{T}/{name}.json")]
    except Exception as e:
        check(False, f"{name}: not JSON lines: {e}; stderr: {open(f'{T}/{name}.err').read()}")
        return []
def runs_and_summaries(name, lines, modes, with_ip3):
    check(lines and lines[0].get("type") == "meta", f"{name}: no meta record first")
    if not lines:
        return
    m = lines[0]
    for k in ("cpu_vendor", "cpu_family", "cpu_model_number", "cpu_model", "cpus_online", "load_average",
              "offloads", "iperf3", "iperf3_missing", "seconds", "repeats"):
        check(k in m, f"{name}: meta lacks {k}")
    check(isinstance(m.get("cpu_family"), int) and len(m.get("load_average", [])) == 3, f"{name}: meta {m}")
    check(m.get("modes") == modes, f"{name}: modes {m.get('modes')} != {modes}")
    check(isinstance(m.get("congestion"), str) and m.get("congestion_given") is False,
          f"{name}: congestion control {m.get('congestion')} / {m.get('congestion_given')}")
    check((m.get("iperf3") is not None) == with_ip3 and (m.get("iperf3_missing") is None) == with_ip3,
          f"{name}: iperf3 {m.get('iperf3')} / {m.get('iperf3_missing')}")
    runs = [l for l in lines if l.get("type") == "run"]
    sums = {s["mode"]: s for s in lines if s.get("type") == "summary"}
    check([r["mode"] for r in runs] == modes, f"{name}: runs {[r['mode'] for r in runs]}")
    check(list(sums) == modes, f"{name}: summaries {list(sums)}")
    for r in runs:
        check(r.get("ok") is True, f"{name}: run failed {r}")
        if not r.get("ok"):
            continue
        check(r["octets"] > 0 and r["seconds"] > 0.5, f"{name}: nothing moved {r}")
        check(r.get("congestion") == m.get("congestion"), f"{name}: ran with {r.get('congestion')}, not the default")
        check(abs(r["gbit_per_second"] - r["octets"] * 8 / r["seconds"] / 1e9) < 1e-6 * r["gbit_per_second"] + 1e-9,
              f"{name}: Gbit/s disagrees with octets/seconds {r}")
        cpu = r["cpu_client_seconds"] + r["cpu_server_seconds"] + r["softirq_seconds"]
        check(min(r["cpu_client_seconds"], r["cpu_server_seconds"], r["softirq_seconds"]) >= 0 and cpu > 0,
              f"{name}: CPU {r}")
        check(abs(r["cpu_seconds_per_gb"] - cpu / (r["octets"] / 1e9)) < 1e-6, f"{name}: CPU per GB {r}")
        if r["mode"].startswith("mpa"):
            check(r["records"] > 0 and r["emss"] == 1448, f"{name}: MPA run without records/EMSS {r}")
    for mode, s in sums.items():
        check(s["runs"] == 1 and s["failed"] == 0, f"{name}: {mode} runs {s}")
        parts = [s.get(k, -1) for k in ("cpu_client_seconds_per_gb_median", "cpu_server_seconds_per_gb_median",
                                        "softirq_seconds_per_gb_median")]
        check(min(parts) >= 0 and abs(sum(parts) - s["cpu_seconds_per_gb_median"]) < 0.01,
              f"{name}: {mode} the ends' shares do not add up {s}")
        for base in ("plain", "iperf3"):
            b = sums.get(base)
            has = f"throughput_vs_{base}" in s and f"cpu_per_gb_vs_{base}" in s
            want = base == "plain" or with_ip3
            check(has == want, f"{name}: {mode}: ratio to {base} {'missing' if want else 'present'}")
            if has and b:
                # the medians are printed rounded to 0.001, the ratios taken before rounding
                for key, med in (("throughput", "gbit_per_second_median"), ("cpu_per_gb", "cpu_seconds_per_gb_median")):
                    v, w = s[med], b[med]
                    r = v / w
                    tol = 0.0015 + r * (0.0005 / v + 0.0005 / w)
                    check(abs(s[f"{key}_vs_{base}"] - r) <= tol,
                          f"{name}: {mode} {key}_vs_{base} {s[f'{key}_vs_{base}']} is not the ratio of medians {r:.4f}")
        if mode == "iperf3":
            check(s.get("throughput_vs_iperf3") == 1.0, f"{name}: iperf3 against itself {s}")

all_modes = ["plain", "iperf3", "mpa", "mpa-nomarkers"]
check(rc_a == "0", f"with iperf3: exit {rc_a}")
if have_ip3:
    runs_and_summaries("a", load("a"), all_modes, True)
else:
    print("note: iperf3 is not installed: only the run without it is checked", file=sys.stderr)
    runs_and_summaries("a", load("a"), [m for m in all_modes if m != "iperf3"], False)
check(rc_b == rc_a, f"without iperf3: exit {rc_b}, with {rc_a}")
runs_and_summaries("b", load("b"), [m for m in all_modes if m != "iperf3"], False)
err = open(f"{T}/b.err").read()
check("/nonexistent/iperf3 not found" in err and "no ratios to iperf3" in err, f"without iperf3: stderr {err!r}")
# text: the table's header has both ratio columns; a mode left out of --modes is not an error
txt = open(f"{T}/c.txt").read()
check(rc_c == "0" and "x plain" in txt and "x iperf" in txt and "family " in txt and "no iperf3 column" in txt,
      f"text: exit {rc_c}: {txt!r}")
# --alt: the second binary's runs are their own mode, alternated, with its own summary
check(rc_d == "0", f"--alt: exit {rc_d}: {open(f'{T}/d.err').read()!r}")
d = load("d")
check(d and d[0].get("type") == "meta" and d[0].get("modes") == ["mpa", "mpa@alt"], f"--alt: meta {d[:1]}")
runs = [l for l in d if l.get("type") == "run"]
check([r["mode"] for r in runs] == ["mpa", "mpa@alt"], f"--alt: runs {runs}")
for r in runs:
    check(r.get("ok") is True and r.get("octets", 0) > 0 and r.get("records", 0) > 0 and r.get("emss") == 1448,
          f"--alt: run {r}")
    check(r.get("congestion") == "reno", f"--cc reno: the run had {r.get('congestion')}")
check(d and d[0].get("congestion") == "reno" and d[0].get("congestion_given") is True, f"--cc: meta {d[:1]}")
sums = [l for l in d if l.get("type") == "summary"]
check([(x["mode"], x["runs"], x["failed"]) for x in sums] == [("mpa", 1, 0), ("mpa@alt", 1, 0)],
      f"--alt: summaries {sums}")
ran = open(f"{T}/alt.ran").read().split("\n") if __import__("os").path.exists(f"{T}/alt.ran") else []
check(sorted(ran) == ["", "perf -c", "perf -s"], f"--alt: the second binary ran {ran} (once as each end)")
err = open(f"{T}/e.err").read()
check(rc_e == "2" and "--alt" in err and not open(f"{T}/e.txt").read(), f"@alt without --alt: exit {rc_e}: {err!r}")
print(f"{ok} passed, {bad} failed")
sys.exit(1 if bad else 0)
PY
