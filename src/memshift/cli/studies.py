"""The side studies that run several studies: the validation, its grid, the horizons, the held-out
definitions and the rewritten worlds, each with the command that writes its report from finished
runs. What each runs and reads is its study's (`studies/<study>/stage.py`, `of_study`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from memshift import layout
from memshift.cli.group import cli
from memshift.cli.options import MODELS, SEED, study_file
from memshift.config import checked_study
from memshift.errors import ConfigError
from memshift.intake.reading import schema_default
from memshift.world.timeline import HISTORY_MONTHS

RESULTS = Path(schema_default("results"))


@cli.command("validation-report")
@click.option(
    "--runs-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=str(
        layout.runs_of_study(RESULTS, "validation", schema_default("worlds.history_months"))
    ),
    show_default=True,
    help="Where each writer's run of the study lives (<runs-dir>/<writer>/scores.parquet): "
    "results/runs/<study>/h<history months>.",
)
@click.option(
    "--writers",
    required=True,
    help="Model profiles, comma-separated; the first is the reference writer (no error model).",
)
@MODELS
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default=str(layout.validation_report_dir(RESULTS)),
    show_default=True,
    help="Report directory (report.md, tables/validation.parquet).",
)
@click.option(
    "--draws",
    type=click.IntRange(min=1),
    default=schema_default("report.draws"),
    show_default=True,
    help="Bootstrap draws.",
)
@click.option(
    "--seed",
    type=SEED,
    default=schema_default("report.seed"),
    show_default=True,
    help="Seed of the bootstrap's draws.",
)
def validation_report(
    runs_dir: Path, writers: str, models_file: Path, out: Path, draws: int, seed: int
) -> None:
    """Known against recovered, from the finished runs of a validation study's writers."""
    from memshift.analysis.bootstrap import Resampling
    from memshift.studies.validation import stage

    names = [w.strip() for w in writers.split(",") if w.strip()]
    stage.run(names, runs_dir, models_file, out, Resampling(draws=draws, seed=seed))


def study_runs(default: str, needs: str) -> Callable[[Callable[..., None]], click.Command]:
    """A command that runs one study several times through Snakemake, then a report over the
    runs: `--configfile` (default `default`, a study that `needs` something), `--cores`, and
    every other argument passed on to Snakemake."""

    def command(function: Callable[..., None]) -> click.Command:
        function = click.argument("snakemake_args", nargs=-1, type=click.UNPROCESSED)(function)
        function = click.option(
            "--cores", default="all", show_default=True, help="Passed to snakemake."
        )(function)
        function = study_file(default, needs)(function)
        return cli.command(context_settings={"ignore_unknown_options": True})(function)

    return command


def study_needing(configfile: Path, key: str) -> dict:
    """The checked study, refused in one line if it does not set `key`."""
    study = checked_study(configfile)
    if key not in study:
        needs = "`validation.writers`" if key == "validation" else f"a `{key}` list"
        raise ConfigError(f"{configfile}: this command needs {needs} in the study")
    return study


VALIDATION_STUDY = str(layout.study_config("validation"))


@study_runs(VALIDATION_STUDY, "A study with a `validation.writers` list.")
def validate(configfile: Path, cores: str, snakemake_args: tuple[str, ...]) -> None:
    """Run a validation study: the study once per writer (snakemake --config llm=WRITER), then
    the known-against-recovered report in <results>/validation/. Extra arguments go to
    snakemake (e.g. --workflow-profile)."""
    from memshift.stages.snakemake_runs import run_each
    from memshift.studies.validation import stage

    study = study_needing(configfile, "validation")
    run_each(configfile, cores, "llm", study["validation"]["writers"], snakemake_args)
    stage.of_study(study)


GRID_STUDY = str(layout.study_config("validation-grid"))


@study_runs(GRID_STUDY, "A study with `validation.writers` and `validation.grid`.")
def validate_grid(configfile: Path, cores: str, snakemake_args: tuple[str, ...]) -> None:
    """Run the validation grid: the study once per writer (the reference, the three anchors at
    the other corners, the writers drawn at random, the labelled ones; snakemake --config
    llm=WRITER with the grid's models file, up to each run's scores), then the grid's report in
    <results>/<study>/. Extra arguments go to snakemake."""
    from memshift.stages.snakemake_runs import run_each
    from memshift.studies.validation import grid_stage as stage
    from memshift.studies.validation.stage import study_runs as runs_of

    study = study_needing(configfile, "validation")
    plan, out = stage.plan_of_study(study)
    models = stage.write_models(plan, Path(study["models"]), out)
    runs = runs_of(study)
    names = [writer.name for writer in plan.writers]
    run_each(configfile, cores, "llm", names, snakemake_args, extra=(f"models={models}",),
             target=lambda name: str(layout.run_scores(runs / name)))  # fmt: skip
    stage.of_study(study)


