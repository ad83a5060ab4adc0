#!/usr/bin/env bash
# The main job: builds everything, runs the default firmware on the Strata model, prints its
# report and writes a waveform to out/. Extra arguments go to strata-sim (see --help).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
./scripts/build.sh
mkdir -p out
firmware="${STRATA_FIRMWARE:-build/rv32/apps/hello/hello.elf}"
echo "run: strata-sim $firmware (waveform: out/strata.fst, first 20000 cycles)" >&2
./build/sim/strata-sim --trace out/strata.fst --trace-end 20000 "$@" "$firmware"
echo "run: open the waveform with: gtkwave out/strata.fst rtl/tpu_core.gtkw" >&2
