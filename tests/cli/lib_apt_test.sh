#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/lib_apt.sh: the mirror found in deb822 and one-line apt sources
# (what the Debian 12 installer, debootstrap and cloud images write), under
# set -euo pipefail, with a clear message when there is none; apt_install
# installs only what is missing, says so first, uses sudo only when not
# root, and updates the lists when an install fails. apt-get, sudo and id
# are stand-ins here: nothing is installed.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib_apt.sh
. "$HERE/../../scripts/lib_apt.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
# expect NAME WANT GOT
expect() { if [ "$2" = "$3" ]; then ok; else bad "$1: expected '$2', got '$3'"; fi; }
# etc NAME: a fresh apt folder $T/NAME (with sources.list.d/), printed
etc() { mkdir -p "$T/$1/sources.list.d"; echo "$T/$1"; }
# mirror ETC SUITE: apt_mirror in a strict shell of its own; "rc=N" on failure
mirror() { (set -euo pipefail; APT_ETC=$1 apt_mirror "$2" 2> "$T/err") || echo "rc=$?"; }

# deb822 only, as on Debian 12 cloud images and this project's machines
E=$(etc deb822)
cat > "$E/sources.list.d/debian.sources" << 'EOF'
Types: deb
# a comment inside the stanza
URIs: http://deb.debian.org/debian/
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
EOF
expect "deb822" http://deb.debian.org/debian "$(mirror "$E" bookworm)"
expect "deb822, second stanza" http://deb.debian.org/debian-security "$(mirror "$E" bookworm-security)"
expect "deb822, suite served by none" "rc=1" "$(mirror "$E" trixie)"
grep -q 'no enabled .deb. source for trixie' "$T/err" ||
  bad "deb822, no trixie: unclear message: $(cat "$T/err")"

# one-line sources.list only, as debootstrap writes it
E=$(etc debootstrap)
echo "deb http://deb.debian.org/debian bookworm main" > "$E/sources.list"
expect "debootstrap's sources.list" http://deb.debian.org/debian "$(mirror "$E" bookworm)"

# as the Debian 12 installer writes it: a DVD first, comments, options,
# no sources.list.d/ at all
E=$T/installer
mkdir -p "$E"
cat > "$E/sources.list" << 'EOF'
#deb cdrom:[Debian GNU/Linux 12.5.0 _Bookworm_ - Official amd64 DVD Binary-1 with firmware 20240210-11:28]/ bookworm contrib main non-free-firmware

deb cdrom:[Debian GNU/Linux 12.5.0 _Bookworm_ - Official amd64 DVD Binary-1 with firmware 20240210-11:28]/ bookworm contrib main non-free-firmware
deb-src http://src.example.org/debian/ bookworm main
deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://ftp.de.debian.org/debian/ bookworm main non-free-firmware # the mirror
deb http://security.debian.org/debian-security bookworm-security main
EOF
expect "installer's sources.list" http://ftp.de.debian.org/debian "$(mirror "$E" bookworm)"
expect "installer's, security" http://security.debian.org/debian-security "$(mirror "$E" bookworm-security)"

# sources.list.d/*.list without sources.list; other names there are ignored
E=$(etc listd)
echo "deb http://wrong.example.org/debian bookworm main" > "$E/sources.list.d/old.list.disabled"
echo "deb http://wrong.example.org/debian bookworm main" > "$E/sources.list.d/old.list.save"
echo "deb https://mirror.example.org/debian bookworm main" > "$E/sources.list.d/mirror.list"
expect "sources.list.d/*.list" https://mirror.example.org/debian "$(mirror "$E" bookworm)"

# apt's order: sources.list before sources.list.d/, then by name
E=$(etc order)
echo "deb http://first.example.org/debian bookworm main" > "$E/sources.list"
echo "deb http://second.example.org/debian bookworm main" > "$E/sources.list.d/a.list"
printf 'Types: deb\nURIs: http://third.example.org/debian\nSuites: bookworm\n' > "$E/sources.list.d/b.sources"
expect "order" http://first.example.org/debian "$(mirror "$E" bookworm)"
rm "$E/sources.list"
expect "order in sources.list.d" http://second.example.org/debian "$(mirror "$E" bookworm)"

# deb822 oddities: Enabled: no, deb-src only, field names in lower case, an
# inline key (continuation lines), two types, two URIs
E=$(etc odd)
cat > "$E/sources.list.d/odd.sources" << 'EOF'
Types: deb
URIs: http://disabled.example.org/debian
Suites: bookworm
Enabled: no

