# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Debian packages and the Debian mirror, for every script that installs or
# debootstraps; sourced, not run. Reads both apt source formats: deb822
# (sources.list.d/*.sources) and one-line (sources.list, sources.list.d/*.list).
# Safe under set -euo pipefail: a missing file is skipped, never an error.
#
#   apt_sources          each enabled `deb` source as "URI SUITE..."
#   apt_mirror SUITE     the URI of the first http(s)/ftp/file source serving SUITE
#   apt_missing PKG...   those of PKG... that are not installed
#   apt_install PKG...   installs the missing ones with apt-get, saying which
#                        first; as root, or through sudo when not root
#
# APT_ETC (default /etc/apt) is where the sources are read (for the tests).

# One-line format: "deb [options] URI SUITE COMPONENTS...".
apt_sources_oneline() {
  sed -e 's/#.*//' -e 's/^[[:space:]]*deb[[:space:]]*\[[^]]*\]/deb /' "$1" |
    awk '$1 == "deb" && NF >= 3 { print $2, $3 }'
}

# deb822: stanzas split by blank lines; Types, URIs, Suites, Enabled (field
# names in any case); a line that begins with white space continues a field.
apt_sources_deb822() {
  awk '
    function flush(  n, i, u) {
      if (" " types " " ~ / deb / && tolower(enabled) != "no" && uris != "" && suites != "") {
        n = split(uris, u, " ")
        for (i = 1; i <= n; i++) print u[i], suites
      }
      types = uris = suites = enabled = key = ""
    }
    function add(v) {
      gsub(/[ \t]+/, " ", v); sub(/^ /, "", v); sub(/ $/, "", v)
      if (key == "types") types = types (types == "" ? "" : " ") v
      else if (key == "uris") uris = uris (uris == "" ? "" : " ") v
      else if (key == "suites") suites = suites (suites == "" ? "" : " ") v
      else if (key == "enabled") enabled = v
    }
    /^#/ { next }
    /^[ \t]*$/ { flush(); next }
    /^[ \t]/ { add($0); next }
    /:/ { key = tolower(substr($0, 1, index($0, ":") - 1)); add(substr($0, index($0, ":") + 1)) }
    END { flush() }' "$1"
}

# In apt's order: sources.list, then sources.list.d/ by name.
apt_sources() {
  local etc=${APT_ETC:-/etc/apt} f
  [ -f "$etc/sources.list" ] && apt_sources_oneline "$etc/sources.list"
  for f in "$etc"/sources.list.d/*; do
    [ -f "$f" ] || continue
    case $f in
      *.list) apt_sources_oneline "$f" ;;
      *.sources) apt_sources_deb822 "$f" ;;
    esac
  done
  return 0
}

apt_mirror() {
  local suite=${1:?apt_mirror: which suite?} etc=${APT_ETC:-/etc/apt} m
  m=$(apt_sources | awk -v s="$suite" '$1 ~ /^(https?|ftp|file):/ {
        for (i = 2; i <= NF; i++) if ($i == s) { print $1; exit } }')
  if [ -z "$m" ]; then
    echo "apt: no enabled 'deb' source for $suite (http, https, ftp or file) in" \
      "$etc/sources.list, $etc/sources.list.d/*.list or $etc/sources.list.d/*.sources" >&2
    return 1
  fi
  echo "${m%/}"
}

apt_missing() {
  local p
  for p in "$@"; do
    case $(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2> /dev/null) in
      ii*) ;;
      *) echo "$p" ;;
    esac
  done
}

# apt_run SUDO LOG ARGS...: apt-get ARGS, unattended, its output appended to LOG
apt_run() {
  local sudo=$1 log=$2
  shift 2
  # shellcheck disable=SC2086 # $sudo is empty or one word
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -y -q "$@" >> "$log" 2>&1
}

apt_install() {
  local missing sudo="" log rc=0
  missing=$(apt_missing "$@" | tr '\n' ' ')
  missing=${missing% }
  [ -n "$missing" ] || return 0
  if ! command -v apt-get > /dev/null 2>&1; then
    echo "apt: missing: $missing; there is no apt-get here to install them" >&2
    return 1
  fi
  if [ "$(id -u)" != 0 ]; then
    if ! command -v sudo > /dev/null 2>&1; then
      echo "apt: missing: $missing; installing them needs root (sudo is not installed):" \
        "run this as root, or as root: apt-get install $missing" >&2
      return 1
    fi
    sudo=sudo
  fi
  echo "apt: installing (apt-get${sudo:+, through sudo}): $missing"
  log=$(mktemp /tmp/apt_install.XXXXXX)
  # package lists missing or stale: update, then try once more
  # shellcheck disable=SC2086 # one word per package
  apt_run "$sudo" "$log" install --no-install-recommends $missing ||
    { apt_run "$sudo" "$log" update &&
      apt_run "$sudo" "$log" install --no-install-recommends $missing; } || rc=$?
  missing=$(apt_missing "$@" | tr '\n' ' ')
  if [ "$rc" != 0 ] || [ -n "$missing" ]; then
    tail -15 "$log" >&2
    echo "apt: could not install: ${missing:-(apt-get exited $rc)}; apt-get's log: $log" >&2
    return 1
  fi
  rm -f "$log"
}
