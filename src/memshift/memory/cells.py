"""Running HoldMem over one branch of a world: the shared pre-fork store, one detection policy,
and one repair arm over its writes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memshift.gold.evaluator import Value
from memshift.gold.tables import Dependencies
from memshift.items import Item
from memshift.memory.holdmem import HoldMemDetector, WriteRecord
from memshift.memory.repair import Repairer, StoredItem, as_value, serve, typed_rows
from memshift.models.client import ModelClient
from memshift.models.requests import CallContext, ProgramRequest
from memshift.world.generate import World
from memshift.world.records import LiveState, PublicEvent, Record, snapshots

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


def _interval(
    events: Sequence[PublicEvent], lo: datetime | None, hi: datetime
) -> list[PublicEvent]:
    return [e for e in events if (lo is None or e.time > lo) and e.time <= hi]


def prefork_writes(
    world: World, events: Sequence[PublicEvent], client: ModelClient, context: CallContext
) -> list[WriteRecord]:
    """One write per item at the fork from the full history; identical for every branch and
    cell, since every branch shares the events up to the fork."""
    detector = HoldMemDetector(world.items, "source", client, context)
    detector.ingest(_interval(events, None, world.timeline.fork))
    return detector.prefork_writes(world.timeline.fork)


def run_detection(
    world: World,
    events: Sequence[PublicEvent],
    detection: str,
    client: ModelClient,
    prefork: Sequence[WriteRecord],
    context: CallContext,
    gold_deps: Dependencies | None = None,
) -> HoldMemDetector:
    checkpoints = world.timeline.checkpoints
    detector = HoldMemDetector(world.items, detection, client, context, gold_deps)
    detector.ingest(_interval(events, None, checkpoints[0]))
    detector.adopt_prefork(prefork, checkpoints[0])
    for k in range(1, len(checkpoints)):
        detector.ingest(_interval(events, checkpoints[k - 1], checkpoints[k]))
        detector.checkpoint(checkpoints[k], k)
    return detector


class ProgramRunner:
    """The writer's programs: one request per item and definition version (no world data in it),
    run in the restricted interpreter on the live records of the item's sources."""

    def __init__(self, items: Sequence[Item], client: ModelClient, context: CallContext) -> None:
        self.items = {i.item_id: i for i in items}
        self.client = client
        self.context = context
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
            )
            for i, v in missing
        ]
        for (item_id, version), reply in zip(missing, self.client.generate(requests), strict=True):
            self.code[(item_id, version)] = (reply.value or {}).get("code") if reply.ok else None

    def __call__(
        self, item: Item, version: int, records: Sequence[Record], now: datetime
    ) -> tuple[bool, Value, str]:
        from memshift.sandbox.interpreter import run_program

        self.prepare([(item.item_id, version)])
        code = self.code[(item.item_id, version)]
        if code is None:
            return False, None, "the program writer gave no program"
        result = run_program(code, typed_rows(records), now.strftime("%Y-%m-%d %H:%M"))
        if not result.ok:
            return False, None, f"{result.failure}: {result.detail}"
        return True, as_value(result.value), ""


def run_repair(
    world: World,
    events: Sequence[PublicEvent],
    writes: Sequence[WriteRecord],
    served: dict[int, dict[str, list[str]]] | dict[int, dict[str, tuple[str, ...]]],
    repair: str,
    programs: ProgramRunner | None = None,
) -> dict[int, dict[str, list[StoredItem]]]:
    states: list[LiveState] = list(snapshots(list(events), list(world.timeline.checkpoints)))
    if programs is not None:
        programs.prepare([(w.item_id, w.version) for w in writes if w.kind != "prefork"])
    repairer = Repairer(world.items, repair, programs)
    stored = {w.write_id: repairer.apply(w, states[w.checkpoint]) for w in writes}
    return serve(served, stored)
