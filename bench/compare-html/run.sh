#!/usr/bin/env bash
# strata-compare --html's cost (docs/comparison.md, "One page: --html"): on bert_base.csv and the generated 100k-buffer
# trace (bench/compare/gen_trace.py, seed 1), every contender at 1.0x without the search or advice: the page's size,
# the time writing it adds to the run (median of ROUNDS runs with and without --html, back to back), and, where the
# project's .venv has Selenium and Debian's chromium is installed, the page in headless Chromium: first paint, the
# whole page drawn, one full redraw and one zoomed in. One JSON object per trace.
# usage: bench/compare-html/run.sh [BUILD_DIR] [ROUNDS]   (stdout: one JSON object per line; progress on stderr)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
rounds="${2:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$root/bench/compare/gen_trace.py" --buffers 100000 --seed 1 --out "$work/generated_100000.csv"
python=/usr/bin/python3
[ -x "$root/.venv/bin/python" ] && python="$root/.venv/bin/python"
for trace in "$root/tests/data/traces/bert_base.csv" "$work/generated_100000.csv"; do
  echo "bench/compare-html: $(basename "$trace")" >&2
  "$python" "$here/html_bench.py" "$build/host/compare/strata-compare" "$trace" "$work" "$rounds"
done
