#!/usr/bin/env bash
# strata-compare --jobs N gives the report of --jobs 1 (Options::jobs): the JSON but for wall times, the CSV rows
# but for their wall column, the timeline byte for byte, and the same error for an option a contender refuses.
# usage: jobs_same.sh STRATA_COMPARE SAME_REPORT_PY WORKDIR WORKLOAD...
set -euo pipefail
tool=$1 same=$2 work=$3
shift 3
rm -rf "$work" && mkdir -p "$work"
for n in 1 3; do
  "$tool" "$@" --jobs "$n" --quiet --no-table --json "$work/j$n.json" --csv "$work/c$n.csv" --timeline "$work/t$n.json"
  # The runs in order, without the wall column (it varies).
  python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
keep = [i for i, name in enumerate(rows[0]) if "wall" not in name]
csv.writer(sys.stdout).writerows([[r[i] for i in keep] for r in rows])' "$work/c$n.csv" > "$work/c$n.cut"
done
python3 "$same" "$work/j1.json" "$work/j3.json"
cmp "$work/c1.cut" "$work/c3.cut" && echo "jobs_same: CSV rows equal"
cmp "$work/t1.json" "$work/t3.json" && echo "jobs_same: timelines equal"
for n in 1 3; do
  status=0
  "$tool" "$@" --jobs "$n" --quiet --no-table --json "$work/err$n.json" --contenders strata,jax,jax-growth \
    --option mem_fraction=2 > /dev/null 2> "$work/e$n.txt" || status=$?
  echo "exit $status" >> "$work/e$n.txt"
done
cmp "$work/e1.txt" "$work/e3.txt" && echo "jobs_same: errors equal: $(head -1 "$work/e1.txt" | cut -c1-60), $(tail -1 "$work/e1.txt")"
# Nothing half-written: a comparison that failed wrote no report.
for n in 1 3; do
  if [ -e "$work/err$n.json" ]; then echo "jobs_same: --jobs $n wrote a report of a failed comparison" >&2; exit 1; fi
done
