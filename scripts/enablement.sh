#!/bin/bash
# SPDX-License-Identifier: MIT
# MPA enablement errors (analysis-of-mpa-over-tcp section 8, Figures 4 and 5,
# 8.2) acted out on loopback: our MPA endpoint in each start-up mode against
# real non-MPA programs, as client and as server.
#
#   scripts/enablement.sh [--quick] [--out DIR] [--ddpwire PATH] [--timeout MS]
#
# A  MPA active (ddpwire send) -> non-MPA server: nginx, lighttpd, python3
#    http.server, dnsmasq and unbound (DNS over TCP, the query sent as the
#    ULPDU: Figure 6),
#    openssl s_server, and echo/discard/chargen/daytime/time from xinetd
#    (ddpwire load verifies what echo sends back).
# B  non-MPA client -> MPA passive (ddpwire listen --records): curl, wget,
#    dig +tcp, openssl s_client, nc typing a line (8.2.2), nc sending an RFC
#    5044 request followed by text (Figure 5, lower left).
# C  MPA speaks first -> non-MPA client (through a splicing relay, since our
#    listener never sends first): rdate (time client), nc (daytime/chargen
#    client), curl, openssl s_client.
# Modes: imm-m (immediate, markers), imm-nom (--no-markers), neg-m (RFC 5044
# request/reply), neg-nom (negotiate --no-markers), ift (--framing ift).
#
# --quick (CI, < 60 s): no installs; python3 http.server, openssl, curl and nc
# when present, xinetd's services or a python stand-in; 4 modes.
# The full form installs what is missing (root: apt-get), and needs xinetd for
# the little services. Prints a markdown table; OUT/enablement.tsv is the
# machine-readable form (one row per case). Exit 0 when every case ended.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
QUICK=0 OUT="" DW=${DDPWIRE:-$ROOT/build/tools/ddpwire/ddpwire} TMS=""
usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case $1 in
    --quick) QUICK=1 ;;
    --out) OUT=$2; shift ;;
    --ddpwire) DW=$2; shift ;;
    --timeout) TMS=$2; shift ;;
    --help | -h) usage; exit 0 ;;
    *) echo "enablement: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$DW" ] || { echo "enablement: no ddpwire at $DW (give --ddpwire PATH)" >&2; exit 2; }
TMS=${TMS:-$([ $QUICK = 1 ] && echo 1000 || echo 3000)}
TS=$(( (TMS + 999) / 1000 ))   # whole seconds, for clients that take seconds
HARD=$(( TS + 6 ))             # nothing may run longer than this
W=$(mktemp -d /tmp/enablement.XXXXXX)
OUT=${OUT:-$W}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
PY=$(command -v /usr/bin/python3 || command -v python3)
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2> /dev/null; done
  for p in "${PIDS[@]}"; do wait "$p" 2> /dev/null; done
  if [ -n "${DW_KEEP:-}" ]; then echo "enablement: kept $W" >&2; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
say() { echo "enablement: $*" >&2; }
now() { date +%s%N; }
ms() { echo $(( ($2 - $1) / 1000000 )); }

# ---- programs: install what is missing (full form, root), else skip ---------
# shellcheck source=scripts/lib_apt.sh
. "$HERE/lib_apt.sh"
declare -A HAVE
have() { [ "${HAVE[$1]:-0}" = 1 ]; }
need() { # need NAME CMD PKG
  if command -v "$2" > /dev/null 2>&1; then HAVE[$1]=1; return; fi
  HAVE[$1]=0
  if [ $QUICK = 1 ]; then say "skipping $1: $2 not installed (--quick installs nothing)"; return; fi
  if [ "$(id -u)" != 0 ]; then say "skipping $1: $2 missing and not root"; return; fi
  if apt_install "$3" >&2 && command -v "$2" > /dev/null 2>&1; then
    HAVE[$1]=1
  else
    say "skipping $1: $3 could not be installed (above) or has no $2"
  fi
}
need openssl openssl openssl
need curl curl curl
need nc nc netcat-openbsd
if [ $QUICK = 0 ]; then
  need nginx nginx nginx-light
  need lighttpd lighttpd lighttpd
  need dnsmasq dnsmasq dnsmasq-base
  need xinetd xinetd xinetd
  need unbound unbound unbound
  need dig dig bind9-dnsutils
  need wget wget wget
  need rdate rdate rdate
else
  command -v xinetd > /dev/null 2>&1 && HAVE[xinetd]=1
fi
[ -n "$PY" ] && HAVE[python3]=1

# ---- helpers written to the work directory ---------------------------------
cat > "$W/helpers.py" << 'EOF'
import os, select, socket, struct, sys, threading, time

