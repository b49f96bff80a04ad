"""The `memshift` command: one subcommand per stage, plus stats."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from memshift import layout
from memshift.config import parse_seeds
from memshift.definitions import DEFINITION_SETS
from memshift.errors import ConfigError, MemshiftError
from memshift.inputs import schema_default
from memshift.stages.specs import JOBS
from memshift.vocabulary import (
    BRANCHES,
    EXPORT_ARMS,
    MAX_SEED,
    MOVABLE,
    REPAIRS,
)
from memshift.world.timeline import HISTORY_MONTHS


class SeedRange(click.ParamType):
    name = "SEEDS"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> list[int]:
        if isinstance(value, list):
            return value
        try:
            return parse_seeds(value)
        except ConfigError as exc:
            self.fail(str(exc), param, ctx)


SEED = click.IntRange(0, MAX_SEED)


def _system_names(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Each name given a system name (`vocabulary.system_name_problem`): it names folders and
    files of the run, so anything else is refused in one line before anything is written."""
    for name in (value,) if isinstance(value, str) else value or ():
        _refuse_system_name(param, name)
    return value


def _scored_system_name(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A system name, or an audited system's (`<system>+audit...`) whose system's is one."""
    from memshift.vocabulary import audited_base

    _refuse_system_name(param, audited_base(value) or value)
    return value


def _refuse_system_name(param: click.Parameter, name: str) -> None:
    from memshift.inputs import shortened
    from memshift.vocabulary import system_name_problem

    problem = system_name_problem(name)
    if problem is not None:
        raise ConfigError(f"{param.opts[0]} {shortened(name)} {problem}")


WORLD_DIR = click.option(
    "--world-dir",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="Directory of one world (results/worlds/w<seed>).",
)
BRANCH = click.option(
    "--branch",
    "branch_list",
    type=click.Choice(BRANCHES),
    multiple=True,
    required=True,
    help="A branch of the world; repeat it for several, done in turn in the order of the "
    "shifts (none first), in one process.",
)


WORLD_SEED = click.option("--seed", type=SEED, required=True, help="World seed.")
WORLD_OUT = click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="World directory to write the world's artifacts into (results/worlds/w<seed>).",
)
HISTORY = click.option(
    "--history-months",
    type=click.Choice([str(m) for m in HISTORY_MONTHS]),
    default=str(schema_default("worlds.history_months")),
    show_default=True,
    help="Months of history before the fork.",
)
DEFINITIONS = click.option(
    "--definitions",
    type=click.Choice(list(DEFINITION_SETS)),
    default=schema_default("worlds.definitions"),
    show_default=True,
    help="The set the person's definitions come from: the six fixed ones or a held-out draw.",
)


# `memshift --help` lists what a user runs first, then a world's stages by hand, then what the
# workflow's jobs run (`job`, with each job's spec; `report`, with the study's tables)
USER_COMMANDS = (
    "plan", "explain", "export-dataset", "score-predictions", "export-bundle", "verify", "models",
    "cache", "stats", "validate", "validate-grid", "horizons", "heldout", "rewritten",
    "validation-report", "validation-grid-report", "horizons-report", "heldout-report",
    "rewritten-report", "serve-study", "validate-bundle", "docs-tables",
)  # fmt: skip
WORLD_COMMANDS = ("world", "branches", "gold", "probes", "manifest")
JOB_COMMANDS = ("job",)
SECTIONS = (
    ("Commands", USER_COMMANDS),
    ("A world by hand, one stage at a time", WORLD_COMMANDS),
    ("The workflow's jobs (`memshift job --help`)", JOB_COMMANDS),
)


class Sections(click.Group):
    """A group whose help lists its commands by SECTIONS, each description whole."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        listed = [name for _, names in SECTIONS for name in names if name in self.commands]
        return listed + sorted(set(self.commands) - set(listed))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        unlisted = sorted(set(self.commands) - {n for _, names in SECTIONS for n in names})
        for title, names in (*SECTIONS, ("Other commands", tuple(unlisted))):
            rows = [
                (name, self.commands[name].get_short_help_str(limit=1_000))
                for name in names
                if name in self.commands and not self.commands[name].hidden
            ]
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


@click.group(cls=Sections)
@click.version_option(package_name="memshift")
def cli() -> None:
    """memshift: does a memory of facts derived about a person stay correct when its inputs
    change, and which step failed when it does not?"""


@cli.command()
@WORLD_SEED
@WORLD_OUT
@HISTORY
@DEFINITIONS
def world(seed: int, out: Path, history_months: str, definitions: str) -> None:
    """Generate one world's base events (history and ordinary continuation)."""
    from memshift.stages.chain import make_world

    make_world(seed, out, int(history_months), definitions)


@cli.command()
@WORLD_DIR
@BRANCH
def branches(world_dir: Path, branch_list: tuple[str, ...]) -> None:
    """Fork a world into branches: the base events plus each shift's events."""
    from memshift.stages.chain import make_branches

    make_branches(world_dir, branch_list)


@cli.command()
@WORLD_DIR
@BRANCH
def gold(world_dir: Path, branch_list: tuple[str, ...]) -> None:
    """Gold value, status and dependencies of every item at every checkpoint, classified."""
    from memshift.stages.chain import make_gold

    make_gold(world_dir, branch_list)


@cli.command()
@WORLD_DIR
@BRANCH
def probes(world_dir: Path, branch_list: tuple[str, ...]) -> None:
    """The probes of a branch: every item at the fork, changed and sampled item-times after."""
    from memshift.stages.chain import make_probes

    make_probes(world_dir, branch_list)


@cli.command()
@WORLD_DIR
@click.option(
    "--branches",
    "branch_list",
    required=True,
    help="Comma-separated branches whose artifacts the manifest covers.",
)
def manifest(world_dir: Path, branch_list: str) -> None:
    """Write a world's manifest.json: seed, generator version and the hash of every artifact."""
    from memshift.stages import manifest as stage

    names = tuple(b.strip() for b in branch_list.split(","))
    unknown = [b for b in names if b not in BRANCHES]
    if unknown:
        raise ConfigError(f"unknown branch {unknown[0]!r}; choose from {', '.join(BRANCHES)}")
    stage.run(world_dir, names)


@cli.command()
@click.option(
    "--seeds",
    type=SeedRange(),
    required=True,
    help="Seeds: '1000-1019', '0-9,900-909' or a split name (dev, calibration, test, replication).",
)
@click.option(
    "--history-months",
    type=click.Choice([str(m) for m in HISTORY_MONTHS]),
    default=str(schema_default("worlds.history_months")),
    show_default=True,
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Worlds generated in parallel.",
)
def stats(seeds: list[int], history_months: str, jobs: int) -> None:
    """Change counts per shift beside the paper's figures, plus events and tokens per world."""
    from memshift.calibration import collect, render

    click.echo(render(collect(seeds, int(history_months), jobs=jobs, progress=True)))


BUNDLE_OUT = click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="The bundle directory to write (conventionally NAME.mem).",
)
MODELS = click.option(
    "--models-file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=schema_default("models"),
    show_default=True,
    help="The file that defines the model profiles.",
)


