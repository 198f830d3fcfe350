#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ddpwire bench wire (root): MPA, IFT and plain TCP between two network
# namespaces joined by a veth, at MTU 1500 and 9000, offloads on (TSO, GSO,
# GRO), the receiver pinned to one CPU and the sender to the other
# (taskset), measured with `ddpwire perf` in the same run:
#
#   plain           ddpwire perf --plain: the same 256 KiB writes, no framing
#   iperf3          when installed (iperf3 -A pins it the same way)
#   mpa             markers and CRC on, the exact fill (the default)
#   mpa-nomarkers   CRC on, markers off
#   mpa-nocrc       markers on, CRC off
#   mpa-rec         markers and CRC, records of MULPDU octets, each FPDU its
#                   own message (aligned, the way before issue 16)
#   mpa-packed      the same records, FPDUs grouped up to EMSS (--pack)
#   ift             IFT framing, CRCs on
#   MODE@alt        any of the ddpwire modes above run with the binary given
#                   by --alt (say a build of main), alternated with the others
#                   in each round: a before/after comparison in one run
#
# With --loss "P ...", each mode also runs with P % of the data segments
# dropped at random (nftables numgen in a router namespace between the two:
# this kernel has no netem, so no reordering beyond what loss makes) at the
# first MTU; that part of the summary has its own plain-TCP anchor.
#
# Throughput is what the server received over the client's whole test (to the
# server's close). CPU per GB moved: both processes' user + system time plus
# the host's softirq time over the test (/proc/stat; the host runs both ends)
# per 10^9 octets. Each mode runs REPEATS times, interleaved (mode by mode,
# round by round) so that load changes hit all modes alike; the summary gives
# medians, ranges, each end's share of the CPU per GB, and ratios to plain
# TCP's and to iperf3's medians in the same run. Without iperf3 (not
# installed, or DDPWIRE_IPERF3 names no program) the script says so and
# leaves out iperf3's runs and its ratios; the exit status is the same.
# --json: a "meta" line (machine, load, iperf3), then "run" and "summary" lines.
#
# TCP's congestion control is the namespaces' default (the host's, which a new
# namespace inherits; the header names it) unless --cc NAME gives one for every
# connection of the run (perf -C, iperf3 -C, set before the handshake). It
# matters: with BBR on this kind of host (a 2-vCPU guest, microsecond RTTs on
# the veth) a flow's rate follows how its receiver acknowledges, which the
# framing changes (docs/PERFORMANCE.md).
#
# usage: bench_wire.sh DDPWIRE [--json] [--quick] [--seconds S] [--repeats N]
#                      [--mtu "1500 9000"] [--modes "plain mpa ..."] [--loss "0.1 1"]
#                      [--alt DDPWIRE2] [--cc NAME]
set -u
D=$(readlink -f "$1")
shift
JSON=0 SECS=5 REPS=3 MTUS="1500 9000" LOSS="" ALT="" CC=""
MODES="plain iperf3 mpa mpa-nomarkers mpa-nocrc mpa-rec mpa-packed ift"
while [ $# -gt 0 ]; do
  case $1 in
  --json) JSON=1 ;;
  --quick) SECS=1 REPS=1 ;;
  --seconds) SECS=$2; shift ;;
  --repeats) REPS=$2; shift ;;
  --mtu) MTUS=$2; shift ;;
  --modes) MODES=$2; shift ;;
  --loss) LOSS=$2; shift ;;
  --alt) ALT=$(readlink -f "$2"); shift ;;
  --cc) CC=$2; shift ;;
  *) echo "bench_wire.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
case " $MODES " in
*@alt*) [ -n "$ALT" ] && [ -x "$ALT" ] || { echo "bench_wire.sh: modes ending in @alt need --alt DDPWIRE2 (an executable)" >&2; exit 2; } ;;
esac
[ "$(id -u)" = 0 ] || { echo "ddpwire bench wire: needs root (network namespaces)" >&2; exit 77; }
for c in ip ethtool taskset python3; do
  command -v $c > /dev/null || { echo "ddpwire bench wire: needs $c" >&2; exit 77; }