def listener(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(4)
    return s

def relay(pa, pb, d):
    """Accept one connection on each port, splice them, log both ways."""
    la, lb = listener(pa), listener(pb)
    open(os.path.join(d, "ready"), "w").close()
    la.settimeout(30); lb.settimeout(30)
    a, _ = la.accept()
    b, _ = lb.accept()
    logs = {a: open(os.path.join(d, "a2b"), "wb"), b: open(os.path.join(d, "b2a"), "wb")}
    other = {a: b, b: a}
    live, end = [a, b], time.time() + 30
    while live and time.time() < end:
        r, _, _ = select.select(live, [], [], 0.5)
        for s in r:
            try:
                data = s.recv(65536)
            except OSError:  # a reset is passed on as a reset
                o = other[s]
                o.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                o.close()
                return
            if not data:
                live.remove(s)
                try:
                    other[s].shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                continue
            logs[s].write(data); logs[s].flush()
            try:
                other[s].sendall(data)
            except OSError:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                s.close()
                return

def one(name, c):
    try:
        if name == "echo":
            while True:
                d = c.recv(65536)
                if not d:
                    break
                c.sendall(d)
        elif name == "discard":
            while c.recv(65536):
                pass
        elif name == "chargen":
            chars = "".join(chr(x) for x in range(32, 127)) * 2
            i = 0
            while True:
                c.sendall((chars[i % 95:i % 95 + 72] + "\r\n").encode())
                i += 1
        elif name == "daytime":
            c.sendall(time.strftime("%d %b %Y %H:%M:%S UTC\r\n", time.gmtime()).encode())
        elif name == "time":
            c.sendall(struct.pack(">I", (int(time.time()) + 2208988800) & 0xFFFFFFFF))
    except OSError:
        pass
    c.close()

def serve(name, s):
    while True:
        c, _ = s.accept()
        threading.Thread(target=one, args=(name, c), daemon=True).start()

def little(ports):
    """RFC 862-868 stand-ins for --quick without an inetd."""
    for name, port in zip(("echo", "discard", "chargen", "daytime", "time"), ports):
        threading.Thread(target=serve, args=(name, listener(int(port))), daemon=True).start()
    while True:
        time.sleep(3600)

def dnsquery(name):
    q = struct.pack(">HHHHHH", 0x4869, 0x0100, 1, 0, 0, 0)
    for label in name.split("."):
        q += bytes([len(label)]) + label.encode()
    sys.stdout.buffer.write(q + b"\0" + struct.pack(">HH", 1, 1))

if sys.argv[1] == "relay":
    relay(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
elif sys.argv[1] == "little":
    little(sys.argv[2:])
elif sys.argv[1] == "dnsquery":
    dnsquery(sys.argv[2])
EOF

# ---- ports and servers -------------------------------------------------------
listening() { ss -Hltn "sport = :$1" 2> /dev/null | grep -q .; }
pick_base() {
  local b i
  for i in 1 2 3 4 5 6 7 8; do
    b=$(( 20000 + (RANDOM % 150) * 200 ))
    listening $((b + 1)) || listening $((b + 7)) || { echo $b; return; }
  done
  echo $b
}
BASE=${ENABLEMENT_PORT_BASE:-$(pick_base)}
NEXT=$((BASE + 50))
port() { NEXT=$((NEXT + 1)); PORT=$NEXT; } # not in $(...): NEXT must advance
wait_port() { # wait_port PORT PID: 0 once PORT listens
  local i
  for i in $(seq 1 50); do
    if command -v ss > /dev/null 2>&1; then listening "$1" && return 0; else
      [ $i -ge 10 ] && return 0; fi
    kill -0 "$2" 2> /dev/null || return 1
    sleep 0.1
  done
  return 1
}
start() { # start NAME PORT CMD...: background server, skipped when it fails
  local name=$1 p=$2; shift 2
  "$@" > "$W/$name.srv" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  if wait_port "$p" "$pid"; then return 0; fi
  say "skipping $name: it does not start: $(tail -2 "$W/$name.srv" | tr '\n' ' ')"
  HAVE[$name]=0
  return 1
}
mkdir -p "$W/www" "$W/ng"
echo "it works" > "$W/www/index.html"
P_NGINX=$((BASE + 1)) P_LIGHTTPD=$((BASE + 2)) P_PYHTTP=$((BASE + 3)) P_DNS=$((BASE + 4))
P_TLS=$((BASE + 5)) P_UNBOUND=$((BASE + 6)) P_ECHO=$((BASE + 7)) P_DISCARD=$((BASE + 9)) P_DAYTIME=$((BASE + 13))
P_CHARGEN=$((BASE + 19)) P_TIME=$((BASE + 37))
if have nginx; then
  cat > "$W/ng/nginx.conf" << EOF
daemon off;
master_process off;
worker_processes 1;
pid $W/ng/nginx.pid;
error_log $W/ng/error.log info;
events { worker_connections 64; }
http {
  access_log $W/ng/access.log;
  client_body_temp_path $W/ng; proxy_temp_path $W/ng; fastcgi_temp_path $W/ng;
  uwsgi_temp_path $W/ng; scgi_temp_path $W/ng;
  client_header_timeout ${TS}s;
  server { listen 127.0.0.1:$P_NGINX; root $W/www; }
}
EOF
  touch "$W/ng/access.log" "$W/ng/error.log"
  start nginx $P_NGINX nginx -p "$W/ng" -c "$W/ng/nginx.conf"
fi
if have lighttpd; then
  cat > "$W/lighttpd.conf" << EOF
server.document-root = "$W/www"
server.port = $P_LIGHTTPD
server.bind = "127.0.0.1"
server.errorlog = "$W/lighttpd.err"
server.modules = ("mod_accesslog")
accesslog.filename = "$W/lighttpd.acc"
server.max-read-idle = $((TS * 2))
debug.log-request-header-on-error = "enable"
EOF
  touch "$W/lighttpd.acc" "$W/lighttpd.err"
  start lighttpd $P_LIGHTTPD lighttpd -D -f "$W/lighttpd.conf"
fi
have python3 && start pyhttp $P_PYHTTP "$PY" -m http.server --bind 127.0.0.1 --directory "$W/www" $P_PYHTTP &&
  HAVE[pyhttp]=1
if have dnsmasq; then
  touch "$W/dnsmasq.log"
  start dnsmasq $P_DNS dnsmasq -k -p $P_DNS --listen-address=127.0.0.1 --bind-interfaces \
    --no-resolv --no-hosts --address=/h9e.test/192.0.2.9 --log-queries=extra \
    --log-facility="$W/dnsmasq.log" -u root --pid-file="$W/dnsmasq.pid"
fi
if have unbound; then
  cat > "$W/unbound.conf" << EOF
server:
  interface: 127.0.0.1
  port: $P_UNBOUND
  do-daemonize: no
  username: ""
  chroot: ""
  directory: "$W"
  pidfile: "$W/unbound.pid"
  use-syslog: no
  logfile: "$W/unbound.log"
  log-queries: yes
  log-replies: yes
  module-config: "iterator"
  local-zone: "h9e.test." static
  local-data: "h9e.test. A 192.0.2.9"
remote-control:
  control-enable: no
EOF
  touch "$W/unbound.log"
  start unbound $P_UNBOUND unbound -d -c "$W/unbound.conf"
fi
if have openssl; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$W/k.pem" \
    -out "$W/c.pem" -subj /CN=enablement -days 2 > /dev/null 2>&1
  start tls $P_TLS openssl s_server -accept 127.0.0.1:$P_TLS -cert "$W/c.pem" -key "$W/k.pem" \
    -quiet < /dev/null && HAVE[tls]=1
fi
LITTLE_BY=""
if have xinetd; then
  : > "$W/xinetd.conf"
  for s in echo:$P_ECHO discard:$P_DISCARD chargen:$P_CHARGEN daytime:$P_DAYTIME time:$P_TIME; do
    printf 'service %s\n{\n type = INTERNAL UNLISTED\n id = %s-stream\n socket_type = stream\n protocol = tcp\n wait = no\n user = root\n port = %s\n bind = 127.0.0.1\n}\n' \
      "${s%:*}" "${s%:*}" "${s#*:}" >> "$W/xinetd.conf"
  done
  start xinetd $P_TIME xinetd -f "$W/xinetd.conf" -dontfork -filelog "$W/xinetd.log" \
    -pidfile "$W/xinetd.pid" && LITTLE_BY=xinetd
fi
if [ -z "$LITTLE_BY" ] && [ $QUICK = 1 ] && have python3; then
  start little $P_TIME "$PY" "$W/helpers.py" little $P_ECHO $P_DISCARD $P_CHARGEN $P_DAYTIME \
    $P_TIME && LITTLE_BY=python
fi
[ -z "$LITTLE_BY" ] && say "skipping echo/discard/chargen/daytime/time: no inetd"
[ -n "$PY" ] && "$PY" "$W/helpers.py" dnsquery h9e.test > "$W/dnsquery.bin"
printf 'GET / HTTP/1.0\r\n\r\n' > "$W/http.in"
printf 'hello\r\n' > "$W/hello.in"
# Figure 5 lower left: a non-MPA client whose first octets happen to be an
# RFC 5044 request (C set, no markers), then its own text a moment later
cat > "$W/nchello.sh" << 'EOF'
{ printf 'MPA ID Req Frame\x40\x01\x00\x00'; sleep 0.3; printf 'hello, this is not MPA\r\n'; } |
  nc -q 1 -w "$2" 127.0.0.1 "$1"
EOF
: > "$W/empty.in"

# ---- one case -----------------------------------------------------------------
flags() {
  case $1 in
    imm-m) echo "" ;; imm-nom) echo "--no-markers" ;; neg-m) echo "--startup negotiate" ;;
    neg-nom) echo "--startup negotiate --no-markers" ;; ift) echo "--framing ift" ;;
  esac
}
# spawn TAG STDIN CMD...: CMD in the background; TAG.rc and TAG.end (ns) when it ends
spawn() {
  local tag=$1 in=$2; shift 2
  ( timeout -k 1 $HARD "$@" < "$in" > "$W/$tag.out" 2> "$W/$tag.err"
    echo $? > "$W/$tag.rc"; now > "$W/$tag.end" ) &
  BGPID=$!
}
# classify RC STDERR-FILE: our error as a DW_ERR_* name
classify() {
  local m
  m=$(grep -v '^$' "$2" | tail -1)
  case $1:$m in
    124:* | 137:*) echo HANG ;;
    0:*) echo OK ;;
    *"does not speak MPA"* | *"enablement error"*) echo DW_ERR_ENABLEMENT ;;
    *"rejected"*) echo DW_ERR_REJECTED ;;
    *"timed out"*) echo DW_ERR_TIMEOUT ;;
    *"during MPA start-up"*) echo DW_ERR_CLOSED ;;
    *"MPA error "* | *"IFT error "*) echo "DW_ERR_PROTO($(echo "$m" | grep -o '[A-Z]* error [0-9]*'))" ;;
    *"protocol error reported"*) echo DW_ERR_PROTO ;;
    *"reset by peer"*) echo "DW_ERR_IO(ECONNRESET)" ;;
    *"not connected"*) echo "DW_ERR_IO(ENOTCONN)" ;;
    *"Broken pipe"*) echo "DW_ERR_IO(EPIPE)" ;;
    *"nothing lost"*) echo OK ;;
    *"FAILED"*) echo "load FAILED" ;;
    *) echo "exit $1" ;;
  esac
}
status() { echo "$1" | sed -E 's/.*" ([0-9]{3}) .*/\1/'; }
lastline() { grep -v '^$' "$1" 2> /dev/null | tail -1 | tr '\t' ' ' | cut -c1-160; }
logmark() { wc -c < "$1" 2> /dev/null || echo 0; }
logsince() { tail -c +$(( $2 + 1 )) "$1" 2> /dev/null; }
hexhead() { od -An -tx1 -N "${2:-8}" "$1" 2> /dev/null | tr -s ' \n' ' ' | sed 's/^ //;s/ $//'; }
TSV=$OUT/enablement.tsv
printf 'id\tsect\tmode\tpeer\tpredicts\texpect\tour_err\tour_msg\tour_ms\tpeer_result\tpeer_ms\tpeer_err\tdetector\tdelivered\tpeer_misread\tverdict\tnote\n' > "$TSV"
N=0
# row: fills the TSV from the variables a case set
row() {
  N=$((N + 1))
  local det v note=""
  case $OURE in
    DW_ERR_ENABLEMENT | DW_ERR_PROTO* | DW_ERR_REJECTED | "load FAILED") det=ours ;;
    DW_ERR_TIMEOUT) det="ours(timeout)" ;;
    *) det="" ;;
  esac
  [ "$PEERE" = yes ] && det=${det:+$det+}peer
  # the peer closed or reset the connection without saying why
  [ -z "$det" ] && case $OURE in DW_ERR_CLOSED | DW_ERR_IO*) det="peer(closed)" ;; esac
  [ -n "$det" ] || det=none
  # the first report: ours, or the peer's when it came first (its ms)
  FIRST=$OURMS
  [ "$PEERE" = yes ] && [ "$PEERMS" != - ] &&
    { [ "${det#ours}" = "$det" ] || [ "$PEERMS" -lt "$OURMS" ]; } && FIRST=$PEERMS
  v="as text"
  case $EXPECT in
    Q) [ "$det" = none ] && note="nobody detected it"
       [ "$det" != none ] && [ "$FIRST" -ge 1000 ] && note="detected only after ${FIRST} ms (a timeout)"
       [ "$DELIV" != 0 ] && [ "$DELIV" != - ] && note="${note:+$note; }our receiver delivered $DELIV octets"
       [ "$MISREAD" = yes ] && note="${note:+$note; }the peer took MPA octets as valid data" ;;
    T) [ "$det" = none ] && note="nobody detected it"
       [ "$MISREAD" = yes ] && note="${note:+$note; }the peer took MPA octets as valid data" ;;
    N) [ "$det" != none ] && note="detected ($det), text says undetectable" ;;
    D) [ "$MISREAD" != yes ] && note="the client did not treat the MPA octets as data" ;;
    F) [ "$MISREAD" != yes ] && note="the server did not answer the query (text: it answers)"
       [ -z "${det##*ours*}" ] || note="${note:+$note; }our resolver got no reply to reject" ;;
    R) [ "$MISREAD" != yes ] && note="our listener did not take the request for a Hello" ;;
  esac
  [ -n "${XDIFF:-}" ] && note="${note:+$note; }$XDIFF"
  [ "$OURE" = HANG ] && note="HANG: killed after ${HARD}s"
  [ -n "$note" ] && v=DIFFERS
  NOTE=${NOTE:-}
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$N" "$SECT" "$MODE" \
    "$PEER" "$PRED" "$EXPECT" "$OURE" "$OURM" "$OURMS" "$PEERR" "$PEERMS" "$PEERE" "$det" \
    "$DELIV" "$MISREAD" "$v" "$note${NOTE:+${note:+; }$NOTE}" >> "$TSV"
  printf '  %3s %-2s %-8s %-16s %-22s %-26s %s\n' "$N" "$SECT" "$MODE" "$PEER" "$OURE" \
    "$det" "$v${note:+: $note}" >&2
  NOTE="" XDIFF=""
}

