"""A workflow job's spec (`memshift job STAGE SPEC`): what the workflow builds is what the job
reads back, and a spec that is not one is refused in one line naming the field."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memshift.errors import MemshiftError
from memshift.probes.sample import ProbeSample
from memshift.stages.specs import (
    JOBS,
    AuditRepairJob,
    IngestJob,
    JoinScoresJob,
    ModelAccess,
    ReportJob,
    ScoreJob,
    WorldJob,
)
from memshift.vocabulary import BRANCHES, DETECTIONS, MAX_SEED
from test_system_names import run_memshift

ACCESS = ModelAccess({"writer": "rules", "auditor": "local"}, Path("config/models.yaml"), None)
INGEST = IngestJob(
    Path("results/worlds/w1000"), Path("results/runs/main/h9/rules/w1000"), ("none", "del"),
    ("source", "append"), ACCESS, Path("calls-ingest.parquet"), ProbeSample(2, 3, 7),
)  # fmt: skip
PATHS = st.text(st.characters(blacklist_characters="\x00", codec="utf-8"), min_size=1).map(Path)


def memshift(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memshift.cli", *args], capture_output=True, text=True, check=False
    )


@given(
    world=PATHS,
    branches=st.lists(st.sampled_from(BRANCHES), max_size=4).map(tuple),
    detections=st.lists(st.sampled_from(DETECTIONS), max_size=3).map(tuple),
    cache=st.none() | PATHS,
    sample=st.none() | st.builds(ProbeSample, st.integers(1, 9), st.none() | st.integers(1, 9)),
)
def test_a_spec_reads_back_as_the_value_the_workflow_built(
    world, branches, detections, cache, sample
):
    access = ModelAccess({"writer": "rules"}, world, cache)
    spec = IngestJob(world, world / "run", branches, detections, access, world / "c", sample)
    assert IngestJob.from_json(spec.to_json()) == spec


def test_every_stage_names_a_runner_that_exists():
    from importlib import import_module

    for stage, spec in JOBS.items():
        module, _, name = spec.runner.partition(":")
        assert callable(getattr(import_module(module), name)), stage


def edited(spec_json: str, **changes: object) -> str:
    data = json.loads(spec_json)
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("not json", "the ingest job's spec is not valid JSON"),
        ("[1, 2]", "the ingest job's spec is not a JSON object"),
        ('{"world": "a", "world": "b"}', "the key 'world' appears twice in one object"),
        ("[" * 200 + "]" * 200, "nests arrays and objects deeper than 64 levels"),
        ("x" * (2 << 20), "characters, over 1,048,576"),
        (edited(INGEST.to_json(), shell="rm -rf /"), "unknown field 'shell'"),
        (edited(INGEST.to_json(), calls=None), "spec.calls: None is not a path"),
        (edited(INGEST.to_json(), world=""), "spec.world: '' is not a path"),
        (edited(INGEST.to_json(), world="a\x00b"), "is not a path"),
        (edited(INGEST.to_json(), branches="none"), "spec.branches: 'none' is not a list"),
        (edited(INGEST.to_json(), branches=["none", "$(reboot)"]), "'$(reboot)' is not one of"),
        (edited(INGEST.to_json(), detections=["append", 3]), "spec.detections[1]: 3 is not a"),
        (edited(INGEST.to_json(), sample={"items": True}), "spec.sample.items: True is not an"),
        (edited(INGEST.to_json(), sample={"items": 0}), "probes.sample.items: 0 is not an"),
        (
            edited(INGEST.to_json(), access={"roles": {"judge": "x"}, "models": "m", "cache": "c"}),
            "access.roles: 'judge' is not one of",
        ),
        (json.dumps({k: v for k, v in json.loads(INGEST.to_json()).items() if k != "calls"}),
         "the field 'calls' is missing"),
    ],
)  # fmt: skip
def test_a_spec_that_is_not_one_is_refused_naming_the_field(text, problem):
    with pytest.raises(MemshiftError) as refused:
        IngestJob.from_json(text)
    assert problem in str(refused.value)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(
    ("stage", "spec", "problem"),
    [
        ("nosuch", "{}", "no job stage 'nosuch'; the stages are world, rewrite, prefork"),
        (
            "world",
            json.dumps(
                {
                    "seed": MAX_SEED + 1,
                    "out": "w",
                    "history_months": 9,
                    "definitions": "fixed",
                    "branches": ["none"],
                }
            ),
            f"spec.seed: {MAX_SEED + 1} is outside 0..{MAX_SEED}",
        ),
        (
            "audit_repair",
            AuditRepairJob(
                INGEST.world, INGEST.run, ("none",), ("holdmem-d1-source",), ACCESS, INGEST.calls
            )
            .to_json()
            .replace("holdmem-d1-source", "holdmem-dq-source"),
            "spec.cells: 'holdmem-dq-source' is not a HoldMem cell",
        ),
        ("score", json.dumps({"world": 1}), "the field 'answers' is missing"),
    ],
)
def test_the_job_command_refuses_a_bad_spec_in_one_line(
    tmp_path, monkeypatch, capsys, stage, spec, problem
):
    monkeypatch.chdir(tmp_path)
    line = run_memshift(monkeypatch, capsys, "job", stage, spec)
    assert line.startswith("memshift: error:") and problem in line
    assert not any(tmp_path.iterdir())


def test_a_refusal_is_one_line_and_exit_status_2_from_the_installed_command():
    run = memshift("job", "score", json.dumps({"world": 1}))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.strip() == (
        "memshift: error: the score job's spec: the field 'answers' is missing"
    )


def test_a_spec_built_with_a_value_its_job_would_refuse_fails_where_it_is_built():
    with pytest.raises(MemshiftError, match=r"spec.history_months: '9' is not an integer"):
        WorldJob(1000, Path("w"), "9", "fixed", ("none",))  # type: ignore[arg-type]
    with pytest.raises(MemshiftError, match=r"spec.parts\[0\]: 3 is not a path"):
        JoinScoresJob((3,), Path("o"))  # type: ignore[arg-type]
    with pytest.raises(MemshiftError, match=r"spec.stores: 5 is not a path"):
        ScoreJob(1, (), Path("w"), Path("o"), Path("f"), (), 5)  # type: ignore[arg-type]


def report_job(**changes: object) -> str:
    spec = ReportJob(
        Path("s.parquet"), (), Path("w"), Path("r"), "rules", ACCESS, "t", 1000, 0, 0.05
    )
    return edited(spec.to_json(), **changes)


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"seed": MAX_SEED + 1}, f"spec.seed: {MAX_SEED + 1} is outside 0..{MAX_SEED}"),
        ({"draws": 0}, "spec.draws: 0 is not 1 or more"),
        ({"max_failure_share": 1.5}, "spec.max_failure_share: 1.5 is not in [0, 1]"),
        ({"max_failure_share": "0.1"}, "spec.max_failure_share: '0.1' is not a number"),
        ({"switch_pools": {"p": "a,b"}}, "spec.switch_pools.p: 'a,b' is not a list"),
    ],
)
def test_the_report_job_refuses_a_setting_out_of_bounds_in_one_line(
    monkeypatch, capsys, changes, problem
):
    line = run_memshift(
        monkeypatch, capsys, "job", "report", report_job(**changes), "--threads", "2"
    )
    assert problem in line
