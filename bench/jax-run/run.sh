#!/usr/bin/env bash
# JAX programs run on the model (docs/jax-on-the-model.md) under both placements: one JSON line per program and
# placement with the device cycles, wall seconds, simulated cycles per wall second (the whole run: the host
# fallback's NumPy and the Python walk included), matrix-unit utilization, peak HBM against XLA's plan, compactions
# and their cycles. Needs the project's .venv with JAX (skipped with a note on stderr without it).
# Usage: run.sh BUILD_DIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build=${1:?usage: run.sh BUILD_DIR}
py="$root/.venv/bin/python"
if [ ! -x "$py" ] || ! "$py" -c "import jax" 2>/dev/null; then
  echo "bench/jax-run: skipped: no JAX in $py (scripts/setup.sh)" >&2
  exit 0
fi
PYTHONPATH="$build/python:$root/tests/xla" PYTHONDONTWRITEBYTECODE=1 "$py" "$root/bench/jax-run/jax_run.py"
