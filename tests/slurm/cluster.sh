#!/usr/bin/env bash
# A single-node Slurm cluster in a scratch folder, for the slurm executor's test (tests/test_slurm_sweep.cpp):
#   cluster.sh start DIR   munged + slurmctld + slurmd, every file (key, sockets, state, logs, slurm.conf) under
#                          DIR, on free TCP ports; prints `export SLURM_CONF=DIR/slurm.conf` lines to eval
#   cluster.sh stop DIR    stops the daemons it started (by the pids in DIR), nothing else
# The node offers a fake `gpu` gres: two GPUs whose device files are /dev/null and /dev/zero (character devices
# Slurm accepts; nothing opens them, and with task/none nothing is constrained), so `sbatch --gres=gpu:1` schedules
# and sets CUDA_VISIBLE_DEVICES as on a GPU cluster. Exit 77 (the skip code) when the Slurm or munge binaries are
# absent (scripts/setup.sh installs them) or when not root (CI runs as root).
set -euo pipefail
cmd=${1:?usage: cluster.sh start|stop DIR}
dir=${2:?usage: cluster.sh start|stop DIR}

stop() {
  for name in slurmd slurmctld munged; do
    f="$dir/run/$name.pid"
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$f"
  done
}

if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "cluster.sh: unknown command '$cmd' (start|stop)" >&2; exit 2; }

for b in munged slurmctld slurmd sbatch squeue sacct scancel; do
  if ! command -v "$b" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$b" ]; then
    echo "cluster.sh: SKIP: '$b' is not installed (scripts/setup.sh installs slurmctld, slurmd, munge)" >&2
    exit 77
  fi
done
if [ "$(id -u)" -ne 0 ]; then
  echo "cluster.sh: SKIP: a one-node Slurm needs root here (slurmd starts each job as its user; CI runs as root)" >&2
  exit 77
fi
PATH=$PATH:/usr/sbin
mkdir -p "$dir"/{run,state,log,munge} "$dir/spool/$(hostname -s)"
chmod 0700 "$dir/munge"
user=$(id -un)
node=$(hostname -s)
# Free ports: the kernel's choice for a bound-then-closed socket (other test runs on this machine use others).
ports=$(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))')
read -r ctld_port slurmd_port <<<"$ports"

# munge: its own key and socket under DIR (never the system's /etc/munge or /run/munge).
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" 2>>"$dir/log/munged.log"

cat > "$dir/slurm.conf" <<CONF
ClusterName=kproftest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmdDebug=debug
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.txt
MpiDefault=none
ReturnToService=2
SchedulerParameters=defer_batch=0
KillWait=5
MinJobAge=300
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1000 Gres=gpu:2 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=30 State=UP
CONF
cat > "$dir/gres.conf" <<CONF
NodeName=$node Name=gpu File=/dev/null
NodeName=$node Name=gpu File=/dev/zero
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -i -f "$SLURM_CONF" 2>>"$dir/log/slurmctld.log"
slurmd -f "$SLURM_CONF" 2>>"$dir/log/slurmd.log"
# Up when the node is idle: a few seconds.
for _ in $(seq 100); do
  state=$(sinfo -h -N -o '%t' 2>/dev/null | head -1 || true)
  case "$state" in idle*|mix*|alloc*) echo "export SLURM_CONF=$dir/slurm.conf"; exit 0 ;; inval*|drain*) break ;; esac
  sleep 0.2
done
echo "cluster.sh: the node did not come up (state '${state:-none}'); logs in $dir/log:" >&2
tail -n 20 "$dir"/log/*.log >&2 || true
stop
exit 1
