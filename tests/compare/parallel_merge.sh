#!/usr/bin/env bash
# A sweep split into one job per workload and contender (strata-compare --emit-jobs), run by GNU parallel,
# merged (--merge): the merged report must equal the one a single process writes.
# usage: parallel_merge.sh STRATA_COMPARE WORKDIR TRACE...
set -euo pipefail
tool=$1 work=$2
shift 2
if ! command -v parallel >/dev/null; then
  echo "parallel_merge: skipped: GNU parallel is not installed (scripts/setup.sh installs it)"
  exit 0
fi
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work/jobs"
"$tool" "$@" --capacity 1.2x --quiet --json "$work/single.json" >/dev/null
"$tool" "$@" --capacity 1.2x --emit-jobs "$work/jobs" >"$work/jobs.txt"
echo "parallel_merge: $(wc -l <"$work/jobs.txt") jobs"
parallel --will-cite --halt now,fail=1 -j 2 <"$work/jobs.txt"
"$tool" --merge "$work"/jobs/*.json --json "$work/merged.json" >"$work/merged.txt"
python3 "$here/same_report.py" "$work/single.json" "$work/merged.json"
