#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's quick start, verbatim, on a fresh minimal Debian 12: a
# `debootstrap --variant=minbase bookworm` tree holding a clean copy of HEAD
# (git archive), in which each command of the README's quick-start block runs
# as root, in a clean environment. Any failure fails the run, loudly.
#
#   .ci/fresh_debian.sh [DIR]   DIR (default build-fresh) holds the tree and the
#                               logs; removed at the end unless KEEP=1
#   MIRROR=URI                  debootstrap's mirror (default: this machine's,
#                               found by scripts/lib_apt.sh)
#   FRESH_ENV="VAR=VALUE ..."   added to the commands' clean environment (e.g.
#                               SIW_PORT=29999 where another guest holds 19999)
#
# Each command's output is kept in DIR/quickstart-N.log (ctest's own log in
# DIR/LastTest-N.log, the build's DW_ options in DIR/options-N.txt). A test
# that ctest skipped (exit 77) is listed with the reason it printed; one that
# printed none fails the run. It also fails when the quick start is not two
# commands, or does not name a package they install.
#
# Needs root. The tree is bind-mounted on itself (`ip netns` needs / to be a
# mount point) and gets /proc, /sys, /dev, /dev/pts, /dev/shm, /run, this
# machine's resolv.conf and hosts (how it reaches the mirror). On exit, any
# process still running inside is killed and every mount is undone.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib_apt.sh
. "$ROOT/scripts/lib_apt.sh"
DIR=${1:-$ROOT/build-fresh}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
C=$DIR/root
SRC=/root/ddpwire
SECONDS=0
log() { echo "[fresh-debian +${SECONDS}s] $*"; }
die() { echo "FRESH DEBIAN FAILED: $*" >&2; exit 1; }
# mounted: whether anything is mounted at or under $C
mounted() { findmnt -rn -o TARGET | awk -v c="$C" '$0 == c || index($0, c "/") == 1 { f = 1 } END { exit !f }'; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mounts)"
read -ra EXTRA <<< "${FRESH_ENV:-}"
for v in "${EXTRA[@]}"; do
  [[ $v =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "FRESH_ENV: '$v' is not VAR=VALUE"
done
# the quick start: the first sh block after "## Quick start", comments cut
mapfile -t CMDS < <(awk '/^## Quick start/ { q = 1; next }
  q && /^```sh/ { b = 1; next }  b && /^```/ { exit }
  b { sub(/[ \t]+#.*/, ""); if ($0 != "") print }' "$ROOT/README.md")
[ "${#CMDS[@]}" = 2 ] || die "the README's quick start has ${#CMDS[@]} commands, not 2: ${CMDS[*]:-}"
# and it names every package the two commands install
qs=$(awk '/^## Quick start/ { q = 1; next }  q && /^## / { exit }  q' "$ROOT/README.md")
for p in $(bash "$ROOT/scripts/deps.sh" --list check); do
  grep -q "\`$p\`" <<< "$qs" || die "the README's quick start does not say that it installs $p"
done
mounted && die "something is still mounted under $C (an earlier run?): see findmnt"
rm -rf --one-file-system "$C"

# skips LOG: the tests ctest skipped in the command whose output is LOG, each
# with the lines of its output that say why; 1 when one said nothing
skips() {
  local n why rc=0 last=$C$SRC/build/Testing/Temporary/LastTest.log
  for n in $(awk '/The following tests did not run:/ { f = 1; next }
      f && /^[ \t]+[0-9]+ - / { print $3; next }  f { exit }' "$1"); do
    why=$(awk -v n="$n" '$0 ~ "^[0-9]+/[0-9]+ Testing: " n "$" { t = 1; next }
        t && /^Output:/ { o = 1; next }  o && /^<end of output>/ { exit }
        o && !/^-+$/' "$last" 2> /dev/null | grep -i 'skip' || true)
    if [ -n "$why" ]; then
      log "skipped there: $n: $(echo "$why" | tail -3 | tr '\n' ' ')"
    else
      echo "FRESH DEBIAN: test $n was skipped without saying why" >&2
      rc=1
    fi
  done
  return $rc
}

cleanup() {
  local rc=$? p
  for p in /proc/[0-9]*; do
    if [ "$(readlink "$p/root" 2> /dev/null)" = "$C" ]; then
      log "killing ${p#/proc/} left running in the tree: $(tr '\0' ' ' < "$p/cmdline" | cut -c1-80)"
      kill -KILL "${p#/proc/}" 2> /dev/null || true
    fi
  done
  sleep 0.5
  mounted && { umount -R "$C" 2> /dev/null || umount -R -l "$C" || true; }
  if mounted; then
    echo "FRESH DEBIAN: could not unmount everything under $C" >&2
    rc=1
  elif [ -z "${KEEP:-}" ]; then
    rm -rf --one-file-system "$C"
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

MIRROR=${MIRROR:-$(apt_mirror bookworm)} || die "no mirror to debootstrap from (give MIRROR=URI)"
apt_install debootstrap || die "cannot install debootstrap"
log "debootstrap --variant=minbase bookworm $C $MIRROR"
debootstrap --variant=minbase bookworm "$C" "$MIRROR" > "$DIR/debootstrap.log" 2>&1 ||
  { tail -20 "$DIR/debootstrap.log" >&2; die "debootstrap failed (log: $DIR/debootstrap.log)"; }
t_boot=$SECONDS
log "debootstrap done in ${t_boot} s"

mount --bind "$C" "$C"
mount --make-private "$C"
mount -t proc proc "$C/proc"
mount -t sysfs sysfs "$C/sys"
mount -t devtmpfs -o mode=0755,nosuid devtmpfs "$C/dev"
mkdir -p "$C/dev/pts" "$C/dev/shm"
mount -t devpts -o newinstance,gid=5,mode=620,ptmxmode=0666 devpts "$C/dev/pts"
mount -t tmpfs -o mode=1777,nosuid,nodev shm "$C/dev/shm"
mount -t tmpfs -o mode=0755,nosuid,nodev run "$C/run"
cp -L /etc/resolv.conf "$C/etc/resolv.conf"
cp -L /etc/hosts "$C/etc/hosts"

mkdir -p "$C$SRC"
git -C "$ROOT" archive --format=tar HEAD | tar -x -C "$C$SRC"
log "source: $(git -C "$ROOT" log -1 --format='%h %s' | cut -c1-70) -> $SRC"

times=("debootstrap ${t_boot} s")
i=0
for cmd in "${CMDS[@]}"; do
  i=$((i + 1))
  log "\$ $cmd${FRESH_ENV:+   (with $FRESH_ENV)}"
  t=$SECONDS rc=0
  chroot "$C" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb \
    LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${EXTRA[@]}" \
    /bin/bash -c "cd $SRC && $cmd" < /dev/null 2>&1 | tee "$DIR/quickstart-$i.log" || rc=$?
  [ "$rc" = 0 ] || die "'$cmd' exited $rc after $((SECONDS - t)) s, in a fresh Debian 12 (minbase)"
  cp "$C$SRC/build/Testing/Temporary/LastTest.log" "$DIR/LastTest-$i.log" 2> /dev/null || true
  grep '^DW_' "$C$SRC/build/CMakeCache.txt" > "$DIR/options-$i.txt" 2> /dev/null || true
  skips "$DIR/quickstart-$i.log" || die "'$cmd': a test skipped without a reason"
  times+=("$cmd $((SECONDS - t)) s")
  log "'$cmd' passed in $((SECONDS - t)) s"
done
log "fresh Debian 12: the README's quick start passed; $(IFS=';'; echo "${times[*]}" | sed 's/;/; /g')"