def _profile(llm: str, models_file: Path):  # type: ignore[no-untyped-def]
    from memshift.models.profiles import study_profile

    return study_profile(llm, models_file)


def _checked_study(configfile: Path | None, given: dict[str, Any] | None = None) -> dict[str, Any]:
    """The study a command's --configfile names (config/config.yaml alone without one), as the
    Snakefile reads it, checked."""
    from memshift.config import DEFAULT_CONFIG, check_config, study_config

    return check_config(study_config(DEFAULT_CONFIG, [configfile] if configfile else [], given))


def _exportable(parts: tuple[str, str] | None) -> bool:
    """Whether a cell of these (repair, detection) parts can be exported (`export`'s choices)."""
    return parts is not None and parts[0] in REPAIRS and parts[1] in MOVABLE


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
    from memshift.stages import export as stage
    from memshift.vocabulary import cell_parts

    study = _checked_study(configfile)
    named = configfile or DEFAULT_CONFIG
    if seed not in study["seed_list"]:
        raise MemshiftError(f"--world {seed}: the study {named} has no such world")
    parts = cell_parts(cell)
    cells = study["system_plan"]["cells"]
    if cell not in cells or not _exportable(parts):
        movable = [c for c in cells if _exportable(cell_parts(c))]
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
        _profile(llm, Path(study["models"])), out,
    )  # fmt: skip
    click.echo(f"w{seed}: {episodes} episodes -> {out} (digest {manifest.bundle_digest})", err=True)


