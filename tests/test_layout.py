"""Where a system's answers live: its job's folder for the systems a job probes together, its own
folder for a system with a job of its own; and back from an answers table to its system."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memshift import layout
from memshift.vocabulary import BASELINES, BRANCHES, audited_system, cell_system

RUN_WORLD = Path("results/runs/main/h9/rules/w1000")

CELLS = [cell_system(d, r) for d in ("source", "audit", "append") for r in ("0", "1", "check")]
AUDITED = [audited_system(s, v) for s in ("bm25", "holdmem-d1-audit", "mine") for v in
           ("full", "nogate")]  # fmt: skip
OWN = ["mine", "pm-d1-source-ext", "pm-d1-audit-noext", "holdmem", "holdmem-audit", "lightrag"]


@pytest.mark.parametrize(
    ("systems", "job"),
    [(CELLS, layout.CELLS_JOB), (list(BASELINES), layout.BASELINES_JOB),
     (AUDITED, layout.AUDIT_JOB), (OWN, None)],
)  # fmt: skip
def test_each_system_is_in_its_jobs_folder_or_its_own(systems: list[str], job: str | None):
    for system in systems:
        assert layout.answers_job(system) == job, system
        folder = layout.system_dir(RUN_WORLD, "del", system)
        base = RUN_WORLD if job is None else layout.job_dir(RUN_WORLD, job)
        assert folder == base / "del" / system


@given(
    st.sampled_from([*CELLS, *BASELINES, *AUDITED, *OWN]),
    st.sampled_from(BRANCHES),
    st.lists(st.sampled_from(["results", "w7", "cells", "audit", "x y"]), max_size=4),
)
def test_an_answers_table_names_its_run_world_branch_and_system(
    system: str, branch: str, parts: list[str]
):
    run_world = Path(*parts, "w1000")
    answers = layout.table(layout.system_dir(run_world, branch, system), layout.ANSWERS)
    assert layout.answers_of(answers) == (run_world, branch, system)


def test_a_jobs_folder_lists_its_systems_answers_and_nothing_else(tmp_path: Path):
    cells = layout.job_dir(tmp_path, layout.CELLS_JOB)
    for branch in ("src", "def"):
        for cell in CELLS[:2]:
            table = layout.table(layout.system_dir(tmp_path, branch, cell), layout.ANSWERS)
            table.parent.mkdir(parents=True)
            table.write_bytes(b"")
    (cells / "src" / CELLS[0] / "calls-reader.parquet").write_bytes(b"")
    (cells / "answers.parquet").write_bytes(b"")
    found = layout.job_answers(cells)
    assert [layout.answers_of(p)[1:] for p in found] == [
        (branch, cell) for branch in ("def", "src") for cell in sorted(CELLS[:2])
    ]
