"""Where a finished run's report is, and the command that builds Snakemake's HTML report of
the same study (it needs the run's --configfile, or it would look for the default study)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from memshift import layout


def shown(path: str | Path) -> str:
    """A path as typed in the working directory (Snakemake hands config files over absolute)."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def report_command(
    configfiles: Sequence[str | Path], overrides: Mapping[str, Any] | None = None
) -> str:
    """`snakemake --report`, for the study of these config files and the run's top-level
    `--config` values, into a file named after it."""
    given = "".join(f" --configfile {shlex.quote(shown(path))}" for path in configfiles)
    plain = {k: v for k, v in (overrides or {}).items() if isinstance(v, str | int | float)}
    if plain:
        given += " --config " + " ".join(shlex.quote(f"{k}={v}") for k, v in plain.items())
    name = f"{Path(configfiles[-1]).stem}-report.html" if configfiles else "report.html"
    return f"snakemake{given} --report {shlex.quote(name)}"


def report_hint(
    runs: str | Path,
    configfiles: Sequence[str | Path],
    overrides: Mapping[str, Any] | None = None,
) -> str | None:
    """Lines that name the run's report, or None while it has none."""
    report = layout.report_page(layout.run_report(Path(runs)), "md")
    if not report.exists():
        return None
    return "\n".join(
        [
            f"memshift: the report is {report} (one page with its tables and figures: "
            f"{report.with_suffix('.html')})",
            "memshift: Snakemake's HTML report of this study: "
            + report_command(configfiles, overrides),
        ]
    )
