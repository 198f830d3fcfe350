#!/bin/bash
# SPDX-License-Identifier: MIT
# The quick start, on a Debian 12 that has nothing but bash and apt-get:
#
#   ./quickstart.sh demo    build tools if missing, then `make demo` (the main job)
#   ./quickstart.sh check   also the test tools, then `make check` (every test)
#
# Installs with apt-get only what is missing (scripts/deps.sh says what,
# first); as root, or through sudo when not root. Extra arguments go to make.
set -euo pipefail
cd "$(dirname "$0")"
case ${1:-} in
  demo) bash scripts/deps.sh build ;;
  check) bash scripts/deps.sh check ;;
  *) awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0" >&2; exit 2 ;;
esac
exec make "$@"
