#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs tshark or wireshark with the ddpwire plugin of a build tree:
#   scripts/ws_run.sh [-B BUILD] tshark|wireshark ARGS...
# (BUILD defaults to build/ beside this script's folder). Wireshark loads no
# plugin at all when started as root, so as root it runs as nobody (the
# capture files and the build tree must be readable by all).
set -euo pipefail
BUILD=$(cd "$(dirname "$0")/.." && pwd)/build
[ "${1:-}" = -B ] && { BUILD=$(cd "$2" && pwd); shift 2; }
prog=${1:?usage: ws_run.sh [-B BUILD] tshark|wireshark ARGS...}
shift
DIR=$BUILD/wireshark/plugins
[ -d "$DIR" ] || { echo "ws_run.sh: no plugin in $BUILD (is libwireshark-dev installed?)" >&2; exit 2; }
if [ "$(id -u)" = 0 ]; then
  # a copy nobody can read, wherever the build tree is
  tmp=$(mktemp -d /tmp/ddpwire-ws.XXXXXX)
  trap 'rm -rf "$tmp"' EXIT
  cp -r "$DIR" "$tmp/plugins"
  chmod -R a+rX "$tmp"
  rc=0
  setpriv --reuid=65534 --regid=65534 --clear-groups --reset-env \
    env HOME=/tmp WIRESHARK_PLUGIN_DIR="$tmp/plugins" DISPLAY="${DISPLAY:-}" \
    XDG_RUNTIME_DIR=/tmp "$prog" "$@" || rc=$?
  exit $rc
fi
WIRESHARK_PLUGIN_DIR=$DIR exec "$prog" "$@"
