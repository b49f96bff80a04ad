"""The log of a rewritten world (`rewrite-log.parquet`, written by the rewrite stage).

One row per rewritable record of the world, that is per distinct (object_id, revision, content):
a record shared by the base events and several branches is one row, listing them all in
`branches` ("base" for the world's own events). `calls` is what the rewrite of its content cost,
on the first row of that content only (`cached` on the others), so the column sums to the calls
made. Token and character counts are of the body alone: the header is the same before and after.

The schema lives here, not in `memshift.schemas`, only while that module is being edited
elsewhere; it belongs there beside EVENTS.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

from memshift import schemas

REWRITE_LOG = schemas.REWRITE_LOG


@dataclass(frozen=True)
class LogRow:
    object_id: str
    revision: int
    source: str
    kind: str
    branches: tuple[str, ...]
    content_hash: str
    outcome: str
    violations: str
    calls: int
    cached: bool
    changed: bool
    chars_before: int
    chars_after: int
    tokens_before: int
    tokens_after: int


def log_to_table(rows: Sequence[LogRow], *, world: int) -> pa.Table:
    columns = schemas.empty_columns(REWRITE_LOG)
    for row in rows:
        columns["world"].append(world)
        for name in REWRITE_LOG.names[1:]:
            value = getattr(row, name)
            columns[name].append(list(value) if name == "branches" else value)
    return pa.Table.from_pydict(columns, schema=REWRITE_LOG)