done
IPERF3=${DDPWIRE_IPERF3:-iperf3}
IPERF3_WHY=""
if ! IPERF3=$(command -v "$IPERF3"); then
  IPERF3="" IPERF3_WHY="${DDPWIRE_IPERF3:-iperf3} not found"
  case " $MODES " in
  *" iperf3 "*)
    echo "ddpwire bench wire: $IPERF3_WHY: no iperf3 runs, no ratios to iperf3 (scripts/deps.sh bench installs it)" >&2
    MODES=$(echo " $MODES " | sed 's/ iperf3 / /') ;;
  esac
fi
case " $MODES " in *" iperf3 "*) ;; *) [ -n "$IPERF3_WHY" ] || IPERF3_WHY="not among --modes" ;; esac

T=$(mktemp -d)
A=dwbA.$$ B=dwbB.$$ R=dwbR.$$ VA=dwba$$ VB=dwbb$$
SP=""
cleanup() {
  [ -n "$SP" ] && kill "$SP" 2> /dev/null
  wait 2> /dev/null
  ip netns del "$A" 2> /dev/null
  ip netns del "$B" 2> /dev/null
  ip netns del "$R" 2> /dev/null
  rm -rf "$T"
}
trap cleanup EXIT
ip netns add "$A" && ip netns add "$B" && ip link add "$VA" type veth peer name "$VB" &&
  ip link set "$VA" netns "$A" && ip link set "$VB" netns "$B" &&
  ip -n "$A" addr add 10.199.8.1/30 dev "$VA" && ip -n "$B" addr add 10.199.8.2/30 dev "$VB" &&
  ip -n "$A" link set "$VA" up && ip -n "$B" link set "$VB" up &&
  ip -n "$A" link set lo up && ip -n "$B" link set lo up ||
  { echo "ddpwire bench wire: cannot set up the namespaces" >&2; exit 77; }
for x in "$A $VA" "$B $VB"; do
  set -- $x
  ip netns exec "$1" ethtool -K "$2" tso on gso on gro on > /dev/null 2>&1
done
CCOPT=() CCWHY="--cc"
[ -n "$CC" ] && CCOPT=(-C "$CC")
[ -n "$CC" ] || CC=$(ip netns exec "$A" cat /proc/sys/net/ipv4/tcp_congestion_control 2> /dev/null) CCWHY="the default"
OFFL=$(ip netns exec "$A" ethtool -k "$VA" | grep -E '^(tcp-segmentation|generic-segmentation|generic-receive)-offload' | tr -s ' \n' ' ')
EA=(ip netns exec "$A" taskset -c 0)
EB=(ip netns exec "$B" taskset -c 1)
NCPU=$(nproc)
[ "$NCPU" -ge 2 ] || EB=(ip netns exec "$B" taskset -c 0)

softirq() { awk '/^cpu /{print $8}' /proc/stat; }
port=25000
RES=$T/res.jsonl
: > "$RES"

# one MODE MTU ROUND: one test; appends a JSON line to $RES
one() {
  local mode=$1 mtu=$2 round=$3 loss=${4:-0} opts="" s0 s1 bin=$D
  port=$((port + 1))
  case $mode in *@alt) bin=$ALT ;; esac
  case ${mode%@alt} in
  plain) opts="--plain" ;;
  mpa-nomarkers) opts="--no-markers" ;;
  mpa-nocrc) opts="--no-crc" ;;
  mpa-rec) opts="--record-size $MULPDU" ;;
  mpa-packed) opts="--record-size $MULPDU --pack" ;;
  ift) opts="--framing ift" ;;
  esac
  s0=$(softirq)
  if [ "$mode" = iperf3 ]; then
    "${EB[@]}" "$IPERF3" -s -1 -p "$port" > /dev/null 2>&1 &
    SP=$!
    for _ in $(seq 50); do
      ip netns exec "$B" ss -Hltn | grep -q ":$port " && break
      sleep 0.05
    done
    "${EA[@]}" "$IPERF3" -c "$DST" -p "$port" -t "$SECS" -J "${CCOPT[@]}" > "$T/c" 2> "$T/cerr"
    local rc=$?
    wait "$SP"
    SP=""
    s1=$(softirq)
    python3 - "$T/c" "$mode" "$mtu" "$round" "$rc" "$s0" "$s1" "$(getconf CLK_TCK)" "$loss" >> "$RES" << 'PY'
