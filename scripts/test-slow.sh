#!/usr/bin/env bash
# The minutes-long model runs that scripts/test.sh (and so CI) leaves out: every CTest test labelled `slow`
# (`ctest --preset slow`): strata-mlp on seeds 1..30 and its documented extremes in full, docs/runtime.md's
# bert_base row replayed on the model (15 GB of compaction). CI keeps a fast check of
# what each guards (README.md, Tests). About 30 minutes on 2 cores. Arguments go to ctest (e.g. -R seeds).
# usage: scripts/test-slow.sh [CTEST-ARGUMENTS...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
case "${1:-}" in -h|--help) sed -n '2,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
./scripts/build.sh
ctest --preset slow "$@"
echo "test-slow: all passed" >&2
