"""A small validation grid run as a user runs it: two drawn writers on one world, every writer's
run, then the grid's tables, figures and report, the same bytes when rebuilt."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from test_snakemake import memshift_command, workflow_copy

from memshift import schemas
from memshift.artifacts import read_table
from memshift.models.profiles import load_profiles
from memshift.studies.validation.grid_analysis import INTERACTION, TERMS

GRID = {
    "study": "grid",
    "results": "results",
    "worlds": {"seeds": "1000", "history_months": 1},
    "branches": ["none", "src"],
    "systems": {
        "holdmem": {
            "detections": ["append", "source", "leaky"],
            "repairs": ["0", "1"],
            "extra_cells": [],
        },
        "baselines": [],
        "answer_audit": [],
        "unshifted_all_items": [],
    },
    "report": {"draws": 100},
    "validation": {"writers": ["rules", "sim-qwen3.5-9b"], "grid": {"writers": 2, "seed": 7}},
}
OUT = Path("results/grid")
ARTIFACTS = (
    "report.md",
    "models.yaml",
    "tables/grid.parquet",
    "tables/writers.parquet",
    "figures/grid_recovered.png",
    "figures/grid_interaction.png",
)


@pytest.mark.studies
@pytest.mark.slow(minutes=0.8)
def test_a_small_grid_runs_every_writer_and_reports_prediction_against_measure(tmp_path):
    where = workflow_copy(tmp_path / "grid", GRID)
    run = memshift_command(
        where, None, "validate-grid", "--configfile", "study.yaml", "--cores", "2", "-q"
    )
    assert run.returncode == 0, run.stderr[-3000:]
    writers = ["rules", "grid-anchor-wrong", "grid-anchor-blind", "grid-anchor-both"]
    writers += ["grid-01", "grid-02", "sim-qwen3.5-9b"]
    for writer in writers:
        assert (where / "results/runs/grid/h1" / writer / "scores.parquet").is_file(), writer
    out = where / OUT
    for name in ARTIFACTS:
        assert (out / name).stat().st_size > 0, name
    # the grid's writers are profiles of its models file, with the rates the writers table gives
    profiles = load_profiles(out / "models.yaml")
    table = read_table(out / "tables/writers.parquet", schemas.VALIDATION_GRID_WRITERS)
    for row in table.to_pylist():
        model = profiles[row["writer"]].error_model
        assert model.get("rates", {}).get("other", 0.0) == row["error_other"]
        assert model.get("overlooks", {}).get("definition", 0.0) == row["overlook_definition"]
    assert [r["kind"] for r in table.to_pylist()] == ["reference"] + ["anchor"] * 3 + [
        "drawn",
        "drawn",
        "labelled",
    ]
    checks = read_table(out / "tables/grid.parquet", schemas.VALIDATION_GRID).to_pylist()
    # every drawn and labelled writer: each term and B×D after the source revision, predicted
    # and measured (one world: no interval, so nothing is tested)
    for writer in writers[4:]:
        mine = [c for c in checks if c["writer"] == writer and c["shift"] == "src"]
        assert len(mine) == len(TERMS) + 1
        assert all(c["injected"] is not None and c["estimate"] is not None for c in mine)
        assert all(c["low"] is None and c["within"] is None for c in mine)
    interaction = [c for c in checks if c["measure"] == INTERACTION and c["shift"] == "src"]
    assert {c["writer"] for c in interaction} == set(writers[4:])
    report = (out / "report.md").read_text()
    assert "## B×D: predicted by the identity against measured" in report
    assert "| grid-01 |" in report and "sim-qwen3.5-9b" in report
    # rebuilt from the finished runs: the same bytes
    before = {name: (out / name).read_bytes() for name in ARTIFACTS}
    again = memshift_command(where, None, "validation-grid-report", "--configfile", "study.yaml")
    assert again.returncode == 0, again.stderr[-3000:]
    assert {name: (out / name).read_bytes() for name in ARTIFACTS} == before
    assert pq.read_table(out / "tables/grid.parquet").num_rows == len(checks)


def test_a_study_without_a_grid_is_refused_in_one_line(tmp_path):
    where = workflow_copy(tmp_path / "nogrid", {**GRID, "validation": {"writers": ["rules", "x"]}})
    run = memshift_command(where, None, "validation-grid-report", "--configfile", "study.yaml")
    assert run.returncode != 0
    assert "needs `validation.grid`" in run.stderr and len(run.stderr.strip().splitlines()) == 1
