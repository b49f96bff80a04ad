"""A system's name names folders and files of the run, so every name a study or a command is
given follows one rule (lower-case letters, digits, - and _, starting with a letter or digit, at
most 64 characters) and anything else is refused in one line before anything is written."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from memshift import cli
from memshift.config import DEFAULT_CONFIG, check_config, study_config
from memshift.errors import ConfigError
from memshift.intake.reading import config_schema
from memshift.stages.specs import (
    AnswerAuditJob,
    CustomProbeJob,
    ImportRunJob,
    ModelAccess,
    NativeProbeJob,
    PredictionsJob,
    ProbeJob,
)
from memshift.vocabulary import SYSTEM_NAME, SYSTEM_NAME_MAX, system_name_problem

NAMED = ("custom", "native", "predictions")
BAD = {
    "parent": "../outside",
    "deeper": "../../../../tmp/x",
    "slash": "a/b",
    "absolute": "/tmp/x",
    "dot": ".",
    "empty": "",
    "upper": "Mine",
    "space": "my system",
    "newline-after": "mine\n",
    "leading-dash": "-mine",
    "one-over": "a" * (SYSTEM_NAME_MAX + 1),
    "300-characters": "m" * 300,
    "shell": "a;b $(touch x)",
    "audited": "bm25+audit",
}
GOOD = ("mine", "my-system_2", "0", "a" * SYSTEM_NAME_MAX, "holdmem-d1-source", "pm-d1-source-ext")


def test_the_config_schema_names_systems_by_the_one_rule():
    systems = config_schema()["properties"]["systems"]["properties"]
    for kind in NAMED:
        assert systems[kind]["propertyNames"] == {
            "pattern": f"^{SYSTEM_NAME}$",
            "maxLength": SYSTEM_NAME_MAX,
        }


@pytest.mark.parametrize("name", GOOD)
def test_a_system_name_is_taken(name):
    assert system_name_problem(name) is None


def study_with(kind: str, name: str) -> dict:
    config = study_config(DEFAULT_CONFIG, [])
    config["systems"][kind] = {
        name: {"library": "mem0", "profile": "p", "embedder_model": "e", "embedding_dims": 8}
        if kind == "native"
        else "tests.pipeline.custom_memory:NewestRecords"
    }
    return config


@pytest.mark.parametrize("kind", NAMED)
@pytest.mark.parametrize("name", list(BAD.values()), ids=list(BAD))
def test_a_study_refuses_a_system_name_outside_the_rule_in_one_line(kind, name):
    with pytest.raises(ConfigError) as caught:
        check_config(study_with(kind, name))
    line = str(caught.value)
    assert line.startswith(f"config systems.{kind}: ") and "\n" not in line
    assert "does not match" in line or "characters long; at most 64" in line
    assert len(line) < 200


def test_a_long_name_is_refused_naming_its_length_not_repeating_it():
    with pytest.raises(ConfigError) as caught:
        check_config(study_with("custom", "m" * 300))
    assert str(caught.value).endswith("is 300 characters long; at most 64")


def run_memshift(monkeypatch, capsys, *args: str) -> str:
    """`memshift ARGS` in this process, as a user runs it: its exit code must be 2 and its
    error one line, which is returned."""
    monkeypatch.setattr(sys, "argv", ["memshift", *args])
    with pytest.raises(SystemExit) as exited:
        cli.main()
    assert exited.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    return line


@pytest.fixture
def where(tmp_path, monkeypatch) -> Path:
    """A working folder holding a predictions file and a study config, nothing else."""
    inside = tmp_path / "work"
    inside.mkdir()
    (inside / "p.jsonl").write_text('{"probe_id": "w1-0123456789abcdef", "status": "abstain"}\n')
    (inside / "study.yaml").write_text("study: s\n")
    monkeypatch.chdir(inside)
    return inside


def nothing_written(where: Path) -> None:
    assert sorted(p.name for p in where.parent.rglob("*")) == ["p.jsonl", "study.yaml", "work"]


COMMANDS = {
    "score-predictions": ("score-predictions", "p.jsonl", "--configfile", "study.yaml", "--name"),
    "explain": ("explain", "--world", "1", "--item", "person.employer", "--system"),
}  # fmt: skip


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("name", ["../outside", "m" * 300, "a/b", "Mine"])
def test_a_command_refuses_a_system_name_outside_the_rule_before_writing(
    where, monkeypatch, capsys, command, name
):
    line = run_memshift(monkeypatch, capsys, *COMMANDS[command], name)
    option = "--name" if command == "score-predictions" else "--system"
    assert line.startswith(f"memshift: error: {option} ")
    assert "is not a system name" in line and len(line) < 200
    nothing_written(where)


def test_a_path_in_an_imported_memory_name_is_refused(where, monkeypatch, capsys):
    # the imported memory's own pattern takes any detection, slashes included
    text = JOB_SPECS["import_run"](PLACEHOLDER).to_json()
    text = text.replace(PLACEHOLDER, "pm-d1-../../../outside-ext")
    line = run_memshift(monkeypatch, capsys, "job", "import_run", text)
    assert "'pm-d1-../../../outside-ext' is not a system name" in line
    nothing_written(where)


ACCESS = ModelAccess(
    {"writer": "rules", "reader": "rules", "auditor": "rules"}, Path("models.yaml"), None
)
PLACEHOLDER = "pm-d1-source-ext"  # a system name every spec below takes
JOB_SPECS = {
    "probe": lambda name: ProbeJob(
        Path("w1"), Path("run"), ("none",), ("bm25", name), (), "selection", "wordllama", None,
        ACCESS, Path("calls.parquet"),
    ),
    "probe_custom": lambda name: CustomProbeJob(
        Path("w1"), Path("run"), ("none",), name, "m:M", False, "wordllama", None, ACCESS
    ),
    "probe_native": lambda name: NativeProbeJob(
        Path("w1"), Path("run"), ("none",), name, "{}", False, ACCESS
    ),
    "import_run": lambda name: ImportRunJob(
        Path("w1"), Path("run"), ("none",), name, False, ACCESS
    ),
    "predictions": lambda name: PredictionsJob(
        Path("w1"), Path("run"), ("none",), name, Path("p.jsonl")
    ),
    "answer_audit": lambda name: AnswerAuditJob(
        Path("w1"), Path("run"), ("none",), ("bm25+audit", f"{name}+audit"), 3, ACCESS,
        Path("calls.parquet"),
    ),
}  # fmt: skip


@pytest.mark.parametrize("stage", list(JOB_SPECS))
@pytest.mark.parametrize("name", ["../outside", "m" * 300, "a/b", "Mine"])
def test_a_job_refuses_a_system_name_outside_the_rule_before_writing(
    where, monkeypatch, capsys, stage, name
):
    # a spec the workflow would build with the name, as its JSON reaches the job
    text = JOB_SPECS[stage](PLACEHOLDER).to_json().replace(PLACEHOLDER, name)
    line = run_memshift(monkeypatch, capsys, "job", stage, text)
    assert line.startswith(f"memshift: error: the {stage} job's spec.")
    assert "is not a system name" in line and len(line) < 260
    with pytest.raises(ConfigError, match="is not a system name"):
        JOB_SPECS[stage](name)
    nothing_written(where)


def test_a_name_of_65_characters_is_refused_naming_the_bound(where, monkeypatch, capsys):
    name = "a" * (SYSTEM_NAME_MAX + 1)
    line = run_memshift(monkeypatch, capsys, *COMMANDS["score-predictions"], name)
    assert line.endswith("is not a system name: 65 characters, at most 64")
    nothing_written(where)


def test_explain_takes_an_audited_system_name(where, monkeypatch, capsys):
    # past the name: the folder has no study config, which is the next thing said
    line = run_memshift(monkeypatch, capsys, *COMMANDS["explain"], "bm25+audit", "--branch",
                        "src", "--checkpoint", "0")  # fmt: skip
    assert "is not a system name" not in line and "config/config.yaml" in line
