"""A HoldMem cell's store after repair as rows of its artifact, and the statements it serves per
checkpoint and item; the audit/repair stage owns the table, the probing stage reads it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa

from memshift import schemas
from memshift.gold.tables import value_json
from memshift.memory.stored import StoredItem, as_value


def store_to_table(store: Mapping[int, Mapping[str, Sequence[StoredItem]]]) -> pa.Table:
    rows = schemas.empty_columns(schemas.STORE)
    for k in sorted(store):
        for item_id in sorted(store[k]):
            for position, s in enumerate(store[k][item_id]):
                rows["checkpoint"].append(k)
                rows["item_id"].append(item_id)
                rows["position"].append(position)
                rows["write_id"].append(s.write_id)
                rows["origin"].append(s.origin)
                rows["check"].append(s.check)
                rows["value"].append(value_json(as_value(s.value)))
                rows["text"].append(s.text)
    return pa.Table.from_pydict(rows, schema=schemas.STORE)


def table_to_evidence(table: pa.Table) -> dict[tuple[int, str], list[str]]:
    evidence: dict[tuple[int, str], list[str]] = {}
    for k, item_id, text in zip(
        table.column("checkpoint").to_pylist(),
        table.column("item_id").to_pylist(),
        table.column("text").to_pylist(),
        strict=True,
    ):
        evidence.setdefault((k, item_id), []).append(text)
    return evidence
