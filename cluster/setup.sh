#!/usr/bin/env bash
# A one-node SLURM cluster on this machine (Debian bookworm, as root, no systemd): Debian's
# slurm-wlm 22.05 and munge, and unless WITH_ACCOUNTING=0 slurmdbd with MariaDB (socket only) so
# that sacct works. Installs what is missing, writes the configs, starts the daemons that are not
# running and waits until the node takes jobs. Every daemon it starts is recorded in $STATE
# (default cluster/.state) for teardown.sh, which stops only those.
#
#   sudo bash cluster/setup.sh                       # with accounting
#   WITH_ACCOUNTING=0 sudo bash cluster/setup.sh     # without (the profile then polls squeue)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
STATE=${STATE:-$HERE/.state}
WITH_ACCOUNTING=${WITH_ACCOUNTING:-1}
NODE=$(hostname -s)
CPUS=${CPUS:-$(nproc)}
MEMORY_MB=$(( $(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo) * 9 / 10 ))
CLUSTER=memshift
say() { printf '[cluster setup %s] %s\n' "$(date +%T)" "$*"; }

[ "$(id -u)" = 0 ] || { echo "cluster/setup.sh: run as root (it installs packages and starts daemons)" >&2; exit 1; }
mkdir -p "$STATE"

# -- packages (the image's policy-rc.d keeps their scripts from starting daemons)
packages=(slurm-wlm munge)
[ "$WITH_ACCOUNTING" = 1 ] && packages+=(slurmdbd mariadb-server)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# A config file this run writes where there was none is listed for teardown.sh to remove: with
# a slurm.conf left behind and no controller up, every `scontrol` waits ~9 s, and the Snakemake
# executor plugin runs one at every Snakemake start.
written() { # written FILE: note FILE as this run's if it does not exist yet
  [ -e "$1" ] || echo "$1" >>"$STATE/written-files"
}

running() { # running PIDFILE PROGRAM: the pid file names a live process of that program
  [ -s "$1" ] && [ "$(cat "/proc/$(cat "$1")/comm" 2>/dev/null)" = "$2" ]
}
await() { # await SECONDS WHAT COMMAND...
  local seconds=$1 what=$2; shift 2
  for _ in $(seq 1 $((seconds * 4))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.25; done
  echo "cluster/setup.sh: timed out after ${seconds}s waiting for $what" >&2
  return 1
}
started() { cp "$1" "$STATE/$2.pid"; say "started $2 (pid $(cat "$1"))"; }

# -- munge
[ -s /etc/munge/munge.key ] || mungekey --create --keyfile=/etc/munge/munge.key
chown munge:munge /etc/munge /etc/munge/munge.key
chmod 700 /etc/munge && chmod 400 /etc/munge/munge.key
install -d -o munge -g munge -m 755 /run/munge
install -d -o munge -g munge -m 700 /var/log/munge /var/lib/munge
if ! running /run/munge/munged.pid munged; then
  runuser -u munge -- /usr/sbin/munged
  await 10 munged running /run/munge/munged.pid munged
  started /run/munge/munged.pid munged
fi
munge -n | unmunge >/dev/null

# -- accounting: MariaDB on a socket, slurmdbd on 127.0.0.1
if [ "$WITH_ACCOUNTING" = 1 ]; then
  install -d -o mysql -g mysql -m 755 /run/mysqld
  if ! mariadb-admin --protocol=socket ping >/dev/null 2>&1; then
    [ -d /var/lib/mysql/mysql ] || mariadb-install-db --user=mysql --datadir=/var/lib/mysql >/dev/null
    setsid /usr/sbin/mariadbd --user=mysql --skip-networking --pid-file=/run/mysqld/mysqld.pid \
      --socket=/run/mysqld/mysqld.sock --innodb-buffer-pool-size=256M \
      </dev/null >>/var/log/mysql-memshift.log 2>&1 &
    await 60 MariaDB mariadb-admin --protocol=socket ping
    started /run/mysqld/mysqld.pid mariadbd
  fi
  mariadb --protocol=socket <<'SQL'
CREATE DATABASE IF NOT EXISTS slurm_acct_db;
CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurm-local-only';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';
SQL
  written /etc/slurm/slurmdbd.conf
  install -m 600 -o slurm -g slurm /dev/stdin /etc/slurm/slurmdbd.conf <<'CONF'
AuthType=auth/munge
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=6819
SlurmUser=slurm
LogFile=/var/log/slurm/slurmdbd.log
PidFile=/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageLoc=slurm_acct_db
StorageUser=slurm
StoragePass=slurm-local-only
CONF
  install -d -o slurm -g slurm -m 755 /var/log/slurm
  if ! running /run/slurmdbd.pid slurmdbd; then
    /usr/sbin/slurmdbd
    await 60 slurmdbd running /run/slurmdbd.pid slurmdbd
    started /run/slurmdbd.pid slurmdbd
  fi
  ACCOUNTING=$'AccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=localhost\nAccountingStoragePort=6819'
else
  ACCOUNTING=AccountingStorageType=accounting_storage/none
fi

# -- slurm.conf: one node, no cgroups
install -d -o slurm -g slurm -m 755 /var/spool/slurmctld /var/log/slurm
install -d -m 755 /var/spool/slurmd /etc/slurm
conf=$(mktemp)
cat >"$conf" <<CONF
# written by memshift's cluster/setup.sh
ClusterName=$CLUSTER
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=slurm
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
# finished jobs stay visible to squeue for 10 minutes (the squeue status mode needs >= 120 s)
MinJobAge=600
$ACCOUNTING
JobAcctGatherType=jobacct_gather/linux
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEMORY_MB State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
CONF
changed=0
written /etc/slurm/slurm.conf
written /etc/slurm/cgroup.conf
cmp -s "$conf" /etc/slurm/slurm.conf || { install -m 644 "$conf" /etc/slurm/slurm.conf; changed=1; }
rm -f "$conf"
[ -e /etc/slurm/cgroup.conf ] || echo "# no cgroup plugins" >/etc/slurm/cgroup.conf

# slurmctld without a database to read its resources from stops at once: wait for slurmdbd
# (sacctmgr finds it through slurm.conf, written above)
[ "$WITH_ACCOUNTING" = 1 ] && await 60 "slurmdbd to answer" sacctmgr -n list cluster
if running /run/slurmctld.pid slurmctld; then
  [ "$changed" = 0 ] || scontrol reconfigure
else
  /usr/sbin/slurmctld
  await 30 slurmctld running /run/slurmctld.pid slurmctld
  started /run/slurmctld.pid slurmctld
fi
await 30 "slurmctld to answer" scontrol ping
if ! running /run/slurmd.pid slurmd; then
  /usr/sbin/slurmd
  await 30 slurmd running /run/slurmd.pid slurmd
  started /run/slurmd.pid slurmd
fi
if [ "$WITH_ACCOUNTING" = 1 ]; then
  await 60 "the cluster in slurmdbd" bash -c "sacctmgr -n list cluster format=cluster | grep -qw $CLUSTER"
  sacctmgr -i add account memshift Description=memshift Organization=memshift >/dev/null 2>&1 || true
  sacctmgr -i add user root Account=memshift DefaultAccount=memshift >/dev/null 2>&1 || true
fi
ready() { sinfo -h -n "$NODE" -o %T | grep -Eq '^(idle|mixed|allocated)$'; }
if ! await 60 "node $NODE to be idle" ready; then
  scontrol update NodeName="$NODE" State=RESUME || true
  await 30 "node $NODE to be idle" ready
fi
say "ready: $(sinfo -h -o '%P %a %D %T %C')"
