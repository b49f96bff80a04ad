"""A study whose job fails says why on the console, not only in the job's log: a custom system
that returns plain text to the rule-based reader is refused on its first answer, and the run
prints that one line naming the system, its job and its log."""

from __future__ import annotations

from pathlib import Path

from test_snakemake import snakemake, workflow_copy

PLAIN = {
    "study": "plain",
    "results": "results",
    "worlds": {"seeds": "1000", "history_months": 1},
    "branches": ["none"],
    "systems": {
        "holdmem": {"detections": ["source"], "repairs": ["0"], "extra_cells": []},
        "baselines": [],
        "answer_audit": [],
        "unshifted_all_items": [],
        "custom": {"plain": "custom_memory:PlainText"},
    },
}


def test_a_custom_system_refused_on_its_first_answer_says_so_on_the_console(tmp_path: Path):
    where = workflow_copy(tmp_path / "plain", PLAIN)
    run = snakemake(where)
    assert run.returncode != 0
    said = run.stderr.splitlines()
    assert "memshift: 1 failed job log(s); the error each ends with:" in said, run.stderr[-3000:]
    at = said.index("memshift: 1 failed job log(s); the error each ends with:")
    job, error = said[at + 1], said[at + 2]
    # the job of a custom system that reports invalidations
    assert job == "  probe_reporting (results/runs/plain/h1/rules/logs/probe/w1000-plain.log):"
    assert error.startswith("    memshift: error: system plain: its first answer (query for probe ")
    assert "none of its" in error and "evidence_line(event)" in error
