"""The side studies that run several studies: the validation, its grid, the horizons, the held-out
definitions and the rewritten worlds, each with the command that writes its report from finished
runs."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from memshift import layout
from memshift.cli.group import cli
from memshift.cli.options import MODELS, SEED, checked_study
from memshift.errors import ConfigError, MemshiftError
from memshift.intake.reading import schema_default
from memshift.world.timeline import HISTORY_MONTHS


@cli.command("validation-report")
@click.option(
    "--runs-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default="results/runs/validation/h9",
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
    default="results/validation",
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
        function = click.option(
            "--configfile",
            type=click.Path(path_type=Path, dir_okay=False, exists=True),
            default=default,
            show_default=True,
            help=needs,
        )(function)
        return cli.command(context_settings={"ignore_unknown_options": True})(function)

    return command


def study_resampling(config: dict[str, Any]) -> Any:
    """The world bootstrap a study's `report:` asks for."""
    from memshift.analysis.bootstrap import Resampling

    return Resampling(draws=config["report"]["draws"], seed=config["report"]["seed"])


@study_runs(str(layout.study_config("validation")), "A study with a `validation.writers` list.")
def validate(configfile: Path, cores: str, snakemake_args: tuple[str, ...]) -> None:
    """Run a validation study: the study once per writer (snakemake --config llm=WRITER), then
    the known-against-recovered report in <results>/validation/. Extra arguments go to
    snakemake (e.g. --workflow-profile)."""
    from memshift.layout import runs_of_study
    from memshift.studies.validation import stage

    config = checked_study(configfile)
    if "validation" not in config:
        raise ConfigError(f"{configfile}: a validation study needs `validation.writers`")
    writers = config["validation"]["writers"]
    _run_each(configfile, cores, "llm", writers, snakemake_args)
    results = Path(config["results"])
    stage.run(
        writers,
        runs_of_study(results, config["study"], config["worlds"]["history_months"]),
        Path(config["models"]),
        results / "validation",
        study_resampling(config),
    )


GRID_STUDY = str(layout.study_config("validation-grid"))


@study_runs(GRID_STUDY, "A study with `validation.writers` and `validation.grid`.")
def validate_grid(configfile: Path, cores: str, snakemake_args: tuple[str, ...]) -> None:
    """Run the validation grid: the study once per writer (the reference, the three anchors at
    the other corners, the writers drawn at random, the labelled ones; snakemake --config
    llm=WRITER with the grid's models file, up to each run's scores), then the grid's report in
    <results>/<study>/. Extra arguments go to snakemake."""
    from memshift import layout
    from memshift.layout import runs_of_study
    from memshift.studies.validation import grid_stage as stage

    config, plan, out = _validation_grid(configfile)
    models = stage.write_models(plan, Path(config["models"]), out)
    runs = runs_of_study(
        Path(config["results"]), config["study"], config["worlds"]["history_months"]
    )
    _run_each(
        configfile,
        cores,
        "llm",
        [writer.name for writer in plan.writers],
        snakemake_args,
        extra=(f"models={models}",),
        target=lambda name: str(layout.run_scores(runs / name)),
    )
    stage.run(plan, runs, out, study_resampling(config))


@cli.command("validation-grid-report")
@click.option(
    "--configfile",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=GRID_STUDY,
    show_default=True,
    help="The grid's study, whose writers' runs are finished.",
)
def validation_grid_report(configfile: Path) -> None:
    """The validation grid's report from the finished runs of its writers."""
    from memshift.layout import runs_of_study
    from memshift.studies.validation import grid_stage as stage

    config, plan, out = _validation_grid(configfile)
    runs = runs_of_study(
        Path(config["results"]), config["study"], config["worlds"]["history_months"]
    )
    stage.run(plan, runs, out, study_resampling(config))


def _validation_grid(configfile: Path) -> tuple[dict[str, Any], Any, Path]:
    """A grid study's config, its writers and its report directory, <results>/<study>."""
    from memshift.studies.validation import grid_stage as stage

    config = _study_with(configfile, "validation")
    plan = stage.grid_plan(config["validation"], Path(config["models"]))
    return config, plan, Path(config["results"]) / config["study"]


HORIZON_LIST = click.option(
    "--horizons",
    default="1,3,9",
    show_default=True,
    help="Comma-separated months of history before the fork, each a finished run.",
)


def _horizon_list(text: str) -> list[int]:
    try:
        found = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise click.BadParameter(f"not a comma-separated list of months: {text!r}") from None
    unknown = [m for m in found if m not in HISTORY_MONTHS]
    if unknown or not found:
        raise click.BadParameter(f"horizons must be among {HISTORY_MONTHS}, got {text!r}")
    return sorted(set(found))


@cli.command("horizons-report")
@click.option(
    "--configfile",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=str(layout.study_config("horizons")),
    show_default=True,
    help="The study whose runs at each horizon are reported.",
)
@HORIZON_LIST
def horizons_report(configfile: Path, horizons: str) -> None:
    """The horizons report of a study already run at each horizon, in
    <results>/runs/<study>/horizons/<run>/."""

    config = checked_study(configfile)
    _report_horizons(config, _horizon_list(horizons))


def _report_horizons(config: dict[str, Any], months: list[int]) -> None:
    from memshift.layout import run_dir, runs_report_dir, worlds_dir
    from memshift.studies.horizons import stage
    from memshift.vocabulary import run_name

    results, study = Path(config["results"]), config["study"]
    name = run_name(config["llm"], config["roles"])
    stage.run(
        [
            stage.Horizon(m, run_dir(results, study, m, name), worlds_dir(results, m))
            for m in months
        ],
        runs_report_dir(results, study, "horizons", name),
        study_resampling(config),
        study,
    )


