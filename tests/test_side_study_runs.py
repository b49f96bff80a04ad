"""A side study's report reads the runs its command wrote: for each value the command runs the
study with (`snakemake --config KEY=VALUE`), the report's `of_study` finds the run folder the
workflow gives that study (`config.study_layout`), on fixed and on held-out definitions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from memshift.config import checked_study, study_layout
from memshift.studies.heldout import stage as heldout
from memshift.studies.horizons import stage as horizons
from memshift.studies.rewritten import stage as rewritten
from memshift.studies.validation.stage import study_runs

STUDY = {
    "study": "side",
    "results": "out",
    "worlds": {"seeds": "1000-1001", "history_months": 3},
    "branches": ["none", "src"],
    "systems": {"holdmem": {"detections": ["source"], "repairs": ["0"]}},
}


def study_file(tmp_path: Path, **worlds: Any) -> Path:
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump({**STUDY, "worlds": {**STUDY["worlds"], **worlds}}))
    return path


def given_to(stage: Any, monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """The arguments `stage.run` is called with, instead of running it."""
    calls: list[tuple] = []
    monkeypatch.setattr(stage, "run", lambda *args: calls.append(args))
    return calls


def run_with(path: Path, **given: Any) -> Any:
    """Where the workflow puts the study's run when it is run with `--config` `given`."""
    return study_layout(checked_study(path, given))


@pytest.mark.parametrize("definitions", ["fixed", "heldout-2"])
def test_the_horizons_report_reads_each_horizons_run(tmp_path, monkeypatch, definitions):
    path = study_file(tmp_path, definitions=definitions)
    calls = given_to(horizons, monkeypatch)
    horizons.of_study(checked_study(path), [1, 3])
    (found, *_), = calls  # fmt: skip
    expected = [run_with(path, horizon=m) for m in (1, 3)]
    assert [(h.months, h.run, h.worlds) for h in found] == [
        (m, paths.runs, paths.worlds) for m, paths in zip((1, 3), expected, strict=True)
    ]


@pytest.mark.parametrize("rewriter", [None, "rules"])
def test_the_heldout_report_reads_each_definition_sets_run(tmp_path, monkeypatch, rewriter):
    path = study_file(
        tmp_path, definitions="heldout-1", **({"rewriter": rewriter} if rewriter else {})
    )
    study = {**checked_study(path), "definition_sets": ["heldout-1", "heldout-3"]}
    calls = given_to(heldout, monkeypatch)
    heldout.of_study(study)
    (runs, *_), = calls  # fmt: skip
    assert runs == {s: run_with(path, definition_set=s).runs for s in ("heldout-1", "heldout-3")}


def test_the_rewritten_report_reads_the_template_and_the_rewritten_run(tmp_path, monkeypatch):
    path = study_file(tmp_path, rewriter="rules")
    calls = given_to(rewritten, monkeypatch)
    rewritten.of_study(checked_study(path))
    (template, rewritten_run, rewritten_worlds, *_), = calls  # fmt: skip
    assert template == run_with(path, rewriter="").runs
    assert rewritten_run == run_with(path, rewriter="rules").runs
    assert rewritten_worlds == run_with(path, rewriter="rules").worlds


@pytest.mark.parametrize("definitions", ["fixed", "heldout-2"])
def test_the_validation_reports_read_each_writers_run(tmp_path, definitions):
    path = study_file(tmp_path, definitions=definitions)
    for writer in ("rules", "rules-copy"):
        assert study_runs(checked_study(path)) / writer == run_with(path, llm=writer).runs


def test_reports_over_other_definitions_go_to_folders_of_their_own(tmp_path, monkeypatch):
    calls = given_to(horizons, monkeypatch)
    for definitions in ("fixed", "heldout-2"):
        folder = tmp_path / definitions
        folder.mkdir()
        horizons.of_study(checked_study(study_file(folder, definitions=definitions)), [1, 3])
    (_, fixed, *_), (_, held, *_) = calls
    assert fixed == Path("out/runs/side/horizons/rules")  # the folder the docs name
    assert held == Path("out/runs/side/horizons-heldout-2/rules")
