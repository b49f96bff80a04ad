#!/usr/bin/env bash
# Run by Snakemake inside the new environment, once, after it is created from memshift.yaml.
# Installs memshift from the checkout, editable and without dependencies (memshift.yaml pins
# them), so the rules' `memshift` command runs the checkout's code as the .venv does; then checks
# that the pinned dependencies satisfy memshift's requirements.
# The checkout is MEMSHIFT_CHECKOUT if set (the Snakefile's directory), else the directory
# Snakemake runs in when that is a memshift checkout.
set -euo pipefail
checkout="${MEMSHIFT_CHECKOUT:-$PWD}"
if ! grep -qs '^name = "memshift"$' "$checkout/pyproject.toml"; then
    echo "memshift.post-deploy.sh: $checkout is not a memshift checkout;" \
        "set MEMSHIFT_CHECKOUT to the directory that holds the Snakefile" >&2
    exit 1
fi
python -m pip install --no-deps --editable "$checkout"
python -m pip check
