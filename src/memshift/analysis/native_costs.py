"""What each native library spent per event it was given (MemShift F.9: "per event 1.00–2.67 LLM
calls and 0.20–0.75 of Mem0's tokens"): its own model calls, metered between it and its server
(`native/meter.py`), over the record events and stated redefinitions of the branches it followed;
tokens per event also as a share of a Mem0 system's in the same study."""

from __future__ import annotations

from typing import Any

import duckdb
import pyarrow as pa

from memshift import schemas
from memshift.analysis.sqlfiles import sql

MEM0 = "mem0"


def native_costs_table(con: duckdb.DuckDBPyConnection) -> pa.Table:
    """The NATIVE_COSTS table (empty without a native system). Needs the `calls`, `events` and
    `checkpoint_times` tables of the report's database."""
    rows: list[dict[str, Any]] = con.sql(sql("native_costs")).to_arrow_table().to_pylist()
    for r in rows:
        events = r["events"]
        r["calls_per_event"] = r["chat_calls"] / events if events else None
        tokens = r["chat_tokens_in"] + r["chat_tokens_out"]
        r["tokens_per_event"] = tokens / events if events else None
    mem0 = next((r for r in rows if r["library"] == MEM0 and r["tokens_per_event"]), None)
    for r in rows:
        r["versus"] = None if mem0 is None else mem0["system"]
        r["tokens_versus"] = (
            None
            if mem0 is None or r["tokens_per_event"] is None
            else r["tokens_per_event"] / mem0["tokens_per_event"]
        )
    return pa.Table.from_pylist(rows, schema=schemas.NATIVE_COSTS)
