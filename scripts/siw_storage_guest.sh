#!/bin/sh
# SPDX-License-Identifier: MIT
# shellcheck shell=dash disable=SC2046  # dash has local; $(ddsz) splits on purpose
# Runs inside the siw guest (scripts/siw_storage.sh puts it on the guest's /share):
# storage protocols over Linux soft-iWARP, both ends in the one guest. siw is
# bound to eth0 (10.0.2.15); a connection to the guest's own address crosses
# `lo`, so lo's MTU sets the TCP MSS, and siw sizes its FPDUs from the MSS.
#
#   siw_storage_guest.sh setup OUT
#       modules, a RAM disk (brd, /dev/ram0) as the NVMe namespace, tmpfs
#       exports; starts nvmet (RDMA port 4420), nfsd (RDMA listener 20049) and
#       ksmbd (SMB Direct, 5445 on iWARP); lo without segmentation offloads
#       (one frame per TCP segment in captures; lo's checksum offload is fixed
#       on, so the captured TCP checksums are not filled in)
#   siw_storage_guest.sh cap ULP MTU CRC KIB OUT
#       ULP nvmeof|nfs|smb|writebw|readbw, MTU of lo, CRC crc|nocrc (siw's
#       mpa_crc_required), KIB KiB written and then read back (data checked;
#       perftest: KIB in messages of up to 64 KiB, 5 at least); one whole
#       session (connect ... disconnect) captured with tcpdump on lo into
#       OUT/ULP_mtuMTU_CRC_KIBk.pcap
# Every step runs under `timeout`. A line "RESULT name ok|FAIL|SKIP why" per
# session goes to OUT/results.txt.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
ADDR=10.0.2.15
NQN=nqn.2024-01.org.ddpwire:siw-ram0
log() { echo "[guest $(cut -d' ' -f1 /proc/uptime)] $*"; }
t() { local s=$1; shift; timeout -k 5 "$s" "$@"; }   # every step has a time limit

