#!/bin/bash
# A real iWARP peer: Linux soft-iWARP (siw) in a qemu guest, running rdma-core's
# rping server (derived from ../shared/siw-peer/siw-peer.sh).
#
#   scripts/siw_peer.sh build   kernel, siw.ko, initramfs into $W (cached: done once)
#   scripts/siw_peer.sh boot    boot the guest; returns once `rping -s` listens
#   scripts/siw_peer.sh run CMD run CMD in the guest's shell (serial console); prints
#                               its output and exits with its status
#   scripts/siw_peer.sh stop    stop the guest
#
# W (default build/siw-peer) holds the cache: kimg/ (Debian's kernel), initrd.cpio
# (debootstrapped Debian with rdmacm-utils and siw.ko). PORT (default 19999): host
# 127.0.0.1:PORT is forwarded to the guest's rping server. The guest reaches the
# host's loopback as 10.0.2.2 (qemu user networking). Exit 77: cannot run here
# (not root, no packages, the VM does not start).
#
# A bigger guest (scripts/siw_storage.sh) asks for more through the environment;
# unset, the guest is the one above:
#   SIW_PKGS      more guest packages (comma-separated, for debootstrap --include)
#   SIW_MODS      more kernel modules (file names without .ko), with their dependencies
#   SIW_MODDIRS   whole module folders under kernel/ (e.g. crypto: modules the
#                 kernel asks for by alias at run time)
#   SIW_SMBDIRECT=1  also build ksmbd.ko and cifs.ko from the same source with SMB
#                 Direct (Debian's kernel leaves CONFIG_SMB_SERVER_SMBDIRECT and
#                 CONFIG_CIFS_SMB_DIRECT unset); they replace Debian's in the guest
#   SIW_CRC_PARAM=1  make siw's mpa_crc_required and mpa_crc_strict (constants,
#                 false, in 6.1) module parameters, default unchanged (false), so
#                 /sys/module/siw/parameters/mpa_crc_required turns CRC on
#   SIW_BACKPORTS guest packages to take from $SUITE-backports instead (comma-
#                 separated; installed over the debootstrapped ones with dpkg -i)
#   SIW_MEM       guest memory in MiB (default 1536)
#   SIW_SHARE     a host folder the guest mounts as /share (virtio 9p; needs the
#                 modules 9p and 9pnet_virtio in SIW_MODS)
#   SIW_FWD       one more host port forwarded to the guest, as qemu's hostfwd
#                 (e.g. tcp:127.0.0.1:14420-10.0.2.15:4420 for nvmet's port)
# The cache is rebuilt when these build settings change (build.cfg).
set -euo pipefail
# shellcheck source=scripts/lib_apt.sh
. "$(dirname "$0")/lib_apt.sh"
W=${W:-$PWD/build/siw-peer}
PORT=${PORT:-19999}
SIZE=${SIZE:-65535}   # the guest rping server's buffer (-S)
SUITE=bookworm        # the guest's Debian release (its kernel is the 6.1 of the host's apt)
APT_ETC=${APT_ETC:-/etc/apt}
SIW_PKGS=${SIW_PKGS:-} SIW_MODS=${SIW_MODS:-} SIW_MODDIRS=${SIW_MODDIRS:-}
SIW_SMBDIRECT=${SIW_SMBDIRECT:-} SIW_CRC_PARAM=${SIW_CRC_PARAM:-} SIW_BACKPORTS=${SIW_BACKPORTS:-}
mkdir -p "$W"
W=$(cd "$W" && pwd)
log() { echo "[siw-peer +$((SECONDS))s] $*"; }
skip() { echo "siw-peer: SKIP: $*" >&2; exit 77; }


# What the cache was built with (SIW_* above): a change rebuilds it.
build_cfg() {
  echo "base=nvmet pkgs=$SIW_PKGS mods=$SIW_MODS moddirs=$SIW_MODDIRS smbdirect=$SIW_SMBDIRECT crcparam=$SIW_CRC_PARAM backports=$SIW_BACKPORTS"
}

