#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Wireshark GUI with the ddpwire plugin, as a person uses it: wireshark
# opens a capture with errors under Xvfb, Analyze > Expert Information is
# opened from the menu (xdotool), the list is shown item by item, and a
# screenshot is kept in BUILD/wireshark/expert_information.png. Checks that
# the dialog opened and shows error rows (its red), and that the main
# window's packet details hold the plugin's tree.
#   ws_gui_test.sh BUILD_DIR CAPTURE
set -u
B=$1
CAP=$2
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib/wire_lib.sh"
need wireshark:wireshark Xvfb:xvfb xdotool:xdotool import:imagemagick
OUT=$B/wireshark
T=$(mktemp -d)
chmod 755 "$T"
cp "$CAP" "$T/capture.pcap" && chmod 644 "$T/capture.pcap"
n=$((90 + RANDOM % 50))
while [ -e /tmp/.X11-unix/X$n ] || [ -e /tmp/.X$n-lock ]; do n=$((n + 1)); done
Xvfb :$n -screen 0 1400x900x24 -ac -nolisten tcp > "$T/xvfb.log" 2>&1 &
XPID=$!
trap 'kill $WPID $XPID 2> /dev/null; wait 2> /dev/null; rm -rf "$T"' EXIT
export DISPLAY=:$n
WPID=
wait_for() { # SECONDS TITLE-REGEX: a window's id
  local i=0 w=
  while [ $i -lt $(($1 * 4)) ]; do
    w=$(xdotool search --name "$2" 2> /dev/null | head -1)
    [ -n "$w" ] && { echo "$w"; return 0; }
    sleep 0.25
    i=$((i + 1))
  done
  return 1
}
for _ in $(seq 40); do xdotool getdisplaygeometry > /dev/null 2>&1 && break; sleep 0.25; done
"$HERE/../../scripts/ws_run.sh" -B "$B" wireshark -r "$T/capture.pcap" > "$T/ws.log" 2>&1 &
WPID=$!
main=$(wait_for 60 '^Wireshark$|capture.pcap') || { bad "wireshark's window did not appear: $(tail -5 "$T/ws.log")"; finish; exit; }
sleep 4 # the file is read and dissected
import -window root "$OUT/main_window.png" 2> /dev/null
# Analyze (menu bar) > Expert Information (its last item)
xdotool mousemove 275 30 click 1
sleep 1
xdotool key Up
sleep 0.3
xdotool key Return
if e=$(wait_for 30 'Expert Information'); then
  ok
  xdotool windowmove "$e" 0 0 windowsize "$e" 1390 600
  sleep 1
  xdotool mousemove 208 545 click 1 # "Group by summary" off: one row per item
  sleep 1
  xdotool mousemove 21 41 click 1 # the first severity's items, unfolded
  sleep 1
  import -window root "$OUT/expert_information.png" 2> /dev/null
  # error rows are painted red (Wireshark's expert colour #ff5c5c)
  red=$(convert "$OUT/expert_information.png" -crop 1390x480+0+0 -fuzz 6% -fill black +opaque '#ff5c5c' \
        -fill white -opaque '#ff5c5c' -format '%[fx:mean*w*h]' info: 2> /dev/null | cut -d. -f1)
  check "[ '${red:-0}' -gt 2000 ]" "the Expert Information shows no error row (${red:-0} red pixels)"
  echo "screenshot: $OUT/expert_information.png ($red red pixels)"
else
  bad "Analyze > Expert Information did not open"
fi
check "[ -s '$OUT/main_window.png' ]" "no screenshot of the main window"
finish
