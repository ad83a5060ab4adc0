#!/usr/bin/env bash
# Renders a GTKWave view to PNG without a display (for the docs):
#   scripts/waveform-screenshot.sh WAVE.fst SAVEFILE.gtkw OUT.png [START_NS END_NS]
# Without START_NS END_NS the view is zoomed to the time range the file holds (a --trace-start/--trace-end
# window does not begin at 0), not to the save file's zoom.
# Needs xvfb and x11-apps (installed on first use) and ImageMagick's convert, if present, to crop.
set -euo pipefail
wave="$1" save="$2" png="$3" start="${4:-}" end="${5:-}"
for p in xvfb x11-apps gtkwave imagemagick; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || \
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends xvfb x11-apps gtkwave imagemagick >&2; break; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$save" "$tmp/view.gtkw"
sed -i "s|^\[dumpfile\].*|[dumpfile] \"$(realpath "$wave")\"|" "$tmp/view.gtkw"
# Zoom through a tcl script run at start-up (times in the file's unit, ps: 1 ns = 1000).
if [ -n "$start" ]; then
  printf 'gtkwave::setZoomRangeTimes %s %s\n' "${start}000" "${end}000" > "$tmp/zoom.tcl"
else
  printf 'gtkwave::setZoomRangeTimes [gtkwave::getMinTime] [gtkwave::getMaxTime]\n' > "$tmp/zoom.tcl"
fi
script=(--script "$tmp/zoom.tcl")
export DISPLAY=:97
Xvfb :97 -screen 0 1600x900x24 >/dev/null 2>&1 &
xpid=$!
sleep 1
gtkwave "${script[@]}" "$wave" "$tmp/view.gtkw" >/dev/null 2>&1 &
gpid=$!
sleep 4
xwd -root -silent > "$tmp/screen.xwd"
kill $gpid $xpid 2>/dev/null || true
/usr/bin/convert "$tmp/screen.xwd" "$png"
echo "wrote $png" >&2
