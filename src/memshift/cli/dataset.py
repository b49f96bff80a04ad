"""The exported dataset and what comes back from outside: bundles, predictions files."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from memshift import layout
from memshift.cli.group import cli
from memshift.cli.options import BUNDLE_OUT, checked_study, exportable, profile_named, system_names
from memshift.errors import MemshiftError
from memshift.vocabulary import (
    EXPORT_ARMS,
)


@cli.command("export-bundle")
@click.option(
    "--configfile",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="The study, as given to snakemake (default: config/config.yaml alone); it must have run.",
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
    from memshift.vocabulary import cell_parts

    study = checked_study(configfile)
    named = configfile or DEFAULT_CONFIG
    if seed not in study["seed_list"]:
        raise MemshiftError(f"--world {seed}: the study {named} has no such world")
    parts = cell_parts(cell)
    cells = study["system_plan"]["cells"]
    if cell not in cells or not exportable(parts):
        movable = [c for c in cells if exportable(cell_parts(c))]
        raise MemshiftError(
            f"--cell {cell!r}: not an exportable HoldMem cell of the study {named}; "
            f"choose one of {', '.join(movable) or '(none)'}"
        )
    paths = study_layout(study)
    run_world = paths.run_world(seed)
    if not run_world.is_dir():
        raise MemshiftError(
            f"world {seed} of the study {named} has not run ({run_world} is missing): run "
            f"snakemake --configfile {named} first"
        )
    llm = study["role_profiles"]["writer"]  # the writer of the run's pre-fork store
    episodes, manifest = stage.run(
        paths.world(seed), run_world, parts[1], parts[0], arm,
        profile_named(llm, Path(study["models"])), out,
    )  # fmt: skip
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
@click.option(
    "--configfile",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="The study whose worlds to export (default: config/config.yaml alone); its worlds must "
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
@click.option(
    "--configfile",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="The study whose exported dataset the predictions answer, as given to snakemake "
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
    import json
    import subprocess

    from memshift.config import DEFAULT_CONFIG, study_layout
    from memshift.intake.predictions import read_predictions
    from memshift.probes.public import not_given, unbuilt

    configfile = configfile or DEFAULT_CONFIG
    if not configfile.is_file():
        raise MemshiftError(f"{configfile}: no such study file here; name one with --configfile")
    predictions = read_predictions(path)
    study = checked_study(configfile)
    seeds = study["seed_list"]
    outside = sorted(predictions.worlds() - set(seeds))
    if outside:
        raise MemshiftError(
            f"{path}: predictions for world {outside[0]}, which the study {configfile} does not "
            "hold"
        )
    unanswered = [seed for seed in seeds if seed not in predictions.worlds()]
    if unanswered:
        raise MemshiftError(
            f"{path}: no prediction for {len(unanswered)} of the {len(seeds)} worlds of the study "
            f"{configfile} (first: world {unanswered[0]}); is it the study you predicted? "
            f"(predict the probes of memshift export-dataset --configfile {configfile})"
        )
    paths = study_layout(study)
    if unbuilt(paths.worlds, seeds, study["branches"]):
        # the probes are checked before the study runs: its worlds first, alone
        click.echo(f"building the study's {len(seeds)} world(s) to check the predictions", err=True)
        targets = [str(layout.manifest(paths.world(seed))) for seed in seeds]
        built = subprocess.run(
            # the targets before --quiet, whose values would swallow them
            [sys.executable, "-m", "snakemake", *targets, "--configfile", str(configfile),
             "--cores", cores, "--quiet", "rules"],
            check=False,
        )  # fmt: skip
        if built.returncode != 0:
            raise MemshiftError(
                f"the worlds of the study {configfile} failed to build (snakemake exit "
                f"{built.returncode})"
            )
    extra = not_given(predictions.by_probe, paths.worlds, seeds, study["branches"])
    if extra:
        raise MemshiftError(
            f"{path}: {len(extra)} prediction(s) for probes the study's dataset does not give, "
            f"first {extra[0]} (predict the probes of memshift export-dataset --configfile "
            f"{configfile})"
        )
    overlay = layout.prediction_overlay(paths.runs, name)
    overlay.parent.mkdir(parents=True, exist_ok=True)
    overlay.write_text(
        f"systems:\n  predictions:\n    {json.dumps(name)}: {json.dumps(str(path.resolve()))}\n"
    )
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "--configfile",
        str(configfile),
        str(overlay),
        "--cores",
        cores,
    ]
    click.echo(f"{name}: {len(predictions.by_probe)} predictions; running the study", err=True)
    finished = subprocess.run(command, check=False)
    if finished.returncode != 0:
        raise MemshiftError(
            f"the study failed with the predictions (snakemake exit {finished.returncode}); "
            f"its configuration: {configfile} and {overlay}"
        )
