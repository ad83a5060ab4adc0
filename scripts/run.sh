#!/usr/bin/env bash
# The main job: builds everything, then runs strata-mlp, an int8 MLP inference service on the Strata model
# driven through the host API, with allocation churn until device memory fragments and is compacted. Every
# result is checked against a CPU reference; the report lands in out/mlp-report.json and a waveform of the
# first matrix product in out/mlp.fst. Arguments go to strata-mlp (see --help).
#
# STRATA_FIRMWARE=path.elf scripts/run.sh [strata-sim options] runs a bare firmware image on strata-sim
# instead (build/rv32/apps/NAME/NAME.elf; waveform out/strata.fst).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
./scripts/build.sh
mkdir -p out
if [ -n "${STRATA_FIRMWARE:-}" ]; then
  echo "run: strata-sim $STRATA_FIRMWARE (waveform: out/strata.fst, first 20000 cycles)" >&2
  ./build/sim/strata-sim --trace out/strata.fst --trace-end 20000 "$@" "$STRATA_FIRMWARE"
  echo "run: open the waveform with: gtkwave out/strata.fst rtl/tpu_core.gtkw" >&2
  exit 0
fi
echo "run: strata-mlp $* (report: out/mlp-report.json, waveform: out/mlp.fst)" >&2
exec ./build/examples/strata-mlp "$@"
