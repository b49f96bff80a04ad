"""The writer's programs (D=m): one per item and definition version, written by the program role
from the item's definition and the typed fields of its sources (no world data), and run in the
restricted interpreter on the live records."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from memshift.gold.evaluator import Value
from memshift.memory.stored import as_value
from memshift.models.client import ModelClient
from memshift.models.requests import CallContext, ProgramRequest
from memshift.timeutil import fmt
from memshift.world.items import Item
from memshift.world.records import Record

PROGRAM_FIELDS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "email": (
        ("message", ("sender", "sender_address", "to", "sent", "subject", "starred", "category")),
    ),
    "chat": (("message", ("channel", "channel_kind", "sender", "partner", "sent")),),
    "calendar": (
        ("meeting", ("title", "start", "end", "weekday", "organizer", "attendees")),
        ("series", ("title", "weekday", "start_time", "duration_min", "attendees", "status")),
        ("appointment", ("appointment_type", "provider", "start", "location", "status")),
        ("settings", ("time_zone",)),
    ),
    "contacts": (("card", ("name", "employer", "city", "address", "phone")),),
    "tasks": (("task", ("title", "project", "status", "due", "created")),),
    "notes": (("note", ("title", "topic", "hours")),),
}


def typed_rows(records: Sequence[Record]) -> list[dict[str, Any]]:
    """Records as a program sees them: metadata and typed fields, plus the rendered text."""
    return [
        {
            "object_id": r.object_id,
            "source": r.source,
            "kind": r.kind,
            "revision": r.revision,
            "created": fmt(r.created),
            "updated": fmt(r.updated),
            "cluster": r.cluster,
            "text": r.text,
            **r.fields,
        }
        for r in records
    ]


# what a table per source leaves out of a program's rows: the body, and the source it is under
BODYLESS = ("text", "source")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value))
    return str(value)


def typed_tables(records: Sequence[Record]) -> str:
    """Records as a program's complete typed input in its most compact form (MemShift F.4,
    Table 14): one table per source, headed by its name and its column names once, one row per
    record, without the bodies of messages (`text`), which no definition reads."""
    blocks = []
    for source in sorted({r.source for r in records}):
        rows = typed_rows([r for r in records if r.source == source])
        columns = [c for c in dict.fromkeys(k for row in rows for k in row) if c not in BODYLESS]
        lines = [source, "\t".join(columns)]
        lines += ["\t".join(_cell(row.get(c)) for c in columns) for row in rows]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def source_records(item: Item, records: Iterable[Record]) -> list[Record]:
    """The records of an item's sources, oldest first: what its program reads."""
    return sorted(
        (r for r in records if r.source in item.sources), key=lambda r: (r.updated, r.object_id)
    )


class ProgramRunner:
    """The writer's programs: one request per item and definition version (no world data in it),
    run in the restricted interpreter on the live records of the item's sources."""

    def __init__(
        self,
        items: Sequence[Item],
        client: ModelClient,
        context: CallContext,
        wording: str = "codified",
    ) -> None:
        self.items = {i.item_id: i for i in items}
        self.client = client
        self.context = context
        self.wording = wording
        self.code: dict[tuple[str, int], str | None] = {}

    def prepare(self, needed: Sequence[tuple[str, int]]) -> None:
        missing = sorted(set(needed) - set(self.code))
        requests = [
            ProgramRequest(
                self.items[i],
                v,
                tuple(kv for s in self.items[i].sources for kv in PROGRAM_FIELDS[s]),
                CallContext(
                    self.context.run,
                    self.context.world,
                    self.context.branch,
                    self.context.system,
                    i,
                    -1,
                ),
                self.wording,
            )
            for i, v in missing
        ]
        for (item_id, version), reply in zip(missing, self.client.generate(requests), strict=True):
            self.code[(item_id, version)] = (reply.value or {}).get("code") if reply.ok else None

    def __call__(
        self, item: Item, version: int, records: Sequence[Record], now: datetime
    ) -> tuple[bool, Value, str]:
        from memshift.sandbox import run_program

        self.prepare([(item.item_id, version)])
        code = self.code[(item.item_id, version)]
        if code is None:
            return False, None, "the program writer gave no program"
        result = run_program(code, typed_rows(records), now.strftime("%Y-%m-%d %H:%M"))
        if not result.ok:
            return False, None, f"{result.failure}: {result.detail}"
        return True, as_value(result.value), ""
