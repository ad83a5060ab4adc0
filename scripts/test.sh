#!/usr/bin/env bash
# The whole test suite: builds, runs every CTest case (RTL lint, ISA tests, firmware on the
# model, host unit tests), then the sanitizer and fuzzing pass (STRATA_SKIP_SANITIZERS=1 skips it, saying so).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# The tests also use the project's .venv (JAX, TensorFlow's BFC library, the wheel tools): made before the build
# configures, which looks for it. The first time it downloads about 1.9 GB (setup says so before it starts).
./scripts/setup.sh --python
./scripts/build.sh
. ./scripts/compiler-cache.sh  # for the builds the tests start too (python.wheel); after setup installed ccache
ctest --preset default
if [ "${STRATA_SKIP_SANITIZERS:-0}" = 1 ]; then
  echo "test: the sanitizer and fuzzing pass SKIPPED (STRATA_SKIP_SANITIZERS=1)" >&2
else
  ./scripts/test-sanitizers.sh
fi
echo "test: all passed" >&2
