"""Stage `horizons-report`: one study run at several horizons (months of history before the
fork), side by side: measures, the contrasts the paper follows over horizons, tokens per query
by part, and the size of each horizon's worlds (MemShift §6.4, F.6).

Reads each horizon's finished run (its report's tables, scores and logs) and worlds; writes
<out>/tables/{horizons,horizon_contrasts,horizon_costs,horizon_diagnostics,horizon_worlds}.parquet,
<out>/figures/horizons.png and <out>/report.md.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from memshift import layout, schemas
from memshift.analysis import measures
from memshift.analysis.bootstrap import Resampling
from memshift.analysis.contrasts import Contrast, paired
from memshift.analysis.cost_model import NO_STORE, STORED
from memshift.analysis.frame import (
    open_study,
)
from memshift.artifacts import ArtifactError, read_table, write_table, write_text
from memshift.config import study_layout
from memshift.studies.horizons import report as text
from memshift.vocabulary import UNSHIFTED

MEASURES = ("before_shift", "update", "stability", "r", "a", "m")
# (name, contrast, detection, setting, branch, item class, measure) of each run's contrasts
FOLLOWED = (
    ("B at D=0, after a redefinition", "B", "source", "D=0", "def", "all", "update"),
    (
        "D on re-derived accuracy, definition items, after a redefinition",
        "D",
        "source",
        "B=source",
        "def",
        "definition",
        "rederived_accuracy",
    ),
)
STORED_GAIN = f"{NO_STORE} − {STORED} before any shift"


@dataclass(frozen=True)
class Horizon:
    months: int
    run: Path  # the run directory (layout.run_dir)
    worlds: Path  # the worlds directory (layout.worlds_dir)


def _progress(message: str) -> None:
    print(f"horizons: {message}", file=sys.stderr, flush=True)


def run_logs(run: Path) -> list[Path]:
    """Every log of a finished run that the analysis reads: maintenance, answer-audit,
    invalidation and model call logs."""
    return sorted(p for p in run.glob("w*/**/*.parquet") if layout.run_log(p) is not None)


def _report_table(run: Path, name: str, schema: pa.Schema) -> pa.Table:
    path = layout.report_table(run / "report", name)
    if not path.exists():
        raise ArtifactError(f"missing {path}: run the study at this horizon to its report first")
    return read_table(path, schema)


def _with_horizon(months: int, rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{"horizon_months": months, **row} for row in rows]


def stored_gain(con: duckdb.DuckDBPyConnection, resampling: Resampling) -> dict[str, Any] | None:
    """No-store retrieval minus the source-keyed cell, paired by probe, before any shift on the
    unshifted branch (the paper: −25.8 pp at twelve months)."""
    systems = {s for (s,) in con.execute("SELECT DISTINCT system FROM scores").fetchall()}
    if not {STORED, NO_STORE} <= systems:
        return None
    found = paired(
        con,
        [Contrast("stored", "", "", ((NO_STORE, 1), (STORED, -1)))],
        resampling,
        population="before_shift",
    )
    return next(
        (r for r in found if r["branch"] == UNSHIFTED and r["item_class"] == "all"),
        None,
    )


def world_sizes(horizon: Horizon, worlds: Sequence[int]) -> dict[str, Any]:
    """Events and tokens per world on the unshifted branch."""
    files = [layout.events(layout.world_in(horizon.worlds, w), UNSHIFTED) for w in worlds]
    missing = [f for f in files if not f.exists()]
    if missing:
        raise ArtifactError(f"missing artifact {missing[0]}")
    paths = ", ".join(f"'{f.as_posix()}'" for f in files)
    [(events, tokens)] = duckdb.sql(
        f"SELECT count(*), coalesce(sum(tokens), 0) FROM read_parquet([{paths}])"
    ).fetchall()
    return {
        "horizon_months": horizon.months,
        "worlds": len(worlds),
        "events_per_world": events / len(worlds),
        "tokens_per_world": tokens / len(worlds),
    }


def one_horizon(horizon: Horizon, resampling: Resampling) -> dict[str, list[dict[str, Any]]]:
    measured = _report_table(horizon.run, "measures", schemas.MEASURES).to_pylist()
    contrasts = _report_table(horizon.run, "contrasts", schemas.CONTRASTS).to_pylist()
    costs = _report_table(horizon.run, "costs", schemas.COSTS).to_pylist()
    tests = _report_table(horizon.run, "diagnostics", schemas.DIAGNOSTICS).to_pylist()
    chosen = [
        {k: v for k, v in r.items() if k != "cause"}
        for r in measured
        if r["cause"] == "all" and r["measure"] in MEASURES
    ]
    followed = []
    for name, *key in FOLLOWED:
        row = next(
            (
                r
                for r in contrasts
                if [
                    r["contrast"],
                    r["detection"],
                    r["setting"],
                    r["branch"],
                    r["item_class"],
                    r["measure"],
                ]
                == key
            ),
            None,
        )
        if row is not None:
            followed.append(_contrast_row(horizon.months, name, row))
    con = open_study(layout.run_scores(horizon.run), run_logs(horizon.run))
    measures.compute(con, resampling)
    gain = stored_gain(con, resampling)
    if gain is not None:
        followed.append(_contrast_row(horizon.months, STORED_GAIN, gain))
    worlds = [w for (w,) in con.execute("SELECT DISTINCT world FROM scores ORDER BY 1").fetchall()]
    return {
        "horizons": _with_horizon(horizon.months, chosen),
        "horizon_contrasts": followed,
        "horizon_costs": _with_horizon(horizon.months, costs),
        "horizon_diagnostics": _with_horizon(horizon.months, tests),
        "horizon_worlds": [world_sizes(horizon, worlds)],
    }


def _contrast_row(months: int, name: str, row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "horizon_months": months,
        "contrast": name,
        **{k: row[k] for k in ("estimate", "low", "high", "n", "worlds")},
    }


SCHEMAS = {
    "horizons": schemas.HORIZON_MEASURES,
    "horizon_contrasts": schemas.HORIZON_CONTRASTS,
    "horizon_costs": schemas.HORIZON_COSTS,
    "horizon_diagnostics": schemas.HORIZON_DIAGNOSTICS,
    "horizon_worlds": schemas.HORIZON_WORLDS,
}


def run(horizons: Sequence[Horizon], out: Path, resampling: Resampling, study: str) -> Path:
    if not horizons:
        raise ArtifactError("no horizon to report")
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in SCHEMAS}
    for horizon in sorted(horizons, key=lambda h: h.months):
        _progress(f"{horizon.months} months of history: {horizon.run}")
        for name, found in one_horizon(horizon, resampling).items():
            rows[name] += found
    tables = {
        name: pa.Table.from_pylist(rows[name], schema=schema) for name, schema in SCHEMAS.items()
    }
    for name, table in tables.items():
        write_table(table, SCHEMAS[name], layout.report_table(out, name))
    text.write_figure(tables, layout.report_figures(out) / text.FIGURE)
    report = layout.report_page(out, "md")
    write_text(text.render(study, {n: t.to_pylist() for n, t in tables.items()}), report)
    _progress(f"wrote {report}")
    return report


def of_study(study: Mapping[str, Any], months: Sequence[int]) -> Path:
    """The horizons report of a checked study already run at each of `months` (on its worlds'
    definition set and rewriter, if any), in <results>/runs/<study>/horizons/<run>/
    (`horizons-<set>` on another definition set)."""
    at = [study_layout(study, history_months=m) for m in months]
    return run(
        [Horizon(m, p.runs, p.worlds) for m, p in zip(months, at, strict=True)],
        study_layout(study).runs_report("horizons"),
        Resampling.of_report(study["report"]),
        study["study"],
    )
