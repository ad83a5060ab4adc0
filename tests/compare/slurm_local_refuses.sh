#!/usr/bin/env bash
# scripts/slurm-local.sh keeps its root daemons out of other users' reach (test compare.slurm_local_refuses): it
# refuses a directory another user owns, one anyone may write, a symbolic link, one under a folder anyone may
# write, a planted link at slurm.conf and a config another user owns, changing nothing; `stop` leaves alone a
# process its PID files name that is not its daemon; the sweep test does not take a config it did not write.
# No daemon is started. Needs root (the script's start and stop do): exit status 77, with the reason, otherwise.
# usage: slurm_local_refuses.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
script="$here/../../scripts/slurm-local.sh"
if [ "$(id -u)" != 0 ]; then
  echo "slurm_local_refuses: skipped: needs root (slurm-local.sh start and stop run as root)"
  exit 77
fi
other=$(id -u nobody 2>/dev/null) || {
  echo "slurm_local_refuses: skipped: no user 'nobody' to own a directory"
  exit 77
}

work=$(mktemp -d)
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  rm -rf -- "$work"
}
trap cleanup EXIT
chmod 755 "$work"
cases=0

# Stand-ins for what start would install, run or change, first on PATH: should a refusal below ever regress, the
# script goes on into these (and the test fails on its exit status) instead of installing packages or starting root
# daemons on the machine that runs the tests.
mkdir -m 755 "$work/bin"
# Slurm is "up" once the slurmd stand-in has run (so a start that went on would write its slurm.conf first).
for name in apt-get munged slurmctld munge unmunge mungekey runuser install chown chmod; do
  printf '#!/bin/sh\nexit 0\n' >"$work/bin/$name"
done
printf '#!/bin/sh\ntouch "%s"\n' "$work/up" >"$work/bin/slurmd"
printf '#!/bin/sh\n[ -e "%s" ] && echo "Slurmctld(primary) at localhost is UP"\n' "$work/up" >"$work/bin/scontrol"
printf '#!/bin/sh\necho idle\n' >"$work/bin/sinfo"
chmod 755 "$work"/bin/*
stubbed="$work/bin:$PATH"  # for the scripts under test only: this test itself needs the real chown

fail() {
  echo "slurm_local_refuses: FAILED: $*"
  exit 1
}

# expect DIR STATUS TEXT VERB: slurm-local.sh VERB with STRATA_SLURM_DIR=DIR exits with STATUS and says TEXT.
expect() {
  local dir=$1 status=$2 text=$3 verb=$4 out rc=0
  rm -f "$work/up"
  out=$(PATH=$stubbed STRATA_SLURM_DIR=$dir "$script" "$verb" 2>&1) || rc=$?
  [ "$rc" = "$status" ] || fail "$verb in $dir: exit status $rc, expected $status; said: $out"
  [[ "$out" == *"$text"* ]] || fail "$verb in $dir: expected '$text' in: $out"
  cases=$((cases + 1))
}

# still_empty DIR: the refusal wrote nothing in DIR.
still_empty() {
  local first
  first=$(find "$1" -mindepth 1 -print -quit)
  [ -z "$first" ] || fail "$1 was empty, now holds $first"
}

# A PID file naming a process that is not the daemon: stop ends neither a plain process nor one whose command line
# copies the daemon's (argv[0] slurmctld, -f this slurm.conf); it is not /usr/sbin/slurmctld.
mkdir -m 755 "$work/pids"
sleep 300 &
pids+=($!)
(exec -a /usr/sbin/slurmctld python3 -c 'import time; time.sleep(300)' -f "$work/pids/slurm.conf") &
pids+=($!)
sleep 0.2
echo "${pids[0]}" >"$work/pids/slurmd.pid"
echo "${pids[1]}" >"$work/pids/slurmctld.pid"
expect "$work/pids" 0 "not the slurmd started with -f $work/pids/slurm.conf: left alone" stop
for pid in "${pids[@]}"; do
  kill -0 "$pid" 2>/dev/null || fail "stop ended process $pid, which its PID file named but is not its daemon"
done

# A directory another user owns: every verb refuses it, and start writes nothing there.
mkdir -m 755 "$work/theirs"
chown "$other" "$work/theirs"
for verb in start stop conf; do
  expect "$work/theirs" 1 "refusing directory $work/theirs: it is owned by uid $other, not by root" $verb
done
still_empty "$work/theirs"

# A directory anyone may write.
mkdir "$work/open"
chmod 777 "$work/open"
expect "$work/open" 1 "refusing directory $work/open: it is writable by group or others (mode 777)" start
still_empty "$work/open"

# A symbolic link to a directory that would pass.
mkdir -m 755 "$work/good"
ln -s "$work/good" "$work/link"
expect "$work/link" 1 "refusing $work/link: it is a symbolic link" start
still_empty "$work/good"

# Under a folder anyone may write (not sticky): the directory could be swapped after the check; not even made.
mkdir "$work/public"
chmod 777 "$work/public"
expect "$work/public/strata-slurm" 1 "the folder $work/public above it is writable by group or others and not sticky" start
still_empty "$work/public"

# A link planted at slurm.conf: refused, the file it names untouched.
mkdir -m 755 "$work/planted"
echo "original" >"$work/victim"
ln -s "$work/victim" "$work/planted/slurm.conf"
expect "$work/planted" 1 "refusing config $work/planted/slurm.conf: it is a symbolic link" start
[ "$(cat "$work/victim")" = original ] || fail "start wrote through the link at slurm.conf"
[ -L "$work/planted/slurm.conf" ] || fail "start replaced the link at slurm.conf although it refused"

# A config another user owns (their Prolog= would run as root): refused by start and by conf, and the sweep test
# does not take it (it would have submitted jobs to whatever that config names).
mkdir -m 755 "$work/foreign"
echo "Prolog=/tmp/evil" >"$work/foreign/slurm.conf"
chown "$other" "$work/foreign/slurm.conf"
expect "$work/foreign" 1 "refusing config $work/foreign/slurm.conf: it is owned by uid $other" start
expect "$work/foreign" 1 "refusing config $work/foreign/slurm.conf: it is owned by uid $other" conf
[ "$(cat "$work/foreign/slurm.conf")" = "Prolog=/tmp/evil" ] || fail "start rewrote a config it refused"
rc=0
out=$(env -u SLURM_CONF PATH="$stubbed" STRATA_SLURM_DIR="$work/foreign" "$here/slurm_merge.sh" /bin/false "$work/sweep" 2>&1) || rc=$?
[ "$rc" = 1 ] || fail "slurm_merge.sh with a foreign config: exit status $rc, expected 1; said: $out"
[[ "$out" == *"refusing config"* ]] || fail "slurm_merge.sh did not say why it refused: $out"
[ ! -e "$work/sweep" ] || fail "slurm_merge.sh ran with a config it refused"
cases=$((cases + 1))

# A config this user wrote passes: conf prints its canonical path.
echo "ClusterName=x" >"$work/good/slurm.conf"
expect "$work/good" 0 "$work/good/slurm.conf" conf

echo "slurm_local_refuses: $cases cases refused or passed as they should"
