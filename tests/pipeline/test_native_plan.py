"""A native system (`systems.native`) is planned as its own probe job, which is given the
system's settings; the planner never imports the library."""

from __future__ import annotations

import json
import shlex

import yaml
from test_snakemake import jobs_of, snakemake, workflow_copy

from memshift.native.settings import NativeSettings
from memshift_tools.stand_ins import STAND_IN_EMBEDDER, stand_in_profile

MODELS = {
    "profiles": {"rules": {"backend": "rules"}, "served": stand_in_profile("http://127.0.0.1:9/v1")}
}
MEM0 = {"library": "mem0", "profile": "served", **STAND_IN_EMBEDDER}


def test_the_probe_job_of_a_native_system_passes_its_settings(tmp_path):
    config = {
        "study": "t",
        "results": "results",
        "models": "models.yaml",
        "worlds": {"seeds": "1000", "history_months": 1},
        "branches": ["none", "del"],
        "systems": {
            "holdmem": {"detections": ["source"], "repairs": ["0"], "extra_cells": []},
            "baselines": ["bm25"],
            "answer_audit": [],
            "unshifted_all_items": [],
            "native": {"mem0": MEM0},
        },
    }
    where = workflow_copy(tmp_path / "flow", config)
    (where / "models.yaml").write_text(yaml.safe_dump(MODELS))
    shown = snakemake(where, "-n", "--printshellcmds")
    assert shown.returncode == 0, shown.stderr[-3000:]
    jobs = jobs_of(shown.stdout + shown.stderr)
    settings = NativeSettings(**MEM0).to_json()
    assert jobs["probe_native"] == ["world=1000, system=mem0"]
    # probed by its own job only: not among the baselines of probe_baselines
    assert jobs["probe_baselines"] == ["world=1000"] and "probe_system" not in jobs
    specs = {}
    for line in shown.stdout.splitlines():
        command = line.removeprefix("Shell command: ")
        words = shlex.split(command) if command.startswith("memshift job ") else []
        if words[2:3] in (["probe"], ["probe_native"]):
            specs.setdefault(words[2], []).append(json.loads(words[3]))
    [native] = specs["probe_native"]
    assert ["bm25"] in [spec["systems"] for spec in specs["probe"]]
    assert not [spec for spec in specs["probe"] if "mem0" in spec["systems"]]
    assert native["system"] == "mem0" and native["settings"] == settings
