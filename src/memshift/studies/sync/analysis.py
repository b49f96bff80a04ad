"""The sync study's table (MemShift F.10): per system and source, accuracy under ideal delivery
and under the sources' sync contracts, their paired difference, and the sync x key interaction,
with world-bootstrap intervals."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb
import pyarrow as pa

from memshift import schemas
from memshift.analysis.bootstrap import Resampling, quantity_table
from memshift.analysis.sqlfiles import path_literal, run


def sync_table(
    con: duckdb.DuckDBPyConnection, scores: Sequence[Path], resampling: Resampling
) -> pa.Table:
    """The SYNC table from the worlds' sync scores; needs the bootstrap's weight tables."""
    if not scores:
        return schemas.SYNC.empty_table()
    con.execute(
        "CREATE OR REPLACE TABLE sync_scores AS SELECT * FROM read_parquet("
        f"[{', '.join(path_literal(p) for p in scores)}])"
    )
    run(con, "sync_values")
    return quantity_table(con, "sync_values", ["system", "source"], schemas.SYNC, resampling)
