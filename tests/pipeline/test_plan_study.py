"""`memshift plan` on a small study, as a user runs it in a fresh workflow: it runs the study with
the rule-based backend, and its calls and tokens are what that run's call logs record (exactly
on the rules profile; x token_ratio per call on another); bad input is refused in one line."""

from __future__ import annotations

import math
import subprocess
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from memshift.analysis.plan import ALL, stage_of
from memshift.models.profiles import load_profile
from memshift.report.doc_sources import markdown_tables
from pipeline.test_snakemake import (
    memshift_command,
    run_of,
    snakemake,
    workflow_copy,
)
from pipeline.test_snakemake import planned as dry_run_jobs

# `memshift plan` runs the study whole first: in make test-studies, beside make test's ten minutes
pytestmark = pytest.mark.studies

STUDY = {
    "study": "tiny",
    "results": "results",
    "worlds": {"seeds": "1000", "history_months": 1},
    "branches": ["src"],
    "llm": "rules",
    "systems": {
        "holdmem": {"detections": ["audit"], "repairs": ["m"], "extra_cells": []},
        "baselines": ["bm25"],
        "answer_audit": ["holdmem-dm-audit"],
        "unshifted_all_items": [],
    },
    "probes": {"sample": {"items": 1, "item_times": 2, "seed": 0}},
    "report": {"draws": 50},
}
TARGET = "qwen3.5-9b"


COLUMNS = ["role", "tokens_in", "tokens_out", "cache_hit"]


def logged(run: Path) -> list[dict]:
    logs = sorted(run.glob("w*/**/calls*.parquet"))
    return [
        {**row, "stage": stage_of(log)}
        for log in logs
        for row in pq.read_table(log, columns=COLUMNS).to_pylist()
    ]


def plan_rows(where: Path, llm: str) -> dict[tuple[str, str], dict]:
    rows = pq.read_table(where / run_of({**STUDY, "llm": llm}, llm) / "plan.parquet").to_pylist()
    return {(r["stage"], r["role"]): r for r in rows}


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:
    where = workflow_copy(tmp_path_factory.mktemp("plan") / "study", STUDY)
    done = memshift_command(where, None, "plan", "--configfile", "study.yaml", "--cores", "2")
    assert done.returncode == 0, done.stderr[-4000:]
    return where, done


def test_the_plan_counts_what_the_rules_run_then_logged(planned):
    where, done = planned
    calls = logged(where / run_of(STUDY))
    assert {c["role"] for c in calls} >= {"writer", "reader", "auditor"}
    rows = plan_rows(where, "rules")
    per_line = Counter((c["stage"], c["role"]) for c in calls)
    for key, n in per_line.items():
        assert rows[key]["calls"] == n, key
        mine = [c for c in calls if (c["stage"], c["role"]) == key]
        assert rows[key]["tokens_in"] == sum(c["tokens_in"] for c in mine), key
        assert rows[key]["tokens_out"] == sum(c["tokens_out"] for c in mine), key
        sent = [c for c in mine if not c["cache_hit"]]
        assert rows[key]["calls_sent"] == len(sent), key
        assert rows[key]["tokens_in_sent"] == sum(c["tokens_in"] for c in sent), key
    # the study's jobs repeat requests (two audited systems, the branches' pre-fork questions)
    assert 0 < rows[ALL, ALL]["calls_sent"] < rows[ALL, ALL]["calls"]
    for role in {c["role"] for c in calls}:
        assert rows[ALL, role]["calls"] == sum(n for (_, r), n in per_line.items() if r == role)
    assert rows[ALL, ALL]["calls"] == len(calls)
    # the table on stdout, its total line with the same count
    sent = sum(not c["cache_hit"] for c in calls)
    assert f"| all | all | {len(calls):,} | {sent:,} |" in done.stdout


def test_on_another_profile_tokens_follow_its_token_ratio_and_reply_limit(planned):
    where, _ = planned
    done = memshift_command(
        where, None, "plan", "--configfile", "study.yaml", "--llm", TARGET, "--no-run",
        "--price-in", "0.2", "--price-out", "0.6",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    profile = load_profile(where / "config" / "models.yaml", TARGET)
    calls = logged(where / run_of(STUDY))
    total = plan_rows(where, TARGET)[ALL, ALL]
    assert total["calls"] == len(calls)
    # each prompt capped at the room the profile's window leaves it, then on its token ratio
    room = {c["role"]: profile.prompt_room(c["role"]) for c in calls}
    assert total["tokens_in"] == sum(
        math.ceil(min(c["tokens_in"], room[c["role"]] or c["tokens_in"]) * profile.token_ratio)
        for c in calls
    )
    assert total["tokens_out_limit"] == sum(profile.reply_tokens(c["role"]) for c in calls)
    # the dollars are of what a first run sends: every request but the jobs' repeats
    sent = [c for c in calls if not c["cache_hit"]]
    assert total["tokens_in_sent"] == sum(
        math.ceil(min(c["tokens_in"], room[c["role"]] or c["tokens_in"]) * profile.token_ratio)
        for c in sent
    )
    expected = (total["tokens_in_sent"] * 0.2 + total["tokens_out_sent"] * 0.6) / 1e6
    assert total["usd"] == pytest.approx(expected)
    assert (where / run_of(STUDY, TARGET) / "plan.json").exists()


def test_the_report_sets_the_plan_beside_the_spend_once_there_is_a_plan(planned):
    where, _ = planned
    # the plan ran the study before it was written; the next run redoes the report alone
    assert set(dry_run_jobs(where)) <= {"report", "run_manifest", "failures_gate", "all"}
    done = snakemake(where)
    assert done.returncode == 0, done.stderr[-3000:]
    report = (where / run_of(STUDY) / "report" / "report.md").read_text()
    (table,) = [
        t for t in markdown_tables(report) if t[0][:3] == ["role", "calls planned", "calls made"]
    ]
    header, *rows = table
    by_role = {row[0]: dict(zip(header, row, strict=True)) for row in rows}
    calls = logged(where / run_of(STUDY))
    # on the rules profile the plan is the run's own calls: nothing off the plan
    assert by_role[ALL]["calls made"] == by_role[ALL]["calls planned"] == f"{len(calls):,}"
    for role in {c["role"] for c in calls}:
        assert by_role[role]["in, off the plan"] == "+0.0%", role
        assert by_role[role]["out, off the plan"] == "+0.0%", role


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--llm", "no-such-model"], "no-such-model"),
        (["--throughput-in", "-3"], "--throughput-in"),
        (["--price-in", "nan", "--price-out", "1"], "--price-in"),
        (["--throughput-out", "0"], "--throughput-out"),
    ],
)
def test_bad_input_is_refused_in_one_line(planned, args, says):
    where, _ = planned
    done = memshift_command(where, None, "plan", "--configfile", "study.yaml", "--no-run", *args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], done.stderr


def test_a_study_that_fails_its_check_is_refused_in_one_line(planned):
    where, _ = planned
    (where / "bad.yaml").write_text("study: tiny\nbranches: [nope]\n")
    done = memshift_command(where, None, "plan", "--configfile", "bad.yaml", "--no-run")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "branches" in lines[0], done.stderr
