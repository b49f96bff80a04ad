"""A memory system outside memshift, in any language (here plain Python, no memshift import):
it reads an exported dataset (memshift export-dataset) and answers every probe. This one
abstains everywhere and reports every item stale after the fork, so it is scored like the
always-abstain floor and gets detection and repair (m, r, a) in the report.
usage: python3 examples/predict.py DATASET_DIR > predictions.jsonl (docs/dataset.md)"""

import gzip
import json
import sys
from pathlib import Path

dataset = Path(sys.argv[1])
with gzip.open(dataset / "probes.jsonl.gz", "rt", encoding="utf-8") as probes:
    for line in probes:
        probe = json.loads(line)
        answer = {
            "probe_id": probe["probe_id"],
            "status": "abstain",
            "value": None,
            "invalidated": probe["checkpoint"] > 0,
        }
        print(json.dumps(answer))
