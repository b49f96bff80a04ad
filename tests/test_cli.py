"""The memshift command as a user runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from memshift.errors import ConfigError
from memshift.intake.reading import schema_default
from memshift.stages.specs import (
    AnswerAuditJob,
    AuditRepairJob,
    CustomProbeJob,
    ExportJob,
    ImportRunJob,
    IngestJob,
    ModelAccess,
    PreforkJob,
    ProbeJob,
    SwitchJob,
    SwitchScoreJob,
    WorldJob,
)
from test_system_names import run_memshift

ROOT = Path(__file__).resolve().parents[1]
READ_SET = schema_default("consent.read_set")
RULES = ModelAccess(
    {role: "rules" for role in ("writer", "program", "reader", "auditor")},
    ROOT / "config/models.yaml",
    None,
)


def memshift(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memshift.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def test_stages_write_their_artifacts(tmp_path):
    world_dir = tmp_path / "w3"
    assert memshift("world", "--seed", "3", "--out", str(world_dir)).returncode == 0
    for stage in ("branches", "gold", "probes"):
        # named out of order: del's gold reads none's, which the command makes first
        run = memshift(stage, "--world-dir", str(world_dir), "--branch", "del", "--branch", "none")
        assert run.returncode == 0, run.stderr
        assert [line.split()[1].rstrip(":") for line in run.stderr.splitlines()] == ["none", "del"]
    run = memshift("manifest", "--world-dir", str(world_dir), "--branches", "none,del")
    assert run.returncode == 0, run.stderr
    probes = pq.read_table(world_dir / "probes-del.parquet")
    assert probes.num_rows > 48
    assert (world_dir / "manifest.json").exists()


def world_job(seed: int, out: Path, branches: tuple[str, ...]) -> WorldJob:
    """The study's world job of a default world."""
    history, definitions = (
        schema_default(f"worlds.{k}") for k in ("history_months", "definitions")
    )
    return WorldJob(seed, out, history, definitions, branches)


def test_the_world_job_writes_what_the_five_stages_write_byte_for_byte(tmp_path):
    """The study's world job (one process) against the stages run one command each."""
    apart, together = tmp_path / "apart", tmp_path / "together"
    assert memshift("world", "--seed", "3", "--out", str(apart)).returncode == 0
    for stage in ("branches", "gold", "probes"):
        run = memshift(stage, "--world-dir", str(apart), "--branch", "none", "--branch", "del")
        assert run.returncode == 0, run.stderr
    assert memshift("manifest", "--world-dir", str(apart), "--branches", "none,del").returncode == 0
    run = memshift("job", "world", world_job(3, together, ("del", "none")).to_json())
    assert run.returncode == 0, run.stderr
    names = sorted(p.name for p in apart.iterdir())
    assert names == sorted(p.name for p in together.iterdir())
    assert "manifest.json" in names and "probes-del.parquet" in names
    assert all((apart / n).read_bytes() == (together / n).read_bytes() for n in names)


def one_line_error(run: subprocess.CompletedProcess[str]) -> str:
    assert run.returncode != 0
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    return lines[-1]


def test_unknown_branch_lists_the_choices(tmp_path):
    line = one_line_error(memshift("gold", "--world-dir", str(tmp_path), "--branch", "bogus"))
    assert "'bogus' is not one of 'none', 'src', 'def', 'del', 'cons', 'conflict'" in line


def test_bad_seed_range_is_named():
    line = one_line_error(memshift("stats", "--seeds", "1000:1019"))
    assert "'1000:1019' is not a seed, a range 'A-B' or a split name" in line


def test_a_missing_world_is_an_error_not_a_traceback(tmp_path):
    run = memshift("branches", "--world-dir", str(tmp_path / "nowhere"), "--branch", "src")
    assert run.returncode == 2
    assert run.stderr.strip().startswith("memshift: error: missing artifact")
    assert "Traceback" not in run.stderr


EXPLAIN = ("--branch", "none", "--system", "bm25", "--item", "x", "--checkpoint", "0")


