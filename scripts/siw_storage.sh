#!/bin/bash
# SPDX-License-Identifier: MIT
# Storage traffic over Linux soft-iWARP (siw 6.1), captured: NVMe over Fabrics
# (nvmet-rdma, nvme connect -t rdma), NFS over RDMA (nfsd with an RDMA listener,
# mount -o proto=rdma), SMB Direct (ksmbd, mount -t cifs -o rdma) and perftest's
# ib_write_bw / ib_read_bw -R, each writing and reading data (a few MiB, and a
# small session of 16 KiB), at lo MTU 1500 and 65536, siw CRC on and off. Both
# ends run in one qemu guest (siw on eth0; the traffic to the guest's own
# address crosses lo, captured there, one capture per session).
#
#   scripts/siw_storage.sh build   the guest (scripts/siw_peer.sh build with the
#                                  storage packages and modules; cached in $W)
#   scripts/siw_storage.sh run     boot, set up the servers, run every case, copy
#                                  the captures to $OUT, stop
#   scripts/siw_storage.sh collect SRC DST   the small sessions' captures of SRC
#                                  into DST as ULP_mtuMTU_CRC.pcap, and the heads
#                                  of a few big ones (editcap, see collect)
#   scripts/siw_storage.sh all     build and run (the default)
#
# W (default build/siw-storage) the guest cache and work folder; OUT (default
# $W/captures); ULPS (default "nvmeof nfs smb writebw readbw"); MTUS (default
# "1500 65536"); CRCS (default "nocrc crc"); SIZES (default "16 4096": KiB
# written and read per session; each size is a session and a capture,
# OUT/ULP_mtuMTU_CRC_SIZEk.pcap, with .log, .dmesg and a line in results.txt).
#
# The guest (scripts/siw_peer.sh build, see SIW_* there) differs from Debian's
# bookworm in three places, each because the stock one cannot run the case:
#  - siw.ko, built from linux-source-6.1 (Debian has no CONFIG_RDMA_SIW), with
#    mpa_crc_required made a module parameter (a constant false in 6.1, so two
#    siw ends never use CRC); the default is unchanged;
#  - ksmbd.ko and cifs.ko rebuilt from the same source with SMB Direct
#    (CONFIG_SMB_SERVER_SMBDIRECT, CONFIG_CIFS_SMB_DIRECT are unset in Debian's
#    kernel), ksmbd with opinfo_put()'s upstream NULL check: Debian's own
#    6.1.192 ksmbd.ko oopses in smb2_open() on a cifs mount, TCP or RDMA;
#  - ksmbd-tools from bookworm-backports (3.5.2; see SIW_BACKPORTS below).
# Exit 77: cannot run here (not root, no packages, the VM does not start);
# 1: a case failed (results.txt says which).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
export W=${W:-$PWD/build/siw-storage}
mkdir -p "$W"
W=$(cd "$W" && pwd)
OUT=${OUT:-$W/captures}
ULPS=${ULPS:-nvmeof nfs smb writebw readbw}
MTUS=${MTUS:-1500 65536}
CRCS=${CRCS:-nocrc crc}
SIZES=${SIZES:-16 4096}
export SIW_PKGS=nvme-cli,nfs-kernel-server,nfs-common,ksmbd-tools,cifs-utils,perftest,tcpdump,ethtool
export SIW_MODS="configfs brd loop nvmet nvmet-rdma nvme-rdma nvme-fabrics nvme-core rpcrdma sunrpc \
nfsd nfs nfsv3 nfsv4 lockd grace nfs_acl auth_rpcgss rpcsec_gss_krb5 cifs ksmbd cifs_arc4 cifs_md4 \
dns_resolver fscache netfs 9p 9pnet 9pnet_virtio dummy veth"
export SIW_MODDIRS="crypto arch/x86/crypto lib"   # ksmbd and cifs load their ciphers by alias
export SIW_SMBDIRECT=1 SIW_CRC_PARAM=1
# bookworm's ksmbd-tools 3.4.7 leaves payload_sz out of its share answers, which
# the 6.1.192 ksmbd (ipc_validate_msg) refuses: every tree connect fails with
# STATUS_BAD_NETWORK_NAME. 3.5.2 (bookworm-backports) sends it.
export SIW_BACKPORTS=ksmbd-tools
export SIW_MEM=${SIW_MEM:-2048} SIW_SHARE=$W/share
# siw_peer.sh forwards a host port to the guest's rping server; not used here,
# but not the interop test's 19999 either, so both can be booted
export PORT=${PORT:-19997}
PEER=(bash "$HERE/siw_peer.sh")
log() { echo "[siw-storage +$((SECONDS))s] $*"; }

build() {
  local t0=$SECONDS
  "${PEER[@]}" build || exit $?
  log "guest ready in $((SECONDS - t0)) s: $(du -m "$W/initrd.cpio" | cut -f1) MiB initramfs"
  [ ! -f "$W/smbdirect.txt" ] || log "SMB Direct: $(cat "$W/smbdirect.txt")"
}

