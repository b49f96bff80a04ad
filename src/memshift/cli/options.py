"""Options and checks the commands share: seeds, world folders, branches, system names, model
profiles, the study a --configfile names."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from memshift.config import parse_seeds
from memshift.definitions.catalog import DEFINITION_SETS
from memshift.errors import ConfigError
from memshift.intake.reading import schema_default
from memshift.vocabulary import (
    BRANCHES,
    MAX_SEED,
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


def system_names(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Each name given a system name (`vocabulary.system_name_problem`): it names folders and
    files of the run, so anything else is refused in one line before anything is written."""
    for name in (value,) if isinstance(value, str) else value or ():
        _refuse_system_name(param, name)
    return value


def scored_system_name(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A system name, or an audited system's (`<system>+audit...`) whose system's is one."""
    from memshift.vocabulary import audited_base

    _refuse_system_name(param, audited_base(value) or value)
    return value


def _refuse_system_name(param: click.Parameter, name: str) -> None:
    from memshift.intake.reading import shortened
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


def study_file(
    default: str | None, help: str
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--configfile`: the study a command reads, runs or reports, as given to snakemake (with
    no default, config/config.yaml alone); `help` says what the command needs of it."""
    return click.option(
        "--configfile",
        type=click.Path(path_type=Path, dir_okay=False, exists=True),
        default=default,
        show_default=default is not None,
        help=help,
    )