@cli.command("validate-bundle")
@click.argument("bundle", type=click.Path(path_type=Path))
def validate_bundle(bundle: Path) -> None:
    """Check a Portable Memory bundle: memshift's bounds first (no file opened; docs/export.md),
    then the format's reference validator, then memshift's strict reading of its streams. Exit 0
    when it is valid, 1 with one line per kind of issue."""
    from memshift.export.bundles import bundle_issues

    issues = bundle_issues(bundle)
    for issue in issues:
        click.echo(f"{bundle}: {issue}", err=True)
    if issues:
        raise SystemExit(1)
    click.echo(f"{bundle}: valid", err=True)


@cli.command("docs-tables")
@click.argument("pages", nargs=-1, type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing: exit 1 with one line per block that differs from its source.",
)
def docs_tables(pages: tuple[Path, ...], check: bool) -> None:
    """Render every marked block of README.md and docs/*.md (or PAGES) again from the run or
    benchmarks page its marker names, and write it into the page (docs/report.md, Numbers in
    the documentation). Paths in the markers are relative to the current folder."""
    from memshift.report import docs_tables as docs

    root = Path.cwd()
    chosen = [page.absolute() for page in pages] or docs.default_pages(root)
    if not check:
        for found in docs.rewrite(chosen, root):
            click.echo(f"{found.where}: {found.block}: rewritten")
        return
    differences = docs.check(chosen, root)
    for found in differences:
        click.echo(found.line())
    if differences:
        click.echo(
            f"memshift: {len(differences)} generated block(s) differ from their source; "
            "`memshift docs-tables` writes them anew",
            err=True,
        )
        sys.exit(1)


@cli.command()
@click.option(
    "--configfile",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="The study, as given to snakemake (default: config/config.yaml alone); its results "
    "directory, horizon and name say where its worlds and run are.",
)
@click.option("--llm", default=None, help="The run's model profile, if not the study's `llm`.")
@click.option("--world", type=SEED, required=True, help="World seed.")
@click.option("--branch", type=click.Choice(BRANCHES), default=None, help="The score's branch.")
@click.option(
    "--system",
    required=True,
    callback=_scored_system_name,
    help="bm25, rag, oracle, holdmem-d<D>-<B>, a custom name or <system>+audit.",
)
@click.option("--item", required=True, help="Item id, e.g. contact03.city.")
@click.option("--checkpoint", type=click.IntRange(min=0), default=None, help="Probed checkpoint.")
@click.option(
    "--kind",
    type=click.Choice(["direct", "premise", "implicit"]),
    default="direct",
    show_default=True,
    help="Which probe of the item-time: the direct one, its premise probe or its "
    "implicit-dependency probe.",
)
@click.option("--premise", is_flag=True, help="Short for --kind premise.")
@click.option(
    "--switch",
    "switch_name",
    default=None,
    help="A writer switch of the study: explain the item through it (no --branch/--checkpoint).",
)
def explain(
    configfile: Path | None,
    llm: str | None,
    world: int,
    branch: str | None,
    system: str,
    item: str,
    checkpoint: int | None,
    kind: str,
    premise: bool,
    switch_name: str | None,
) -> None:
    """Drill into one score: the probe and its gold dependencies, what a HoldMem cell stored,
    maintained and repaired, the evidence the reader saw (recomputed and checked against the
    stored hash), the answer and its score. With --switch, one item through a writer switch:
    why it was invalidated, both writes, the repair check, and the answer before and after."""
    from memshift.config import study_layout
    from memshift.explain import Target, render
    from memshift.explain import explain as gather
    from memshift.explain.switch import explain_switch

    given = {"llm": llm} if llm else {}
    study = _checked_study(configfile, given)
    if switch_name is not None:
        click.echo(explain_switch(study_layout(study), world, switch_name, system, item), nl=False)
        return
    if branch is None or checkpoint is None:
        raise click.UsageError("give --branch and --checkpoint (or --switch NAME)")
    target = Target(
        world,
        branch,
        system,
        item,
        checkpoint,
        "premise" if premise else kind,
        study["consent"]["read_set"],
    )
    click.echo(render(gather(study_layout(study), target)), nl=False)