import json, sys
f, mode, mtu, rnd, rc, s0, s1, tck, loss = sys.argv[1:]
try:
    o = json.load(open(f))
    e = o['end']
    secs = e['sum_received']['seconds']
    octets = e['sum_received']['bytes']
    cpu = e['cpu_utilization_percent']
    c_cpu = cpu['host_total'] / 100 * e['sum_sent']['seconds']
    s_cpu = cpu['remote_total'] / 100 * secs
    print(json.dumps({'mode': mode, 'mtu': int(mtu), 'loss': float(loss), 'round': int(rnd), 'ok': rc == '0',
                      'octets': octets, 'seconds': secs, 'gbit_per_second': octets * 8 / secs / 1e9,
                      'cpu_client_seconds': c_cpu, 'cpu_server_seconds': s_cpu,
                      'softirq_seconds': (int(s1) - int(s0)) / int(tck),
                      'retrans': e['sum_sent'].get('retransmits', 0),
                      'congestion': e.get('sender_tcp_congestion')}))
except Exception as x:
    print(json.dumps({'mode': mode, 'mtu': int(mtu), 'loss': float(loss), 'round': int(rnd), 'ok': False, 'why': str(x)}))
PY
    return
  fi
  "${EB[@]}" "$bin" perf -s "$DST:$port" --once --json $opts "${CCOPT[@]}" > "$T/s" 2> "$T/serr" &
  SP=$!
  for _ in $(seq 50); do
    ip netns exec "$B" ss -Hltn | grep -q ":$port " && break
    sleep 0.05
  done
  "${EA[@]}" "$bin" perf -c "$DST:$port" -t "$SECS" -i 0 --json $opts "${CCOPT[@]}" > "$T/c" 2> "$T/cerr"
  local rc=$?
  wait "$SP"
  local src=$?
  SP=""
  s1=$(softirq)
  python3 - "$T/c" "$T/s" "$mode" "$mtu" "$round" "$rc" "$src" "$s0" "$s1" "$(getconf CLK_TCK)" "$loss" >> "$RES" << 'PY'
import json, sys
fc, fs, mode, mtu, rnd, rc, src, s0, s1, tck, loss = sys.argv[1:]
def line(f, t):
    for l in open(f):
        o = json.loads(l)
        if o['type'] == t:
            return o
    return None
c, s = line(fc, 'total'), line(fs, 'server')
ok = rc == '0' and src == '0' and c is not None and s is not None
r = {'mode': mode, 'mtu': int(mtu), 'loss': float(loss), 'round': int(rnd), 'ok': ok}
if ok:
    r.update({'octets': s['octets'], 'seconds': c['seconds'],
              'gbit_per_second': s['octets'] * 8 / c['seconds'] / 1e9,
              'cpu_client_seconds': c['cpu_user_seconds'] + c['cpu_sys_seconds'],
              'cpu_server_seconds': s['cpu_user_seconds'] + s['cpu_sys_seconds'],
              'softirq_seconds': (int(s1) - int(s0)) / int(tck),
              'retrans': c['retrans'], 'emss': c['emss'], 'records': s['records'],
              'congestion': c.get('congestion')})
print(json.dumps(r))
PY
}

DST=10.199.8.2
CPUID=$(awk -F': ' '/^vendor_id/{v=$2} /^cpu family/{f=$2} /^model\t/{m=$2} /^model name/{n=$2} END{print v "|" f "|" m "|" n}' /proc/cpuinfo)
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
if [ "$JSON" = 1 ]; then
  python3 - "$CPUID" "$LOAD0" "$NCPU" "$SECS" "$REPS" "$MTUS" "$MODES" "$OFFL" "$IPERF3" "$IPERF3_WHY" "$(uname -r)" "$CC" "$CCWHY" << 'PY'
