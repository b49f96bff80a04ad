"""The incremental-sync contract of each source, and the deliveries it makes of a branch's events.

A client polls every `poll_minutes` with a visibility lag: an event is visible at the first poll
at least `lag_minutes` after it. A poll delivers the current state of each object that changed
since the last poll (revisions within one poll collapse into the last), in pages of `page`
ordered by update time, all pages at that poll (cursors never expire at this poll rate).
Deletions arrive as tombstones except in chat, whose history lists only the messages that exist:
a deleted chat message is never delivered as deleted and stays in the client's view. The only
full resyncs are the calendar's documented invalidations of its sync token (probability
`resync_p` per poll), after which the client clears its calendar and receives every live
calendar object again (MemShift App. B; each contract's documentation below).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from memshift.errors import ConfigError
from memshift.intake.reading import schema_field
from memshift.intake.strict_schema import bound_problem
from memshift.rng import stream
from memshift.world.records import LiveState, PublicEvent, Record

# A week of minutes: a timedelta of more would only move deliveries and probes past the study's
# last checkpoint, and one of billions overflows the datetimes it is added to. The config schema
# states the same bounds (`sync` in config.schema.yaml).
MAX_MINUTES = 7 * 24 * 60
BOUNDS: dict[str, tuple[float, float]] = {
    "lag_minutes": (0, MAX_MINUTES),
    "poll_minutes": (1, MAX_MINUTES),
    "page": (1, 10_000),
    "resync_p": (0.0, 1.0),
    "probe_delay_minutes": (0, MAX_MINUTES),
}


@dataclass(frozen=True)
class SyncSettings:
    """The contract's free parameters, each defaulting to the config schema's `sync` (5, 15,
    50, 0.001 and 30 there); `lag_minutes` and `probe_delay_minutes` are this project's
    choices (the paper does not state them)."""

    lag_minutes: int = schema_field("sync.lag_minutes")
    poll_minutes: int = schema_field("sync.poll_minutes")
    page: int = schema_field("sync.page")
    resync_p: float = schema_field("sync.resync_p")
    probe_delay_minutes: int = schema_field("sync.probe_delay_minutes")

    def __post_init__(self) -> None:
        for name, (low, high) in BOUNDS.items():
            problem = bound_problem(getattr(self, name), low, high, integer=name != "resync_p")
            if problem is not None:
                raise ConfigError(f"sync.{name}: {problem}")


@dataclass(frozen=True)
class Contract:
    source: str
    api: str
    cursor: str
    tombstones: bool  # whether a deletion reaches the client
    resync: str  # what forces a full resync, and whether it happens at this poll rate
    resyncs: bool  # whether the settings' resync probability applies to this source
    documentation: str


CONTRACTS: dict[str, Contract] = {
    c.source: c
    for c in (
        Contract(
            "calendar",
            "Google Calendar API events.list",
            "syncToken (nextSyncToken of the previous list)",
            True,
            "410 Gone when the server invalidates the sync token: clear and sync in full",
            True,
            "https://developers.google.com/calendar/api/guides/sync",
        ),
        Contract(
            "contacts",
            "Google People API people.connections.list",
            "syncToken (requestSyncToken), which expires after 7 days",
            True,
            "an expired sync token; never at a 15-minute poll",
            False,
            "https://developers.google.com/people/api/rest/v1/people.connections/list",
        ),
        Contract(
            "email",
            "Gmail API users.history.list",
            "startHistoryId (the historyId of the last sync)",
            True,
            "404 for a history id too old to list; never at a 15-minute poll",
            False,
            "https://developers.google.com/gmail/api/guides/sync",
        ),
        Contract(
            "tasks",
            "Google Tasks API tasks.list",
            "updatedMin (the last poll), with showDeleted",
            True,
            "none documented",
            False,
            "https://developers.google.com/tasks/reference/rest/v1/tasks/list",
        ),
        Contract(
            "notes",
            "Google Drive API changes.list",
            "pageToken (newStartPageToken of the previous list)",
            True,
            "none documented",
            False,
            "https://developers.google.com/drive/api/guides/manage-changes",
        ),
        Contract(
            "chat",
            "Slack Web API conversations.history",
            "oldest (the newest message timestamp seen)",
            False,
            "none documented",
            False,
            "https://api.slack.com/methods/conversations.history",
        ),
    )
}


@dataclass(frozen=True)
class Delivery:
    """One object's state as a poll delivered it; `event.time` is when the client received it
    (the poll, plus a microsecond per position, so the page order is kept)."""

    event: PublicEvent
    changed_at: datetime  # when the delivered state came about in the source
    poll: int  # 0: the initial full sync up to the fork
    page: int
    resync: bool


def polls(fork: datetime, until: datetime, settings: SyncSettings) -> list[datetime]:
    """Every poll after the fork up to `until`."""
    step = timedelta(minutes=settings.poll_minutes)
    times, t = [], fork + step
    while t <= until:
        times.append(t)
        t += step
    return times


RECORD_OPS = ("insert", "update", "delete")


def deliver(
    events: Sequence[PublicEvent],
    fork: datetime,
    until: datetime,
    settings: SyncSettings,
    seed: int,
) -> list[Delivery]:
    """What the client receives of `events` (a branch's, in time order): everything up to the
    fork as it happened (the initial full sync), memory events (`define`, `consent`) as they
    happen, and after the fork each source object through its contract's polls up to `until`."""
    out = [Delivery(e, e.time, 0, 0, False) for e in events if e.time <= fork]
    out += [
        Delivery(e, e.time, 0, 0, False)
        for e in events
        if fork < e.time <= until and e.op not in RECORD_OPS
    ]
    pending = [e for e in events if e.time > fork and e.op in RECORD_OPS]
    server = LiveState()
    for e in events:
        if e.time <= fork and e.op in RECORD_OPS:
            server.apply(e)
    # the client's view: the last state it received of each object it holds
    held = {oid: _as_event(r) for oid, r in server.records.items()}
    lag = timedelta(minutes=settings.lag_minutes)
    rng = stream(seed, "sync/calendar")
    position = 0
    for n, poll in enumerate(polls(fork, until, settings), start=1):
        changed: dict[str, PublicEvent] = {}
        while position < len(pending) and pending[position].time + lag <= poll:
            e = pending[position]
            server.apply(e)
            changed[e.object_id] = e
            position += 1
        states = [_state(e, held) for e in sorted(changed.values(), key=_update_order)]
        delivered = [(s, False) for s in states if s is not None]
        if rng.random() < settings.resync_p:
            delivered += [(s, True) for s in _full_resync(server, held)]
        out += _paged([s for s, _ in delivered], [r for _, r in delivered], poll, n, settings)
        for e, _ in delivered:
            if e.op == "delete":
                held.pop(e.object_id, None)
            else:
                held[e.object_id] = e
    return sorted(out, key=lambda d: d.event.time)


def _as_event(r: Record) -> PublicEvent:
    return PublicEvent(
        r.updated, "insert", r.object_id, r.source, r.kind, r.revision, r.cluster, r.fields, r.text
    )


def _update_order(e: PublicEvent) -> tuple[datetime, str]:
    return (e.time, e.object_id)


def _state(last: PublicEvent, held: dict[str, PublicEvent]) -> PublicEvent | None:
    """The event that brings the client to the object's current state, None if nothing does: a
    deletion of an object it never held, or any chat deletion (chat lists only what exists)."""
    if last.op == "delete":
        if not CONTRACTS[last.source].tombstones or last.object_id not in held:
            return None
        return last
    return replace(last, op="update" if last.object_id in held else "insert")


def _full_resync(server: LiveState, held: dict[str, PublicEvent]) -> list[PublicEvent]:
    """The calendar listed in full after its sync token was invalidated: the client drops the
    calendar objects the server no longer holds and receives every live one again."""
    live = sorted(
        (r for r in server.records.values() if r.source == "calendar"),
        key=lambda r: (r.updated, r.object_id),
    )
    live_ids = {r.object_id for r in live}
    gone = [
        replace(e, op="delete", revision=server.tombstones.get(oid, e.revision), fields={}, text="")
        for oid, e in sorted(held.items())
        if e.source == "calendar" and oid not in live_ids
    ]
    again = [replace(_as_event(r), op="update" if r.object_id in held else "insert") for r in live]
    return gone + again


def _paged(
    states: list[PublicEvent],
    resyncs: list[bool],
    poll: datetime,
    n: int,
    settings: SyncSettings,
) -> list[Delivery]:
    """The poll's states in pages of `settings.page`, each received at the poll plus its position
    in microseconds."""
    return [
        Delivery(
            replace(e, time=poll + timedelta(microseconds=k)), e.time, n, k // settings.page, resync
        )
        for k, (e, resync) in enumerate(zip(states, resyncs, strict=True))
    ]
