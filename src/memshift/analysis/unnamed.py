"""Naming the definition in the probe (MemShift F.2): each unnamed probe (the question without
the sentence that names the definition in effect) beside its named twin, answered by the same
cell. The key's effect at D=1 and the B×D interaction on both questions and their paired
difference, over the item-times all four cells of a key answered both ways, with world-bootstrap
intervals. Unnamed probes stay out of every other measure."""

from __future__ import annotations

import duckdb
import pyarrow as pa

from memshift import schemas
from memshift.analysis.bootstrap import Resampling, quantity_table
from memshift.analysis.sqlfiles import run
from memshift.vocabulary import cell_parts, cell_system

NO_KEY = "append"
QUANTITIES = (
    "b_named",
    "b_unnamed",
    "b_difference",
    "bxd_named",
    "bxd_unnamed",
    "bxd_difference",
)


def keys_with_cells(systems: set[str]) -> list[str]:
    """The keyed detections whose cells at D=0 and D=1 were scored beside the append-only
    cells."""
    keys = {parts[1] for s in systems if (parts := cell_parts(s)) is not None}
    return sorted(
        key
        for key in keys - {NO_KEY}
        if all(cell_system(d, r) in systems for d in (key, NO_KEY) for r in ("0", "1"))
    )


def unnamed_table(con: duckdb.DuckDBPyConnection, resampling: Resampling) -> pa.Table:
    """The UNNAMED table (empty without unnamed probes or without a key's four cells). Needs
    scores and the weight tables."""
    systems = {
        s
        for (s,) in con.execute(
            "SELECT DISTINCT system FROM scores WHERE kind = 'unnamed'"
        ).fetchall()
    }
    keys = keys_with_cells(systems)
    con.execute("CREATE OR REPLACE TABLE unnamed_keys (key VARCHAR)")
    if not keys:
        return schemas.UNNAMED.empty_table()
    con.executemany("INSERT INTO unnamed_keys VALUES (?)", [(k,) for k in keys])
    run(con, "unnamed_values")
    return quantity_table(con, "unnamed_values", ["detection"], schemas.UNNAMED, resampling)
