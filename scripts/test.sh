#!/usr/bin/env bash
# The whole test suite: builds, runs every CTest case (RTL lint, ISA tests, firmware on the
# model, host unit tests), then the sanitizer and fuzzing pass when present.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
./scripts/build.sh
ctest --preset default
if [ -x scripts/test-sanitizers.sh ] && [ "${STRATA_SKIP_SANITIZERS:-0}" != 1 ]; then
  ./scripts/test-sanitizers.sh
fi
echo "test: all passed" >&2
