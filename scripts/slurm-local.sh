#!/usr/bin/env bash
# A single-node Slurm on this machine, from Debian's packages (slurm-wlm, munge; installed if missing): munged,
# slurmctld and slurmd, as root, with a minimal slurm.conf generated under STRATA_SLURM_DIR (default
# /run/strata-slurm): NodeName=localhost with this machine's CPUs and memory, one partition.
# Slurm's commands find it through SLURM_CONF=$STRATA_SLURM_DIR/slurm.conf (`status` prints the line, `conf` prints
# the path); the sweep test (compare.slurm_merge) asks `conf` for it. docs/comparison.md.
#
# The daemons run as root and obey slurm.conf (its Prolog= runs as root), so everything in that directory must be
# out of other users' reach: the directory, each of its ancestors (sticky ones such as /tmp excepted), slurm.conf,
# the PID files and the state folders must be owned by root or the invoking user, not writable by group or others,
# and not symbolic links. Anything else is refused with a message and exit status 1, before anything is installed,
# written, started or stopped. Files are written to a fresh temporary name in the checked directory and renamed
# over the old one, so a link planted there is replaced, never followed. `stop` ends only a process that is the
# daemon `start` ran: its executable is slurmd/slurmctld, it runs as root and its command line names this
# slurm.conf (-f); a PID file naming any other process is dropped and the process left alone.
# usage: scripts/slurm-local.sh start|stop|status|conf
set -euo pipefail
default_dir=/run/strata-slurm
given="${STRATA_SLURM_DIR:-$default_dir}"
dir=""   # the checked, canonical directory (check_dir sets it)
conf=""  # $dir/slurm.conf

usage() {
  echo "usage: scripts/slurm-local.sh start|stop|status|conf" >&2
  exit 2
}

need_root() {
  if [ "$(id -u)" != 0 ]; then
    echo "slurm-local: $1 needs root (the daemons run as root)" >&2
    exit 1
  fi
}

refuse() {
  echo "slurm-local: refusing $1; nothing was changed (STRATA_SLURM_DIR, default $default_dir: a directory only" \
    "root or you can write)" >&2
  exit 1
}

# owner_ok PATH: owned by root or by the user running this (root trusts only root).
owner_ok() {
  local owner
  owner=$(stat -c %u -- "$1")
  [ "$owner" = 0 ] || [ "$owner" = "$(id -u)" ]
}

