"""How much of the key's effect a B=0 variant recovers (MemShift Table 27): per repair arm,
branch and item class, R = (x - B0) / (B1 - B0), with x the variant's Update (refresh, upsert),
B0 the append-only cell's and B1 the key's (source) at the same D; not evaluated where
B1 - B0 < 5 pp. Point estimate and a percentile interval over the same world draws as the
measures."""

from __future__ import annotations

from typing import Any

import duckdb
import pyarrow as pa

from memshift import schemas
from memshift.analysis.bootstrap import MIN_WORLDS, Resampling
from memshift.analysis.draws import draw_ratios
from memshift.vocabulary import cell_parts, cell_system

VARIANTS = ("refresh", "upsert")
NO_KEY = "append"
KEY = "source"
MIN_EFFECT = 0.05


def recovery_table(
    con: duckdb.DuckDBPyConnection, systems: list[str], resampling: Resampling
) -> pa.Table:
    """The RECOVERY table of the study's refresh and upsert cells (empty without them). Needs
    measure_summary, measure_ratios and the weight tables."""
    cells = {parts for s in systems if (parts := cell_parts(s)) is not None}
    triples = [
        (variant, repair)
        for variant in VARIANTS
        for repair in sorted({r for r, _ in cells})
        if {(repair, variant), (repair, NO_KEY), (repair, KEY)} <= cells
    ]
    rows: list[dict[str, Any]] = []
    if not triples:
        return pa.Table.from_pylist(rows, schema=schemas.RECOVERY)
    draw_ratios(con, {cell_system(d, r) for v, r in triples for d in (v, NO_KEY, KEY)}, ["update"])
    tail = resampling.tail
    for variant, repair in triples:
        x, b0, b1 = (cell_system(d, repair) for d in (variant, NO_KEY, KEY))
        found = con.execute(
            f"""
            WITH point AS (
                SELECT branch, item_class,
                    any_value(estimate) FILTER (system = ?) AS x,
                    any_value(estimate) FILTER (system = ?) AS b0,
                    any_value(estimate) FILTER (system = ?) AS b1,
                    min(worlds) AS worlds
                FROM measure_summary
                WHERE measure = 'update' AND cause = 'all' AND checkpoint = -1
                    AND system IN (?, ?, ?)
                GROUP BY ALL
            ),
            drawn AS (
                SELECT branch, item_class, draw,
                    (any_value(value) FILTER (system = ?) - any_value(value) FILTER (system = ?))
                    / nullif(any_value(value) FILTER (system = ?)
                        - any_value(value) FILTER (system = ?), 0) AS ratio
                FROM draw_ratios
                GROUP BY ALL
            ),
            spread AS (
                SELECT branch, item_class,
                    quantile_cont(ratio, [{tail!r}, {1 - tail!r}]) AS q
                FROM drawn
                WHERE ratio IS NOT NULL
                GROUP BY ALL
            )
            SELECT p.branch, p.item_class, p.x, p.b0, p.b1, p.worlds, s.q
            FROM point AS p
            LEFT JOIN spread AS s USING (branch, item_class)
            WHERE p.x IS NOT NULL AND p.b0 IS NOT NULL AND p.b1 IS NOT NULL
            ORDER BY p.branch, p.item_class
            """,
            [x, b0, b1, x, b0, b1, x, b0, b1, b0],
        ).fetchall()
        for branch, item_class, xv, b0v, b1v, worlds, q in found:
            effect = b1v - b0v
            evaluated = effect >= MIN_EFFECT
            bounded = evaluated and q is not None and worlds >= MIN_WORLDS
            rows.append(
                {
                    "variant": variant,
                    "repair": repair,
                    "branch": branch,
                    "item_class": item_class,
                    "update_variant": xv,
                    "update_no_key": b0v,
                    "update_key": b1v,
                    "key_effect": effect,
                    "recovered": (xv - b0v) / effect if evaluated else None,
                    "low": q[0] if bounded else None,
                    "high": q[1] if bounded else None,
                    "worlds": worlds,
                }
            )
    return pa.Table.from_pylist(rows, schema=schemas.RECOVERY)
