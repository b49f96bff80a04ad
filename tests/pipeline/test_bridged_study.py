"""A study with the native libraries that run in environments of their own (MemOS, Cognee, A-Mem,
HippoRAG; `environments/native.sh`), run by Snakemake from the world to the report through the
replay server recording the scripted stand-ins' replies (`make test-native`, which installs the
environments; a replay of a recording is tested on each adapter, tests/native). Each system is
scored, reported, counted in the failures table with its library's own model calls, given a
setting inferred from behaviour and its calls and tokens per event. It tests the plumbing, never
the libraries' quality."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from test_snakemake import ROOT, SNAKEMAKE, job_env, workflow_copy

from memshift_tools.localserver import LocalServer
from memshift_tools.replay import Recorder, load
from memshift_tools.stand_ins import STAND_IN_EMBEDDER, any_library, stand_in_profile

pytestmark = pytest.mark.native_full
LIBRARIES = ("memos", "cognee", "amem", "hipporag")
BRANCHES = ("none", "del")


def study(server: LocalServer, where: Path) -> Path:
    models = yaml.safe_load((ROOT / "config/models.yaml").read_text())
    models["profiles"]["stand-in"] = stand_in_profile(f"{server.url}/v1")
    library = {"profile": "stand-in", **STAND_IN_EMBEDDER}
    where = workflow_copy(
        where,
        {
            "study": "bridged",
            "results": "results",
            "models": "models.yaml",
            "worlds": {"seeds": "1000", "history_months": 1},
            "branches": ["del"],
            "systems": {
                "holdmem": {"detections": ["source"], "repairs": ["0"], "extra_cells": []},
                "baselines": ["bm25"],
                "answer_audit": [],
                "unshifted_all_items": [],
                "native": {name: {"library": name, **library} for name in LIBRARIES},
            },
            "report": {"draws": 50},
        },
    )
    (where / "models.yaml").write_text(yaml.safe_dump(models))
    run = subprocess.run(
        [str(SNAKEMAKE), "--configfile", "study.yaml", "--cores", "2"],
        cwd=where,
        capture_output=True,
        text=True,
        env=job_env(),
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return where / "results/runs/bridged/h1/rules"


def test_a_study_with_the_bridged_libraries_runs_from_the_world_to_the_report(tmp_path):
    recording = tmp_path / "replies.jsonl"
    with recording.open("w") as out, LocalServer(Recorder(any_library, out)) as server:
        run_dir = study(server, tmp_path / "study")
        calls = server.stats()["paths"]
    assert calls["/v1/chat/completions"] >= len(load(recording)) > 0
    report = (run_dir / "report/report.md").read_text()
    tables = run_dir / "report/tables"
    failures = pq.read_table(tables / "failures.parquet").to_pylist()
    inferred = report.split("## Settings inferred from behaviour", 1)[1].split("\n## ", 1)[0]
    costs = {r["system"]: r for r in pq.read_table(tables / "native_costs.parquet").to_pylist()}
    assert set(costs) == set(LIBRARIES)
    # every request the libraries sent went through the meter: the server saw as many
    assert sum(r["chat_calls"] for r in costs.values()) == calls["/v1/chat/completions"]
    assert sum(r["embed_calls"] for r in costs.values()) == calls["/v1/embeddings"]
    for name in LIBRARIES:
        assert f"| {name} |" in report and f"| {name} |" in inferred
        mine = [r for r in failures if r["system"] == name]
        assert {r["branch"] for r in mine} == set(BRANCHES)
        assert all(r["library_calls"] > 0 and r["library_failed"] == 0 for r in mine), mine
        assert all(r["model_failed"] == 0 for r in mine), mine
        assert costs[name]["events"] > 0 and costs[name]["failed"] == 0
        assert costs[name]["calls_per_event"] > 0 and costs[name]["tokens_per_event"] > 0
    assert "## What the native systems spend per event" in report
