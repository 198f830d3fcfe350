#!/bin/bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages ddpwire needs, only those missing (apt-get; as
# root, or through sudo), after saying which.
#
#   scripts/deps.sh build         building (and `make demo`): compiler, make,
#                                 CMake, pkg-config, ISA-L, libpcap, python3, iproute2
#   scripts/deps.sh check         also what the tests use: tshark, tcpdump, ethtool,
#                                 curl, nc, openssl, xinetd; liburing (the io_uring
#                                 example's interop test); chromium and xmllint (the
#                                 figures and the report rendered); qemu, debootstrap, cpio,
#                                 kmod, xz-utils and kernel headers for the siw guest;
#                                 Wireshark's development files, wireshark, Xvfb,
#                                 xdotool and ImageMagick for the plugin and its tests;
#                                 abigail-tools (the ABI check, scripts/abi.sh)
#   scripts/deps.sh deb           building and trying the Debian packages
#                                 (scripts/deb_test.sh): build's, debhelper,
#                                 dpkg-dev, lintian, debootstrap
#   scripts/deps.sh bench         the wire benchmark's anchor and tools
#                                 (scripts/bench_wire.sh): build's, iperf3, ethtool
#   scripts/deps.sh --list SET    prints the packages of SET
set -euo pipefail
# shellcheck source=scripts/lib_apt.sh
. "$(dirname "$0")/lib_apt.sh"
BUILD=(build-essential cmake pkg-config libisal-dev libpcap-dev python3 iproute2)
CHECK=("${BUILD[@]}" tshark tcpdump ethtool nftables curl netcat-openbsd openssl xinetd groff-base
       liburing-dev
       chromium libxml2-utils
       qemu-system-x86 debootstrap cpio kmod xz-utils linux-headers-amd64
       libwireshark-dev libglib2.0-dev wireshark xvfb xdotool imagemagick abigail-tools)
DEB=("${BUILD[@]}" debhelper dpkg-dev lintian debootstrap)
BENCH=("${BUILD[@]}" iperf3 ethtool)
list=0
[ "${1:-}" = --list ] && { list=1; shift; }
case ${1:-} in
  build) set -- "${BUILD[@]}" ;;
  check) set -- "${CHECK[@]}" ;;
  deb) set -- "${DEB[@]}" ;;
  bench) set -- "${BENCH[@]}" ;;
  *) awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0" >&2; exit 2 ;;
esac
[ $list = 1 ] && { echo "$@"; exit 0; }
apt_install "$@"
