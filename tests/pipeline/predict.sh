#!/bin/sh
# A system written outside Python, from an exported dataset (memshift export-dataset): it
# abstains on every probe and reports every item stale after the fork, so it gets detection and
# repair (m, r, a) in the report. Reads the probes as JSON lines with jq.
# usage: predict.sh DATASET_DIR > predictions.jsonl
set -eu
dataset="$1"
zcat "$dataset/probes.jsonl.gz" |
    jq -c '{
        probe_id,
        status: "abstain",
        value: null,
        invalidated: (.checkpoint > 0)
    }'
