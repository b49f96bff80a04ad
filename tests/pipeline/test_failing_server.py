"""A study whose every model call fails: the report is written and kept, marks every system not
measured, counts exactly the failed rows of the call logs, and the run exits non-zero (the
failures gate) unless the study allows failures."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from memshift_tools.localserver import FaultRule, LocalServer, canned_answer
from pipeline.test_faulty_server import call_logs
from pipeline.test_resume import write_local_profile
from pipeline.test_snakemake import run_of, snakemake, workflow_copy

STUDY = {
    "study": "failing",
    "results": "results",
    "llm": "local",
    "models": "models.yaml",
    "worlds": {"seeds": "1000", "history_months": 1},
    "branches": ["none"],
    "systems": {
        "holdmem": {"detections": ["source"], "repairs": ["0"], "extra_cells": []},
        "baselines": ["bm25"],
        "answer_audit": [],
        "unshifted_all_items": [],
    },
    "report": {"draws": 20},
}
SYSTEMS = ("holdmem-d0-source", "bm25")


def report_of(where: Path) -> tuple[str, list[dict]]:
    report = where / run_of(STUDY, "local") / "report"
    return (report / "report.md").read_text(), pq.read_table(
        report / "tables/failures.parquet"
    ).to_pylist()


def check_report(where: Path) -> None:
    text, failures = report_of(where)
    assert {r["system"] for r in failures} == set(SYSTEMS)
    assert all(not r["measured"] and r["share"] == 1.0 for r in failures)
    # the table counts what the call logs hold: every row a failure, each attributed as the
    # calls table names its callers (the cell: its own, its detection's, the pre-fork store's)
    rows = call_logs(where / run_of(STUDY, "local"))
    assert rows and all(r["failure"] for r in rows)
    callers = {
        "bm25": {"bm25"},
        "holdmem-d0-source": {"holdmem-d0-source", "holdmem-source", "holdmem"},
    }
    for r in failures:
        logged = sum(1 for row in rows if row["system"] in callers[r["system"]])
        assert r["failed"] == r["model_failed"] == r["calls"] == logged, r
        assert sum(reason["calls"] for reason in r["reasons"]) == logged
    assert "Warning: 2 systems not measured" in text
    assert "## Failures" in text
    update = text[text.index("## Update") : text.index("## Stability")]
    for r in failures:
        assert f"| {r['system']} | not measured ({r['failed']} of {r['calls']} calls failed) |" in (
            update
        )


@pytest.mark.studies
@pytest.mark.slow(minutes=1)
def test_a_study_whose_every_call_fails_is_reported_not_measured_and_fails(tmp_path):
    where = workflow_copy(tmp_path / "study", STUDY)
    every_call = [FaultRule("invalid_json", attempts=None)]
    with LocalServer(canned_answer, faults=every_call) as server:
        write_local_profile(where, server.url, decoding={"max_tokens": 256})
        failed = snakemake(where)
        assert failed.returncode != 0, failed.stderr[-3000:]
        check_report(where)
        line = next(line for line in failed.stderr.splitlines() if "systems not measured" in line)
        assert line.startswith("memshift: 2 systems not measured") and "100.0%" in line
        assert all(system in line for system in SYSTEMS)

        # allowed: the same report, and the run succeeds
        allowed = {**STUDY, "report": {**STUDY["report"], "allow_failures": True}}
        (where / "study.yaml").write_text(yaml.safe_dump(allowed))
        passed = snakemake(where)
        assert passed.returncode == 0, passed.stderr[-3000:]
        assert "systems not measured" in passed.stderr
        check_report(where)
