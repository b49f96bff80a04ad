"""Ratios of several systems in every bootstrap draw, for differences and ratios between them
that keep the pairing of the draws (the same worlds, and units, in each)."""

from __future__ import annotations

from collections.abc import Iterable

import duckdb

from memshift.analysis.sqlfiles import run


def draw_ratios(
    con: duckdb.DuckDBPyConnection, systems: Iterable[str], measures: Iterable[str]
) -> None:
    """Table draw_ratios(system, branch, item_class, measure, draw, value) for `systems` and
    `measures`, over every cause and checkpoint. Needs measure_ratios and the weight tables."""
    con.execute("CREATE OR REPLACE TABLE drawn_systems (system VARCHAR)")
    chosen = sorted(set(systems))
    if chosen:
        con.executemany("INSERT INTO drawn_systems VALUES (?)", [(s,) for s in chosen])
    names = sorted(set(measures))
    for name in names:
        if not name.replace("_", "").isalnum():
            raise ValueError(f"not a measure name: {name!r}")
    run(con, "draw_ratios", measures=", ".join(f"'{m}'" for m in names) or "NULL")
