"""The Snakemake workflow end to end on one small study, run as a user runs it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


def workflow_copy(target: Path, config: dict) -> Path:
    target.mkdir(parents=True)
    shutil.copy(ROOT / "Snakefile", target / "Snakefile")
    for folder in ("rules", "workflow", "config", "envs"):
        shutil.copytree(ROOT / folder, target / folder, symlinks=False)
    (target / "study.yaml").write_text(yaml.safe_dump(config))
    return target


def snakemake(where: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # The custom system of the study lives beside this test; jobs import it by module name.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), *sys.path])}
    return subprocess.run(
        [str(SNAKEMAKE), "--configfile", "study.yaml", "--cores", "2", *args],
        cwd=where,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )


STUDY = {
    "study": "e2e",
    "results": "results",
    "worlds": {"seeds": "1000", "history_months": 9},
    "branches": ["none", "src", "del", "cons"],
    "systems": {
        "holdmem": {"detections": ["source", "append"], "repairs": ["0", "1"]},
        "baselines": ["bm25", "oracle"],
        "custom": {"mine": "custom_memory:NewestRecords"},
    },
    "report": {"draws": 200},
}
REPORT_FILES = (
    "report.md",
    "tables/measures.parquet",
    "tables/contrasts.parquet",
    "tables/diagnostics.parquet",
    "figures/update_stability.png",
    "figures/changed_outcomes.png",
    "figures/contrasts_by_class.png",
)


@pytest.mark.slow
def test_the_study_runs_reruns_nothing_and_reproduces_every_artifact(tmp_path):
    first = workflow_copy(tmp_path / "a", STUDY)
    run = snakemake(first)
    assert run.returncode == 0, run.stderr[-3000:]
    manifest = json.loads((first / "results/worlds/w1000/manifest.json").read_text())
    assert len(manifest["files"]) == 2 + 4 * 4
    runs = first / "results/runs/rules/w1000"
    for branch in STUDY["branches"]:
        for system in ("holdmem-d0-source", "holdmem-d1-append", "bm25", "oracle", "mine"):
            answers = pq.read_table(runs / branch / system / "answers.parquet")
            probes = pq.read_table(first / f"results/worlds/w1000/probes-{branch}.parquet")
            assert answers.num_rows == probes.num_rows, (branch, system)
    assert json.loads((runs / "fork-check.json").read_text())["identical"]
    scores = pq.read_table(first / "results/runs/rules/scores.parquet").to_pylist()
    assert len(scores) == sum(pq.read_table(p).num_rows for p in runs.glob("*/*/answers.parquet"))
    cell = [s for s in scores if s["system"] == "holdmem-d1-source" and s["branch"] == "del"]
    assert all(s["correct"] for s in cell if s["changed"] and s["checkpoint"] > 0)
    report = (first / "results/runs/rules/report/report.md").read_text()
    assert "rule-based backend" in report and "| mine |" in report
    assert "holdmem-d1-source" in report and "B×D" in report
    html = snakemake(first, "--report", "report.html")
    assert html.returncode == 0, html.stderr[-2000:]
    assert "Update (share correct on changed item-times)" in (first / "report.html").read_text()
    dry = snakemake(first, "-n")
    assert dry.returncode == 0 and "Nothing to be done" in dry.stdout + dry.stderr
    second = workflow_copy(tmp_path / "b", STUDY)
    assert snakemake(second).returncode == 0
    again = json.loads((second / "results/worlds/w1000/manifest.json").read_text())
    assert again == manifest
    for name in REPORT_FILES:
        path = Path("results/runs/rules/report") / name
        assert (first / path).read_bytes() == (second / path).read_bytes(), name


def test_a_bad_config_stops_with_one_line(tmp_path):
    where = workflow_copy(tmp_path / "bad", {**STUDY, "branches": ["none", "sideways"]})
    run = snakemake(where, "-n")
    assert run.returncode != 0
    assert "memshift: config error: config branches.1: 'sideways' is not valid" in run.stderr
