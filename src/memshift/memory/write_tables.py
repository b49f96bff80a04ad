"""What HoldMem's detection writes (writes, maintenance, served slots, audits) as rows of its
artifacts, and back; the ingest and prefork stages own these tables."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from memshift import schemas
from memshift.memory.writes import MaintenanceRow, WriteRecord

if TYPE_CHECKING:
    from memshift.audit.arbiter import AuditRow


def writes_to_table(writes: Sequence[WriteRecord]) -> pa.Table:
    rows = schemas.empty_columns(schemas.WRITES)
    for w in writes:
        rows["write_id"].append(w.write_id)
        rows["item_id"].append(w.item_id)
        rows["checkpoint"].append(w.checkpoint)
        rows["time"].append(w.time)
        rows["version"].append(w.version)
        rows["kind"].append(w.kind)
        rows["selection"].append([{"object_id": o, "revision": r} for o, r in w.selection])
        rows["value"].append(_json_or_none(w.value))
        rows["statement"].append(w.statement)
        rows["citations"].append(
            [
                {
                    "object_id": str(c.get("object_id", "")),
                    "revision": int(c.get("revision", 0)),
                    "quote": str(c.get("quote", "")),
                }
                for c in w.citations
            ]
        )
        rows["failure"].append(w.failure)
        rows["delta_since"].append(w.delta_since)
        rows["new_item"].append(w.new_item)
    return pa.Table.from_pydict(rows, schema=schemas.WRITES)


def table_to_writes(table: pa.Table) -> list[WriteRecord]:
    c = table.to_pydict()
    return [
        WriteRecord(
            c["write_id"][n],
            c["item_id"][n],
            c["checkpoint"][n],
            c["time"][n],
            c["version"][n],
            c["kind"][n],
            tuple((d["object_id"], d["revision"]) for d in c["selection"][n]),
            None if c["value"][n] is None else json.loads(c["value"][n]),
            c["statement"][n],
            tuple(c["citations"][n]),
            c["failure"][n],
            c["delta_since"][n],
            c["new_item"][n],
        )
        for n in range(table.num_rows)
    ]


def _fields_to_table(
    records: Sequence[object],
    schema: pa.Schema,
    encode: Mapping[str, Callable[[Any], Any]] | None = None,
) -> pa.Table:
    """Rows (mappings, or objects with attributes) named like the schema's columns (`encode`
    converts some)."""
    rows = schemas.empty_columns(schema)
    convert = encode or {}
    for record in records:
        for name in schema.names:
            value = record[name] if isinstance(record, Mapping) else getattr(record, name)
            rows[name].append(convert[name](value) if name in convert else value)
    return pa.Table.from_pydict(rows, schema=schema)


def _json_or_none(value: Any) -> str | None:
    return None if value is None else json.dumps(value)


def maintenance_to_table(rows_in: Sequence[MaintenanceRow]) -> pa.Table:
    return _fields_to_table(rows_in, schemas.MAINTENANCE)


def audits_to_table(rows_in: Sequence[AuditRow]) -> pa.Table:
    return _fields_to_table(
        [row.flat() for row in rows_in],
        schemas.AUDITS,
        {"old_value": _json_or_none, "new_value": _json_or_none, "causal_path": list},
    )


def served_to_table(served: Mapping[int, Mapping[str, Sequence[str]]]) -> pa.Table:
    rows = schemas.empty_columns(schemas.SERVED)
    for k in sorted(served):
        for item_id in sorted(served[k]):
            for write_id in served[k][item_id]:
                rows["checkpoint"].append(k)
                rows["item_id"].append(item_id)
                rows["write_id"].append(write_id)
    return pa.Table.from_pydict(rows, schema=schemas.SERVED)


def table_to_served(table: pa.Table) -> dict[int, dict[str, list[str]]]:
    served: dict[int, dict[str, list[str]]] = {}
    for k, item_id, write_id in zip(
        *(table.column(n).to_pylist() for n in schemas.SERVED.names), strict=True
    ):
        served.setdefault(k, {}).setdefault(item_id, []).append(write_id)
    return served