Types: deb-src
URIs: http://src.example.org/debian
Suites: bookworm

types: deb-src deb
signed-by:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBGPL0BUBEADmW5NdOOHwPIJlgPu6JDcKw/NZJPR8lsD3K87ZM18gzyQZJD+w
 -----END PGP PUBLIC KEY BLOCK-----
uris: mirror+file:/etc/apt/mirrors.txt
 http://second-uri.example.org/debian
suites: bookworm
EOF
expect "deb822 oddities" http://second-uri.example.org/debian "$(mirror "$E" bookworm)"

# nothing configured: a clear message, no error from a glob that matches nothing
E=$T/empty
mkdir -p "$E"
expect "no sources" "rc=1" "$(mirror "$E" bookworm)"
grep -q "sources.list.d/\*.sources" "$T/err" || bad "no sources: the message does not say where it looked: $(cat "$T/err")"
expect "apt_sources, nothing configured" "0:" "$( (set -euo pipefail; APT_ETC=$E apt_sources) && echo "0:")"

# the whole of this machine's own sources (whatever their format) parse
( set -euo pipefail; apt_sources > "$T/host" ) || bad "apt_sources failed on /etc/apt"

# apt_missing: dpkg is always installed, the other name never
expect "apt_missing" "ddpwire-no-such-package" "$(apt_missing dpkg ddpwire-no-such-package)"

# apt_install with stand-ins for apt-get and sudo that log their calls
mkdir -p "$T/bin"
cat > "$T/bin/apt-get" << 'EOF'
#!/bin/sh
echo "apt-get $*" >> "$CALLS"
# an install fails until the lists were updated (FAIL_FIRST=1)
case " $* " in *" install "*) [ "${FAIL_FIRST:-0}" = 1 ] && ! grep -q ' update' "$CALLS" && exit 100 ;; esac
exit 0
EOF
printf '#!/bin/sh\necho "sudo $1" >> "$CALLS"\nexec "$@"\n' > "$T/bin/sudo"
chmod +x "$T/bin/apt-get" "$T/bin/sudo"
export CALLS=$T/calls
# inst [VAR=VALUE...]: apt_install in a strict shell as a user (UID) with the stand-ins
inst() {
  : > "$CALLS"
  (set -euo pipefail; export PATH="$T/bin:$PATH"
   id() { echo "${UID_:-0}"; }
   apt_install "$@") > "$T/out" 2>&1 && echo rc=0 || echo "rc=$?"
}
expect "nothing missing" "rc=0" "$(inst dpkg)"
expect "nothing missing: no apt-get" "" "$(cat "$CALLS")"
expect "nothing missing: silent" "" "$(cat "$T/out")"
# as root: says what, before apt-get runs; no sudo; only the missing package
expect "as root: exit" "rc=1" "$(inst dpkg ddpwire-no-such-package)" # never really installed
expect "as root: first line" "apt: installing (apt-get): ddpwire-no-such-package" "$(head -1 "$T/out")"
grep -q "could not install: ddpwire-no-such-package" "$T/out" || bad "as root: no failure message: $(cat "$T/out")"
expect "as root: no sudo, no update" "apt-get -o DPkg::Lock::Timeout=300 -y -q install --no-install-recommends ddpwire-no-such-package" \
  "$(cat "$CALLS")"
# stale lists: update, then the install again
FAIL_FIRST=1 inst ddpwire-no-such-package > /dev/null
expect "update after a failed install" "install update install" "$(awk '{print $NF == "update" ? "update" : "install"}' "$CALLS" | tr '\n' ' ' | sed 's/ $//')"
# not root: through sudo, and it says so
UID_=1000 inst ddpwire-no-such-package > /dev/null
expect "not root: says sudo" "apt: installing (apt-get, through sudo): ddpwire-no-such-package" "$(head -1 "$T/out")"
expect "not root: sudo first" "sudo env" "$(head -1 "$CALLS")"
# not root and no sudo: what is missing and what to run
rm "$T/bin/sudo"
PATH_SAVE=$PATH
PATH=$(echo "$PATH" | tr ':' '\n' | while read -r d; do [ -x "$d/sudo" ] || printf '%s:' "$d"; done)
expect "no sudo: exit" "rc=1" "$(UID_=1000 inst ddpwire-no-such-package)"
PATH=$PATH_SAVE
grep -q "missing: ddpwire-no-such-package; installing them needs root (sudo is not installed)" "$T/out" ||
  bad "no sudo: unclear message: $(cat "$T/out")"
expect "no sudo: apt-get not run" "" "$(cat "$CALLS")"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
