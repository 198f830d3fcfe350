#!/bin/bash
# SPDX-License-Identifier: MIT
# ddpwire nvmeof without a target: help, usage errors (exit 2), a refused
# connection and a peer that is not MPA (exit 1, said on stderr), JSON error
# object. The real conversation is tests/wire/nvmeof_interop.sh.
set -u
D=$1
T=$(mktemp -d)
trap 'rm -rf "$T"; [ -n "${L:-}" ] && kill $L 2> /dev/null' EXIT
pass=0 fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: ${2:-$1}"; fi; }

"$D" nvmeof --help > "$T/help" 2>&1
check "[ $? = 0 ] && grep -q 'discover' '$T/help' && grep -q 'perf' '$T/help'" "--help"
"$D" nvmeof > /dev/null 2> "$T/e"
check "[ $? = 2 ] && grep -q 'ADDR' '$T/e'" "no target: exit 2"
"$D" nvmeof 127.0.0.1 frobnicate > /dev/null 2> "$T/e"
check "[ $? = 2 ]" "unknown action: exit 2"
"$D" nvmeof 127.0.0.1 identify > /dev/null 2> "$T/e"
check "[ $? = 2 ] && grep -q -- '--nqn' '$T/e'" "identify without --nqn: exit 2"
"$D" nvmeof 127.0.0.1 --nqn nqn.x discover > /dev/null 2> "$T/e"
check "[ $? = 2 ]" "discover with another NQN: exit 2"
"$D" nvmeof 127.0.0.1 --nqn nqn.x perf --qd 0 > /dev/null 2> "$T/e"
check "[ $? = 2 ]" "--qd 0: exit 2"
# nothing listens on this port: refused
P=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$D" nvmeof "127.0.0.1:$P" --nqn nqn.x identify --timeout 3000 > /dev/null 2> "$T/e"
check "[ $? = 1 ] && grep -q 'queue 0' '$T/e'" "refused: exit 1 ($(head -c 200 "$T/e"))"
# a peer that answers with text: not an MPA responder
python3 - "$T/port" <<'PY' &
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
c, _ = s.accept(); c.recv(100); c.sendall(b"HTTP/1.0 400 Bad Request\r\n\r\n" * 2); c.close()
PY
L=$!
for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
"$D" nvmeof "127.0.0.1:$(cat "$T/port")" --nqn nqn.x identify --json --timeout 3000 > "$T/o" 2> "$T/e"
check "[ $? = 1 ] && [ -s '$T/e' ]" "not MPA: exit 1 ($(head -c 200 "$T/e"))"
wait $L 2> /dev/null; L=
echo "$pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