import json, sys, time
cpuid, load, ncpu, secs, reps, mtus, modes, offl, ip3, why, kern, cc, ccwhy = sys.argv[1:]
v, fam, model, name = (cpuid.split('|') + ['', '', '', ''])[:4]
print(json.dumps({'type': 'meta', 'bench': 'wire', 'time': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
                  'cpu_vendor': v, 'cpu_family': int(fam) if fam.isdigit() else None,
                  'cpu_model_number': int(model) if model.isdigit() else None, 'cpu_model': name,
                  'cpus_online': int(ncpu), 'kernel': kern, 'load_average': [float(x) for x in load.split()],
                  'seconds': float(secs), 'repeats': int(reps), 'mtus': [int(m) for m in mtus.split()],
                  'modes': modes.split(), 'offloads': offl.strip(),
                  'iperf3': ip3 or None, 'iperf3_missing': why or None,
                  'congestion': cc or None, 'congestion_given': ccwhy == '--cc'}))
PY
else
  echo "ddpwire bench wire: $(uptime | sed 's/^ *//'); $NCPU CPUs ($(echo "$CPUID" | awk -F'|' '{print $4 ", family " $2 " model " $3}')); ${SECS} s x $REPS per mode; congestion control: ${CC:-unknown} ($CCWHY); offloads: $OFFL"
  [ -z "$IPERF3_WHY" ] || echo "ddpwire bench wire: no iperf3 column: $IPERF3_WHY"
