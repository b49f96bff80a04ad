"""Stage `validation-grid-report` (and the plan of `validate-grid`): the validation grid's writers
as a models file, and once their runs are finished, each one's m, r, a, delta yield and B×D as
its rates predict them against what its run measures (docs/validation.md, "The grid")."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import yaml

from memshift import layout, schemas
from memshift.analysis.bootstrap import Resampling
from memshift.artifacts import write_table, write_text
from memshift.errors import ConfigError
from memshift.intake.reading import load_yaml
from memshift.models.profiles import load_profile
from memshift.studies.validation.grid_analysis import GridCheck, GridRun, grid_checks
from memshift.studies.validation.grid_design_analysis import (
    GridPlan,
    GridWriter,
    Kind,
    anchor_writers,
    drawn_writers,
    profile_entry,
    profile_writer,
)
from memshift.studies.validation.grid_identity_analysis import identity_terms, interaction_surface
from memshift.studies.validation.grid_outcomes_analysis import load_item_times
from memshift.studies.validation.grid_report import render
from memshift.studies.validation.grid_report_figure import write_figures
from memshift.studies.validation.stage import study_runs
from memshift.world.items import ITEM_GROUPS

# the lattice of (error, overlook) rates over which B×D is predicted for the figure
SURFACE_STEPS = 41


def grid_plan(validation: Mapping[str, Any], models_file: Path) -> GridPlan:
    """The writers of a study's `validation` section: `writers` (the reference first, then
    simulated writers named in the models file) and `grid` (how many to draw, from what seed)."""
    if "grid" not in validation:
        raise ConfigError("a validation grid needs `validation.grid` (writers, seed)")
    seed, count = int(validation["grid"]["seed"]), int(validation["grid"]["writers"])
    reference, *labelled = (
        _named(models_file, name, "reference" if index == 0 else "labelled")
        for index, name in enumerate(validation["writers"])
    )
    if reference.errors or reference.overlooks:
        raise ConfigError(
            f"the reference writer {reference.name!r} must have no error model: every other "
            "writer's outcomes are predicted from it"
        )
    return GridPlan(reference, anchor_writers(seed), drawn_writers(count, seed), labelled, seed)


def _named(models_file: Path, name: str, kind: Kind) -> GridWriter:
    profile = load_profile(models_file, name)
    if profile.backend != "rules":
        raise ConfigError(
            f"validation grid: {name!r} is a {profile.backend} profile; the grid predicts only "
            "simulated writers (the rules backend with an error model)"
        )
    return profile_writer(name, kind, profile.error_model)


def write_models(plan: GridPlan, models_file: Path, out: Path) -> Path:
    """The study's models file with the anchors and drawn writers added, as `out`/models.yaml."""
    data = load_yaml(models_file, "model profiles")
    profiles = dict(data["profiles"])
    for writer in [*plan.anchors, *plan.drawn]:
        if writer.name in profiles:
            raise ConfigError(
                f"{models_file}: profile {writer.name!r} is a validation-grid writer's name; "
                "rename it"
            )
        profiles[writer.name] = profile_entry(writer)
    path = layout.models_copy(out)
    header = (
        "# Written by memshift validate-grid from "
        f"{models_file.name} and the grid's seed {plan.seed}; do not edit.\n"
    )
    text = yaml.safe_dump({"profiles": profiles}, sort_keys=False, allow_unicode=True)
    write_text(header + text, path)
    return path


def writers_table(plan: GridPlan) -> pa.Table:
    rows = schemas.empty_columns(schemas.VALIDATION_GRID_WRITERS)
    for writer in plan.writers:
        rows["writer"].append(writer.name)
        rows["kind"].append(writer.kind)
        rows["seed"].append(writer.seed)
        for group in ITEM_GROUPS:
            rows[f"error_{group}"].append(writer.error(group))
            rows[f"overlook_{group}"].append(writer.overlook(group))
    return pa.Table.from_pydict(rows, schema=schemas.VALIDATION_GRID_WRITERS)


def checks_table(found: Sequence[GridCheck]) -> pa.Table:
    rows = schemas.empty_columns(schemas.VALIDATION_GRID)
    for c in found:
        for name, value in (
            ("writer", c.writer),
            ("kind", c.kind),
            ("shift", c.shift),
            ("cell", c.cell),
            ("measure", c.measure),
            ("injected", c.injected),
            ("estimate", c.found.estimate),
            ("low", c.found.low),
            ("high", c.found.high),
            ("worlds", c.found.worlds),
            ("informative", c.informative),
            ("within", c.within),
            ("alone_low", None if c.alone is None else c.alone.low),
            ("alone_high", None if c.alone is None else c.alone.high),
        ):
            rows[name].append(value)
    return pa.Table.from_pydict(rows, schema=schemas.VALIDATION_GRID)


def run(plan: GridPlan, runs_dir: Path, out: Path, resampling: Resampling) -> Path:
    """Read every writer's run in `runs_dir`, write the grid's tables, figures and report."""

    def loaded(writer: GridWriter) -> GridRun:
        return GridRun(writer, load_item_times(runs_dir / writer.name))

    reference = loaded(plan.reference)
    anchors = [loaded(w) for w in plan.anchors]
    found = grid_checks(
        reference, anchors, [loaded(w) for w in [*plan.drawn, *plan.labelled]], resampling
    )
    surface = interaction_surface(reference, anchors, SURFACE_STEPS)
    writers = layout.report_table(out, layout.GRID_WRITERS)
    write_table(writers_table(plan), schemas.VALIDATION_GRID_WRITERS, writers)
    checks = layout.report_table(out, layout.GRID_CHECKS)
    write_table(checks_table(found), schemas.VALIDATION_GRID, checks)
    figures = write_figures(found, plan, surface, layout.report_figures(out))
    report = layout.report_page(out, "md")
    terms = identity_terms(reference, anchors)
    shown = [f.relative_to(out) for f in figures]
    write_text(render(plan, found, terms, resampling, shown), report)
    print(f"validation grid: {len(found)} checks -> {report}", file=sys.stderr, flush=True)
    return report


def plan_of_study(study: Mapping[str, Any]) -> tuple[GridPlan, Path]:
    """A checked grid study's writers and its report folder, <results>/<study>/."""
    plan = grid_plan(study["validation"], Path(study["models"]))
    return plan, layout.grid_report_dir(Path(study["results"]), study["study"])


def of_study(study: Mapping[str, Any]) -> Path:
    """The grid's report from the finished runs of a checked grid study's writers."""
    plan, out = plan_of_study(study)
    return run(plan, study_runs(study), out, Resampling.of_report(study["report"]))