def _run_each(
    configfile: Path,
    cores: str,
    key: str,
    values: list[Any],
    snakemake_args: tuple[str, ...],
    *,
    extra: tuple[str, ...] = (),
    target: Callable[[Any], str] | None = None,
) -> None:
    """The study once per value of a config key (snakemake --config KEY=VALUE and the `extra`
    pairs), in order, up to `target(value)` when given; a failed run stops with the command to
    resume."""
    import subprocess

    for index, value in enumerate(values, start=1):
        click.echo(f"{key}: {index}/{len(values)}: {value}", err=True)
        command = [
            sys.executable,
            "-m",
            "snakemake",
            "--configfile",
            str(configfile),
            "--config",
            f"{key}={value}",
            *extra,
            "--cores",
            cores,
            *([target(value)] if target is not None else []),
            *snakemake_args,
        ]
        finished = subprocess.run(command, check=False)
        if finished.returncode != 0:
            raise MemshiftError(
                f"the study failed with {key}={value} (snakemake exit {finished.returncode}); "
                "fix it and run the same command again: finished jobs are not repeated"
            )


def _study_with(configfile: Path, key: str) -> dict[str, Any]:

    config = checked_study(configfile)
    if key not in config:
        raise ConfigError(f"{configfile}: this command needs a `{key}` list in the study")
    return config


@study_runs(str(layout.study_config("horizons")), "A study with a `horizons` list.")
def horizons(configfile: Path, cores: str, snakemake_args: tuple[str, ...]) -> None:
    """Run a study at each of its horizons (snakemake --config horizon=N), then the horizons
    report in <results>/runs/<study>/horizons/<run>/. Extra arguments go to snakemake."""
    config = _study_with(configfile, "horizons")
    months = sorted(config["horizons"])
    _run_each(configfile, cores, "horizon", months, snakemake_args)
    _report_horizons(config, months)


@cli.command("heldout-report")
@click.option(
    "--configfile",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=str(layout.study_config("heldout")),
    show_default=True,
    help="The study whose runs with each definition set are pooled.",
)
def heldout_report(configfile: Path) -> None:
    """The held-out definitions' report of a study already run with each of its
    `definition_sets`, in <results>/runs/<study>/heldout/<run>/."""
    _report_heldout(_study_with(configfile, "definition_sets"))


def _report_heldout(config: dict[str, Any]) -> None:
    from memshift.layout import run_dir, runs_report_dir
    from memshift.studies.heldout import stage
    from memshift.vocabulary import run_name

    results, study = Path(config["results"]), config["study"]
    name = run_name(config["llm"], config["roles"])
    months = config["worlds"]["history_months"]
    stage.run(
        {s: run_dir(results, study, months, name, s) for s in config["definition_sets"]},
        runs_report_dir(results, study, "heldout", name),
        study_resampling(config),
        study,
    )


@study_runs(str(layout.study_config("heldout")), "A study with a `definition_sets` list.")
def heldout(configfile: Path, cores: str, snakemake_args: tuple[str, ...]) -> None:
    """Run a study with each of its held-out definition sets (snakemake --config
    definition_set=SET), then the pooled report in <results>/runs/<study>/heldout/<run>/."""
    config = _study_with(configfile, "definition_sets")
    _run_each(configfile, cores, "definition_set", config["definition_sets"], snakemake_args)
    _report_heldout(config)


@cli.command("rewritten-report")
@click.option(
    "--configfile",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=str(layout.study_config("rewritten")),
    show_default=True,
    help="The study run on its template worlds and on its rewritten worlds.",
)
def rewritten_report(configfile: Path) -> None:
    """Rewritten worlds against their templates, from the study's two finished runs, in
    <results>/runs/<study>/rewritten/<run>/."""
    _report_rewritten(_study_with_rewriter(configfile))


def _study_with_rewriter(configfile: Path) -> dict[str, Any]:

    config = checked_study(configfile)
    if not config["worlds"].get("rewriter"):
        raise ConfigError(f"{configfile}: this command needs `worlds.rewriter` (a profile)")
    return config


def _report_rewritten(config: dict[str, Any]) -> None:
    from memshift.layout import run_dir, runs_report_dir, worlds_dir
    from memshift.studies.rewritten import stage
    from memshift.vocabulary import run_name

    results, study, worlds = Path(config["results"]), config["study"], config["worlds"]
    name = run_name(config["llm"], config["roles"])
    months, definitions, rewriter = (
        worlds["history_months"],
        worlds["definitions"],
        worlds["rewriter"],
    )
    stage.run(
        run_dir(results, study, months, name, definitions),
        run_dir(results, study, months, name, definitions, rewriter),
        worlds_dir(results, months, definitions, rewriter),
        runs_report_dir(results, study, "rewritten", name),
        study_resampling(config),
        study,
    )


@study_runs(str(layout.study_config("rewritten")), "A study with `worlds.rewriter`.")
def rewritten(configfile: Path, cores: str, snakemake_args: tuple[str, ...]) -> None:
    """Run a study on its template worlds and on its rewritten worlds (snakemake --config
    rewriter=), then the paired report in <results>/runs/<study>/rewritten/<run>/."""
    config = _study_with_rewriter(configfile)
    _run_each(configfile, cores, "rewriter", ["", config["worlds"]["rewriter"]], snakemake_args)
    _report_rewritten(config)