setup() {
  OUT=$1; mkdir -p "$OUT"; : > "$OUT/setup.txt"
  note() { log "$*"; echo "$*" >> "$OUT/setup.txt"; }
  note "kernel $(uname -r) ($(sed 's/.*Debian/Debian/' /proc/version)); siw.ko $(modinfo -n siw), vermagic $(modinfo -F vermagic siw)"
  note "siw parameters: $(cd /sys/module/siw/parameters 2>/dev/null && grep -H . * 2>/dev/null | tr '\n' ' ')"
  [ -w /sys/module/siw/parameters/mpa_crc_required ] || note "siw: no mpa_crc_required parameter: CRC stays off"
  for m in configfs brd nvmet nvmet-rdma nvme-rdma rpcrdma nfsd nfsv3 cifs ksmbd; do
    case $m in brd) a="rd_nr=1 rd_size=65536" ;; *) a= ;; esac
    t 30 modprobe $m $a || note "modprobe $m FAILED"
  done
  # siw on eth0; the traffic to 10.0.2.15 goes over lo: no segmentation offloads
  # there, so a captured frame is one TCP segment of at most lo's MTU
  t 10 ethtool -K lo sg off tso off gso off gro off > /dev/null 2>&1 || note "ethtool -K lo failed"
  note "lo offloads: $(ethtool -k lo 2>/dev/null | grep -E '^(tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload|tx-checksumming):' | tr -s ' \n' ' ')"
  note "rdma: $(rdma link show 2>&1 | tr '\n' ' ')"
  # a pattern to write and read back
  dd if=/dev/urandom of=/tmp/pattern bs=1M count=16 status=none

  # NVMe over Fabrics: nvmet, RDMA port 4420, namespace /dev/ram0
  mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
  S=/sys/kernel/config/nvmet/subsystems/$NQN P=/sys/kernel/config/nvmet/ports/1
  if [ -d /sys/kernel/config/nvmet ] && [ -b /dev/ram0 ]; then
    mkdir -p "$S/namespaces/1" "$P"
    echo 1 > "$S/attr_allow_any_host"
    echo /dev/ram0 > "$S/namespaces/1/device_path"; echo 1 > "$S/namespaces/1/enable"
    echo rdma > "$P/addr_trtype"; echo ipv4 > "$P/addr_adrfam"
    echo $ADDR > "$P/addr_traddr"; echo 4420 > "$P/addr_trsvcid"
    ln -s "$S" "$P/subsystems/$NQN" 2>/dev/null
    [ -s /etc/nvme/hostnqn ] || { mkdir -p /etc/nvme; nvme gen-hostnqn > /etc/nvme/hostnqn; }
    note "nvmet: $NQN on rdma $ADDR:4420, namespace /dev/ram0 ($(blockdev --getsize64 /dev/ram0) octets)"
  else
    note "nvmet: not set up (no nvmet configfs or no /dev/ram0)"
  fi

  # NFS: kernel server, export a tmpfs, RDMA listener 20049
  mkdir -p /srv/nfs /srv/smb /mnt/nfs /mnt/smb /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery /run/rpcbind
  mountpoint -q /srv/nfs || mount -t tmpfs -o size=64m tmpfs /srv/nfs
  mountpoint -q /srv/smb || mount -t tmpfs -o size=64m,mode=0777 tmpfs /srv/smb
  echo "/srv/nfs *(rw,no_root_squash,insecure,no_subtree_check,fsid=1)" > /etc/exports
  mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
  t 10 rpcbind -w || note "rpcbind failed"
  t 20 exportfs -ra || note "exportfs failed"
  t 20 rpc.mountd || note "rpc.mountd failed"
  t 30 rpc.nfsd 4 || note "rpc.nfsd failed"
  echo "rdma 20049" > /proc/fs/nfsd/portlist || note "nfsd: no RDMA listener"
  note "nfsd: portlist $(tr '\n' ' ' < /proc/fs/nfsd/portlist 2>/dev/null), versions $(cat /proc/fs/nfsd/versions 2>/dev/null)"

  # SMB Direct: ksmbd (listens on 5445 for an iWARP device), a Unix and an SMB user
  mkdir -p /etc/ksmbd
  cat > /etc/ksmbd/ksmbd.conf <<'EOF'
[global]
	netbios name = SIWGUEST
[share]
	path = /srv/smb
	read only = no
	force user = siw
EOF
  id siw > /dev/null 2>&1 || useradd -M -s /bin/false siw
  t 20 ksmbd.adduser -a siw -p siw > /dev/null 2>&1 ||
    t 20 ksmbd.adduser --add-user=siw --password=siw > /dev/null 2>&1 || note "ksmbd.adduser failed"
  t 30 ksmbd.mountd || note "ksmbd.mountd failed"
  sleep 2
  note "listening: $(ss -Hltn | awk '{print $4}' | tr '\n' ' ')"
  note "ksmbd: $(ksmbd.mountd -V 2>&1 | tr '\n' ' ')"
}