@cli.command()
@click.option(
    "--configfile",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="The study, as given to snakemake (default: config/config.yaml alone).",
)
@click.option("--llm", default=None, help="The profile to plan for, if not the study's `llm`.")
@click.option(
    "--throughput-in",
    type=float,
    default=None,
    metavar="TOK/S",
    help="Prompt tokens/s over all requests in flight (default: 10,000, assumed for vLLM, 1 GPU).",
)
@click.option(
    "--throughput-out",
    type=float,
    default=None,
    metavar="TOK/S",
    help="Reply tokens/s over all requests in flight (default: 1,500, assumed likewise).",
)
@click.option(
    "--price-in", type=float, default=None, metavar="USD/M", help="Dollars per million tokens in."
)
@click.option(
    "--price-out", type=float, default=None, metavar="USD/M", help="Dollars per million tokens out."
)
@click.option("--cores", default="all", show_default=True, help="Passed to snakemake.")
@click.option(
    "--no-run",
    is_flag=True,
    help="Read the study's rule-based run as it is; do not run or finish it.",
)
def plan(
    configfile: Path | None,
    llm: str | None,
    throughput_in: float | None,
    throughput_out: float | None,
    price_in: float | None,
    price_out: float | None,
    cores: str,
    no_run: bool,
) -> None:
    """Before anything is sent to a model: the calls, tokens in and out, hours and dollars of a
    study on a profile, by stage and role, from the requests of the study's rule-based run (run
    first if needed). Writes plan.parquet and plan.json into the profile's run folder."""
    from memshift.analysis.plan import THROUGHPUT_IN, THROUGHPUT_OUT, Rates
    from memshift.report.plan import render
    from memshift.stages import plan as stage

    rates = Rates(
        THROUGHPUT_IN if throughput_in is None else throughput_in,
        THROUGHPUT_OUT if throughput_out is None else throughput_out,
        price_in,
        price_out,
    )
    given = {"llm": llm} if llm else {}
    study = _checked_study(configfile, given)
    names = ", ".join(f"{r} {p.name}" for r, p in stage.profiles_of(study).items())
    result = stage.plan(study, rates, configfile, cores, build=not no_run)
    click.echo(render(result.lines, result.totals, rates, names, str(result.source)))
    written = f"{layout.run_plan(result.out)} and {layout.run_plan_summary(result.out).name}"
    click.echo(f"memshift: plan written to {written}", err=True)


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
    from memshift.export.dataset import export_dataset as write

    study = _checked_study(configfile)
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
    callback=_system_names,
    help="The system's name in the report (lower-case letters, digits, - and _; at most 64).",
)
@click.option("--cores", default="2", show_default=True, help="Snakemake's --cores.")
def score_predictions(path: Path, configfile: Path | None, name: str, cores: str) -> None:
    """Score a predictions file into the study's report, beside its own systems: the study runs
    again with `systems.predictions` naming it (finished jobs are not repeated), so the file is
    checked, its answers scored and the report written with the system in every table."""
    import json
    import subprocess

    from memshift import layout
    from memshift.config import DEFAULT_CONFIG, study_layout
    from memshift.predictions import read_predictions
    from memshift.public_probes import not_given, unbuilt

    configfile = configfile or DEFAULT_CONFIG
    if not configfile.is_file():
        raise MemshiftError(f"{configfile}: no such study file here; name one with --configfile")
    predictions = read_predictions(path)
    study = _checked_study(configfile)
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


EXIT_DIFFERS = 1
EXIT_CANNOT_VERIFY = 2


@cli.command()
@click.argument("manifest", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--base",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Directory the manifest's output paths are relative to (default: the results "
    "directory holding the manifest, <results>/runs/<study>/h<N>/<profile>/manifest.json).",
)
def verify(manifest: Path, base: Path | None) -> None:
    """Re-hash a run's outputs against its manifest.

    \b
    Exit status:
      0  every output matches
      1  outputs differ: one or more is missing or differs (each named on stdout)
      2  cannot verify: the manifest is unreadable or malformed, the base directory does not
         exist, or an output path is absolute, climbs out with '..' or resolves outside the
         base through a symbolic link (one line on stderr)"""
    from memshift.stages import run_manifest as stage

    try:
        checked, problems = stage.verify(manifest, base)
    except MemshiftError as exc:
        click.echo(f"memshift verify: cannot verify: {exc}", err=True)
        sys.exit(EXIT_CANNOT_VERIFY)
    for problem in problems:
        click.echo(f"{problem.path}: {problem.what}")
    if problems:
        click.echo(f"{len(problems)} of {checked} outputs do not match {manifest}", err=True)
        sys.exit(EXIT_DIFFERS)
    click.echo(f"all {checked} outputs match {manifest}", err=True)


