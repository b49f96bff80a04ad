"""A world by hand, one stage at a time, its statistics, and `job`, which runs one job of the
workflow from its spec."""

from __future__ import annotations

from pathlib import Path

import click

from memshift.cli.group import cli
from memshift.cli.options import (
    BRANCH,
    DEFINITIONS,
    HISTORY,
    WORLD_DIR,
    WORLD_OUT,
    WORLD_SEED,
    SeedRange,
)
from memshift.errors import ConfigError
from memshift.intake.reading import schema_default
from memshift.stages.specs import JOBS
from memshift.vocabulary import (
    BRANCHES,
)
from memshift.world.timeline import HISTORY_MONTHS


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
