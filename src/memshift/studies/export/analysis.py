"""The export shift's measures: every imported memory beside the cell it was exported from, on
each branch, with their difference under the world bootstrap; and what each exported bundle
holds, as the format's reference package validates it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from memshift import schemas
from memshift.analysis.bootstrap import MIN_WORLDS, Resampling
from memshift.analysis.draws import draw_ratios
from memshift.analysis.sqlfiles import records
from memshift.errors import MemshiftError
from memshift.studies.export.bundles import bundle_summary
from memshift.vocabulary import portable_parts

EXPORT_MEASURES = ("update", "stability", "m", "r", "a")
_MEASURE_LIST = ", ".join(f"'{m}'" for m in EXPORT_MEASURES)  # fixed names, no input


def pairs(systems: Sequence[str]) -> list[tuple[str, str]]:
    """(exported cell, imported memory) for every imported memory scored beside its cell."""
    return [
        (parts[0], system)
        for system in systems
        if (parts := portable_parts(system)) is not None and parts[0] in systems
    ]


def export_table(
    con: duckdb.DuckDBPyConnection, found: Sequence[tuple[str, str]], resampling: Resampling
) -> pa.Table:
    """One row per imported memory, branch and measure (EXPORT_MEASURES) that has an estimate:
    its estimate and interval, the original's, and the difference with its percentile interval
    (none below MIN_WORLDS worlds). Needs measure_summary, measure_ratios and the weights."""
    con.execute("CREATE OR REPLACE TABLE export_pairs (original VARCHAR, imported VARCHAR)")
    if found:
        con.executemany("INSERT INTO export_pairs VALUES (?, ?)", list(found))
    draw_ratios(con, [s for pair in found for s in pair], EXPORT_MEASURES)
    tail = resampling.tail
    found_rows = records(
        con,
        f"""
        WITH drawn AS (
            SELECT p.imported, i.branch, i.measure, i.value - o.value AS diff
            FROM export_pairs AS p
            JOIN draw_ratios AS i ON i.system = p.imported AND i.item_class = 'all'
            JOIN draw_ratios AS o ON o.system = p.original AND o.item_class = 'all'
                AND o.branch = i.branch AND o.measure = i.measure AND o.draw = i.draw
        ),
        spread AS (
            SELECT imported, branch, measure, quantile_cont(diff, [{tail!r}, {1 - tail!r}]) AS q
            FROM drawn
            WHERE diff IS NOT NULL
            GROUP BY ALL
        ),
        summary AS (
            SELECT * FROM measure_summary
            WHERE item_class = 'all' AND cause = 'all' AND checkpoint = -1
        )
        SELECT p.original AS cell, p.imported AS system, i.branch, i.measure,
            i.estimate, i.low, i.high, i.worlds,
            o.estimate AS original_estimate, o.low AS original_low, o.high AS original_high,
            i.estimate - o.estimate AS diff_vs_original,
            CASE WHEN least(i.worlds, o.worlds) >= {MIN_WORLDS} THEN s.q[1] END AS diff_low,
            CASE WHEN least(i.worlds, o.worlds) >= {MIN_WORLDS} THEN s.q[2] END AS diff_high
        FROM export_pairs AS p
        JOIN summary AS i ON i.system = p.imported
        JOIN summary AS o ON o.system = p.original AND o.branch = i.branch
            AND o.measure = i.measure
        LEFT JOIN spread AS s ON s.imported = p.imported AND s.branch = i.branch
            AND s.measure = i.measure
        WHERE i.measure IN ({_MEASURE_LIST})
            AND i.estimate IS NOT NULL
        ORDER BY p.imported, i.branch, i.measure
        """,
    )
    rows: list[dict[str, Any]] = []
    for row in found_rows:
        parts = portable_parts(row["system"])
        assert parts is not None
        rows.append({**row, "arm": parts[1]})
    return pa.Table.from_pylist(rows, schema=schemas.EXPORT)


def bundles_table(bundles: Sequence[Path]) -> pa.Table:
    """One row per exported bundle (run-dir/w<world>/export/<imported memory>.mem)."""
    rows = []
    for path in sorted(bundles):
        parts = portable_parts(path.name.removesuffix(".mem"))
        world = re.fullmatch(r"w(\d+)", path.parent.parent.name)
        if parts is None or world is None or path.parent.name != "export":
            raise MemshiftError(f"{path}: not a bundle of w<world>/export/pm-<cell>-<arm>.mem")
        rows.append(
            {
                "world": int(world[1]),
                "cell": parts[0],
                "arm": parts[1],
                **bundle_summary(path),
            }
        )
    return pa.Table.from_pylist(rows, schema=schemas.BUNDLES)
