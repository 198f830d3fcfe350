# SPDX-License-Identifier: MIT
# Shared by the capture tests (wire_tshark.sh, wire_align.sh); sourced, not run.
# Expects $T (a scratch folder) to exist. Provides: check/ok/bad counters,
# skip, need (install missing tools when root), capture start/stop,
# pick_port, wait_listen, ns_cleanup.

pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else bad "${2:-$1}"; fi; }
# ctest maps exit 77 to "skipped" (SKIP_RETURN_CODE); only for a
# prerequisite that cannot exist on this machine.
skip() { echo "skipped: $*"; exit 77; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" = 0 ]; }

# A namespace set-up step failed, its stderr in $T/setup.err: skip where the
# machine forbids it (a container without CAP_SYS_ADMIN, a user namespace, no
# veth driver or nftables), else a failure.
NS_FORBIDDEN='not permitted|Permission denied|not supported|Unknown device type|No such device'
setup_fail() {
  grep -qiE "$NS_FORBIDDEN" "$T/setup.err" && skip "$1 here: $(head -1 "$T/setup.err")"
  bad "$1: $(cat "$T/setup.err")"
  finish
  exit 1
}

# nftables rules (for nft -f -) that drop PERCENT % of the forwarded TCP
# data segments to PORT: loss made in a router namespace (no netem here).
nft_loss_rules() { # PORT PERCENT
  cat << EOF
table inet dwloss {
  chain forward_loss {
    type filter hook forward priority 0; policy accept;
    tcp dport $1 meta length > 200 numgen random mod 100 < $2 counter drop
  }
}
EOF
}

# The namespace tests' EXIT trap: stops the capture ($CAP_PID) and the
# listener ($LP), deletes the namespaces named in $NS_LIST once made
# ($NS_MADE=1), removes $T (DW_KEEP=1 keeps it).
ns_cleanup() {
  [ -n "${CAP_PID:-}" ] && kill -INT "$CAP_PID" 2> /dev/null
  [ -n "${LP:-}" ] && kill "$LP" 2> /dev/null
  wait 2> /dev/null
  if [ "${NS_MADE:-0}" = 1 ]; then
    for ns in ${NS_LIST:-}; do ip netns del "$ns" 2> /dev/null; done
  fi
  if [ -n "${DW_KEEP:-}" ]; then echo "kept: $T"; else rm -rf "$T"; fi
}

# shellcheck source=scripts/lib_apt.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib_apt.sh"

# need CMD:PACKAGE ... — installs missing Debian packages when root (CI
# installs them up front through scripts/deps.sh); without root or apt-get: skip.
need() {
  local missing="" cp
  for cp in "$@"; do command -v "${cp%%:*}" > /dev/null 2>&1 || missing="$missing ${cp#*:}"; done
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" != 0 ] || ! command -v apt-get > /dev/null 2>&1; then
    skip "needs$missing, which is not installed (root and apt-get are needed to install it)"
  fi
  # shellcheck disable=SC2086 # one word per package
  apt_install $missing || true # says what failed; checked below
  for cp in "$@"; do
    if ! command -v "${cp%%:*}" > /dev/null 2>&1; then
      echo "FAIL: could not install ${cp#*:} as root"; echo "0 passed, 1 failed"; exit 1
    fi
  done
}

# cap_start FILE IFACE FILTER [command prefix, e.g. ip netns exec NS]:
# tcpdump writing every packet at once (-U, --immediate-mode, big buffer),
# ready when it says it is listening. CAP_SNAP (default 0: whole frames of
# any size) sets the snap length: in immediate mode each slot of the kernel
# ring is that long, so a fast stream needs it near the frame size.
cap_start() {
  local file=$1 ifc=$2 filt=$3
  shift 3
  "$@" tcpdump -i "$ifc" -U --immediate-mode -B 65536 -s "${CAP_SNAP:-0}" -Z root -w "$file" "$filt" \
    2> "$file.err" &
  CAP_PID=$!
  for _ in $(seq 100); do
    grep -q 'listening on' "$file.err" 2> /dev/null && [ -s "$file" ] && break
    kill -0 "$CAP_PID" 2> /dev/null || break
    sleep 0.05
  done
  grep -q 'listening on' "$file.err" 2> /dev/null || return 1
  sleep 0.2
}

# cap_stop FILE: SIGINT, wait; CAP_DROPS = packets the kernel dropped.
cap_stop() {
  sleep 0.3 # the last ACKs and FINs
  kill -INT "$CAP_PID" 2> /dev/null
  wait "$CAP_PID"
  CAP_PID=""
  CAP_DROPS=$(sed -n 's/^\([0-9]*\) packets dropped by kernel.*/\1/p' "$1.err")
  CAP_DROPS=${CAP_DROPS:-unknown}
}

# A TCP port below the ephemeral range that nothing listens on.
pick_port() {
  local p
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 12000))
    "$@" ss -Htan 2> /dev/null | awk '{print $4}' | grep -q ":$p\$" || { echo "$p"; return; }
  done
  echo "$p"
}

# wait_listen PORT [command prefix]
wait_listen() {
  local port=$1
  shift
  for _ in $(seq 100); do
    "$@" ss -Hltn 2> /dev/null | awk '{print $4}' | grep -q ":$port\$" && return 0
    sleep 0.05
  done
  return 1
}

# kv KEY FILE: the value of KEY=... in FILE
kv() { sed -n "s/^$1=//p" "$2" | head -1; }