fi
for mtu in $MTUS; do
  ip -n "$A" link set "$VA" mtu "$mtu" && ip -n "$B" link set "$VB" mtu "$mtu"
  MULPDU=$(python3 -c "
e = $mtu - 52
print(e - (6 + 4 * -(-e // 512) + e % 4))")
  for r in $(seq "$REPS"); do
    for m in $MODES; do
      one "$m" "$mtu" "$r"
    done
  done
done

# loss: A - R - B, nftables in R drops P % of the data segments
if [ -n "$LOSS" ]; then
  mtu=${MTUS%% *}
  RA=dwbra$$ RB=dwbrb$$
  ip link del "$VA" 2> /dev/null
  ip -n "$A" link del "$VA" 2> /dev/null
  ip netns add "$R" && ip link add "$VA" type veth peer name "$RA" &&
    ip link add "$VB" type veth peer name "$RB" &&
    ip link set "$VA" netns "$A" && ip link set "$VB" netns "$B" &&
    ip link set "$RA" netns "$R" && ip link set "$RB" netns "$R" &&
    ip -n "$A" addr add 10.199.9.1/24 dev "$VA" && ip -n "$R" addr add 10.199.9.2/24 dev "$RA" &&
    ip -n "$R" addr add 10.199.10.2/24 dev "$RB" && ip -n "$B" addr add 10.199.10.1/24 dev "$VB" &&
    for x in "$A $VA" "$B $VB" "$R $RA" "$R $RB"; do
      set -- $x
      ip -n "$1" link set "$2" mtu "$mtu" up && ip netns exec "$1" ethtool -K "$2" tso on gso on gro on > /dev/null 2>&1
    done &&
    ip -n "$A" route add default via 10.199.9.2 && ip -n "$B" route add default via 10.199.10.2 &&
    ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1 ||
    { echo "ddpwire bench wire: cannot set up the router namespace" >&2; exit 1; }
  command -v nft > /dev/null || { echo "ddpwire bench wire: --loss needs nft" >&2; exit 77; }
  DST=10.199.10.1
  for p in $LOSS; do
    per=$(python3 -c "print(round($p * 100))") # numgen over 10000
    for r in $(seq "$REPS"); do
      for m in $MODES; do
        ip netns exec "$R" nft -f - << EOF
table inet dwbloss {
  chain forward_loss {
    type filter hook forward priority 0; policy accept;
    ip daddr $DST meta length > 200 numgen random mod 10000 < $per drop
  }
}
EOF
        one "$m" "$mtu" "$r" "$p"
        ip netns exec "$R" nft delete table inet dwbloss
      done
    done
  done
fi

python3 - "$RES" "$JSON" << 'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
js = sys.argv[2] == '1'
for r in rows:
    if r.get('ok'):
        r['cpu_seconds_per_gb'] = (r['cpu_client_seconds'] + r['cpu_server_seconds'] + r['softirq_seconds']) / (r['octets'] / 1e9)
    if js:
        print(json.dumps(dict(r, type='run')))
out = []
for (mtu, loss) in sorted({(r['mtu'], r.get('loss', 0)) for r in rows}):
    grp = [r for r in rows if r['mtu'] == mtu and r.get('loss', 0) == loss]
    modes = []
    for r in grp:
        if r['mode'] not in modes:
            modes.append(r['mode'])
    def med(mode, key):
        v = [r[key] for r in grp if r['mode'] == mode and r.get('ok')]
        return (statistics.median(v), min(v), max(v), len(v)) if v else None
    base_g, base_c = med('plain', 'gbit_per_second'), med('plain', 'cpu_seconds_per_gb')
    ip_g, ip_c = med('iperf3', 'gbit_per_second'), med('iperf3', 'cpu_seconds_per_gb')
    for m in modes:
        g, c = med(m, 'gbit_per_second'), med(m, 'cpu_seconds_per_gb')
        fails = sum(1 for r in grp if r['mode'] == m and not r.get('ok'))
        s = {'type': 'summary', 'mtu': mtu, 'loss_percent': loss, 'mode': m,
             'runs': g[3] if g else 0, 'failed': fails}
        if g:
            s.update({'gbit_per_second_median': round(g[0], 3), 'gbit_per_second_min': round(g[1], 3),
                      'gbit_per_second_max': round(g[2], 3), 'cpu_seconds_per_gb_median': round(c[0], 3),
                      'cpu_s_per_gb_min': round(c[1], 3), 'cpu_s_per_gb_max': round(c[2], 3)})
            rt = [r['retrans'] for r in grp if r['mode'] == m and r.get('ok')]
            s['retrans_median'] = statistics.median(rt)
            for end, key in (('cpu_client', 'cpu_client_seconds'), ('cpu_server', 'cpu_server_seconds'),
                             ('softirq', 'softirq_seconds')):
                v = [r[key] / (r['octets'] / 1e9) for r in grp if r['mode'] == m and r.get('ok')]
                s['%s_seconds_per_gb_median' % end] = round(statistics.median(v), 3)
            if base_g:
                s['throughput_vs_plain'] = round(g[0] / base_g[0], 3)
                s['cpu_per_gb_vs_plain'] = round(c[0] / base_c[0], 3)
            if ip_g:
                s['throughput_vs_iperf3'] = round(g[0] / ip_g[0], 3)
                s['cpu_per_gb_vs_iperf3'] = round(c[0] / ip_c[0], 3)
        out.append(s)
if js:
    for s in out:
        print(json.dumps(s))
else:
    def rat(s, k):
        return '%.2f' % s[k] if k in s else '-'
    print('%-5s %-5s %-18s %4s %22s %7s %7s %22s %7s %7s %17s %8s' % ('MTU', 'loss%', 'mode', 'runs', 'Gbit/s median [range]',
          'x plain', 'x iperf', 'CPU s/GB median [range]', 'x plain', 'x iperf', 'cli/srv/softirq', 'retrans'))
    for s in out:
        if 'gbit_per_second_median' not in s:
            print('%-5d %-5g %-18s %4d failed' % (s['mtu'], s['loss_percent'], s['mode'], s['runs']))
            continue
        print('%-5d %-5g %-18s %4d %7.2f [%5.2f-%5.2f] %7s %7s %7.3f [%5.3f-%5.3f] %7s %7s %5.2f/%5.2f/%5.2f %8g' % (
            s['mtu'], s['loss_percent'], s['mode'], s['runs'], s['gbit_per_second_median'], s['gbit_per_second_min'], s['gbit_per_second_max'],
            rat(s, 'throughput_vs_plain'), rat(s, 'throughput_vs_iperf3'),
            s['cpu_seconds_per_gb_median'], s['cpu_s_per_gb_min'], s['cpu_s_per_gb_max'],
            rat(s, 'cpu_per_gb_vs_plain'), rat(s, 'cpu_per_gb_vs_iperf3'),
            s['cpu_client_seconds_per_gb_median'], s['cpu_server_seconds_per_gb_median'], s['softirq_seconds_per_gb_median'],
            s['retrans_median']))
PY
