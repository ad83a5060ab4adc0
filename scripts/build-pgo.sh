#!/usr/bin/env bash
# Builds the simulator's programs (strata-sim, strata-replay, strata-mlp and the firmware images) with GCC's
# profile-guided optimization in build/pgo (the `pgo` preset): an instrumented build, training runs on workloads
# unlike the benchmarks' (smaller GEMMs, another trace, other seeds), then the optimized build. It ends by
# running the training workloads again on the optimized programs and checking that every cycle count, byte and
# result they report is the one the instrumented programs reported: the profile changes only how fast.
# About 5 minutes on 2 cores. Then, for example: bench/sim/run.sh build/pgo (docs/simulation-speed.md).
# usage: scripts/build-pgo.sh [-h|--help]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [ $# -gt 0 ]; then
  case "$1" in
    -h | --help) [ $# -eq 1 ] && { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0; } ;;
  esac
  echo "build-pgo: unexpected argument(s) '$*' (see --help)" >&2
  exit 2
fi
./scripts/setup.sh
build="$root/build/pgo"
profile="$build/pgo-profile"
jobs="${STRATA_JOBS:-$(nproc)}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# make_and_build MODE: configures the pgo preset with STRATA_PGO=MODE and builds its targets.
make_and_build() {
  echo "build-pgo: $1 build in build/pgo (the chip's C++ compiles again: a few minutes)" >&2
  cmake --preset pgo -DSTRATA_PGO="$1" -DSTRATA_PGO_DIR="$profile" >/dev/null
  cmake --build --preset pgo -- -j"$jobs" >&2
}

# train OUT_DIR: the training workloads; each writes its summary (JSON) into OUT_DIR.
train() {
  local out="$1" sim="$build/sim/strata-sim"
  mkdir -p "$out"
  python3 bench/gemm/make_npy.py "$work/a.npy" 256 192 3
  python3 bench/gemm/make_npy.py "$work/b.npy" 192 256 4
  echo "build-pgo:   GEMM 256x192x256, plain and requantized" >&2
  "$sim" gemm --a "$work/a.npy" --b "$work/b.npy" --out "$out/c.npy" --json >"$out/gemm.json"
  "$sim" gemm --a "$work/a.npy" --b "$work/b.npy" --out "$out/c8.npy" --int8 3,9 --relu --json >"$out/gemm8.json"
  echo "build-pgo:   the core busy (bench_sim_loop), 2 M cycles" >&2
  local rc=0  # the loop never ends by itself: --max-cycles stops it with status 3
  "$sim" --json --max-cycles 2000000 "$build/rv32/bench/bench_sim_loop.elf" >"$out/loop.json" || rc=$?
  [ "$rc" -eq 3 ] || { echo "build-pgo: the compute loop ended with status $rc, not 3 (max cycles)" >&2; exit 1; }
  echo "build-pgo:   a compaction replay on the model (tests/compare/data/needs_compaction.csv)" >&2
  "$build/host/replay/strata-replay" tests/compare/data/needs_compaction.csv --backend sim --capacity 1.0x \
    --compaction on-oom --json >"$out/replay.json" 2>"$work/replay.err" || { cat "$work/replay.err" >&2; exit 1; }
  echo "build-pgo:   strata-mlp, 6 requests, seed 2, with its waveform window" >&2
  # Paths relative to OUT_DIR, so that the two reports name the same files.
  (cd "$out" && "$build/examples/strata-mlp" --quiet --steps 6 --seed 2 --trace mlp.fst --report mlp.json \
    --alloc-trace allocs.csv >/dev/null)
  rm -f "$out/mlp.fst"
}

rm -rf "$profile"
make_and_build GENERATE
echo "build-pgo: training (instrumented programs)" >&2
train "$work/generate"
make_and_build USE
echo "build-pgo: the training workloads again on the optimized programs" >&2
train "$work/use"
python3 - "$work/generate" "$work/use" <<'PY'
import json, os, sys
sys.path.insert(0, "tests/sim")
from fast_forward_identity import strip  # a report less its host timings, as the fast-path identity tests compare it
a, b = sys.argv[1], sys.argv[2]
bad = []
for name in sorted(os.listdir(a)):
    x, y = open(os.path.join(a, name), "rb").read(), open(os.path.join(b, name), "rb").read()
    if name.endswith(".json"):
        x = [strip(json.loads(l)) for l in x.decode().splitlines() if l.startswith("{")]
        y = [strip(json.loads(l)) for l in y.decode().splitlines() if l.startswith("{")]
    if not x:  # a run that wrote nothing proves nothing
        bad.append(name + " (empty)")
    elif x != y:
        bad.append(name)
if bad:
    sys.exit("build-pgo: the optimized programs report differently from the instrumented ones: " + ", ".join(bad))
print(f"build-pgo: the optimized programs report the same as the instrumented ones ({len(os.listdir(a))} files)",
      file=sys.stderr)
PY
echo "build-pgo: done: build/pgo/sim/strata-sim, build/pgo/host/replay/strata-replay, build/pgo/examples/strata-mlp" >&2
