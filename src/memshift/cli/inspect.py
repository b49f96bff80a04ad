"""Looking into a study: one item-time explained, a plan before the spend, a run verified against
its manifest, model profiles, the response cache, the numbers in the docs."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from memshift import layout
from memshift.cli.group import cli
from memshift.cli.options import MODELS, SEED, scored_system_name, study_file
from memshift.config import checked_study
from memshift.errors import ConfigError, MemshiftError
from memshift.intake.reading import schema_default
from memshift.vocabulary import (
    BRANCHES,
)


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
@study_file(
    None,
    "The study, as given to snakemake (default: config/config.yaml alone); its results "
    "directory, horizon and name say where its worlds and run are.",
)
@click.option("--llm", default=None, help="The run's model profile, if not the study's `llm`.")
@click.option("--world", type=SEED, required=True, help="World seed.")
@click.option("--branch", type=click.Choice(BRANCHES), default=None, help="The score's branch.")
@click.option(
    "--system",
    required=True,
    callback=scored_system_name,
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
    from memshift.studies.switch.explain import explain_switch

    given = {"llm": llm} if llm else {}
    study = checked_study(configfile, given)
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
@study_file(
    None,
    "The study, as given to snakemake (default: config/config.yaml alone).",
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
    study = checked_study(configfile, given)
    names = ", ".join(f"{r} {p.name}" for r, p in stage.profiles_of(study).items())
    result = stage.plan(study, rates, configfile, cores, build=not no_run)
    click.echo(render(result.lines, result.totals, rates, names, str(result.source)))
    written = f"{layout.run_plan(result.out)} and {layout.run_plan_summary(result.out).name}"
    click.echo(f"memshift: plan written to {written}", err=True)


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