# SIW_BACKPORTS from MIRROR's $SUITE-backports (apt with its own lists in bpo/,
# the host's apt configuration untouched) into rootfs/. A failure leaves the
# debootstrapped versions; backports.txt says what happened.
install_backports() {
  local b=$W/bpo p o pk=()
  rm -rf "$b"; mkdir -p "$b/lists/partial" "$b/cache/archives/partial"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $1 $SUITE-backports main" > "$b/sources.list"
  o=(-o "Dir::Etc::SourceList=$b/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o "Dir::State::Lists=$b/lists" -o "Dir::Cache=$b/cache")
  for p in ${SIW_BACKPORTS//,/ }; do pk+=("$p/$SUITE-backports"); done
  if apt-get "${o[@]}" update -qq > "$b/apt.log" 2>&1 &&
     (cd "$b" && apt-get "${o[@]}" download -qq "${pk[@]}" >> "$b/apt.log" 2>&1) &&
     cp "$b"/*.deb rootfs/tmp/ && chroot rootfs sh -c 'dpkg -i /tmp/*.deb' >> "$b/apt.log" 2>&1; then
    echo "from $SUITE-backports: $(cd "$b" && ls ./*.deb | sed 's|^\./||' | tr '\n' ' ')" > backports.txt
  else
    echo "$SUITE-backports install failed ($*): $(tail -3 "$b/apt.log" | tr '\n' ' ')" > backports.txt
  fi
  rm -f rootfs/tmp/*.deb
  log "$(cat backports.txt)"
}

# The cache of a build before build.cfg existed: the plain guest.
build_cfg_default() {
  echo "pkgs= mods= moddirs= smbdirect= crcparam= backports="
}

# ksmbd.ko and cifs.ko with SMB Direct, from ksrc/ (the same linux-source as siw):
# the rest of the configuration is Debian's (the headers' auto.conf and
# autoconf.h); only CONFIG_SMB_SERVER_SMBDIRECT and CONFIG_CIFS_SMB_DIRECT are
# added, as make variables (which files) and as defines (which code). The
# headers package has no asn1_compiler, so the ASN.1 decoders are generated
# here. A failure leaves Debian's modules (no SMB Direct); smbdirect.txt says why.
build_smbdirect() {
  local kv=$1 s=$W/ksrc/linux-source-6.1 a
  # the same layout as the tree: server/vfs.c includes "../../internal.h"
  mkdir -p smbmod/fs && cp -a "$s/fs/smb" "$s/fs/internal.h" smbmod/fs/
  if ! gcc -O2 -I "$s/include" -o smbmod/asn1_compiler "$s/scripts/asn1_compiler.c" 2> smbmod/asn1.err; then
    echo "asn1_compiler did not build: $(head -3 smbmod/asn1.err)" > smbdirect.txt; log "SMB Direct: $(cat smbdirect.txt)"; return 0
  fi
  # Debian's 6.1.192 ksmbd oopses in smb2_open (opinfo_put(NULL) for an open
  # without an oplock, the first open of a cifs mount): the NULL check opinfo_put
  # has upstream
  perl -0pi -e 's/(\nvoid opinfo_put\(struct oplock_info \*opinfo\)\n\{\n)(\tif \(!atomic_dec_and_test)/$1\tif (!opinfo)\n\t\treturn;\n\n$2/' \
    smbmod/fs/smb/server/oplock.c
  grep -A3 '^void opinfo_put' smbmod/fs/smb/server/oplock.c | grep -q 'if (!opinfo)' &&
    echo "ksmbd: opinfo_put() given the NULL check it has upstream (6.1.192 oopses without)" >> smbdirect.txt
  for a in smbmod/fs/smb/server/*.asn1 smbmod/fs/smb/client/*.asn1; do
    smbmod/asn1_compiler "$a" "$a.c" "$a.h"
  done
  make -s -j2 -C "/usr/src/linux-headers-$kv" M="$W/smbmod/fs/smb/server" CONFIG_SMB_SERVER_SMBDIRECT=y \
    KCFLAGS=-DCONFIG_SMB_SERVER_SMBDIRECT=1 modules > smbmod/server.log 2>&1 || true
  make -s -j2 -C "/usr/src/linux-headers-$kv" M="$W/smbmod/fs/smb/client" CONFIG_CIFS_SMB_DIRECT=y \
    KCFLAGS=-DCONFIG_CIFS_SMB_DIRECT=1 modules > smbmod/client.log 2>&1 || true
  mkdir -p smbmod/client smbmod/server
  for a in server/ksmbd client/cifs; do
    if [ -f "smbmod/fs/smb/$a.ko" ]; then
      strip --strip-debug -o "smbmod/$a.ko" "smbmod/fs/smb/$a.ko"
    else
      echo "$a.ko did not build: $(grep -m3 -i error "smbmod/${a%/*}.log")" >> smbdirect.txt
    fi
  done
  [ -f smbmod/server/ksmbd.ko ] && [ -f smbmod/client/cifs.ko ] &&
    echo "ksmbd.ko and cifs.ko built with SMB Direct from linux-source-6.1" >> smbdirect.txt
  log "SMB Direct: $(tr '\n' ' ' < smbdirect.txt)"
}

build() {
  local cfg; cfg=$(build_cfg)
  if [ -s "$W/initrd.cpio" ] && [ -f "$W/built.ok" ] &&
     [ "$(cat "$W/build.cfg" 2>/dev/null || build_cfg_default)" = "$cfg" ]; then
    log "cached: $W/initrd.cpio"; return 0
  fi
  [ "$(id -u)" = 0 ] || skip "building the guest needs root (apt-get, debootstrap)"
  export DEBIAN_FRONTEND=noninteractive
  cd "$W"
  rm -f built.ok
  apt-get update -qq || skip "apt-get update failed"
  local mirror kpkg kv kver
  mirror=$(apt_mirror "$SUITE") || skip "no Debian mirror for $SUITE configured (debootstrap needs one)"
  log "guest mirror $mirror"
  kpkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
  kv=${kpkg#linux-image-}
  kver=$(apt-cache policy "$kpkg" | awk '/Candidate:/{print $2}')
  [ -n "$kpkg" ] && [ -n "$kver" ] || skip "no Debian kernel package found"
  log "kernel $kv ($kver)"
  apt_install qemu-system-x86 debootstrap cpio kmod xz-utils make gcc "linux-headers-$kv" python3 ||
    skip "cannot install qemu/debootstrap/kernel headers (above: what is missing)"
  rm -rf rootfs initroot kimg siwmod smbmod ksrc bpo debootstrap.ok smbdirect.txt backports.txt
  local inc=rdmacm-utils,ibverbs-utils,ibverbs-providers,iproute2,kmod,procps
  [ -z "$SIW_PKGS" ] || inc=$inc,$SIW_PKGS
  ( debootstrap --variant=minbase --include="$inc" \
      "$SUITE" rootfs "$mirror" > debootstrap.log 2>&1 && echo ok > debootstrap.ok ) &
  local db=$!
  apt-get download -qq "$kpkg" "linux-source-6.1=$kver" 2>/dev/null || skip "kernel download failed"
  dpkg-deb -x "${kpkg}"_*.deb kimg && depmod -b "$W/kimg" "$kv"
  local want=('linux-source-6.1/drivers/infiniband/sw/siw/*')
  [ -z "$SIW_SMBDIRECT" ] || want+=('linux-source-6.1/fs/smb/*' linux-source-6.1/fs/internal.h
    linux-source-6.1/scripts/asn1_compiler.c 'linux-source-6.1/include/linux/asn1*.h')
  mkdir -p ksrc
  dpkg --fsys-tarfile "linux-source-6.1_${kver}_all.deb" | tar -xO ./usr/src/linux-source-6.1.tar.xz |
    tar -xJ -C ksrc --wildcards "${want[@]}"
  cp -a ksrc/linux-source-6.1/drivers/infiniband/sw/siw siwmod
  if [ -n "$SIW_CRC_PARAM" ]; then
    local x
    for x in mpa_crc_required mpa_crc_strict; do
      sed -i "s/^const bool $x;/bool $x;\nmodule_param($x, bool, 0644);/" siwmod/siw_main.c
      sed -i "s/^extern const bool $x;/extern bool $x;/" siwmod/siw.h
      grep -q "^module_param($x," siwmod/siw_main.c || skip "siw source: no const bool $x to make a parameter"
    done
  fi
  make -s -j2 -C "/usr/src/linux-headers-$kv" M="$W/siwmod" CONFIG_RDMA_SIW=m modules 2>&1 |
    grep -v BTF || true
  [ -f siwmod/siw.ko ] || skip "siw.ko did not build"
  log "siw.ko built${SIW_CRC_PARAM:+ (mpa_crc_required, mpa_crc_strict: module parameters)}"
  [ -z "$SIW_SMBDIRECT" ] || build_smbdirect "$kv"
  wait $db || true
  [ -f debootstrap.ok ] || { tail -5 debootstrap.log; skip "debootstrap failed"; }
  log "debootstrap done"
  [ -z "$SIW_BACKPORTS" ] || install_backports "$mirror"
  local r=$W/initroot m=$W/kimg/lib/modules/$kv
  cp -a rootfs "$r"
  rm -rf "$r"/usr/share/{doc,man,info,locale,zoneinfo,i18n} "$r"/var/cache/apt/* "$r"/var/lib/apt/lists/*
  local mod p d
  # nvmet over siw too (nvmeof_interop): configfs, brd (the RAM disk), nvmet-rdma
  for mod in ib_uverbs rdma_ucm rdma_cm iw_cm ib_core virtio_net virtio_pci crc32c_generic \
             crc32c-intel libcrc32c configfs brd nvmet nvmet-rdma $SIW_MODS; do
    p=$(grep -E "/$mod\.ko:" "$m/modules.dep") || { echo "siw-peer: no module $mod in $kv" >&2; continue; }
    echo "${p%%:*} ${p#*:}" | tr ' ' '\n'
  done | sort -u | grep . | while read -r f; do install -D -m644 "$m/$f" "$r/lib/modules/$kv/$f"; done
  for d in $SIW_MODDIRS; do
    [ -d "$m/kernel/$d" ] && mkdir -p "$r/lib/modules/$kv/kernel/$d" && cp -a "$m/kernel/$d/." "$r/lib/modules/$kv/kernel/$d/"
  done
  for p in smbmod/client/cifs.ko:fs/smb/client smbmod/server/ksmbd.ko:fs/smb/server; do
    [ -f "${p%%:*}" ] && install -D -m644 "${p%%:*}" "$r/lib/modules/$kv/kernel/${p#*:}/$(basename "${p%%:*}")"
  done
  cp "$m"/modules.order "$m"/modules.builtin* "$r/lib/modules/$kv/"
  install -D -m644 siwmod/siw.ko "$r/lib/modules/$kv/extra/siw.ko"
  depmod -b "$r" "$kv"
  # the rping server's port and size come from the kernel command line
  cat > "$r/init" <<'EOT'
#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /run /tmp; mount -t devpts devpts /dev/pts
for m in virtio_pci virtio_net siw ib_uverbs rdma_ucm; do modprobe $m || echo "modprobe $m FAILED"; done
ip link set lo up; ip link set eth0 up; ip addr add 10.0.2.15/24 dev eth0; ip route add default via 10.0.2.2
rdma link add siw0 type siw netdev eth0
if grep -q siw_share /proc/cmdline; then
  mkdir -p /share
  { modprobe 9pnet_virtio && modprobe 9p &&
    mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 share /share; } || echo "[init] 9p share FAILED"
fi
PORT=$(sed -n 's/.*rping_port=\([0-9]*\).*/\1/p' /proc/cmdline)
SIZE=$(sed -n 's/.*rping_size=\([0-9]*\).*/\1/p' /proc/cmdline)
rping -s -P -S "$SIZE" -a 10.0.2.15 -p "$PORT" > /dev/console 2>&1 &
while ! ss -Hltn "sport = :$PORT" | grep -q LISTEN; do sleep 0.2; done
echo "[init] RPING_LISTENING uptime=$(cut -d' ' -f1 /proc/uptime)"
exec /bin/sh </dev/console >/dev/console 2>&1
EOT
  chmod +x "$r/init"
  (cd "$r" && find . -print0 | cpio --null -o -H newc --quiet) > initrd.cpio
  rm -rf "$r" rootfs siwmod smbmod ksrc bpo ./*.deb   # keep only kimg/ and initrd.cpio
  build_cfg > build.cfg
  echo "$kv" > built.ok
  log "initramfs $(du -m initrd.cpio | cut -f1) MiB"
}

boot() {
  [ -f "$W/built.ok" ] || skip "no guest image in $W (run: $0 build)"
  command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed"
  stop_vm
  cd "$W"
  local kv; kv=$(cat built.ok)
  # TCG: KVM here (nested) aborts on -cpu max and hangs on -cpu host
  local accel=${SIW_ACCEL:-tcg} cpu=max
  [ "$accel" = kvm ] && cpu=host
  rm -f console.log ser.sock guest.pcap
  local share=() append=
  if [ -n "${SIW_SHARE:-}" ]; then
    mkdir -p "$SIW_SHARE"
    share=(-virtfs "local,path=$SIW_SHARE,mount_tag=share,security_model=none,id=share")
    append=" siw_share=1"
  fi
  qemu-system-x86_64 -machine q35,accel=$accel -cpu $cpu -smp 2 -m "${SIW_MEM:-1536}" \
    -kernel "kimg/boot/vmlinuz-$kv" -initrd initrd.cpio "${share[@]}" \
    -append "console=ttyS0 rdinit=/init panic=-1 quiet rping_port=$PORT rping_size=$SIZE$append" \
    -netdev "user,id=n0,hostfwd=tcp:127.0.0.1:$PORT-10.0.2.15:$PORT${SIW_FWD:+,hostfwd=$SIW_FWD}" \
    -device virtio-net-pci,netdev=n0 -object filter-dump,id=f0,netdev=n0,file="$W/guest.pcap" \
    -display none -monitor none -no-reboot \
    -chardev "socket,id=s0,path=$W/ser.sock,server=on,wait=off,logfile=$W/console.log" \
    -serial chardev:s0 > qemu.log 2>&1 &
  echo $! > qemu.pid
  local t0=$SECONDS
  until grep -q RPING_LISTENING console.log 2>/dev/null; do
    if ! kill -0 "$(cat qemu.pid)" 2>/dev/null; then
      cat qemu.log >&2; skip "the VM did not start"
    fi
    if [ $((SECONDS - t0)) -gt "${BOOT_TIMEOUT:-300}" ]; then
      tail -20 console.log >&2; stop_vm; skip "the guest did not come up in ${BOOT_TIMEOUT:-300} s"
    fi
    sleep 0.5
  done
  log "guest up, rping -s listening on 127.0.0.1:$PORT (boot $((SECONDS - t0)) s, $accel)"
}

# Types CMD into the guest's shell; waits for its end marker in the console log.
run() {
  [ -S "$W/ser.sock" ] || skip "the guest is not running"
  local tag="SIWRUN$$_$RANDOM" from
  from=$(wc -c < "$W/console.log")
  python3 - "$W/ser.sock" "$* ; echo $tag=\$?" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
for c in sys.argv[2].encode() + b"\n":  # slowly: the emulated UART drops a burst
    s.sendall(bytes([c])); time.sleep(0.005)
s.close()
EOF
  local t0=$SECONDS
  until tail -c +$((from + 1)) "$W/console.log" | grep -aq "^$tag="; do
    [ $((SECONDS - t0)) -gt "${RUN_TIMEOUT:-300}" ] && { echo "siw-peer: guest command timed out" >&2; return 124; }
    sleep 0.5
  done
  tail -c +$((from + 1)) "$W/console.log" | tr -d '\r' | grep -av "$tag" || true
  return "$(tail -c +$((from + 1)) "$W/console.log" | tr -d '\r' | sed -n "s/^$tag=\([0-9]*\).*/\1/p" | tail -1)"
}

stop_vm() {
  if [ -f "$W/qemu.pid" ]; then
    local p; p=$(cat "$W/qemu.pid")
    if kill -0 "$p" 2>/dev/null && grep -q qemu "/proc/$p/cmdline" 2>/dev/null; then
      kill "$p"; sleep 0.5
    fi
    rm -f "$W/qemu.pid"
  fi
}

case "${1:-}" in
  build) build ;;
  boot) boot ;;
  run) shift; run "$@" ;;
  stop) stop_vm ;;
  *) echo "usage: $0 build|boot|run CMD|stop   (W=DIR PORT=N)" >&2; exit 2 ;;
esac