@pytest.mark.parametrize(
    "args",
    [
        ("world", "--seed", str(2**31), "--out", "w"),
        ("world", "--seed", str(2**64), "--out", "w"),
        ("world", "--seed", "-1", "--out", "w"),
        ("validation-report", "--writers", "a,b", "--seed", str(2**40)),
        (
            "explain",
            "--world",
            str(2**33),
            "--system",
            "bm25",
            *("--item", "x", "--checkpoint", "0"),
        ),
    ],
)
def test_a_seed_outside_int32_is_one_line_naming_the_option(tmp_path, args):
    run = memshift(*args, cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    line = one_line_error(run)
    assert "'--seed'" in line or "'--world'" in line
    assert "is not in the range 0<=x<=2147483647" in line
    assert not (tmp_path / "w").exists()


def custom_job(tmp_path: Path, spec: str) -> CustomProbeJob:
    """A custom system's probe job on a world that is not there."""
    return CustomProbeJob(
        tmp_path / "w", tmp_path / "r", ("none",), "mine", spec, False, "wordllama", None, RULES
    )


@pytest.mark.parametrize("spec", ["os:abort", "os:system", "builtins:object", "nosuch_xyz:M"])
def test_a_custom_system_spec_is_checked_before_anything_runs(monkeypatch, capsys, tmp_path, spec):
    job = custom_job(tmp_path, spec).to_json()
    line = run_memshift(monkeypatch, capsys, "job", "probe_custom", job)
    assert "the probe_custom job's spec.spec: " in line
    assert not any(tmp_path.iterdir())


def job_spec(tmp_path: Path, stage: str, **fields: object) -> str:
    """A spec of `stage` with `fields`, as JSON (worlds and runs that are not there)."""
    common = {"worlds": tmp_path / "w", "runs": tmp_path / "r", "seeds": (1000,)}
    specs = {
        "switch": lambda: SwitchJob(
            **common, name="s", old="rules", new="rules-copy", cells=fields.pop("cells"),
            reuse_prefork=False, access=RULES,
        ),
        "switch_score": lambda: SwitchScoreJob(
            **common, switches=fields.pop("switches"), calibration=(900,),
            cells=("holdmem-d0-source",), scores=tmp_path / "a", agreement=tmp_path / "b",
        ),
        "export": lambda: ExportJob(
            tmp_path / "w", tmp_path / "r", fields.pop("detection"), "1", "ext", RULES,
            tmp_path / "o",
        ),
        "import_run": lambda: ImportRunJob(
            tmp_path / "w", tmp_path / "r", ("none",), fields.pop("system"), False, RULES
        ),
    }  # fmt: skip
    return specs[stage]().to_json()


@pytest.mark.parametrize(
    ("stage", "fields", "problem"),
    [
        ("switch", {"cells": ("holdmem-dq-source",)}, "'holdmem-dq-source' is not a HoldMem cell"),
        ("switch", {"cells": ("holdmem-d0-oracle",)}, "'holdmem-d0-oracle' is not a HoldMem cell"),
        ("export", {"detection": "oracle"}, "spec.detection: 'oracle' is not one of"),
        ("switch_score", {"switches": {"s": ("rules",)}}, "switches.s: ('rules',) is not [from"),
        ("import_run", {"system": "holdmem-d1-source"}, "is not pm-d<D>-<B>-<ext|noext>"),
    ],
)
def test_a_job_spec_a_workflow_would_not_build_is_refused_where_it_is_built(
    tmp_path, stage, fields, problem
):
    with pytest.raises(ConfigError, match=None) as refused:
        job_spec(tmp_path, stage, **fields)
    assert problem in str(refused.value)


@pytest.mark.parametrize(
    ("stage", "fields", "edit", "problem"),
    [
        ("switch", {"cells": ("holdmem-d0-source",)}, ("d0-source", "dq-source"),
         "'holdmem-dq-source' is not a HoldMem cell"),
        ("export", {"detection": "source"}, ('"source"', '"oracle"'),
         "spec.detection: 'oracle' is not one of"),
        ("import_run", {"system": "pm-d1-source-ext"}, ("pm-d1-source-ext", "holdmem-d1-source"),
         "is not pm-d<D>-<B>-<ext|noext>"),
    ],
)  # fmt: skip
def test_the_job_command_refuses_a_spec_in_one_line_naming_the_field(
    monkeypatch, capsys, tmp_path, stage, fields, edit, problem
):
    spec = job_spec(tmp_path, stage, **fields).replace(*edit)
    line = run_memshift(monkeypatch, capsys, "job", stage, spec)
    assert line.startswith("memshift: error: ") and problem in line
    assert not any(tmp_path.iterdir())


def test_a_switch_of_a_missing_world_is_an_error_not_a_traceback(tmp_path):
    spec = job_spec(tmp_path, "switch", cells=("holdmem-d0-source",))
    run = memshift("job", "switch", spec)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.strip().startswith("memshift: error: missing artifact")


@pytest.mark.parametrize(
    ("command", "needs"),
    [
        ("horizons", "`horizons` list"),
        ("heldout", "`definition_sets` list"),
        ("heldout-report", "`definition_sets` list"),
        ("rewritten", "`worlds.rewriter`"),
        ("rewritten-report", "`worlds.rewriter`"),
    ],
)
def test_a_study_of_several_runs_names_what_its_config_lacks(tmp_path, command, needs):
    study = tmp_path / "study.yaml"
    study.write_text("study: plain\nworlds: {seeds: '1000'}\nbranches: [none]\n")
    error = one_line_error(memshift(command, "--configfile", str(study)))
    assert str(study) in error and needs in error


def test_a_failed_run_of_several_stops_with_the_setting_and_how_to_resume(tmp_path):
    study = tmp_path / "study.yaml"
    # a Snakemake option it does not know fails the first run at once
    study.write_text("study: plain\nworlds: {seeds: '1000'}\nbranches: [none]\nhorizons: [1]\n")
    run = memshift("horizons", "--configfile", str(study), "--cores", "1", "--no-such-option")
    assert run.returncode != 0
    assert "the study failed with horizon=1" in run.stderr
    assert "run the same command again" in run.stderr


DETECTIONS, CELLS = ("source", "append"), (("source", "1"), ("append", "m"))
PROBED, AUDITS = ("holdmem-d1-source", "bm25"), (("bm25", "full"), ("holdmem-d1-source", "full"))


def apart_and_together(world: Path, apart: Path, together: Path, branches: tuple[str, ...]):
    """The jobs of a world that cover several systems, in `together` as the study runs them
    (`memshift job`, one call log a job), and in `apart` as their stages run them without a
    job's log (one log per branch and system); each job's log by the name of a system's."""
    from memshift.models.profiles import study_profile
    from memshift.stages import answer_audit, audit_repair, ingest, probe

    rules = study_profile("rules", RULES.models)
    for branch in branches:
        ingest.run_detections(world, apart, branch, DETECTIONS, rules, None)
    for branch in branches:
        audit_repair.run_cells(world, apart, branch, CELLS, rules, None)
    for branch in branches:
        for system in PROBED:
            probe.run(world, apart, branch, system, rules, None, read_set=READ_SET)
    for branch in branches:
        answer_audit.run_audits(world, apart, branch, AUDITS, rules, None, batch=3)
    jobs = {
        "calls": IngestJob(world, together, branches, DETECTIONS, RULES, together / "c1.parquet"),
        "calls-programs": AuditRepairJob(
            world, together, branches, tuple(f"holdmem-d{r}-{d}" for d, r in CELLS), RULES,
            together / "c2.parquet",
        ),
        "calls-reader": ProbeJob(
            world, together, branches, PROBED, (), READ_SET, "wordllama", None, RULES,
            together / "c3.parquet",
        ),
        "calls-auditor": AnswerAuditJob(
            world, together, branches, tuple(f"{s}+audit" for s, _ in AUDITS), 3, RULES,
            together / "c4.parquet",
        ),
    }  # fmt: skip
    for spec in jobs.values():
        run = memshift("job", spec.stage, spec.to_json())
        assert run.returncode == 0, run.stderr
    return {name: spec.calls for name, spec in jobs.items()}


# every system of a world run twice, about 20 s: `make test-studies`, in CI
@pytest.mark.studies
def test_a_job_call_log_holds_every_call_its_systems_would_log_apart(tmp_path):
    """A job's call log: the same model calls as a log per branch and system, in one file whose
    rows name their branch and system, and every other output byte for byte as without it."""
    world = tmp_path / "w3"
    branches = ("none", "del")
    run = memshift("job", "world", world_job(3, world, branches).to_json())
    assert run.returncode == 0, run.stderr
    apart, together = tmp_path / "apart", tmp_path / "together"
    for run_dir in (apart, together):
        run = memshift("job", "prefork", PreforkJob(world, run_dir, RULES).to_json())
        assert run.returncode == 0, run.stderr
    logs = apart_and_together(world, apart, together, branches)

    # latency is the clock's, and a prefix cache's hits depend on which calls share the cache
    # (one per log): a log per system replays fewer prompts before each; a request is a repeat
    # (served from the log's first reply to it, not sent, not replayed) when a call of the same
    # log made it before, so one log for the job finds more repeats than a log per system
    unshared = ("latency_ms", "prefix_hit_tokens", "cache_hit", "attempts", "prompt_tokens")

    def without_latency(rows: list[dict]) -> list[dict]:
        return [{k: v for k, v in row.items() if k not in unshared} for row in rows]

    def calls(path: Path) -> list[dict]:
        return without_latency(pq.read_table(path).to_pylist())

    per_system = sorted(
        p.relative_to(apart) for p in apart.rglob("calls*.parquet") if p.parent != apart
    )
    assert len(per_system) == 2 * (2 + 2 + 2 + 2)  # branches x (systems of each job)
    assert not [p for p in together.rglob("calls*.parquet") if p.parent != together]
    for name, log in logs.items():
        rows = calls(log)
        logged_apart = [
            row
            for branch in ("none", "del")
            for path in per_system
            if path.parts[-3] == branch and path.stem == name
            for row in calls(apart / path)
        ]
        assert rows and sorted(map(repr, rows)) == sorted(map(repr, logged_apart)), name
        assert {r["branch"] for r in rows} == {"none", "del"}
        repeats = pq.read_table(log).column("cache_hit")
        apart_repeats = sum(
            sum(pq.read_table(apart / path).column("cache_hit").to_pylist())
            for path in per_system
            if path.stem == name
        )
        assert sum(repeats.to_pylist()) >= apart_repeats, name
    outputs = sorted(
        p.relative_to(apart) for p in apart.rglob("*") if p.is_file() and p.suffix == ".parquet"
    )
    for path in outputs:
        if not path.name.startswith("calls"):
            assert (apart / path).read_bytes() == (together / path).read_bytes(), path
    assert calls(apart / "calls-prefork.parquet") == calls(together / "calls-prefork.parquet")


# a command's option that a study's setting also sets, and that setting's key
SETTINGS_OF_OPTIONS = {
    ("world", "history_months"): "worlds.history_months",
    ("world", "definitions"): "worlds.definitions",
}


@pytest.mark.parametrize(("command", "option"), sorted(SETTINGS_OF_OPTIONS))
def test_a_commands_default_is_the_studys_default(command, option):
    """Run by hand, a stage does what the study's default would have it do (answer-audit's
    --batch once defaulted to 1 where a study audits 3 answers a call; a job is given the
    study's every setting in its spec)."""
    from memshift.cli import cli

    params = {p.name: p for p in cli.commands[command].params}
    default = params[option].default
    assert str(default) == str(schema_default(SETTINGS_OF_OPTIONS[(command, option)]))
