"""Model calls of a run, with their tokens, by who made them, role and shift."""

from __future__ import annotations

import duckdb
import pyarrow as pa

from memshift import schemas
from memshift.analysis.sqlfiles import sql

# Columns of the call log that logs written before them lack; a study read from such logs alone
# has no column of that name at all, so it is added, empty (counted as 0).
LATER_COLUMNS = {"prompt_tokens": "INTEGER", "prefix_hit_tokens": "INTEGER"}


def call_costs(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """One row per calling system, role and branch, from the `calls` table of `open_study`."""
    for name, kind in LATER_COLUMNS.items():
        con.execute(f"ALTER TABLE calls ADD COLUMN IF NOT EXISTS {name} {kind}")
    return con.sql(sql("call_costs")).to_arrow_table().cast(schemas.CALL_COSTS)
