"""A HoldMem cell's store after repair as rows of its artifact, and the statements it serves per
checkpoint and item; the audit/repair stage owns the table, the probing stage reads it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa

from memshift import schemas
from memshift.gold.tables import value_json
from memshift.memory.stored import SCOPE_FIELDS, StoredItem, as_value
from memshift.vocabulary import READ_SETS


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
                rows["read_scopes"].append(list(s.read_scopes))
                rows["cited_scopes"].append(list(s.cited_scopes))
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


def table_to_scopes(table: pa.Table, read_set: str) -> dict[tuple[int, str], frozenset[str]]:
    """Per checkpoint and item, the scopes its served statements read (`read_set` "selection")
    or cited ("citations"): what a B=1 cell revokes an item by."""
    if read_set not in SCOPE_FIELDS:
        raise ValueError(f"unknown read set {read_set!r}; choose one of {READ_SETS}")
    column = SCOPE_FIELDS[read_set]
    scopes: dict[tuple[int, str], frozenset[str]] = {}
    for k, item_id, touched in zip(
        table.column("checkpoint").to_pylist(),
        table.column("item_id").to_pylist(),
        table.column(column).to_pylist(),
        strict=True,
    ):
        scopes[(k, item_id)] = scopes.get((k, item_id), frozenset()) | frozenset(touched)
    return scopes
