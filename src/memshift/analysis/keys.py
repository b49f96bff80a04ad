"""The key audit (MemShift Table 9a): what each detection key of the study invalidated, from
its maintenance logs; no model is involved in a key built from the world (source, oracle,
scope), so the audit is the key's, whatever the writer."""

from __future__ import annotations

import duckdb
import pyarrow as pa

from memshift import schemas
from memshift.analysis.sqlfiles import run

AUDITED_KEYS = ("source", "citation", "oracle", "scope")


def key_audit(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """The KEY_AUDIT table (empty when the study has none of AUDITED_KEYS). Needs item_times,
    invalidations, checkpoint_times and world_items."""
    run(con, "key_audit", keys=", ".join(f"'{key}'" for key in AUDITED_KEYS))
    return con.sql("SELECT * FROM key_audit").to_arrow_table().cast(schemas.KEY_AUDIT)
