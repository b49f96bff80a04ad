"""Failure modes a key does not fix (MemShift F.10): how often each system abstains where two
live sources disagree (gold abstains), with world-bootstrap intervals."""

from __future__ import annotations

import duckdb
import pyarrow as pa

from memshift import schemas
from memshift.analysis.bootstrap import Resampling, quantity_table
from memshift.analysis.sqlfiles import run


def failure_modes_table(con: duckdb.DuckDBPyConnection, resampling: Resampling) -> pa.Table:
    """The FAILURE_MODES table (empty without a conflict branch). Needs scores and the weight
    tables."""
    run(con, "failure_mode_values")
    return quantity_table(
        con, "failure_mode_values", ["system", "branch"], schemas.FAILURE_MODES, resampling
    )