# A: ddpwire send -> a non-MPA server
predict_a() { # PEER MODE -> PRED EXPECT
  local fig
  case $2 in
    neg-*) PRED="Fig 5: passive ULP disconnects (protocol error) or active times out waiting for the Hello ACK"
           EXPECT=T; return ;;
    imm-m) fig="Fig 4" ;;
    *) fig="Fig 4 (text assumes the initial marker)" ;;
  esac
  case $1 in
    nginx | lighttpd | pyhttp) PRED="$fig, 8.2.2/8.2.3: server gets 4 zero octets, protocol violation, closes; MPA client checks framing+CRC: quick detection"; EXPECT=Q ;;
    dnsmasq | unbound) PRED="8.2.4.3, Fig 6: marker read as 2 null messages, server answers the query; the reply fails our initial-marker check"; EXPECT=F ;;
    tls) PRED="8.2.4.10 (TLS safe), Fig 4: server rejects first octet 0; quick detection"; EXPECT=Q ;;
    echo) PRED="8.2.1: behaviour identical, nobody can tell"; EXPECT=N ;;
    discard) PRED="8.2.1: neither side can detect MPA"; EXPECT=N ;;
    chargen) PRED="8.2.1: MPA client detects a bad initial marker or a CRC error in the first frame"; EXPECT=Q ;;
    daytime) PRED="8.2.1: MPA client detects a CRC error in the first frame"; EXPECT=Q ;;
    time) PRED="8.2.1: non-zero timestamp rejected as the initial marker"; EXPECT=Q ;;
  esac
  [ $2 = ift ] && PRED="(IFT not in the text) ${PRED#*: }"
}
peer_a() { # PEER LOGMARK: PEERR PEERE MISREAD from the server's own log
  local l
  PEERMS=- MISREAD=no PEERE=no
  case $1 in
    nginx)
      l=$(logsince "$W/ng/access.log" "$2" | tail -1)
      if [ -n "$l" ]; then
        PEERR="HTTP $(status "$l"): $(echo "$l" | cut -d'"' -f2 | cut -c1-40)"
        PEERE=yes; [ -z "${PEERR##HTTP 2*}" ] && MISREAD=yes && PEERE=no
      else PEERR="no response: $(logsince "$W/ng/error.log" "$3" | tail -1 | sed 's/.*\] //' | cut -c1-70)"; fi ;;
    lighttpd)
      l=$(logsince "$W/lighttpd.acc" "$2" | tail -1)
      if [ -n "$l" ]; then
        PEERR="HTTP $(status "$l"): $(logsince "$W/lighttpd.err" "$3" | grep -v rqst | tail -1 | sed 's/.*) //' | cut -c1-40)"
        PEERE=yes; [ -z "${PEERR##HTTP 2*}" ] && MISREAD=yes && PEERE=no
      else PEERR="no response (waits for the request line)"; fi ;;
    pyhttp)
      l=$(logsince "$W/pyhttp.srv" "$2" | grep -o 'code [0-9]*, message.*' | head -1 | cut -c1-70)
      if [ -n "$l" ]; then PEERR="HTTP $l"; PEERE=yes
      elif logsince "$W/pyhttp.srv" "$2" | grep -q '" 2[0-9][0-9] '; then PEERR="HTTP 2xx"; MISREAD=yes
      else PEERR="no response (waits for a request line)"; fi ;;
    dnsmasq)
      sleep 0.2
      l=$(logsince "$W/dnsmasq.log" "$2" | grep -E 'query\[|config|reply' | sed 's/.*127.0.0.1\/[0-9]* //' | tr '\n' ';' | cut -c1-90)
      if [ -n "$l" ]; then PEERR="answered: $l"; MISREAD=yes
      elif [ "$OURE" = DW_ERR_TIMEOUT ]; then PEERR="no query: waits for the octets its length field announced"
      else PEERR="no query: closed the connection at once"; PEERE=yes; fi ;;
    unbound)
      l=$(logsince "$W/unbound.log" "$2" | grep -E 'h9e.test|error' | sed 's/.*info: //;s/.*error: //' | tr '\n' ';' | cut -c1-90)
      if grep -q 'NOERROR' <<< "$l"; then PEERR="answered: $l"; MISREAD=yes
      elif [ "$OURE" = DW_ERR_TIMEOUT ]; then PEERR="no query: waits for the octets its length field announced"
      else PEERR="no query: closed the connection at once${l:+ ($l)}"; PEERE=yes; fi ;;
    tls)
      l=$(logsince "$W/tls.srv" "$2" | grep -o 'SSL routines:[^:]*:[^:]*' | head -1)
      PEERR=${l:-no error printed}; [ -n "$l" ] && PEERE=yes ;;
    echo) PEERR="echoes what it gets"; MISREAD="by design" ;;
    discard) PEERR="swallows what it gets"; MISREAD="by design" ;;
    chargen | daytime | time) PEERR="ignores input, sends its data ($LITTLE_BY)" ;;
  esac
}
case_a() { # PEER PORT INPUT MODE
  local peer=$1 p=$2 in=$3 mode=$4 m1=0 m2=0 t0 log1="" log2=""
  case $peer in
    nginx) log1=$W/ng/access.log log2=$W/ng/error.log ;;
    lighttpd) log1=$W/lighttpd.acc log2=$W/lighttpd.err ;;
    pyhttp) log1=$W/pyhttp.srv ;; dnsmasq) log1=$W/dnsmasq.log ;; tls) log1=$W/tls.srv ;;
    unbound) log1=$W/unbound.log ;;
  esac
  [ -n "$log1" ] && m1=$(logmark "$log1")
  [ -n "$log2" ] && m2=$(logmark "$log2")
  SECT=A MODE=$mode PEER=$peer
  predict_a "$peer" "$mode"
  t0=$(now)
  # shellcheck disable=SC2046
  spawn mpa "$in" "$DW" send 127.0.0.1:$p --timeout $TMS $(flags "$mode")
  wait $BGPID
  OURMS=$(ms "$t0" "$(cat "$W/mpa.end")")
  OURE=$(classify "$(cat "$W/mpa.rc")" "$W/mpa.err")
  OURM=$(lastline "$W/mpa.err")
  sleep 0.05
  peer_a "$peer" "$m1" "$m2"
  DELIV=-
  row
}
case_load() { # MODE: ddpwire load against echo verifies what comes back
  local mode=$1 t0
  SECT=A MODE=$mode PEER="echo(load)"
  PRED="8.2.1: echo identical with MPA on one side: our own FPDUs come back"
  EXPECT=N
  [ "${mode#neg}" != "$mode" ] && PRED="Fig 5: active times out waiting for the Hello ACK (echo returns the Hello itself)" EXPECT=T
  t0=$(now)
  # shellcheck disable=SC2046
  spawn mpa /dev/null "$DW" load 127.0.0.1:$P_ECHO --connections 1 --records 3 --record-size 100 \
    --timeout $TMS $(flags "$mode")
  wait $BGPID
  OURMS=$(ms "$t0" "$(cat "$W/mpa.end")")
  OURE=$(classify "$(cat "$W/mpa.rc")" "$W/mpa.out")
  OURM=$(grep records "$W/mpa.out" | tr -s ' ' | cut -c1-100)
  PEERR="echoes what it gets" PEERE=no PEERMS=- MISREAD="by design"
  DELIV=-
  [ "$OURE" = OK ] && DELIV="300 (own records, verified)"
  row
}

