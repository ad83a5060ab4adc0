#!/usr/bin/env bash
# strata-compare --emit-jobs DIR creates DIR as `mkdir -p` does (docs/comparison.md runs it on a fresh out/jobs),
# refuses a path that exists and is not a directory, and creates nothing when a workload is bad.
# usage: emit_jobs_mkdir.sh STRATA_COMPARE WORKDIR WORKLOAD
set -euo pipefail
tool=$1 work=$2 workload=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "emit_jobs_mkdir: $*" >&2; exit 1; }

# A missing folder two levels deep: created, and the jobs write into it.
"$tool" "$workload" --contenders strata,jax --emit-jobs "$work/out/jobs" > "$work/jobs.txt" ||
  fail "--emit-jobs on a missing folder exited $?"
[ -d "$work/out/jobs" ] || fail "$work/out/jobs not created"
[ "$(wc -l < "$work/jobs.txt")" = 2 ] || fail "not one line per contender: $(cat "$work/jobs.txt")"
grep -q -- "--json $work/out/jobs/0002.json\$" "$work/jobs.txt" || fail "the jobs do not write into it: $(cat "$work/jobs.txt")"
echo "emit_jobs_mkdir: created $(basename "$work")/out/jobs, 2 jobs"

# A file where the folder should be: refused, the file as it was.
echo keep > "$work/file"
status=0
"$tool" "$workload" --emit-jobs "$work/file" > "$work/out.txt" 2> "$work/err.txt" || status=$?
[ "$status" = 2 ] || fail "--emit-jobs on a file exited $status"
[ "$(cat "$work/file")" = keep ] || fail "the file was changed"
[ ! -s "$work/out.txt" ] || fail "jobs printed for a refused folder"
echo "emit_jobs_mkdir: $(sed "s|$work/||" "$work/err.txt")"

# A bad workload: nothing created.
status=0
"$tool" "$work/no-such.csv" --emit-jobs "$work/never/jobs" > /dev/null 2> "$work/err.txt" || status=$?
[ "$status" = 2 ] || fail "a missing workload exited $status"
[ ! -e "$work/never" ] || fail "a refused run created $work/never"
echo "emit_jobs_mkdir: a bad workload creates nothing"
