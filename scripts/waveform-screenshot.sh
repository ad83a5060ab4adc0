#!/usr/bin/env bash
# Renders a GTKWave view to PNG without a display (for the docs):
#   scripts/waveform-screenshot.sh WAVE.fst SAVEFILE.gtkw OUT.png [START_NS END_NS]
# Without START_NS END_NS the view is zoomed to the time range the file holds (a --trace-start/--trace-end
# window does not begin at 0), not to the save file's zoom.
#
# It fails loudly (exit status 1, OUT.png left as it was) rather than writing a picture of nothing: it waits for
# GTKWave's window to be mapped, then takes screenshots until two in a row are the same (the drawing has settled)
# and refuses one that is a single colour (or nearly: fewer than 16 colours) as blank. STRATA_SCREENSHOT_TIMEOUT
# (seconds, default 60) bounds the wait; STRATA_GTKWAVE names the viewer (the tests give it one that never draws).
# Needs Xvfb, xwd, xwininfo and ImageMagick (xvfb, x11-apps, x11-utils, imagemagick: installed on first use).
set -euo pipefail
if [ $# -ne 3 ] && [ $# -ne 5 ]; then
  echo "usage: $(basename "$0") WAVE.fst SAVEFILE.gtkw OUT.png [START_NS END_NS]" >&2
  exit 2
fi
wave="$1" save="$2" png="$3" start="${4:-}" end="${5:-}"
for f in "$wave" "$save"; do
  [ -f "$f" ] || { echo "waveform-screenshot: $f: no such file" >&2; exit 2; }
done
if [ -n "$start" ] && ! [[ "$start" =~ ^[0-9]+$ && "$end" =~ ^[0-9]+$ && "$end" -gt "$start" ]]; then
  echo "waveform-screenshot: START_NS END_NS must be whole numbers of ns with END_NS > START_NS, not '$start' '$end'" >&2
  exit 2
fi
gtkwave_cmd="${STRATA_GTKWAVE:-gtkwave}"
case "$gtkwave_cmd" in /*) ;; */*) gtkwave_cmd="$PWD/$gtkwave_cmd" ;; esac  # it runs in another folder (below)
timeout_s="${STRATA_SCREENSHOT_TIMEOUT:-60}"
for p in xvfb x11-apps x11-utils gtkwave imagemagick; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || \
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends xvfb x11-apps x11-utils gtkwave imagemagick >&2; break; }
done
convert_cmd=/usr/bin/convert
[ -x "$convert_cmd" ] || convert_cmd=convert

tmp=$(mktemp -d)
xpid="" gpid=""
cleanup() {
  [ -n "$gpid" ] && kill "$gpid" 2>/dev/null
  [ -n "$xpid" ] && kill "$xpid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "waveform-screenshot: $*; $png not written" >&2
  exit 1
}

# GTKWave's title bar shows the wave's path as it was given: it runs in the temporary folder on a link named
# out/NAME, so the picture shows `out/mlp.fst` (where scripts/run.sh writes it), not the folders of the machine that
# made it. The save file's [dumpfile] line names the same path (GTKWave's own syntax, quoted as it quotes it).
mkdir "$tmp/out"
wave_name="out/$(basename "$wave")"
ln -s "$(realpath "$wave")" "$tmp/$wave_name"
awk -v w="$wave_name" '/^\[dumpfile\]/ { print "[dumpfile] \"" w "\""; next } { print }' "$save" > "$tmp/view.gtkw"
# Zoom through a tcl script run at start-up (times in the file's unit, ps: 1 ns = 1000).
if [ -n "$start" ]; then
  printf 'gtkwave::setZoomRangeTimes %s %s\n' "${start}000" "${end}000" > "$tmp/zoom.tcl"
else
  printf 'gtkwave::setZoomRangeTimes [gtkwave::getMinTime] [gtkwave::getMaxTime]\n' > "$tmp/zoom.tcl"
fi

# A display of its own: Xvfb picks a free number and writes it to fd 3 once it accepts clients.
Xvfb -displayfd 3 -screen 0 1600x900x24 -nolisten tcp 3>"$tmp/display" >/dev/null 2>&1 &
xpid=$!
deadline=$((SECONDS + timeout_s))
until [ -s "$tmp/display" ]; do
  kill -0 "$xpid" 2>/dev/null || fail "Xvfb did not start"
  [ $SECONDS -lt $deadline ] || fail "Xvfb did not start in ${timeout_s} s"
  sleep 0.1
done
export DISPLAY=":$(head -n1 "$tmp/display")"

(cd "$tmp" && exec "$gtkwave_cmd" --script zoom.tcl "$wave_name" view.gtkw) >"$tmp/gtkwave.log" 2>&1 &
gpid=$!
# The window: mapped, with GTKWave's name in its title.
until xwininfo -root -tree 2>/dev/null | grep -q '"GTKWave'; do
  kill -0 "$gpid" 2>/dev/null || fail "$gtkwave_cmd exited before it opened a window ($(tail -n 3 "$tmp/gtkwave.log" | tr '\n' ' '))"
  [ $SECONDS -lt $deadline ] || fail "no GTKWave window after ${timeout_s} s"
  sleep 0.2
done
# Then screenshots until two in a row are the same and not blank.
previous="" colours=0
while :; do
  [ $SECONDS -lt $deadline ] || fail "the window did not settle into a picture in ${timeout_s} s (last: $colours colours)"
  sleep 0.5
  xwd -root -silent > "$tmp/screen.xwd" || fail "xwd could not read the display"
  "$convert_cmd" "$tmp/screen.xwd" -define png:exclude-chunks=date,time "$tmp/screen.png" ||
    fail "convert could not read the screenshot"
  colours=$("$convert_cmd" "$tmp/screen.png" -format '%k' info:)
  sum=$(md5sum < "$tmp/screen.xwd")  # the raw screen: a PNG carries the time it was written
  if [ "$colours" -ge 16 ] && [ "$sum" = "$previous" ]; then
    break
  fi
  previous="$sum"
done
mv "$tmp/screen.png" "$png"
echo "wrote $png ($colours colours)" >&2