# B: a non-MPA client -> ddpwire listen
predict_b() {
  case $2 in
    neg-*) PRED="Fig 5 (lower left needs a Hello): a non-Hello start is a protocol error at the MPA passive"; EXPECT=Q
           [ "$1" = nc-hello ] && PRED="Fig 5 lower left: passive takes it for a Hello, sends the Hello ACK; ULP error at the active or the passive's MPA receiver fails very quickly" EXPECT=R
           return ;;
  esac
  case $1 in
    curl | wget) PRED="Fig 4, 8.2.3: 'GET ' is no initial marker; quick detection and close" ;;
    dig) PRED="8.2.4.3: the length field is an invalid initial marker; MPA server terminates" ;;
    s_client) PRED="8.2.4.10: first octet 22 is no marker; TLS safe" ;;
    nc-text) PRED="8.2.2: A sends text first, B sees non-zero octets: protocol violation, closes" ;;
    nc-hello) PRED="Fig 4: non-MPA octets where MPA framing is expected: quick detection" ;;
  esac
  EXPECT=Q
  [ $2 = imm-m ] || PRED="(text assumes the marker) $PRED"
  [ $2 = ift ] && PRED="(IFT not in the text) Fig 4: framing check fails quickly"
}
client_cmd() { # CLIENT PORT: the client's command line
  case $1 in
    curl) echo "curl -sS -m $TS http://127.0.0.1:$2/" ;;
    wget) echo "wget -nv -O- -T $TS -t 1 http://127.0.0.1:$2/" ;;
    dig) echo "dig +tcp +tries=1 +time=$TS @127.0.0.1 -p $2 h9e.test" ;;
    s_client) echo "openssl s_client -connect 127.0.0.1:$2 -brief" ;;
    nc-text) echo "nc -q 1 -w $TS 127.0.0.1 $2" ;;
    nc-hello) echo "bash $W/nchello.sh $2 $TS" ;;
    nc-read) echo "nc -d -w $TS 127.0.0.1 $2" ;;
    rdate) echo "rdate -p -o $2 -t $TMS 127.0.0.1" ;;
  esac
}
client_in() {
  case $1 in
    nc-text) echo "$W/hello.in" ;;
    *) echo /dev/null ;;
  esac
}
peer_client() { # CLIENT: PEERR PEERE MISREAD from the client's output
  local rc out err
  rc=$(cat "$W/cli.rc") out=$W/cli.out err=$W/cli.err
  PEERE=no MISREAD=no
  case $1 in
    curl | wget) PEERR="exit $rc: $(lastline "$err")"; [ "$rc" = 0 ] && MISREAD=yes || PEERE=yes ;;
    dig) PEERR="exit $rc: $(grep -m1 -E 'error|timed out|status|no servers' "$out" | tr -d ';' | cut -c1-80)"
         grep -q 'status: NOERROR' "$out" && MISREAD=yes || PEERE=yes ;;
    s_client) PEERR="exit $rc: $(grep -v '^$' "$err" | grep -m1 -iE 'error|errno|CONNECTION|Protocol' | cut -c1-80)"
              grep -q 'CONNECTION ESTABLISHED' "$err" && MISREAD=yes || PEERE=yes ;;
    nc-text | nc-hello | nc-read)
      if [ -s "$out" ]; then PEERR="got $(wc -c < "$out") octets: $(hexhead "$out" 8) '$(head -c 20 "$out" | tr -c '[:print:]' '.')'"; MISREAD=yes
      else PEERR="exit $rc, got nothing"; fi
      [ "$rc" != 0 ] && [ "$rc" != 1 ] && PEERE=yes ;;
    rdate) PEERR="exit $rc: $(lastline "$out") $(lastline "$err")"
           [ -s "$out" ] && [ "$rc" = 0 ] && MISREAD=yes || PEERE=yes ;;
  esac
}
case_b() { # CLIENT MODE
  local cl=$1 mode=$2 p t0 lp
  port; p=$PORT
  SECT=B MODE=$mode PEER=$cl
  predict_b "$cl" "$mode"
  # shellcheck disable=SC2046
  spawn mpa /dev/null "$DW" listen 127.0.0.1:$p --records --timeout $((TMS * 2)) $(flags "$mode")
  lp=$BGPID
  wait_port "$p" "$lp" || sleep 0.3
  t0=$(now)
  # shellcheck disable=SC2046
  spawn cli "$(client_in "$cl")" $(client_cmd "$cl" "$p")
  wait $BGPID
  wait $lp
  OURMS=$(ms "$t0" "$(cat "$W/mpa.end")")
  PEERMS=$(ms "$t0" "$(cat "$W/cli.end")")
  OURE=$(classify "$(cat "$W/mpa.rc")" "$W/mpa.err")
  OURM=$(lastline "$W/mpa.err")
  DELIV=$(wc -c < "$W/mpa.out")
  peer_client "$cl"
  if [ "$cl" = nc-hello ] && [ "${mode#neg}" != "$mode" ]; then
    grep -q 'MPA ID Rep Frame' "$W/cli.out" && MISREAD=yes || MISREAD=no
  elif [ "$cl" = nc-text ] || [ "$cl" = nc-hello ]; then
    MISREAD=no # the listener sends nothing but its reset
  fi
  [ "$DELIV" != 0 ] && NOTE="listener delivered: $(hexhead "$W/mpa.out" 12)"
  row
}