# check_entry PATH WHAT KIND: refuses PATH unless it is a KIND (d: directory, f: regular file) that is no symbolic
# link, owned by root or the invoker and not writable by group or others.
check_entry() {
  local path=$1 what=$2 kind=$3 mode
  if [ -L "$path" ]; then
    refuse "$what $path: it is a symbolic link"
  fi
  if [ "$kind" = d ] && [ ! -d "$path" ]; then
    refuse "$what $path: it is not a directory"
  fi
  if [ "$kind" = f ] && [ ! -f "$path" ]; then
    refuse "$what $path: it is not a regular file"
  fi
  if ! owner_ok "$path"; then
    refuse "$what $path: it is owned by uid $(stat -c %u -- "$path"), not by root or uid $(id -u) (you)"
  fi
  mode=$(stat -c %a -- "$path")
  if (((8#$mode & 8#022) != 0)); then
    refuse "$what $path: it is writable by group or others (mode $mode)"
  fi
}

# check_ancestors PATH WHAT: no one but root or the invoker may rename or replace what is in PATH, so PATH and every
# folder above it is theirs and not writable by others, unless sticky (/tmp: others cannot rename what is not theirs).
check_ancestors() {
  local path=$1 what=$2 mode
  while :; do
    mode=$(stat -c %a -- "$path")
    if ! owner_ok "$path"; then
      refuse "$what: the folder $path above it is owned by uid $(stat -c %u -- "$path"), not by root or you"
    fi
    if (((8#$mode & 8#022) != 0 && (8#$mode & 8#1000) == 0)); then
      refuse "$what: the folder $path above it is writable by group or others and not sticky (mode $mode)"
    fi
    [ "$path" != / ] || break
    path=$(dirname -- "$path")
  done
}

# check_dir [create]: sets dir and conf to the checked, canonical directory, or refuses it; dir stays empty where
# there is none. With `create`, makes the directory first when it does not exist (mkdir, not mkdir -p: it fails
# rather than take anything planted there, and the checks below then see what is there).
check_dir() {
  if [ -L "$given" ]; then
    refuse "$given: it is a symbolic link"
  fi
  local parent
  parent=$(dirname -- "$given")
  if [ ! -d "$parent" ]; then
    refuse "$given: the folder $parent above it does not exist"
  fi
  if [ "${1:-}" = create ] && [ ! -e "$given" ]; then
    check_ancestors "$(realpath -e -- "$parent")" "$given"  # before mkdir: a refusal leaves nothing behind
    mkdir -m 755 -- "$given" 2>/dev/null || true
    if [ ! -e "$given" ] && [ ! -L "$given" ]; then
      echo "slurm-local: could not make the directory $given" >&2
      exit 1
    fi
  fi
  if [ ! -e "$given" ] && [ ! -L "$given" ]; then
    return 0
  fi
  check_entry "$given" "directory" d
  dir=$(realpath -e -- "$given")
  conf="$dir/slurm.conf"
  check_ancestors "$(dirname -- "$dir")" "$dir"
  # What the daemons or this script read or write in it: only root or you may have put it there.
  if [ -e "$conf" ] || [ -L "$conf" ]; then
    check_entry "$conf" "config" f
  fi
  local name
  for name in state spool; do
    if [ -e "$dir/$name" ] || [ -L "$dir/$name" ]; then
      check_entry "$dir/$name" "folder" d
    fi
  done
  for name in slurmctld.pid slurmd.pid; do
    if [ -e "$dir/$name" ] || [ -L "$dir/$name" ]; then
      check_entry "$dir/$name" "PID file" f
    fi
  done
}

install_packages() {
  local missing=()
  command -v munged >/dev/null || missing+=(munge)
  command -v slurmctld >/dev/null || missing+=(slurm-wlm)
  [ "${#missing[@]}" = 0 ] && return 0
  echo "slurm-local: installing ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2 ||
    { apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2; }
}

ping_ok() {
  SLURM_CONF="$conf" scontrol ping 2>/dev/null | grep -q "is UP"
}

node_idle() {
  SLURM_CONF="$conf" sinfo -h -n localhost -o %t 2>/dev/null | grep -Eq '^(idle|mix|alloc)'
}

# write_conf CPUS MEM_MIB: slurm.conf through a new temporary file (mktemp: O_EXCL, mode 600) renamed over the old
# one: rename replaces a link at slurm.conf instead of writing through it.
write_conf() {
  local tmp
  tmp=$(mktemp -- "$dir/.slurm.conf.XXXXXX")
  cat >"$tmp" <<EOF
# Generated by scripts/slurm-local.sh: one node (this machine), one partition.
ClusterName=strata-local
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=localhost CPUs=$1 RealMemory=$2 State=UNKNOWN
PartitionName=local Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
  chmod 644 -- "$tmp"  # Slurm's commands read it as the users who submit jobs
  mv -fT -- "$tmp" "$conf"
}

start() {
  need_root start
  check_dir create
  install_packages
  if [ -f "$conf" ] && ping_ok; then
    echo "slurm-local: already running ($conf)" >&2
    return 0
  fi
  local name
  for name in state spool; do
    [ -d "$dir/$name" ] || mkdir -m 755 -- "$dir/$name"
  done
  # munge: the key the package made, a socket directory of its own user.
  if [ ! -s /etc/munge/munge.key ]; then
    mungekey --create --keyfile /etc/munge/munge.key
    chown munge:munge /etc/munge/munge.key
    chmod 600 /etc/munge/munge.key
  fi
  install -d -o munge -g munge -m 755 /run/munge
  if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    runuser -u munge -- /usr/sbin/munged
  fi
  local cpus mem_mib
  cpus=$(nproc)
  mem_mib=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
  write_conf "$cpus" "$mem_mib"
  # -f names the config on the command line, which is how `stop` knows these processes from any other.
  SLURM_CONF="$conf" slurmctld -i -f "$conf"
  SLURM_CONF="$conf" slurmd -f "$conf"
  local waited=0
  until ping_ok && node_idle; do
    if [ "$waited" -ge 30 ]; then
      echo "slurm-local: Slurm did not come up in 30 s; logs: $dir/slurmctld.log, $dir/slurmd.log" >&2
      tail -n 5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
      exit 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  echo "slurm-local: running, node localhost ($cpus CPUs, $mem_mib MiB); export SLURM_CONF=$conf" >&2
}

# is_our_daemon PID NAME: PID is the NAME (slurmd, slurmctld) that `start` ran: its executable is the installed
# NAME, it runs as root and its command line has `-f $conf`. A PID file alone proves nothing: the process may have
# ended and its number gone to another.
is_our_daemon() {
  local pid=$1 name=$2 want exe i
  [[ "$pid" =~ ^[1-9][0-9]{0,9}$ ]] || return 1
  [ -d "/proc/$pid" ] || return 1
  want=$(command -v "$name" 2>/dev/null) || return 1
  want=$(realpath -e -- "$want") || return 1
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
  [ "$exe" = "$want" ] || return 1
  [ "$(stat -c %u "/proc/$pid")" = 0 ] || return 1
  local args=()
  { mapfile -d '' args <"/proc/$pid/cmdline"; } 2>/dev/null || return 1
  for ((i = 1; i + 1 < ${#args[@]}; i++)); do
    if [ "${args[i]}" = -f ] && [ "${args[i + 1]}" = "$conf" ]; then
      return 0
    fi
  done
  return 1
}

stop_one() {
  local name=$1 pidfile="$dir/$1.pid" pid
  [ -f "$pidfile" ] || return 0
  pid=$(head -c 32 -- "$pidfile" | tr -d '[:space:]')
  if is_our_daemon "$pid" "$name"; then
    kill "$pid"
    for _ in $(seq 20); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
  elif [ -n "$pid" ] && [ -d "/proc/$pid" ]; then
    echo "slurm-local: $pidfile names process $pid, which is not the $name started with -f $conf: left alone" >&2
  fi
  rm -f -- "$pidfile"
}

stop() {
  need_root stop
  check_dir
  if [ -z "$dir" ]; then
    echo "slurm-local: not running ($given does not exist)" >&2
    return 0
  fi
  stop_one slurmd
  stop_one slurmctld
  echo "slurm-local: stopped (munged keeps running; $dir kept)" >&2
}

# conf: the path of the checked slurm.conf on stdout; exit status 3 where there is none.
print_conf() {
  check_dir
  if [ -z "$dir" ] || [ ! -f "$conf" ]; then
    echo "slurm-local: no slurm.conf in $given (scripts/slurm-local.sh start)" >&2
    exit 3
  fi
  echo "$conf"
}

status() {
  check_dir
  if [ -n "$dir" ] && [ -f "$conf" ] && ping_ok; then
    SLURM_CONF="$conf" sinfo
    echo "export SLURM_CONF=$conf"
  else
    echo "slurm-local: not running (scripts/slurm-local.sh start)" >&2
    exit 3
  fi
}

[ $# = 1 ] || usage
case "$1" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  conf) print_conf ;;
  *) usage ;;
esac
