#!/usr/bin/env bash
# make test-cluster: brings up a one-node SLURM with accounting on this machine (cluster/setup.sh,
# as root), runs the smoke study through it with the README's cluster command, runs it locally,
# checks that every output of the two runs is the same byte for byte (cluster/compare.py), and
# tears down what it started: the daemons this run started and the jobs it submitted, never
# a cluster that was already up.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
export PATH="$ROOT/.venv/bin:$PATH"
STUDY=config/studies/smoke.yaml
RUN=runs/smoke/h9/rules
LIMIT=${CLUSTER_TEST_LIMIT:-1200}   # seconds for the cluster run before it is stopped

if [ "$(id -u)" != 0 ]; then
  echo "make test-cluster: needs root (it installs SLURM from Debian's packages and starts its daemons)" >&2
  exit 1
fi
work=$(mktemp -d /tmp/memshift-cluster.XXXXXX)
export STATE="$work/state"
finish() {
  status=$?
  scancel --account=memshift >/dev/null 2>&1 || true
  bash cluster/teardown.sh
  if [ "$status" = 0 ]; then rm -rf "$work"; else echo "make test-cluster: kept $work" >&2; fi
  exit "$status"
}
trap finish EXIT

bash cluster/setup.sh

echo "[test-cluster] the smoke study through SLURM (the README's command)"
start=$(date +%s)
# Snakemake ignores SIGTERM while it waits on jobs: KILL follows 30 s later
timeout -k 30 "$LIMIT" snakemake --workflow-profile profiles/slurm --configfile "$STUDY" \
  --default-resources mem_mb=2000 runtime=30 slurm_account=memshift slurm_partition=debug \
  --config results="$work/slurm" >"$work/slurm.log" 2>&1 ||
  { tail -40 "$work/slurm.log"; echo "make test-cluster: the SLURM run failed (log: $work/slurm.log)" >&2; exit 1; }
echo "[test-cluster] through SLURM: $(( $(date +%s) - start )) s"

echo "[test-cluster] the same study locally"
start=$(date +%s)
snakemake --configfile "$STUDY" --cores 2 --config results="$work/local" >"$work/local.log" 2>&1 ||
  { tail -40 "$work/local.log"; echo "make test-cluster: the local run failed" >&2; exit 1; }
echo "[test-cluster] locally: $(( $(date +%s) - start )) s"

python cluster/compare.py "$work/local/$RUN" "$work/slurm/$RUN"
