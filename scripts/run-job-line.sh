#!/usr/bin/env bash
# One task of a job array: runs line N of a job list (strata-compare --emit-jobs), N being $SLURM_ARRAY_TASK_ID
# or the second argument. The line goes to bash as GNU parallel hands a line to the shell: --emit-jobs quotes each
# word for that (a control character as $'...'), and no other text reaches a shell. docs/comparison.md.
# usage: run-job-line.sh JOBS.txt [N]     (sbatch --array=1-$(wc -l < JOBS.txt) run-job-line.sh JOBS.txt)
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: run-job-line.sh JOBS.txt [N]" >&2
  exit 2
fi
list=$1 n=${2:-${SLURM_ARRAY_TASK_ID:-}}
if ! [[ "$n" =~ ^[1-9][0-9]*$ ]]; then
  echo "run-job-line: line number '$n': expected a positive integer (SLURM_ARRAY_TASK_ID or the second argument)" >&2
  exit 2
fi
line=$(sed -n "${n}p" "$list")
if [ -z "$line" ]; then
  echo "run-job-line: $list has no line $n" >&2
  exit 2
fi
exec bash -c "$line"
