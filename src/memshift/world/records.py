"""Typed, versioned source objects and the events that change them.

A world is a log of events; each insert, update or delete changes one source object and raises its
revision. A delete leaves a tombstone. `define` and `consent` events change no object: they tell the
memory that a definition moved to another version or that an agent lost access to a scope.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

SOURCES = ("email", "chat", "calendar", "contacts", "tasks", "notes")
METADATA_FIELDS = ("updated", "created")

JsonDict = dict[str, Any]


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class Event:
    """One change in the world. `component`, `event_id` and `asserts` (which free-text fact a
    record states) are the generator's annotations: gold reads them; a memory system is given
    the `PublicEvent` view instead and never sees them."""

    event_id: str
    time: datetime
    op: str
    object_id: str
    source: str
    kind: str
    revision: int
    cluster: str
    fields: JsonDict
    text: str
    component: str
    asserts: JsonDict = field(default_factory=dict)
    tokens: int = 0

    @property
    def sort_key(self) -> tuple[datetime, str]:
        return (self.time, self.event_id)


@dataclass(frozen=True, slots=True)
class PublicEvent:
    """One change as a memory system sees it: what a real source would deliver. It carries none
    of the generator's annotations (which component wrote it, which fact it states, its event
    id), so no system under test can read a label."""

    time: datetime
    op: str
    object_id: str
    source: str
    kind: str
    revision: int
    cluster: str
    fields: JsonDict
    text: str


def public_view(events: Iterable[Event]) -> list[PublicEvent]:
    """What a memory may see of events: no generator labels, and no redefinition the person
    never stated (`fields.stated` false), which only gold applies."""
    return [
        PublicEvent(
            e.time, e.op, e.object_id, e.source, e.kind, e.revision, e.cluster, e.fields, e.text
        )
        for e in events
        if not unstated(e)
    ]


def unstated(event: Event) -> bool:
    """A definition change the person never stated: gold applies it, no memory sees it."""
    return event.op == "define" and event.fields.get("stated") is False


AnyEvent = Event | PublicEvent


@dataclass(frozen=True, slots=True)
class Record:
    """The live state of one source object after its latest event."""

    object_id: str
    source: str
    kind: str
    revision: int
    cluster: str
    fields: JsonDict
    text: str
    created: datetime
    updated: datetime
    asserts: JsonDict = field(default_factory=dict)

    def get(self, name: str) -> Any:
        if name == "updated":
            return self.updated
        if name == "created":
            return self.created
        return self.fields.get(name)


@dataclass
class LiveState:
    """Objects alive at some time, plus what memory-level events have said so far."""

    records: dict[str, Record] = field(default_factory=dict)
    tombstones: dict[str, int] = field(default_factory=dict)
    definition_versions: dict[str, int] = field(default_factory=dict)
    revoked: set[tuple[str, str]] = field(default_factory=set)

    def apply(self, event: AnyEvent) -> None:
        asserts = event.asserts if isinstance(event, Event) else {}
        if event.op == "insert":
            self.records[event.object_id] = Record(
                event.object_id,
                event.source,
                event.kind,
                event.revision,
                event.cluster,
                event.fields,
                event.text,
                event.time,
                event.time,
                asserts,
            )
        elif event.op == "update":
            old = self.records[event.object_id]
            self.records[event.object_id] = Record(
                old.object_id,
                old.source,
                old.kind,
                event.revision,
                old.cluster,
                event.fields,
                event.text,
                old.created,
                event.time,
                asserts,
            )
        elif event.op == "delete":
            self.records.pop(event.object_id)
            self.tombstones[event.object_id] = event.revision
        elif event.op == "define":
            self.definition_versions[event.fields["item"]] = int(event.fields["version"])
        elif event.op == "consent":
            key = (event.fields["agent"], event.fields["scope"])
            if event.fields["allowed"]:
                self.revoked.discard(key)
            else:
                self.revoked.add(key)
        else:
            raise ValueError(f"unknown event op {event.op!r} on object {event.object_id!r}")

    def copy(self) -> LiveState:
        return LiveState(
            dict(self.records),
            dict(self.tombstones),
            dict(self.definition_versions),
            set(self.revoked),
        )


def sort_events(events: Iterable[Event]) -> list[Event]:
    return sorted(events, key=lambda e: e.sort_key)


def snapshots(events: Sequence[AnyEvent], times: list[datetime]) -> Iterator[LiveState]:
    """Live states at each of `times` (ascending); events at exactly a time are included."""
    state = LiveState()
    position = 0
    for t in times:
        while position < len(events) and events[position].time <= t:
            state.apply(events[position])
            position += 1
        yield state.copy()


def state_at(events: Sequence[AnyEvent], t: datetime) -> LiveState:
    return next(snapshots(events, [t]))


def newest_within(
    records: Sequence[Record], budget: int, size: Callable[[Record], int]
) -> tuple[Record, ...]:
    """The newest of `records` whose sizes fit `budget` together, in their given order."""
    kept: set[int] = set()
    room = budget
    for n in sorted(range(len(records)), key=lambda n: records[n].updated, reverse=True):
        if size(records[n]) <= room:
            kept.add(n)
            room -= size(records[n])
    return tuple(r for n, r in enumerate(records) if n in kept)