# C: ddpwire send speaks first, through the relay, to a non-MPA client
predict_c() {
  case $1 in
    rdate) PRED="8.2.1: a non-MPA time client takes the initial marker for time 0: 00:00 1 Jan 1900"; EXPECT=D ;;
    nc-read) PRED="8.2.1: a non-MPA daytime/chargen client simply treats MPA frames as data"; EXPECT=D ;;
    curl) PRED="8.2.2: B (MPA) sends first, A receives 4 zero octets: protocol violation, closes"; EXPECT=Q ;;
    s_client) PRED="8.2.2/8.2.4.10: zeros are no TLS record: client detects, closes"; EXPECT=Q ;;
  esac
  case $2 in
    neg-*) PRED="Fig 5 top right: passive does not understand the Hello; $PRED" ;;
    ift) PRED="(IFT not in the text) $PRED" ;;
  esac
  [ "${2#neg}" != "$2" ] && [ "$EXPECT" = Q ] && EXPECT=T
}
case_c() { # CLIENT MODE
  local cl=$1 mode=$2 pa pb t0 d rp i
  port; pa=$PORT; port; pb=$PORT; d=$W/relay.$N
  mkdir -p "$d"
  SECT=C MODE=$mode PEER=$cl
  predict_c "$cl" "$mode"
  "$PY" "$W/helpers.py" relay $pa $pb "$d" > "$d/log" 2>&1 &
  rp=$!
  PIDS+=("$rp")
  for i in $(seq 1 50); do [ -e "$d/ready" ] && break; sleep 0.1; done
  printf 'hello from MPA\r\n' > "$W/c.in"
  t0=$(now)
  # shellcheck disable=SC2046
  spawn mpa "$W/c.in" "$DW" send 127.0.0.1:$pa --timeout $TMS $(flags "$mode")
  local mp=$BGPID
  # shellcheck disable=SC2046
  spawn cli /dev/null $(client_cmd "$cl" "$pb")
  wait $BGPID
  wait $mp
  kill $rp 2> /dev/null
  wait $rp 2> /dev/null
  OURMS=$(ms "$t0" "$(cat "$W/mpa.end")")
  PEERMS=$(ms "$t0" "$(cat "$W/cli.end")")
  OURE=$(classify "$(cat "$W/mpa.rc")" "$W/mpa.err")
  OURM=$(lastline "$W/mpa.err")
  DELIV=-
  peer_client "$cl"
  [ -s "$d/b2a" ] && NOTE="client sent: $(hexhead "$d/b2a" 6)"
  [ "$cl" = rdate ] && [ "$mode" = imm-m ] && ! grep -q 1900 "$W/cli.out" &&
    XDIFF="rdate shows $(lastline "$W/cli.out"), not 1 Jan 1900"
  row
}