@cli.command("validation-grid-report")
@study_file(GRID_STUDY, "The grid's study, whose writers' runs are finished.")
def validation_grid_report(configfile: Path) -> None:
    """The validation grid's report from the finished runs of its writers."""
    from memshift.studies.validation import grid_stage as stage

    stage.of_study(study_needing(configfile, "validation"))


def _horizon_list(text: str) -> list[int]:
    try:
        found = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise click.BadParameter(f"not a comma-separated list of months: {text!r}") from None
    unknown = [m for m in found if m not in HISTORY_MONTHS]
    if unknown or not found:
        raise click.BadParameter(f"horizons must be among {HISTORY_MONTHS}, got {text!r}")
    return sorted(set(found))


HORIZONS_STUDY = str(layout.study_config("horizons"))


@cli.command("horizons-report")
@study_file(HORIZONS_STUDY, "The study whose runs at each horizon are reported.")
@click.option(
    "--horizons",
    default="1,3,9",
    show_default=True,
    help="Comma-separated months of history before the fork, each a finished run.",
)
def horizons_report(configfile: Path, horizons: str) -> None:
    """The horizons report of a study already run at each horizon, in
    <results>/runs/<study>/horizons/<run>/."""
    from memshift.studies.horizons import stage

    stage.of_study(checked_study(configfile), _horizon_list(horizons))


@study_runs(HORIZONS_STUDY, "A study with a `horizons` list.")
def horizons(configfile: Path, cores: str, snakemake_args: tuple[str, ...]) -> None:
    """Run a study at each of its horizons (snakemake --config horizon=N), then the horizons
    report in <results>/runs/<study>/horizons/<run>/. Extra arguments go to snakemake."""
    from memshift.stages.snakemake_runs import run_each
    from memshift.studies.horizons import stage

    study = study_needing(configfile, "horizons")
    months = sorted(study["horizons"])
    run_each(configfile, cores, "horizon", months, snakemake_args)
    stage.of_study(study, months)


HELDOUT_STUDY = str(layout.study_config("heldout"))


@cli.command("heldout-report")
@study_file(HELDOUT_STUDY, "The study whose runs with each definition set are pooled.")
def heldout_report(configfile: Path) -> None:
    """The held-out definitions' report of a study already run with each of its
    `definition_sets`, in <results>/runs/<study>/heldout/<run>/."""
    from memshift.studies.heldout import stage

    stage.of_study(study_needing(configfile, "definition_sets"))


@study_runs(HELDOUT_STUDY, "A study with a `definition_sets` list.")
def heldout(configfile: Path, cores: str, snakemake_args: tuple[str, ...]) -> None:
    """Run a study with each of its held-out definition sets (snakemake --config
    definition_set=SET), then the pooled report in <results>/runs/<study>/heldout/<run>/."""
    from memshift.stages.snakemake_runs import run_each
    from memshift.studies.heldout import stage

    study = study_needing(configfile, "definition_sets")
    run_each(configfile, cores, "definition_set", study["definition_sets"], snakemake_args)
    stage.of_study(study)


REWRITTEN_STUDY = str(layout.study_config("rewritten"))


def _study_with_rewriter(configfile: Path) -> dict:
    study = checked_study(configfile)
    if not study["worlds"].get("rewriter"):
        raise ConfigError(f"{configfile}: this command needs `worlds.rewriter` (a profile)")
    return study


@cli.command("rewritten-report")
@study_file(REWRITTEN_STUDY, "The study run on its template worlds and on its rewritten worlds.")
def rewritten_report(configfile: Path) -> None:
    """Rewritten worlds against their templates, from the study's two finished runs, in
    <results>/runs/<study>/rewritten/<run>/."""
    from memshift.studies.rewritten import stage

    stage.of_study(_study_with_rewriter(configfile))


@study_runs(REWRITTEN_STUDY, "A study with `worlds.rewriter`.")
def rewritten(configfile: Path, cores: str, snakemake_args: tuple[str, ...]) -> None:
    """Run a study on its template worlds and on its rewritten worlds (snakemake --config
    rewriter=), then the paired report in <results>/runs/<study>/rewritten/<run>/."""
    from memshift.stages.snakemake_runs import run_each
    from memshift.studies.rewritten import stage

    study = _study_with_rewriter(configfile)
    run_each(configfile, cores, "rewriter", ["", study["worlds"]["rewriter"]], snakemake_args)
    stage.of_study(study)