@cli.group()
def models() -> None:
    """Model profiles: list them and check that one works."""


@models.command("list")
@MODELS
def models_list(models_file: Path) -> None:
    """The profiles defined in the models file."""
    from memshift.models.profiles import load_profiles
    from memshift.models.redaction import shown_url

    for name, profile in load_profiles(models_file).items():
        if profile.backend == "rules":
            errors = ", with injected errors" if profile.error_model else ""
            click.echo(f"{name}: the rule-based backend (offline{errors})")
        else:
            where = f" at {shown_url(profile.base_url)}" if profile.base_url else ""
            click.echo(f"{name}: {profile.backend}, model {profile.model}{where}")


@models.command("check")
@click.argument("profile")
@MODELS
@click.option("--base-url", default=None, help="Override the profile's base URL.")
def models_check(profile: str, models_file: Path, base_url: str | None) -> None:
    """Send one request per role through PROFILE and report what works."""
    import dataclasses

    from memshift.models.check import report, run_check, try_other_forms
    from memshift.models.profiles import check_base_url, load_profile
    from memshift.retrieval.budgets import check_budgets

    chosen = load_profile(models_file, profile)
    if base_url:
        check_base_url(profile, base_url)
        chosen = dataclasses.replace(chosen, base_url=base_url)
    budgets = check_budgets(chosen)
    replies = run_check(chosen, budgets)
    click.echo(report(chosen, replies, try_other_forms(chosen, replies, budgets), budgets))
    if not all(r.ok for r in replies):
        sys.exit(1)


@cli.command(
    "serve-study", context_settings={"ignore_unknown_options": True, "allow_extra_args": True}
)
@click.argument("preset", required=False)
@click.option(
    "--configfile",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="The study (default: config/config.yaml's).",
)
@click.option("--cores", default="all", show_default=True)
@click.option(
    "--servers-file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=str(layout.config_file("servers")),
    show_default=True,
    help="The file that defines the server presets.",
)
@MODELS
@click.option("--dry-run", is_flag=True, help="Print the server command; plan the study only.")
@click.option("--no-check", is_flag=True, help="Run the study even if a role fails the check.")
@click.option("--list", "list_presets", is_flag=True, help="List the presets and stop.")
@click.option(
    "--quiet",
    is_flag=True,
    help="No progress lines from the study's model jobs (by default each prints calls done of "
    "total, tokens/s and an ETA to its log every 10 s; MEMSHIFT_PROGRESS=SECONDS sets another).",
)
@click.pass_context
def serve_study(
    ctx: click.Context,
    preset: str | None,
    configfile: Path | None,
    cores: str,
    servers_file: Path,
    models_file: Path,
    dry_run: bool,
    no_check: bool,
    list_presets: bool,
    quiet: bool,
) -> None:
    """Start the model server of PRESET, wait for it, check every role, run the study on its
    profile and stop the server however the study ends. Arguments after the options go to
    snakemake as they are."""
    import subprocess

    from memshift.models import server
    from memshift.models.check import report, run_check, try_other_forms
    from memshift.retrieval.budgets import check_budgets

    if list_presets or preset is None:
        for name, found in server.load_presets(servers_file).items():
            click.echo(f"{name}: port {found.port}, profile {found.profile}. {found.description}")
        return
    chosen = server.load_preset(servers_file, preset)
    profile = server.matching_profile(chosen, models_file)
    root = Path.cwd()
    study = server.study_argv(configfile, profile.name, cores, ctx.args, dry_run)

    def say(line: str) -> None:
        click.echo(f"memshift: {line}", err=True)

    if dry_run:
        click.echo(f"server: {server.shown(chosen.argv(root))}")
        click.echo(f"study:  {server.shown(study)}")
        sys.exit(subprocess.run(study, check=False).returncode)
    log = layout.server_log(root / "results", chosen.name)
    with server.serving(chosen, root, log, say):
        budgets = check_budgets(profile)
        replies = run_check(profile, budgets)
        tried = try_other_forms(profile, replies, budgets)
        click.echo(report(profile, replies, tried, budgets), err=True)
        if not no_check and not all(r.ok for r in replies):
            raise MemshiftError(
                f"profile {profile.name!r} failed the check on {chosen.name}; fix the profile "
                "(see above) or pass --no-check to run the study all the same"
            )
        say(f"running {server.shown(study)}")
        code = subprocess.run(study, check=False, env=study_environment(quiet)).returncode
    sys.exit(code)


