#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine for the scale-out tests (Debian's slurm-wlm and
# munge; no systemd: the daemons are started by hand). Idempotent: a running cluster is left as
# it is. Prints "slurm: up" on success; exits 1 with the reason otherwise.
#   munged as user munge with a fresh key; one node with `slurmd -C`'s CPUs and memory;
#   ProctrackType=proctrack/linuxproc, TaskPlugin=task/none, SlurmUser=root; partition "kifu";
#   state in /var/spool/slurmctld, logs in /var/log/slurm.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  apt-get update -qq
  apt-get install -y -qq slurm-wlm munge >/dev/null
fi
alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
mkdir -p /etc/munge /var/log/munge /run/munge /var/lib/munge /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/slurm
chown -R munge:munge /etc/munge /var/log/munge /run/munge /var/lib/munge
chmod 0700 /etc/munge /var/log/munge /var/lib/munge
chmod 0755 /run/munge
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  chown munge:munge /etc/munge/munge.key
  chmod 0400 /etc/munge/munge.key
fi
if ! alive /run/munge/munged.pid; then
  su -s /bin/sh munge -c "/usr/sbin/munged --pid-file=/run/munge/munged.pid" || { echo "slurm: munged does not start"; exit 1; }
fi
host=$(hostname -s)
node=$(slurmd -C | head -1)
cpus=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<< "$node")
mem=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<< "$node")
conf=/etc/slurm/slurm.conf
want=$(cat <<CONF
# Written by kifu's tools/slurm_up.sh: a one-node cluster for tests.
ClusterName=kifu
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
JobRequeue=1
MinJobAge=600
KillWait=5
InactiveLimit=0
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=kifu Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
)
mkdir -p /etc/slurm
if [ "$(cat "$conf" 2>/dev/null)" != "$want" ]; then
  printf '%s\n' "$want" > "$conf"
  # A changed configuration needs fresh daemons.
  for p in /run/slurm/slurmctld.pid /run/slurm/slurmd.pid; do alive "$p" && kill "$(cat "$p")" && sleep 1; done
fi
[ -s /etc/slurm/cgroup.conf ] || echo "CgroupPlugin=autodetect" > /etc/slurm/cgroup.conf
alive /run/slurm/slurmctld.pid || /usr/sbin/slurmctld || { echo "slurm: slurmctld does not start: $(tail -3 /var/log/slurm/slurmctld.log)"; exit 1; }
alive /run/slurm/slurmd.pid || /usr/sbin/slurmd || { echo "slurm: slurmd does not start: $(tail -3 /var/log/slurm/slurmd.log)"; exit 1; }
for _ in $(seq 60); do
  if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
    echo "slurm: up"
    exit 0
  fi
  scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true
  sleep 1
done
echo "slurm: the node does not come up: $(sinfo 2>&1 | tail -2 | tr '\n' ' ') $(tail -2 /var/log/slurm/slurmd.log | tr '\n' ' ')"
exit 1