# tcpdump on lo for the ULP's ports, until stop_cap
start_cap() {
  rm -f /tmp/cap.pcap /tmp/tcpdump.err
  # a 64 MiB buffer: under emulation tcpdump falls behind a fast session
  tcpdump -n -s 0 -B 65536 -i lo -w /tmp/cap.pcap "$1" 2> /tmp/tcpdump.err &
  CAP=$!
  i=0; while ! grep -q listening /tmp/tcpdump.err && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
stop_cap() {
  sleep 1; kill -INT $CAP 2>/dev/null; wait $CAP
  grep -E 'captured|dropped' /tmp/tcpdump.err | tr '\n' ' '
}

checkdata() {  # FILE KIB: the first KIB KiB of FILE equal the pattern's
  if cmp -n $(($2 * 1024)) /tmp/pattern "$1" > /dev/null; then echo "data ok ($2 KiB)"; else echo "DATA DIFFER"; return 1; fi
}
# dd arguments for KIB KiB: blocks of 256 KiB, or one block
ddsz() { if [ "$1" -ge 256 ]; then echo "bs=256k count=$(($1 / 256))"; else echo "bs=${1}k count=1"; fi; }

s_nvmeof() {
  local kb=$1 dev='' i
  t 60 nvme connect -t rdma -a $ADDR -s 4420 -n $NQN -i 1 || { echo "nvme connect failed"; return 1; }
  for i in $(seq 100); do
    dev=$(ls /dev/nvme*n1 2>/dev/null | head -1); [ -n "$dev" ] && break; sleep 0.2
  done
  [ -n "$dev" ] || { t 30 nvme disconnect -n $NQN; echo "no namespace block device"; return 1; }
  t 120 dd if=/tmp/pattern of="$dev" $(ddsz "$kb") oflag=direct status=none &&
  t 120 dd if="$dev" of=/tmp/back $(ddsz "$kb") iflag=direct status=none &&
  checkdata /tmp/back "$kb"
  local rc=$?
  t 60 nvme disconnect -n $NQN || rc=1
  return $rc
}

s_nfs() {
  local kb=$1 rc
  t 60 mount -t nfs -o vers=3,proto=rdma,port=20049,nolock $ADDR:/srv/nfs /mnt/nfs || { echo "mount -o rdma failed"; return 1; }
  grep ' /mnt/nfs ' /proc/mounts
  t 120 dd if=/tmp/pattern of=/mnt/nfs/f $(ddsz "$kb") oflag=direct status=none &&
  t 120 dd if=/mnt/nfs/f of=/tmp/back $(ddsz "$kb") iflag=direct status=none &&
  checkdata /tmp/back "$kb"
  rc=$?
  t 60 umount /mnt/nfs || rc=1
  rm -f /srv/nfs/f
  return $rc
}

s_smb() {
  local kb=$1 rc
  t 60 mount -t cifs //$ADDR/share /mnt/smb -o rdma,vers=3.0,username=siw,password=siw,cache=none ||
    { echo "mount -t cifs -o rdma failed: $(dmesg | grep -i cifs | tail -3 | tr '\n' ' ')"; return 1; }
  grep ' /mnt/smb ' /proc/mounts
  t 120 dd if=/tmp/pattern of=/mnt/smb/f $(ddsz "$kb") status=none &&
  t 120 dd if=/mnt/smb/f of=/tmp/back $(ddsz "$kb") status=none &&
  checkdata /tmp/back "$kb"
  rc=$?
  t 60 umount /mnt/smb || rc=1
  rm -f /srv/smb/f
  return $rc
}

# perftest over rdma_cm (-R): server and client in the guest; KIB in messages
# of 64 KiB, or for a small KIB 5 messages (perftest's least) of KIB/5 rounded
# down to 4 KiB (4 KiB at least)
s_bw() {
  local tool=$1 kb=$2 sz n rc i
  sz=$((kb * 1024 / 5 / 4096 * 4096))
  [ $sz -ge 4096 ] || sz=4096
  [ $sz -le 65536 ] || sz=65536
  n=$((kb * 1024 / sz))
  [ $n -ge 5 ] || n=5
  t 120 $tool -R -d siw0 -F -s $sz -n $n -p 18515 > /tmp/bw-server.txt 2>&1 &
  local srv=$!
  # the server's rdma_cm listener is a siw kernel socket: ss sees it
  for i in $(seq 100); do ss -Hltn "sport = :18515" | grep -q LISTEN && break; sleep 0.1; done
  rc=0
  t 120 $tool -R -d siw0 -F -s $sz -n $n -p 18515 $ADDR > /tmp/bw-client.txt 2>&1 || rc=1
  wait $srv || rc=1
  tail -4 /tmp/bw-client.txt
  echo "bw: $(awk '/#bytes/ { getline; print }' /tmp/bw-client.txt | tr -s ' \t' ' ') (octets, iterations, MB/s peak, average, Mpps)"
  grep -i -E 'error|fail|unable|couldn' /tmp/bw-client.txt /tmp/bw-server.txt | head -5
  return $rc
}

cap() {
  local ulp=$1 mtu=$2 crc=$3 kb=$4 OUT=$5 name filter rc t0 val
  name=${ulp}_mtu${mtu}_${crc}_${kb}k
  mkdir -p "$OUT"
  case $ulp in
    nvmeof) filter="tcp port 4420" ;;
    nfs) filter="tcp port 20049" ;;
    smb) filter="tcp port 5445 or tcp port 445" ;;
    writebw|readbw) filter="tcp port 18515" ;;
    *) echo "unknown ULP $ulp"; return 2 ;;
  esac
  ip link set lo mtu "$mtu"
  val=N; [ "$crc" = crc ] && val=Y
  if [ -w /sys/module/siw/parameters/mpa_crc_required ]; then
    echo $val > /sys/module/siw/parameters/mpa_crc_required
  elif [ $val = Y ]; then
    echo "RESULT $name SKIP siw has no mpa_crc_required parameter" | tee -a "$OUT/results.txt"; return 0
  fi
  dmesg -c > /dev/null
  log "$name: lo mtu $(cat /sys/class/net/lo/mtu), siw mpa_crc_required=$(cat /sys/module/siw/parameters/mpa_crc_required 2>/dev/null), $kb KiB written and read"
  local try st secs drops
  # once more when tcpdump lost packets; perftest up to 3 times (under emulation
  # its client can race its server's second listen: a RST, then librdmacm faults)
  for try in 1 2 3; do
    start_cap "$filter"
    t0=$(cut -d' ' -f1 /proc/uptime)
    case $ulp in
      nvmeof) s_nvmeof "$kb" ;;
      nfs) s_nfs "$kb" ;;
      smb) s_smb "$kb" ;;
      writebw) s_bw ib_write_bw "$kb" ;;
      readbw) s_bw ib_read_bw "$kb" ;;
    esac > "/tmp/$name.log" 2>&1
    rc=$?
    secs=$(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN{printf "%.1f", b - a}')
    st=$(stop_cap)
    drops=$(echo "$st" | sed -n 's/.* \([0-9]*\) packets dropped by kernel.*/\1/p')
    if [ "${drops:-0}" != 0 ]; then
      [ $try -lt 2 ] || break
      log "$name: tcpdump dropped $drops packets; again"
    elif [ $rc != 0 ] && [ $try -lt 3 ] && { [ $ulp = writebw ] || [ $ulp = readbw ]; }; then
      log "$name: failed (try $try): $(grep -h -i -E 'fail|unable|error' /tmp/bw-*.txt | head -2 | tr '\n' ' '); again"
      echo "try $try failed: $(grep -h -i -E 'fail|unable|error' /tmp/bw-*.txt | head -2 | tr '\n' ' ')" >> "$OUT/$name.retries"
      sleep 2
    else
      break
    fi
  done
  [ "${drops:-0}" = 0 ] || rc=3
  cat "/tmp/$name.log"
  dmesg > "$OUT/$name.dmesg"
  cp /tmp/cap.pcap "$OUT/$name.pcap"
  cp "/tmp/$name.log" "$OUT/$name.log"
  if [ $rc = 0 ]; then r=ok; else r=FAIL; fi
  echo "RESULT $name $r rc=$rc try $try ${secs}s tcpdump: $st; $(grep -m1 -E '^(data ok|DATA|bw:)|failed|rror' "/tmp/$name.log" | cut -c1-160)" | tee -a "$OUT/results.txt"
}

case ${1:-} in
  setup) shift; setup "$@" ;;
  cap) shift; cap "$@" ;;
  *) echo "usage: $0 setup OUT | cap ULP MTU crc|nocrc KIB OUT" >&2; exit 2 ;;
esac
