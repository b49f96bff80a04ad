"""A study on a model server the command starts, checks and stops."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from memshift import layout
from memshift.cli.group import cli
from memshift.cli.options import MODELS, study_file
from memshift.errors import MemshiftError


@cli.command(
    "serve-study", context_settings={"ignore_unknown_options": True, "allow_extra_args": True}
)
@click.argument("preset", required=False)
@study_file(
    None,
    "The study (default: config/config.yaml's).",
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
