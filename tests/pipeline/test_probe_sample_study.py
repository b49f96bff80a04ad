"""A slice of a study (probes.sample) run as a user runs it: one world of one month, beside the
same study unsampled. The slice asks and maintains the drawn items only, so its writer, auditor
and reader calls fall with them; its report says it is a sample."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from memshift.probes.sample import ProbeSample, sampled_items
from memshift.vocabulary import ALWAYS_ABSTAIN, FLOORS, FROZEN_AT_FORK
from memshift.world.generate import generate_world
from memshift.world.timeline import Timeline
from pipeline.test_snakemake import jobs_of, run_of, snakemake, workflow_copy

# two studies of one world each, run whole: in make test-studies, beside make test's ten minutes
pytestmark = pytest.mark.studies

WHOLE = {
    "study": "whole",
    "results": "results",
    "worlds": {"seeds": "1000", "history_months": 1},
    "branches": ["src"],
    "llm": "rules",
    "systems": {
        "holdmem": {"detections": ["audit"], "repairs": ["m"], "extra_cells": []},
        "baselines": ["bm25"],
        "answer_audit": [],
        "unshifted_all_items": [],
    },
    "report": {"draws": 50},
}
SLICE = {**WHOLE, "study": "slice", "probes": {"sample": {"items": 2, "item_times": 6, "seed": 0}}}


def calls_by_role(run: Path) -> Counter[str]:
    logs = sorted(run.glob("w*/**/calls*.parquet"))
    assert logs, f"no call logs under {run}"
    return Counter(r for log in logs for r in pq.read_table(log).column("role").to_pylist())


def answered(run: Path) -> list[dict]:
    tables = sorted(run.glob("w*/**/answers.parquet"))
    assert tables
    return [row for t in tables for row in pq.read_table(t).to_pylist()]


@pytest.fixture(scope="module")
def studies(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = workflow_copy(tmp_path_factory.mktemp("sample") / "study", SLICE)
    (where / "whole.yaml").write_text(yaml.safe_dump(WHOLE))
    for configfile in ("study.yaml", "whole.yaml"):
        done = snakemake(where, configfile=configfile)
        assert done.returncode == 0, done.stderr[-4000:]
    return where


def test_the_slice_calls_the_model_for_its_items_share(studies):
    whole = calls_by_role(studies / run_of(WHOLE))
    part = calls_by_role(studies / run_of(SLICE))
    share = 12 / 48  # two items of each of the six classes
    for role in ("writer", "auditor", "reader"):
        assert whole[role] > 0, role
        # the calls fall with the items (the changed ones among them vary by draw); the reader
        # also with the item-times
        assert part[role] <= 1.5 * share * whole[role], (role, part[role], whole[role])
    # the writer writes each drawn item once before the fork
    prefork = pq.read_table(next((studies / run_of(SLICE)).glob("w*/calls-prefork.parquet")))
    assert prefork.num_rows == 12


def test_only_drawn_items_are_answered_at_most_six_item_times_per_branch_and_class(studies):
    drawn = {
        i.item_id
        for i in sampled_items(generate_world(1000, Timeline(1)).items, 1000, ProbeSample(2, 6, 0))
    }
    rows = answered(studies / run_of(SLICE))
    assert {r["item_id"] for r in rows} <= drawn
    assert len({r["item_id"] for r in answered(studies / run_of(WHOLE))}) == 48
    scores = pq.read_table(studies / run_of(SLICE) / "scores.parquet").to_pylist()
    # the unshifted branch is always built, and drawn like any other
    per_class = Counter(
        (system, branch, item_class)
        for system, branch, item_class, _, _ in {
            (s["system"], s["branch"], s["item_class"], s["item_id"], s["checkpoint"])
            for s in scores
        }
    )
    assert per_class and max(per_class.values()) <= 6


def test_the_report_says_it_asked_a_sample(studies):
    text = (studies / run_of(SLICE) / "report" / "report.md").read_text()
    assert "**Sample:** this study asked a sample" in text
    assert "2 items per item class" in text
    assert "at most 6 item-times per branch and item class" in text
    assert "seed 0" in text
    assert "reflects the sample's size" in text
    whole = (studies / run_of(WHOLE) / "report" / "report.md").read_text()
    assert "**Sample:**" not in whole


def test_the_floors_are_asked_what_every_system_is_and_stand_last_in_the_report(studies):
    """The floors answer exactly the probes the study asks a baseline (of the slice, the drawn
    ones); at the fork frozen-at-fork is right exactly where the cell's stored state (the
    pre-fork store) is; the Update table shows both last, marked as floors, and neither ever
    detects a change."""
    for study in (SLICE, WHOLE):
        run = studies / run_of(study)
        scores = pq.read_table(run / "scores.parquet").to_pylist()
        asked = sorted((s["branch"], s["probe_id"]) for s in scores if s["system"] == "bm25")
        assert asked
        for floor in FLOORS:
            mine = sorted((s["branch"], s["probe_id"]) for s in scores if s["system"] == floor)
            assert mine == asked, (study["study"], floor)
        stored = {
            s["probe_id"]: s["store_correct"]
            for s in scores
            if s["system"] == "holdmem-dm-audit" and s["kind"] == "direct" and s["checkpoint"] == 0
        }
        frozen = {
            s["probe_id"]: s["correct"]
            for s in scores
            if s["system"] == FROZEN_AT_FORK and s["kind"] == "direct" and s["checkpoint"] == 0
        }
        assert stored and frozen == stored
        text = (run / "report" / "report.md").read_text()
        update = text[text.index("## Update") : text.index("## Stability")]
        names = [line.split(" | ")[0] for line in update.splitlines() if line.startswith("| ")]
        assert names[-2:] == [f"| {ALWAYS_ABSTAIN} (floor)", f"| {FROZEN_AT_FORK} (floor)"]
        measures = pq.read_table(run / "report" / "tables" / "measures.parquet").to_pylist()
        m = [
            r["estimate"]
            for r in measures
            if r["system"] in FLOORS and r["measure"] == "m" and r["n"]
        ]
        assert m and set(m) == {1.0}
        # a floor is no system whose calls, costs or settings the report judges
        for table in ("failures", "costs", "diagnostics", "inferred"):
            rows = pq.read_table(run / "report" / "tables" / f"{table}.parquet").to_pylist()
            assert not [r for r in rows if r.get("system") in FLOORS], table


def test_a_new_sample_reruns_the_jobs_it_changes_and_no_world_job(studies):
    unchanged = snakemake(studies, "-n")
    assert unchanged.returncode == 0, unchanged.stderr[-3000:]
    assert not jobs_of(unchanged.stdout + unchanged.stderr)
    other = {**SLICE, "probes": {"sample": {"items": 2, "item_times": 6, "seed": 1}}}
    (studies / "other.yaml").write_text(yaml.safe_dump(other))
    dry = snakemake(studies, "-n", configfile="other.yaml")
    assert dry.returncode == 0, dry.stderr[-3000:]
    assert set(jobs_of(dry.stdout + dry.stderr)) == {
        "prefork", "ingest", "audit_repair", "probe_cell", "probe_baselines", "score_world",
        "score", "report", "run_manifest", "failures_gate", "all",
    }  # fmt: skip
