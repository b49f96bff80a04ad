"""Studies whose worlds are not the default ones, planned by a dry run: rewritten worlds are
built as templates and rewritten by their own job, a held-out definition set and a horizon are
part of every path, and settings that cannot run together stop before any job."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_snakemake import planned, snakemake, workflow_copy

SMALL = {
    "study": "variant",
    "results": "results",
    "worlds": {"seeds": "1000", "history_months": 1},
    "branches": ["none", "src"],
    "systems": {
        "holdmem": {"detections": ["source"], "repairs": ["0", "1"], "extra_cells": []},
        "baselines": ["bm25"],
        "answer_audit": [],
        "unshifted_all_items": [],
    },
}


def outputs(where: Path, *args: str) -> str:
    run = snakemake(where, "-n", "--printshellcmds", *args)
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout + run.stderr


def test_rewritten_worlds_are_built_as_templates_then_rewritten(tmp_path: Path) -> None:
    where = workflow_copy(
        tmp_path / "rw", {**SMALL, "worlds": {**SMALL["worlds"], "rewriter": "rules"}}
    )
    jobs = planned(where)
    assert jobs["rewrite"] == ["world=1000"]
    shown = outputs(where)
    assert "memshift job world" in shown and '"out":"results/worlds-h1/w1000"' in shown
    assert '"out":"results/worlds-h1-rw-rules/w1000"' in shown
    assert '"template":"results/worlds-h1/w1000"' in shown
    assert '"run":"results/runs/variant/h1-rw-rules/rules/w1000"' in shown
    # the same study without the rewriter plans no rewrite and reads the templates
    template = planned(where, "--config", "rewriter=")
    assert "rewrite" not in template
    assert "results/runs/variant/h1/rules/w1000" in outputs(where, "--config", "rewriter=")


def test_a_held_out_set_names_its_worlds_and_runs(tmp_path: Path) -> None:
    where = workflow_copy(tmp_path / "ho", SMALL)
    shown = outputs(where, "--config", "definition_set=heldout-2", "horizon=3")
    assert '"definitions":"heldout-2","history_months":3' in shown
    assert "results/worlds-h3-heldout-2/w1000" in shown
    assert "results/runs/variant/h3-heldout-2/rules/w1000" in shown


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (("definition_set=heldout-1",), None),
        (("definition_set=heldout-9",), "definition_set"),
        (("horizon=6",), "horizon"),
        (("rewriter=../x",), "rewriter"),
    ],
)
def test_overrides_are_checked(
    tmp_path: Path, settings: tuple[str, ...], message: str | None
) -> None:
    study = {
        **SMALL,
        "systems": {**SMALL["systems"], "holdmem": {"detections": ["source"], "repairs": ["w"]}},
    }
    where = workflow_copy(tmp_path / "bad", study)
    run = snakemake(where, "-n", "--config", *settings)
    assert run.returncode != 0
    text = run.stdout + run.stderr
    assert "config error" in text
    if message is None:  # the words arm needs the fixed six
        assert "user's-words arm" in text and "heldout-1" in text
    else:
        assert message in text
