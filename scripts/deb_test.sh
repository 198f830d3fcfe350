#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packages, built and tried as a user gets them:
#  1. dpkg-buildpackage -us -uc -b on a copy of this tree (tracked and new
#     files, not the build folders): libddpwire1, libddpwire-dev, ddpwire;
#  2. lintian on the .changes: an error or a warning fails;
#  3. a fresh minimal Debian 12 (debootstrap --variant=minbase bookworm, made
#     meanwhile, plus a C compiler and pkg-config), where apt-get installs the
#     three .debs (their dependencies from the mirror) and runs: ddpwire
#     --version (the changelog's version), ddpwire demo --bytes 1M, a frame /
#     deframe round trip, the man pages, and tests/pkg/consumer.c built with
#     `cc consumer.c $(pkg-config --cflags --libs ddpwire)`, linked to
#     libddpwire.so.1 and run.
#
#   scripts/deb_test.sh [DIR]   DIR (default build-deb) holds the packages,
#                               lintian.txt and the logs; the chroot under it is
#                               removed at the end unless KEEP=1
#   DEB_BUILD_OPTIONS=nocheck   the package build skips its unit tests
#                               (debian/rules; CI runs them in make check)
#   MIRROR=URI                  debootstrap's mirror (default: this machine's)
#
# Needs root (debootstrap, chroot) and the packages of `scripts/deps.sh deb`
# (installed when missing). Prints the packages' sizes and the time taken.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib_apt.sh
. "$ROOT/scripts/lib_apt.sh"
DIR=${1:-$ROOT/build-deb}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
C=$DIR/root
SECONDS=0
log() { echo "[deb-test +${SECONDS}s] $*"; }
die() { echo "DEB TEST FAILED: $*" >&2; exit 1; }
mounted() { findmnt -rn -o TARGET | awk -v c="$C" '$0 == c || index($0, c "/") == 1 { f = 1 } END { exit !f }'; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot)"
bash "$ROOT/scripts/deps.sh" deb || die "cannot install the packaging tools"
mounted && die "something is still mounted under $C (an earlier run?): see findmnt"
rm -rf --one-file-system "$C" "$DIR/src"
rm -f "$DIR"/*.deb "$DIR"/*.changes "$DIR"/*.buildinfo

boot_pid=""
cleanup() {
  local rc=$? p
  set +e
  if [ -n "$boot_pid" ]; then kill "$boot_pid" 2> /dev/null; wait "$boot_pid" 2> /dev/null; fi
  for p in /proc/[0-9]*; do
    if [ "$(readlink "$p/root" 2> /dev/null)" = "$C" ]; then kill -KILL "${p#/proc/}" 2> /dev/null; fi
  done
  sleep 0.5
  mounted && { umount -R "$C" 2> /dev/null || umount -R -l "$C" || true; }
  if mounted; then
    echo "DEB TEST: could not unmount everything under $C" >&2
    rc=1
  elif [ -z "${KEEP:-}" ]; then
    rm -rf --one-file-system "$C" "$DIR/src"
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The fresh Debian, in the background while the packages build.
MIRROR=${MIRROR:-$(apt_mirror bookworm)} || die "no mirror to debootstrap from (give MIRROR=URI)"
debootstrap --variant=minbase --include=gcc,libc6-dev,pkg-config bookworm "$C" "$MIRROR" \
  > "$DIR/debootstrap.log" 2>&1 &
boot_pid=$!

VERSION=$(cd "$ROOT" && dpkg-parsechangelog -S Version)
SRC=$DIR/src/ddpwire-$VERSION
mkdir -p "$SRC"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | grep -zv '^build' |
  tar --null --no-recursion -T - -cf -) | tar -xf - -C "$SRC"
log "building the packages of ddpwire $VERSION${DEB_BUILD_OPTIONS:+ (DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS)}"
t=$SECONDS
(cd "$SRC" && dpkg-buildpackage -us -uc -b -j"$(nproc)") > "$DIR/build.log" 2>&1 ||
  { tail -30 "$DIR/build.log" >&2; die "dpkg-buildpackage failed (log: $DIR/build.log)"; }
t_build=$((SECONDS - t))
mv "$DIR"/src/*.deb "$DIR"/src/*.changes "$DIR"/src/*.buildinfo "$DIR/"
log "built in ${t_build} s:"
for f in "$DIR"/*.deb; do
  printf '  %-44s %8s octets, installed %6s KiB\n' "$(basename "$f")" "$(stat -c %s "$f")" \
    "$(dpkg-deb -f "$f" Installed-Size)"
done

t=$SECONDS
rc=0
lintian --fail-on error,warning "$DIR"/ddpwire_"$VERSION"_*.changes > "$DIR/lintian.txt" 2>&1 || rc=$?
grep -v '^running with root privileges' "$DIR/lintian.txt" || true
[ "$rc" = 0 ] || die "lintian: errors or warnings (above; $DIR/lintian.txt)"
log "lintian: no error, no warning ($((SECONDS - t)) s)"

t=$SECONDS
wait "$boot_pid" || { boot_pid=""; tail -20 "$DIR/debootstrap.log" >&2; die "debootstrap failed (log: $DIR/debootstrap.log)"; }
boot_pid=""
log "fresh Debian 12 ready (waited $((SECONDS - t)) s more for debootstrap)"
mount --bind "$C" "$C"
mount --make-private "$C"
mount -t proc proc "$C/proc"
mount -t tmpfs -o mode=1777,nosuid,nodev shm "$C/dev/shm" 2> /dev/null || true
cp -L /etc/resolv.conf "$C/etc/resolv.conf"
cp -L /etc/hosts "$C/etc/hosts"
mkdir -p "$C/root/debs" "$C/root/consumer"
for p in libddpwire1 libddpwire-dev ddpwire; do cp "$DIR/${p}_${VERSION}"_*.deb "$C/root/debs/"; done
cp "$ROOT/tests/pkg/consumer.c" "$C/root/consumer/"
in_chroot() {
  chroot "$C" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -euo pipefail -c "cd /root && $1" < /dev/null
}
in_chroot "DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ./debs/*.deb" \
  > "$DIR/install.log" 2>&1 ||
  { in_chroot "apt-get update -q" >> "$DIR/install.log" 2>&1 &&
    in_chroot "DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ./debs/*.deb" \
      >> "$DIR/install.log" 2>&1; } ||
  { tail -20 "$DIR/install.log" >&2; die "apt-get could not install the packages (log: $DIR/install.log)"; }
log "installed: $(in_chroot "dpkg-query -W -f '\${Package} \${Version}, ' libddpwire1 libddpwire-dev ddpwire")"

# the tool
v=$(in_chroot "ddpwire --version") || die "ddpwire --version failed"
[ "$v" = "ddpwire $VERSION" ] || die "ddpwire --version says '$v', the package is $VERSION"
log "\$ ddpwire --version: $v"
in_chroot "ddpwire demo --bytes 1M" > "$DIR/demo.log" 2>&1 || { cat "$DIR/demo.log" >&2; die "ddpwire demo failed"; }
log "\$ ddpwire demo --bytes 1M: $(tail -1 "$DIR/demo.log")"
in_chroot "printf '\000\005hello\000\001!\000\003abc' > r.bin && ddpwire frame < r.bin > s.mpa &&
  ddpwire deframe < s.mpa > back.bin && cmp r.bin back.bin && ! ddpwire deframe < r.bin > /dev/null 2>&1" ||
  die "frame/deframe round trip in the chroot"
log "frame | deframe: the records come back; a non-MPA stream is refused"
for m in ddpwire ddpwire-dump ddpwire-send; do
  [ -s "$C/usr/share/man/man1/$m.1.gz" ] || die "no man page $m(1) installed"
done

# a consumer of the -dev package, linked to the shared library
in_chroot "cc -Wall -Wextra -Werror -o consumer/consumer consumer/consumer.c \$(pkg-config --cflags --libs ddpwire)" \
  > "$DIR/consumer.log" 2>&1 || { cat "$DIR/consumer.log" >&2; die "the consumer did not build against libddpwire-dev"; }
in_chroot "ldd consumer/consumer" > "$DIR/consumer-ldd.txt" 2>&1 || die "ldd consumer"
grep -Eq 'libddpwire\.so\.1 => (/usr)?/lib/[^ ]*/libddpwire\.so\.1 ' "$DIR/consumer-ldd.txt" ||
  die "the consumer is not linked to the installed libddpwire.so.1: $(cat "$DIR/consumer-ldd.txt")"
out=$(in_chroot "consumer/consumer") || die "the consumer failed: $out"
log "consumer (pkg-config, libddpwire.so.1): $out"
log "deb test passed in ${SECONDS} s (package build ${t_build} s)"
