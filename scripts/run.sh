#!/usr/bin/env bash
# The main job: builds what it needs, then runs strata-mlp, an int8 MLP inference service on the Strata model
# driven through the host API, with allocation churn until device memory fragments and is compacted. Every
# result is checked against a CPU reference; the report lands in out/mlp-report.json and a waveform of the
# first matrix product in out/mlp.fst. Arguments go to strata-mlp (see --help). Then strata-compare runs the
# service's allocation sequence (out/mlp-allocs.csv) under every GPU framework policy on an emulated GPU of
# the same memory and prints who fails first and why (out/mlp-compare.json, figures in out/figures/, and the whole
# comparison as one web page that opens offline, out/compare.html).
#
# STRATA_FIRMWARE=path.elf scripts/run.sh [strata-sim options] runs a bare firmware image on strata-sim
# instead (build/rv32/apps/NAME/NAME.elf; waveform out/strata.fst).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# What the main job runs (strata-mlp with the runtime firmware, strata-compare, strata-sim), the tools the README
# names next (strata-fit, strata-explain, strata-replay, strata-import) and the Python package (import strata with
# PYTHONPATH=build/python; docs/python.md): about half of the build's commands; scripts/test.sh builds the rest. No
# Python virtual environment: only the tests need one (scripts/setup.sh --python).
if [ ! -f build/CMakeCache.txt ]; then
  echo "run: first run on this checkout: installs the Debian packages it lacks (scripts/setup.sh: about 1.4 GB of" \
    "downloads on a new machine) and builds the main job and the tools (about 10 minutes on 2 cores, mostly" \
    "Verilator's C++); later runs rebuild only what changed" >&2
fi
./scripts/build.sh strata-mlp strata-compare strata-sim strata_python strata-fit strata-explain strata-replay \
  strata-import
mkdir -p out
if [ -n "${STRATA_FIRMWARE:-}" ]; then
  echo "run: strata-sim $STRATA_FIRMWARE (waveform: out/strata.fst, first 20000 cycles)" >&2
  ./build/sim/strata-sim --trace out/strata.fst --trace-end 20000 "$@" "$STRATA_FIRMWARE"
  # The core's view with the firmware's function names and decoded instructions (docs/waveforms.md).
  if python3 scripts/gtkwave_symbols.py "$STRATA_FIRMWARE" -o out/core-symbols.gtkw --wave out/strata.fst 2>/dev/null; then
    echo "run: open the waveform with: gtkwave out/core-symbols.gtkw (PCs as function+offset, instructions" \
      "decoded; the plain view: gtkwave out/strata.fst rtl/tpu_core.gtkw)" >&2
  else
    echo "run: open the waveform with: gtkwave out/strata.fst rtl/tpu_core.gtkw" >&2
  fi
  exit 0
fi
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then exec ./build/examples/strata-mlp --help; fi
echo "run: strata-mlp $* (report: out/mlp-report.json, waveform: out/mlp.fst, allocations: out/mlp-allocs.csv)" >&2
./build/examples/strata-mlp --alloc-trace out/mlp-allocs.csv "$@"

# The same service's allocation sequence under every GPU framework policy, on an emulated GPU with the
# memory the service's heap had (the two tenants' quotas add up to it). The heap is a few MiB, so the GPU's
# allocation granule is scaled down from 2 MiB to 4 KiB: the policies decide, not the page size.
heap=$(python3 -c 'import json; r = json.load(open("out/mlp-report.json")); print(r["serving_quota_bytes"] + r["batch_quota_bytes"])')
echo >&2
echo "run: strata-compare out/mlp-allocs.csv --capacity $heap --option page_bytes=4096 (report: out/mlp-compare.json," \
  "page: out/compare.html)" >&2
./build/host/compare/strata-compare out/mlp-allocs.csv --capacity "$heap" --option page_bytes=4096 \
  --json out/mlp-compare.json --html out/compare.html
echo "run: the comparison as one page, offline in any browser: $root/out/compare.html" >&2
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  /usr/bin/python3 scripts/plot_compare.py out/mlp-compare.json --out-dir out/figures >&2
fi
