"""memshift changes two private parts of Snakemake only on the release they were checked
against; the pinned Snakemake is that release, and on another one neither change is made and a
line says so."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import snakemake
import snakemake.api  # noqa: F401  (imports Snakemake in the order its modules need)
from snakemake.scheduling.job_scheduler import JobScheduler

from memshift.workflow import output_lookup, scheduler_passes
from memshift.workflow.snakemake_release import CHECKED_WITH

CONSTRAINTS = Path(__file__).parents[1] / "requirements" / "constraints.txt"


def test_the_pinned_snakemake_is_the_release_the_changes_were_checked_against():
    # an upgrade of the pin fails here: check workflow/scheduler_passes.py and
    # workflow/output_lookup.py against the new release, then move CHECKED_WITH
    pinned = re.search(r"^snakemake==(\S+)$", CONSTRAINTS.read_text(), re.MULTILINE)
    assert pinned is not None
    assert pinned[1] == CHECKED_WITH
    assert metadata.version("snakemake") == CHECKED_WITH


def test_on_another_release_neither_change_is_made(monkeypatch, capsys):
    import snakemake.dag

    def own(*_args):
        return None

    monkeypatch.setattr(snakemake, "__version__", "9.99.0")
    monkeypatch.setattr(JobScheduler, scheduler_passes.REEVALUATION, own)
    monkeypatch.setattr(snakemake.dag, "OutputIndex", object)
    scheduler_passes.keep_one_pending_pass()
    output_lookup.index_outputs_by_suffix()
    assert getattr(JobScheduler, scheduler_passes.REEVALUATION) is own
    assert snakemake.dag.OutputIndex is object
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 2
    assert all("Snakemake 9.99.0, not " + CHECKED_WITH in line for line in said)


def test_on_the_checked_release_both_changes_are_made(monkeypatch):
    import snakemake.dag

    def own(*_args):
        return None

    monkeypatch.setattr(JobScheduler, scheduler_passes.REEVALUATION, own)
    monkeypatch.setattr(snakemake.dag, "OutputIndex", output_lookup.OutputIndex)
    scheduler_passes.keep_one_pending_pass()
    output_lookup.index_outputs_by_suffix()
    assert (
        getattr(JobScheduler, scheduler_passes.REEVALUATION) is scheduler_passes._one_pending_pass
    )
    assert snakemake.dag.OutputIndex is output_lookup.SuffixIndexedOutputs
