"""A study on a real model: llama.cpp's OpenAI-compatible server with SmolLM2-135M-Instruct on
this machine's CPU, started by `memshift serve-study` as a user would, every role checked on it,
then the slice study (config/studies/real-model.yaml) with all four roles on the model, from the
world to the report. What is asserted holds for any model: every call a valid reply or a counted
failure, the report's failures equal to the call logs', the identity Update = (1-m)r + ma on
every measured group, and the stored values scored; not the model's accuracy. The figures of the
run are written to results/real-model-figures.json for docs/models.md.

Needs the server built (servers/llama-cpp/install.sh; `make test-real-model` runs both)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from memshift.analysis.plan import ALL
from memshift.models.profiles import load_profile
from memshift.models.replies import FAILURES
from pipeline.test_snakemake import job_env, run_of, workflow_copy

ROOT = Path(__file__).resolve().parents[2]
SERVER_VENV = ROOT / ".venv-llama"
MEMSHIFT = Path(sys.executable).with_name("memshift")
ROLES = {"writer", "reader", "program", "auditor"}
FIGURES = ROOT / "results" / "real-model-figures.json"

pytestmark = pytest.mark.real_model


def study() -> dict:
    config = yaml.safe_load((ROOT / "config/studies/real-model.yaml").read_text())
    return {**config, "results": "results"}


def call_rows(run: Path) -> list[dict]:
    logs = sorted(run.glob("w*/**/calls*.parquet"))
    assert logs, f"no call logs under {run}"
    return [row for log in logs for row in pq.read_table(log).to_pylist()]


def table(run: Path, name: str) -> list[dict]:
    return pq.read_table(run / "report" / "tables" / f"{name}.parquet").to_pylist()


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str], float]:
    assert (SERVER_VENV / "bin" / "python").exists(), (
        "llama.cpp's server is not built: run servers/llama-cpp/install.sh (make test-real-model)"
    )
    where = workflow_copy(tmp_path_factory.mktemp("real") / "study", study())
    # the preset's command names the server under the working directory ({root})
    (where / ".venv-llama").symlink_to(SERVER_VENV)
    # as a user would: the plan first (the study's rule-based run, then its requests priced on
    # the model's profile), so the run's report sets it beside the spend
    planned = subprocess.run(
        [str(MEMSHIFT), "plan", "--configfile", "study.yaml", "--cores", "2"],
        cwd=where, capture_output=True, text=True, timeout=900, env=job_env(),
    )  # fmt: skip
    assert planned.returncode == 0, planned.stderr[-4000:]
    began = time.monotonic()
    done = subprocess.run(
        [
            str(MEMSHIFT), "serve-study", "llama-cpp-smollm2", "--configfile", "study.yaml",
            "--cores", "2", "--no-check",
        ],
        cwd=where, capture_output=True, text=True, timeout=1500, env=job_env(),
    )  # fmt: skip
    return where, done, time.monotonic() - began


def test_every_role_is_checked_and_the_study_finishes(served):
    """The check runs each role on the model (a tiny model fails some of them: the study runs
    all the same, with --no-check, and counts what fails)."""
    where, done, _ = served
    assert done.returncode == 0, done.stderr[-4000:]
    checked = [line.split()[0] for line in done.stderr.splitlines() if "json_object" in line]
    assert set(checked) >= ROLES, done.stderr[-4000:]
    assert " of 4 roles work" in done.stderr
    assert (where / run_of(study(), "smollm2") / "report" / "report.md").exists()
    assert "memshift: stopped llama-cpp-smollm2" in done.stderr


def test_every_call_is_a_reply_or_a_counted_failure_and_the_report_counts_them(served):
    where, _, wall = served
    run = where / run_of(study(), "smollm2")
    rows = call_rows(run)
    by_role = Counter(r["role"] for r in rows)
    assert set(by_role) >= ROLES, by_role
    assert {(r["backend"], r["model"]) for r in rows} == {("openai", "smollm2")}
    failed = Counter(r["failure"] for r in rows if r["failure"])
    assert set(failed) <= set(FAILURES), failed
    spent = [r for r in rows if not r["cache_hit"]]
    # every reply that arrived was counted by the server's own tokenizer
    assert all(r["tokens_in"] > 0 for r in spent if r["failure"] != "context_overflow")
    calls = table(run, "calls")
    assert sum(r["failures"] for r in calls) == sum(failed.values())
    assert sum(r["calls"] for r in calls) == len(rows)
    failures = table(run, "failures")
    assert failures, "the report has no failures table"

    measures = table(run, "measures")
    answered = {r["system"] for r in measures if r["measure"] == "update" and r["n"]}
    assert {"holdmem-dm-oracle", "holdmem-dm-oracle+audit"} <= answered, answered
    groups = identity_groups(measures)
    assert groups, "no group with Update and m measured"
    for key, parts in groups.items():
        # Update's right answers are those of the detected (r) and the missed (a) item-times,
        # and every missed one is one of a's: the identity in whole numbers
        assert parts["update"] == (parts["r"][0] + parts["a"][0], parts["m"][1]), key
        assert parts["m"][0] == parts["a"][1], key
    stored = [
        r for r in measures
        if r["measure"] in ("r_store", "a_store") and r["system"] == "holdmem-dm-oracle" and r["n"]
    ]  # fmt: skip
    assert stored, "the stored values were not scored"

    plan = {
        r["role"]: r for r in pq.read_table(run / "plan.parquet").to_pylist() if r["stage"] == ALL
    }
    assert "| role | calls planned | calls made |" in (run / "report" / "report.md").read_text()
    against_plan = {
        role: {
            "calls": [plan[role]["calls"], sum(1 for r in rows if r["role"] == role)],
            "tokens_in": [
                plan[role]["tokens_in"],
                sum(r["tokens_in"] for r in rows if r["role"] == role),
            ],
            "tokens_out": [
                plan[role]["tokens_out"],
                sum(r["tokens_out"] for r in rows if r["role"] == role),
            ],
        }
        for role in plan
        if role != ALL
    }
    FIGURES.parent.mkdir(parents=True, exist_ok=True)
    headline = {
        (r["system"], r["branch"], r["measure"]): r
        for r in measures
        if r["item_class"] == "all" and r["cause"] == "all"
    }
    FIGURES.write_text(
        json.dumps(
            {
                "wall_s": round(wall, 1),
                "calls_by_role": dict(sorted(by_role.items())),
                "failures_by_reason": dict(sorted(failed.items())),
                "tokens_in": sum(r["tokens_in"] for r in spent),
                "tokens_out": sum(r["tokens_out"] for r in spent),
                "planned_against_made": against_plan,
                "measures": {
                    f"{s} {b} {m}": [row["estimate"], row["numerator"], row["n"]]
                    for (s, b, m), row in sorted(headline.items())
                    if m in ("update", "m", "r", "a", "r_store", "stability")
                },
            },
            indent=2,
        )
    )


def identity_groups(measures: list[dict]) -> dict[tuple, dict[str, tuple[int, int]]]:
    """(numerator, n) of Update, m, r and a of every group where Update and m are measured."""
    found: dict[tuple, dict[str, tuple[int, int]]] = {}
    for r in measures:
        if r["measure"] in ("update", "m", "r", "a"):
            key = (r["system"], r["branch"], r["item_class"], r["cause"])
            found.setdefault(key, {})[r["measure"]] = (r["numerator"], r["n"])
    return {
        key: parts
        for key, parts in found.items()
        if len(parts) == 4 and parts["update"][1] and parts["m"][1]
    }


def test_mem0_whose_prompts_cannot_fit_is_refused_before_anything_runs(served):
    where, _, _ = served
    config = study()
    config["systems"]["native"] = {
        "mem0": {
            "library": "mem0",
            "profile": "smollm2",
            "embedder_model": "smollm2",
            "embedding_dims": 576,
        }
    }
    (where / "mem0.yaml").write_text(yaml.safe_dump(config))
    done = subprocess.run(
        [str(MEMSHIFT.with_name("snakemake")), "--configfile", "mem0.yaml", "--cores", "1", "-n"],
        cwd=where, capture_output=True, text=True, timeout=300, env=job_env(),
    )  # fmt: skip
    assert done.returncode != 0
    said = done.stdout + done.stderr
    window = load_profile(where / "config" / "models.yaml", "smollm2").context_length
    assert window is not None
    assert "systems.native.mem0" in said and f"context_length {window:,}" in said, said[-3000:]
