#!/usr/bin/env bash
# A sweep split into one job per workload and contender (strata-compare --emit-jobs), run as a Slurm job array
# (sbatch --array --wait; each task runs line $SLURM_ARRAY_TASK_ID of the job list: scripts/run-job-line.sh),
# merged (--merge): the merged report must equal the one a single process writes. Exit status 77 (skipped, with
# the reason) where no Slurm answers: scripts/slurm-local.sh start runs one on this machine.
# usage: slurm_merge.sh STRATA_COMPARE WORKDIR TRACE...
set -euo pipefail
tool=$1 work=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
# The Slurm scripts/slurm-local.sh starts, unless SLURM_CONF names another. Its `conf` checks that only root or
# this user could have written that config (a planted one would send the jobs wherever it says): 3 = none there,
# 1 = refused, and then this test fails rather than take it.
if [ -z "${SLURM_CONF:-}" ]; then
  rc=0
  local_conf=$("$here/../../scripts/slurm-local.sh" conf 2>&1) || rc=$?
  if [ "$rc" = 0 ]; then
    export SLURM_CONF="$local_conf"
  elif [ "$rc" != 3 ]; then
    echo "slurm_merge: $local_conf"
    exit 1
  fi
fi
if ! command -v sbatch >/dev/null; then
  echo "slurm_merge: skipped: Slurm is not installed (scripts/slurm-local.sh start installs and starts it)"
  exit 77
fi
if ! scontrol ping 2>/dev/null | grep -q "is UP"; then
  echo "slurm_merge: skipped: no slurmctld answers (scripts/slurm-local.sh start)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work/jobs" "$work/logs"
"$tool" "$@" --capacity 1.2x --quiet --json "$work/single.json" >/dev/null
"$tool" "$@" --capacity 1.2x --emit-jobs "$work/jobs" >"$work/jobs.txt"
count=$(wc -l <"$work/jobs.txt")
echo "slurm_merge: $count jobs"
# Each task runs its line of the job list (scripts/run-job-line.sh, as the docs show).
# --wait: sbatch returns when every task has ended, with a non-zero status if one failed; timeout bounds it.
if ! timeout 600 sbatch --wait --quiet --job-name=strata-sweep --array="1-$count" --ntasks=1 --cpus-per-task=1 \
  --time=10 --output="$work/logs/%a.out" --chdir="$work" "$here/../../scripts/run-job-line.sh" "$work/jobs.txt"; then
  echo "slurm_merge: the job array failed; task logs:"
  tail -n 20 "$work"/logs/*.out
  exit 1
fi
"$tool" --merge "$work"/jobs/*.json --json "$work/merged.json" >"$work/merged.txt"
python3 "$here/same_report.py" "$work/single.json" "$work/merged.json"