# ---- the matrix -------------------------------------------------------------------
if [ $QUICK = 1 ]; then MODES="imm-m imm-nom neg-m ift"; else MODES="imm-m imm-nom neg-m neg-nom ift"; fi
say "ddpwire: $DW; timeout ${TMS} ms; ports from $BASE; little services: ${LITTLE_BY:-none}"
say "A: MPA active (ddpwire send) -> non-MPA server"
for mode in $MODES; do
  have nginx && case_a nginx $P_NGINX "$W/http.in" $mode
  have lighttpd && case_a lighttpd $P_LIGHTTPD "$W/http.in" $mode
  have pyhttp && case_a pyhttp $P_PYHTTP "$W/http.in" $mode
  have dnsmasq && case_a dnsmasq $P_DNS "$W/dnsquery.bin" $mode
  have unbound && case_a unbound $P_UNBOUND "$W/dnsquery.bin" $mode
  have tls && case_a tls $P_TLS "$W/hello.in" $mode
  if [ -n "$LITTLE_BY" ]; then
    case_a echo $P_ECHO "$W/hello.in" $mode
    case_load $mode
    case_a discard $P_DISCARD "$W/hello.in" $mode
    case_a chargen $P_CHARGEN "$W/empty.in" $mode
    case_a daytime $P_DAYTIME "$W/empty.in" $mode
    case_a time $P_TIME "$W/empty.in" $mode
  fi
