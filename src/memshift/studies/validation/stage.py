"""Stage `validation-report`: a validation study's known values against what the measures
recover, from the runs of its writers (one run per writer, over the same worlds)."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from memshift import layout, schemas
from memshift.analysis.bootstrap import Resampling
from memshift.artifacts import write_table, write_text
from memshift.config import study_layout
from memshift.models.profiles import Profile, load_profile
from memshift.studies.validation.analysis import Check, Writer, checks
from memshift.studies.validation.report import Described, render


def _profile(models_file: Path, name: str) -> Profile:
    if name == "rules" and not models_file.exists():
        return Profile("rules", "rules")
    return load_profile(models_file, name)


def checks_table(found: Sequence[Check]) -> pa.Table:
    rows = schemas.empty_columns(schemas.VALIDATION)
    for c in found:
        for name, value in (
            ("writer", c.writer),
            ("shift", c.shift),
            ("check", c.check),
            ("item_class", c.item_class),
            ("known", c.known),
            ("estimate", c.found.estimate),
            ("low", c.found.low),
            ("high", c.found.high),
            ("worlds", c.found.worlds),
            ("paper", c.paper),
            ("within", c.within),
            ("sign_matches", c.sign_matches),
        ):
            rows[name].append(value)
    return pa.Table.from_pydict(rows, schema=schemas.VALIDATION)


def run(
    writers: Sequence[str],
    runs_dir: Path,
    models_file: Path,
    out: Path,
    resampling: Resampling,
) -> Path:
    profiles = [_profile(models_file, name) for name in writers]
    found = checks(
        [Writer(p.name, runs_dir / p.name, dict(p.error_model.get("rates", {}))) for p in profiles],
        resampling,
    )
    table = layout.report_table(out, "validation")
    write_table(checks_table(found), schemas.VALIDATION, table)
    report = layout.report_page(out, "md")
    described = [Described(p.name, p.error_model, p.description) for p in profiles]
    write_text(render(described, found, resampling), report)
    print(f"validation: {len(found)} checks -> {report}", file=sys.stderr, flush=True)
    return report


def study_runs(study: Mapping[str, Any]) -> Path:
    """Where a checked study's runs live, one per writer (on its worlds' definition set and
    rewriter, if any)."""
    return study_layout(study).profile_runs


def of_study(study: Mapping[str, Any]) -> Path:
    """Known against recovered, from the finished runs of a checked validation study's writers,
    in <results>/validation/."""
    return run(
        study["validation"]["writers"],
        study_runs(study),
        Path(study["models"]),
        layout.validation_report_dir(Path(study["results"])),
        Resampling.of_report(study["report"]),
    )
