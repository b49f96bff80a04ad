"""A system too many of whose calls failed is left out of every section that compares systems,
as the Update table shows it not measured: from the call logs through the failures table to the
sections' tables and text, as the report stage runs them."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from analysis.test_costs import call
from analysis.test_rankings import SYSTEMS, WORLDS, scores
from memshift import schemas
from memshift.analysis import measures
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.failures import MAX_FAILURE_SHARE, counted, failures_table, unmeasured_on
from memshift.analysis.frame import log_sources, open_study
from memshift.artifacts import write_table
from memshift.report import sections
from memshift.report.inputs import ReportInputs
from memshift.stages.report import run_sections

BRANCHES = ("src", "def", "del")
COMPARING = ("rankings", "versus_baselines")


def call_log(path: Path, broken: str, branch: str) -> Path:
    """Ten reader calls per system, branch and world; every one of `broken`'s on `branch`
    failed."""
    rows = [
        call(
            system,
            "reader",
            b,
            w,
            failure="invalid_json" if (system, b) == (broken, branch) else None,
        )
        for system in SYSTEMS
        for b in BRANCHES
        for w in WORLDS
        for _ in range(10)
    ]
    write_table(pa.Table.from_pylist(rows, schema=schemas.CALLS), schemas.CALLS, path)
    return path


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_system_whose_calls_failed_is_left_out_of_every_comparison(tmp_path, monkeypatch, seed):
    rate = {(s, b): 0.2 + 0.15 * k for k, s in enumerate(SYSTEMS) for b in BRANCHES}
    # "yours" answered well only because of what is left after its failures: it would top src
    rate["yours", "src"] = 0.99
    rows = scores(rate, seed)
    write_table(
        pa.Table.from_pylist(rows, schema=schemas.SCORES), schemas.SCORES, tmp_path / "s.parquet"
    )
    logs = [call_log(tmp_path / "calls.parquet", "yours", "src")]
    con = open_study(tmp_path / "s.parquet", logs)
    resampling = Resampling(draws=200, seed=seed)
    measures.compute(con, resampling)
    failures = failures_table(counted(con), MAX_FAILURE_SHARE).to_pylist()
    unmeasured = unmeasured_on(failures)
    assert unmeasured == {("yours", "src")}

    inputs = ReportInputs(
        con, resampling, list(SYSTEMS), tmp_path, None, log_sources(logs), [], [], [], [], [],
        [], lambda: None, None, unmeasured,
    )  # fmt: skip
    chosen = tuple(s for s in sections.SECTIONS if s.module in COMPARING)
    monkeypatch.setattr(sections, "SECTIONS", chosen)
    tables: dict[str, pa.Table] = {}
    rankings, versus = run_sections(inputs, [], tables)

    ranked = tables["rankings"].to_pylist()
    assert ranked and all(r["left_out"] == ["yours"] and r["systems"] == 4 for r in ranked)
    compared = tables["versus_baselines"].to_pylist()
    # (Update is read on the branches with changed item-times: src and def here)
    assert {(r["system"], r["branch"]) for r in compared} == {
        (s, b) for s in ("mine", "oracle", "yours") for b in ("src", "def")
    } - {("yours", "src")}
    for text in (rankings, versus):
        assert text.rstrip().endswith("see Failures): yours.")
    assert "| source revision | yours |" not in versus
