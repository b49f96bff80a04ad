"""Model calls of a run, with their tokens, by who made them, role and shift."""

from __future__ import annotations

import duckdb
import pyarrow as pa

from memshift import schemas
from memshift.analysis.sqlfiles import sql


def call_costs(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """One row per calling system, role and branch, from the `calls` table of `open_study`."""
    return con.sql(sql("call_costs")).to_arrow_table().cast(schemas.CALL_COSTS)