done
say "B: non-MPA client -> MPA passive (ddpwire listen)"
for mode in $MODES; do
  have curl && case_b curl $mode
  have wget && case_b wget $mode
  have dig && case_b dig $mode
  have openssl && case_b s_client $mode
  have nc && case_b nc-text $mode
  have nc && case_b nc-hello $mode
done
say "C: MPA speaks first (ddpwire send, through a relay) -> non-MPA client"
for mode in $MODES; do
  have rdate && case_c rdate $mode
  have nc && case_c nc-read $mode
  have curl && case_c curl $mode
  have openssl && case_c s_client $mode
done

# ---- the table ----------------------------------------------------------------------
MD=$OUT/enablement.md
awk -F'\t' 'NR == 1 {
    print "| # | | mode | peer | text predicts | ours (ddpwire) | ms | peer | detector | ULPDU from non-MPA | peer took MPA as data | verdict |"
    print "|---|---|---|---|---|---|---|---|---|---|---|---|"; next }
  { gsub(/\|/, "\\|")
    v = $16; if ($17 != "") v = v ": " $17
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
      $1, $2, $3, $4, $5, $7, $9, $10, $13, $14, $15, v }' "$TSV" > "$MD"
cat "$MD"
total=$((N))
differs=$(awk -F'\t' 'NR > 1 && $16 == "DIFFERS"' "$TSV" | wc -l)
hangs=$(awk -F'\t' 'NR > 1 && $7 == "HANG"' "$TSV" | wc -l)
say "$total cases, $differs differ from the text, $hangs hung; TSV: $TSV"
[ "$total" -gt 0 ] && [ "$hangs" = 0 ]