run() {
  [ "$(id -u)" = 0 ] || { echo "siw-storage: SKIP: needs root" >&2; exit 77; }
  rm -rf "$SIW_SHARE"; mkdir -p "$SIW_SHARE/out" "$OUT"
  cp "$HERE/siw_storage_guest.sh" "$SIW_SHARE/"
  local t0=$SECONDS
  "${PEER[@]}" boot || exit $?
  trap '"${PEER[@]}" stop' EXIT
  log "booted in $((SECONDS - t0)) s"
  RUN_TIMEOUT=120 "${PEER[@]}" run "mountpoint -q /share" || { echo "siw-storage: SKIP: the guest has no /share (9p)" >&2; exit 77; }
  t0=$SECONDS
  RUN_TIMEOUT=400 "${PEER[@]}" run "sh /share/siw_storage_guest.sh setup /share/out" || log "setup: exit $?"
  log "setup in $((SECONDS - t0)) s"
  local ulp mtu crc kb n rc
  for crc in $CRCS; do
    for mtu in $MTUS; do
      for ulp in $ULPS; do
        for kb in $SIZES; do
          n=${ulp}_mtu${mtu}_${crc}_${kb}k
          t0=$SECONDS
          rc=0
          RUN_TIMEOUT=700 "${PEER[@]}" run "sh /share/siw_storage_guest.sh cap $ulp $mtu $crc $kb /share/out" > "$W/run_$n.txt" 2>&1 || rc=$?
          [ $rc = 0 ] || echo "RESULT $n FAIL host: the guest step ended with $rc (124: timeout)" >> "$SIW_SHARE/out/results.txt"
          log "$n: $((SECONDS - t0)) s: $(grep "^RESULT $n " "$SIW_SHARE/out/results.txt" | tail -1 | cut -d' ' -f3- | cut -c1-150)"
        done
      done
    done
  done
  "${PEER[@]}" stop
  trap - EXIT
  cp -a "$SIW_SHARE/out/." "$OUT/"
  cp "$W/console.log" "$OUT/console.log"
  log "captures in $OUT:"
  ls -l "$OUT"/*.pcap 2>/dev/null | awk '{print "  " $5 "\t" $9}'
  ! grep -q -E '^RESULT [^ ]+ FAIL' "$OUT/results.txt"
}

# collect SRC DST: into DST, from SRC (a run's OUT)
#  - ULP_mtuMTU_CRC.pcap: the small session (SRC/..._SMALLk.pcap, SMALL the
#    smallest of SIZES), whole: every connection from SYN to FIN;
#  - ULP_mtuMTU_CRC_head.pcap for the HEADS (default nvmeof, writebw, readbw at MTU
#    65536, CRC on and off): the first frames of the big session (the largest
#    of SIZES), up to and with the second frame (HEAD_BIG) in which tshark
#    finds an FPDU with a ULPDU_Length above 64768 (siw sizes FPDUs from the
#    MSS, bound to half the peer's largest window: such frames come once the
#    window has grown); the session goes on past the cut.
collect() {
  local src=$1 dst=$2 small big f b n all h
  command -v editcap > /dev/null && command -v tshark > /dev/null ||
    { echo "siw-storage: SKIP: no editcap/tshark" >&2; exit 77; }
  small=$(printf '%s\n' $SIZES | sort -n | head -1)
  big=$(printf '%s\n' $SIZES | sort -n | tail -1)
  mkdir -p "$dst"
  for f in "$src"/*_"${small}"k.pcap; do
    b=$(basename "$f" "_${small}k.pcap")
    editcap -F pcap "$f" "$dst/$b.pcap"
    echo "$(stat -c %s "$dst/$b.pcap") $b.pcap: the ${small} KiB session, whole ($(capinfos -c -M "$f" | awk -F: '/Number of packets/ {print $2 + 0}') frames)"
  done
  for h in ${HEADS:-nvmeof_mtu65536_crc nvmeof_mtu65536_nocrc writebw_mtu65536_crc writebw_mtu65536_nocrc readbw_mtu65536_crc readbw_mtu65536_nocrc}; do
    f=$src/${h}_${big}k.pcap
    [ -f "$f" ] || { echo "collect: no $f" >&2; continue; }
    n=$(tshark -n -r "$f" -o tcp.try_heuristic_first:TRUE -o tcp.reassemble_out_of_order:TRUE \
          -Y 'iwarp_mpa.ulpdulength > 64768' -T fields -e frame.number 2> /dev/null | sed -n "${HEAD_BIG:-2}p")
    [ -n "$n" ] || { echo "collect: no ${HEAD_BIG:-2} frames with a ULPDU above 64768 in $f" >&2; continue; }
    all=$(capinfos -c -M "$f" | awk -F: '/Number of packets/ {print $2 + 0}')
    editcap -F pcap -r "$f" "$dst/${h}_head.pcap" "1-$n"
    echo "$(stat -c %s "$dst/${h}_head.pcap") ${h}_head.pcap: frames 1-$n of $all of the $big KiB session"
  done
}

case "${1:-all}" in
  build) build ;;
  run) run ;;
  collect) shift; collect "$@" ;;
  all) build; run ;;
  *) echo "usage: $0 [build|run|collect SRC DST|all]   (W=DIR OUT=DIR ULPS= MTUS= CRCS= SIZES=)" >&2; exit 2 ;;
esac
