"""The exported dataset and what comes back from outside: bundles, predictions files."""

from __future__ import annotations

from pathlib import Path

import click

from memshift.cli.group import cli
from memshift.cli.options import BUNDLE_OUT, study_file, system_names
from memshift.config import checked_study
from memshift.vocabulary import (
    EXPORT_ARMS,
)


@cli.command("export-bundle")
@study_file(
    None,
    "The study, as given to snakemake (default: config/config.yaml alone); it must have run.",
)
@click.option("--world", "seed", type=int, required=True, help="The world's seed.")
@click.option(
    "--cell",
    required=True,
    help="A HoldMem cell of the study, holdmem-d<repair>-<detection> (not the oracle key).",
)
@click.option(
    "--arm",
    default="ext",
    show_default=True,
    type=click.Choice(EXPORT_ARMS),
    help="With the derivation extension (the keys) or without it.",
)
@BUNDLE_OUT
def export_bundle(configfile: Path | None, seed: int, cell: str, arm: str, out: Path) -> None:
    """A HoldMem cell's store at the fork, from a study that has run, as a Portable Memory
    bundle validated by the format's reference package (`export` with the study's paths)."""
    from memshift.config import DEFAULT_CONFIG, study_layout
    from memshift.studies.export import stage

    study, named = checked_study(configfile), configfile or DEFAULT_CONFIG
    episodes, manifest = stage.of_study(study, study_layout(study), named, seed, cell, arm, out)
    click.echo(f"w{seed}: {episodes} episodes -> {out} (digest {manifest.bundle_digest})", err=True)


@cli.command("validate-bundle")
@click.argument("bundle", type=click.Path(path_type=Path))
def validate_bundle(bundle: Path) -> None:
    """Check a Portable Memory bundle: memshift's bounds first (no file opened; docs/export.md),
    then the format's reference validator, then memshift's strict reading of its streams. Exit 0
    when it is valid, 1 with one line per kind of issue."""
    from memshift.studies.export.bundles import bundle_issues

    issues = bundle_issues(bundle)
    for issue in issues:
        click.echo(f"{bundle}: {issue}", err=True)
    if issues:
        raise SystemExit(1)
    click.echo(f"{bundle}: valid", err=True)


@cli.command("export-dataset")
@study_file(
    None,
    "The study whose worlds to export (default: config/config.yaml alone); its worlds must "
    "be built.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="Directory of the dataset (Parquet, JSON lines and DATASHEET.md).",
)
def export_dataset(configfile: Path | None, out: Path) -> None:
    """A study's worlds as a dataset for a system in any language: each branch's public record
    stream, the probes (no gold), the items and the timelines (docs/dataset.md)."""
    from memshift.config import study_layout
    from memshift.studies.export.dataset import export_dataset as write

    study = checked_study(configfile)
    counts = write(
        study_layout(study).worlds, study["seed_list"], study["branches"], out, study["study"]
    )
    click.echo(f"{out}: " + ", ".join(f"{n} {name}" for name, n in counts.items()), err=True)


@cli.command("score-predictions")
@click.argument("path", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@study_file(
    None,
    "The study whose exported dataset the predictions answer, as given to snakemake "
    "(default: config/config.yaml alone); checked against the file before the study runs.",
)
@click.option(
    "--name",
    required=True,
    callback=system_names,
    help="The system's name in the report (lower-case letters, digits, - and _; at most 64).",
)
@click.option("--cores", default="2", show_default=True, help="Snakemake's --cores.")
def score_predictions(path: Path, configfile: Path | None, name: str, cores: str) -> None:
    """Score a predictions file into the study's report, beside its own systems: the study runs
    again with `systems.predictions` naming it (finished jobs are not repeated), so the file is
    checked, its answers scored and the report written with the system in every table."""
    from memshift.stages import predictions_submitted

    predictions_submitted.score(path, configfile, name, cores)
