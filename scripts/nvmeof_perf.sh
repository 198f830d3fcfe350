#!/bin/bash
# SPDX-License-Identifier: MIT
# `ddpwire nvmeof perf` from the host beside the kernel's own nvme-rdma host
# (fio) inside the siw guest, against the same nvmet-rdma target and RAM disk,
# in one run: 4 KiB random reads at QD 1 and 32, 128 KiB sequential reads and
# writes at QD 1. Prints one line per case and host, and the ratios.
#   W (default build/siw-perf): the guest cache (scripts/siw_peer.sh with
#   nvme-cli and fio); SECS (default 5) per case.
# usage: scripts/nvmeof_perf.sh DDPWIRE. Exit 77 when the VM cannot run here.
set -uo pipefail
D=$1
HERE=$(cd "$(dirname "$0")" && pwd)
export W=${W:-$PWD/build/siw-perf} PORT=${SIW_PORT:-19994}
export SIW_PKGS=nvme-cli,fio SIW_MODS="nvme-rdma nvme-fabrics nvme-core" SIW_MEM=${SIW_MEM:-2048}
HP=14421
export SIW_FWD=tcp:127.0.0.1:$HP-10.0.2.15:4420
SECS=${SECS:-5}
NQN=nqn.2024-01.org.ddpwire:siw-ram0
PEER=(bash "$HERE/siw_peer.sh")
guest() { RUN_TIMEOUT=${RT:-300} "${PEER[@]}" run "$@"; }

"${PEER[@]}" build || exit $?
"${PEER[@]}" boot || exit $?
trap '"${PEER[@]}" stop' EXIT
S=/sys/kernel/config/nvmet/subsystems/$NQN
P=/sys/kernel/config/nvmet/ports/1
guest "modprobe brd rd_nr=1 rd_size=262144 && modprobe nvmet && modprobe nvmet-rdma && modprobe nvme-rdma &&
(mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config) &&
mkdir -p $S/namespaces/1 $P && echo 1 > $S/attr_allow_any_host &&
echo /dev/ram0 > $S/namespaces/1/device_path && echo 1 > $S/namespaces/1/enable &&
echo rdma > $P/addr_trtype && echo ipv4 > $P/addr_adrfam && echo 10.0.2.15 > $P/addr_traddr &&
echo 4420 > $P/addr_trsvcid && ln -s $S $P/subsystems/$NQN && nproc && uname -r" || exit 1

# NAME BS QD RW(randread|read|write)
CASES=("rand4k_qd1 4096 1 randread" "rand4k_qd32 4096 32 randread" "seq128k_read 131072 1 read" "seq128k_write 131072 1 write")

echo "# case host iops mb_per_s p50_us p99_us cpu_pct"
for c in "${CASES[@]}"; do
  read -r name bs qd rw <<< "$c"
  # ddpwire from the host (through qemu's port forward into the guest's siw)
  pct=100; seq=; [ "$rw" = write ] && pct=0; [ "$rw" = randread ] || seq=--seq
  j=$(timeout 120 "$D" nvmeof "127.0.0.1:$HP" --nqn "$NQN" --delay 300 perf --bs "$bs" --qd "$qd" \
        --read-pct $pct $seq --seconds "$SECS" --json 2> /dev/null)
  python3 -c '
import json, sys
o = json.loads(sys.argv[2])
print(sys.argv[1], "ddpwire", round(o["ios_per_second"]), round(o["octets_per_second"] / 1e6, 2), o["latency_microseconds"]["p50"], o["latency_microseconds"]["p99"], o["cpu_percent"])
' "$name" "$j" 2> /dev/null || echo "$name ddpwire FAILED"
done
# the kernel's host in the guest: nvme connect over siw (to its own address), fio
out=$(RT=900 guest "nvme connect -t rdma -a 10.0.2.15 -s 4420 -n $NQN -i 1 > /dev/null && sleep 2 &&
for c in 'rand4k_qd1 4k 1 randread' 'rand4k_qd32 4k 32 randread' 'seq128k_read 128k 1 read' 'seq128k_write 128k 1 write'; do
  set -- \$c; echo FIO \$1 \$(fio --name=\$1 --filename=/dev/nvme0n1 --direct=1 --ioengine=libaio --bs=\$2 --iodepth=\$3 --rw=\$4 --runtime=$SECS --time_based --size=128m --output-format=terse --terse-version=3 2>&1 | tail -1);
done; nvme disconnect -n $NQN > /dev/null")
# fio terse v3: read KiB/s 7, IOPS 8, clat percentiles 18-37 (p50 the 7th, p99 the
# 13th, "50.000000%=N" in us); write the same 41 fields later (48, 49, 59-78); CPU
# user and system % at 88 and 89
echo "$out" | awk -F';' 'function v(f) { sub(/.*=/, "", f); return f + 0 }
  /^FIO /{ split($1, a, " "); n = a[2]; w = ($49 + 0) > 0;
  iops = $8 + $49; mbs = ($7 + $48) * 1024 / 1e6;
  p50 = w ? v($65) : v($24); p99 = w ? v($71) : v($30);
  printf "%s kernel %d %.2f %.1f %.1f %.1f\n", n, iops, mbs, p50, p99, $88 + $89 }'
