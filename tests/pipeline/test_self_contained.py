"""A study file runs what it names: systems are never taken from the default study, the
settings it does take are named at the start, and worlds are shared by studies of other
branches without one rebuilding the other's."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from test_snakemake import run_of, snakemake, workflow_copy

from memshift.vocabulary import FLOORS

# two studies run whole: in make test-studies, beside make test's ten minutes
pytestmark = pytest.mark.studies

APPEND_ONLY = {
    "study": "append-only",
    "results": "results",
    "worlds": {"seeds": "1000", "history_months": 1},
    "branches": ["none", "src"],
    "systems": {"holdmem": {"detections": ["append"], "repairs": ["0"]}},
}
OTHER_BRANCHES = {**APPEND_ONLY, "study": "other-branches", "branches": ["none", "del", "cons"]}


def planned_rules(where: Path, configfile: str) -> list[str]:
    """The rules of the jobs a dry run plans (its job stats table)."""
    run = snakemake(where, "-n", configfile=configfile)
    assert run.returncode == 0, run.stderr[-3000:]
    rows = (re.fullmatch(r"([a-z_]+)\s+(\d+)", line) for line in run.stdout.splitlines())
    return [row[1] for row in rows if row and row[1] != "total"]


def test_a_study_naming_only_the_append_detection_runs_it_alone_and_shares_its_worlds(
    tmp_path: Path,
):
    where = workflow_copy(tmp_path / "study", APPEND_ONLY)
    (where / "other.yaml").write_text(yaml.safe_dump(OTHER_BRANCHES))
    run = snakemake(where)
    assert run.returncode == 0, run.stderr[-3000:]
    # what it did not set is named, and no system is among it
    assert (
        "memshift: study 'append-only' takes from config/config.yaml, as it does not set them: "
        "llm" in run.stderr.splitlines()
    )
    measures = pq.read_table(where / run_of(APPEND_ONLY) / "report/tables/measures.parquet")
    assert set(measures.column("system").to_pylist()) == {"holdmem-d0-append", *FLOORS}
    # a study of other branches in the same results folder builds no world, and afterwards the
    # first study has nothing to redo
    other = planned_rules(where, "other.yaml")
    assert "world" not in other and "prefork" in other
    assert planned_rules(where, "study.yaml") == []
