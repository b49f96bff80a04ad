#!/usr/bin/env bash
# Stops the daemons cluster/setup.sh started, by the pids it recorded (each checked to still be
# that program), newest first, and removes the config files it wrote where there were none.
# Packages and SLURM's state stay.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
STATE=${STATE:-$HERE/.state}
for program in slurmd slurmctld slurmdbd mariadbd munged; do
  record="$STATE/$program.pid"
  [ -s "$record" ] || continue
  pid=$(cat "$record")
  if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$program" ]; then
    echo "[cluster teardown] stopping $program (pid $pid)"
    kill -TERM "$pid"
    for _ in $(seq 1 80); do [ -d "/proc/$pid" ] || break; sleep 0.25; done
    [ -d "/proc/$pid" ] && kill -KILL "$pid"
  fi
  rm -f "$record"
done
if [ -s "$STATE/written-files" ]; then
  while read -r file; do
    echo "[cluster teardown] removing $file"
    rm -f "$file"
  done <"$STATE/written-files"
  rm -f "$STATE/written-files"
fi