def study_environment(quiet: bool) -> dict[str, str]:
    """The environment of a study on a model server: its model jobs report their progress every
    10 s unless `quiet` or MEMSHIFT_PROGRESS says otherwise."""
    import os

    from memshift.models.progress import ENVIRONMENT

    if quiet:
        return {**os.environ, ENVIRONMENT: "0"}
    return {ENVIRONMENT: "10", **os.environ}


@cli.group()
def cache() -> None:
    """The model response cache."""


@cache.command("explain")
@click.argument("key")
@click.argument("other", required=False)
@click.option(
    "--cache-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=str(layout.llm_cache(Path(schema_default("results")))),
    show_default=True,
)
def cache_explain(key: str, other: str | None, cache_dir: Path) -> None:
    """Show what went into KEY; with OTHER, only the fields where the two keys differ (to find
    why a call missed the cache: take both keys from calls.parquet)."""
    from memshift.models.cache import ResponseCache, explain

    store = ResponseCache(cache_dir)
    first = store.components(key)
    if first is None:
        raise ConfigError(f"no cache entry {key} under {cache_dir}")
    second = None
    if other is not None:
        second = store.components(other)
        if second is None:
            raise ConfigError(f"no cache entry {other} under {cache_dir}")
    for line in explain(first, second) or ["the two keys have identical components"]:
        click.echo(line)


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
    from memshift.stages import validation as stage

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
    from memshift.stages import validation as stage

    config = _checked_study(configfile)
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
    from memshift.stages import validation_grid as stage

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
    from memshift.stages import validation_grid as stage

    config, plan, out = _validation_grid(configfile)
    runs = runs_of_study(
        Path(config["results"]), config["study"], config["worlds"]["history_months"]
    )
    stage.run(plan, runs, out, study_resampling(config))


def _validation_grid(configfile: Path) -> tuple[dict[str, Any], Any, Path]:
    """A grid study's config, its writers and its report directory, <results>/<study>."""
    from memshift.stages import validation_grid as stage

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

    config = _checked_study(configfile)
    _report_horizons(config, _horizon_list(horizons))


def _report_horizons(config: dict[str, Any], months: list[int]) -> None:
    from memshift.layout import run_dir, runs_report_dir, worlds_dir
    from memshift.stages import horizons as stage
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

    config = _checked_study(configfile)
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
    from memshift.stages import heldout as stage
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

    config = _checked_study(configfile)
    if not config["worlds"].get("rewriter"):
        raise ConfigError(f"{configfile}: this command needs `worlds.rewriter` (a profile)")
    return config


def _report_rewritten(config: dict[str, Any]) -> None:
    from memshift.layout import run_dir, runs_report_dir, worlds_dir
    from memshift.stages import rewritten as stage
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


@cli.command(
    help="Run one job of the workflow, as a study runs it: STAGE (one of "
    f"{', '.join(JOBS)}) with SPEC, the job's settings, inputs and outputs as one JSON object "
    "(memshift.stages.specs; the workflow builds it from the checked study and the layout). "
    "A spec whose fields are unknown, missing, of the wrong type or outside their vocabulary is "
    "refused in one line naming the field."
)
@click.argument("stage", metavar="STAGE")
@click.argument("spec", metavar="SPEC")
@click.option(
    "--threads",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="The threads the scheduler gave the job (the report runs a second process on 2); "
    "they change no output.",
)
def job(stage: str, spec: str, threads: int) -> None:
    from memshift.stages import specs

    specs.run(stage, spec, threads)


def main() -> None:
    from memshift.artifacts import skip_pyarrow_pandas_probe

    skip_pyarrow_pandas_probe()
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except MemshiftError as exc:
        click.echo(f"memshift: error: {exc}", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
