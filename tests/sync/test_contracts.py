"""The sync contracts on constructed streams: the lag, collapsed revisions, pages, tombstones but
never in chat, the calendar's resyncs, and ideal states reproduced at every poll without lag."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from conftest import world
from memshift.studies.sync.contracts import CONTRACTS, SyncSettings, deliver, polls
from memshift.world.records import SOURCES, LiveState, PublicEvent, public_view

FORK = datetime(2026, 10, 1)
NONE = SyncSettings(resync_p=0.0)


def event(
    minutes: float, op: str, oid: str, source: str = "email", revision: int = 1, text: str = ""
) -> PublicEvent:
    fields = {} if op == "delete" else {"body": text or f"{oid} r{revision}"}
    return PublicEvent(
        FORK + timedelta(minutes=minutes),
        op,
        oid,
        source,
        "message",
        revision,
        oid,
        fields,
        fields.get("body", ""),
    )


def after_fork(deliveries):
    return [d for d in deliveries if d.poll > 0]


def test_every_source_has_a_documented_contract():
    assert set(CONTRACTS) == set(SOURCES)
    assert all(c.documentation.startswith("https://") for c in CONTRACTS.values())
    assert [s for s, c in CONTRACTS.items() if not c.tombstones] == ["chat"]
    assert [s for s, c in CONTRACTS.items() if c.resyncs] == ["calendar"]


@pytest.mark.parametrize(
    ("minutes", "lag", "poll"),
    [(9, 5, 15), (10, 5, 15), (11, 5, 30), (14, 0, 15), (15, 0, 15), (16, 60, 90)],
)
def test_an_event_arrives_at_the_first_poll_at_least_the_lag_after_it(minutes, lag, poll):
    settings = SyncSettings(lag_minutes=lag, resync_p=0.0)
    (d,) = after_fork(
        deliver([event(minutes, "insert", "m1")], FORK, FORK + timedelta(hours=3), settings, 0)
    )
    assert d.event.time - FORK < timedelta(minutes=poll, seconds=1)
    assert d.event.time >= FORK + timedelta(minutes=poll)
    assert d.changed_at == FORK + timedelta(minutes=minutes)


def test_revisions_within_one_poll_collapse_into_the_last():
    stream = [
        event(1, "insert", "m1"),
        event(3, "update", "m1", revision=2),
        event(7, "update", "m1", revision=3, text="final"),
    ]
    (d,) = after_fork(deliver(stream, FORK, FORK + timedelta(hours=1), NONE, 0))
    assert (d.event.op, d.event.revision, d.event.text) == ("insert", 3, "final")
    # across polls every revision arrives, as an update once the client holds the object
    stream[2] = event(40, "update", "m1", revision=3, text="final")
    ops = [
        (d.event.op, d.event.revision)
        for d in after_fork(deliver(stream, FORK, FORK + timedelta(hours=1), NONE, 0))
    ]
    assert ops == [("insert", 2), ("update", 3)]


def test_a_busy_poll_comes_in_pages_in_update_order():
    stream = [event(1 + k * 0.05, "insert", f"m{k:03d}") for k in range(120)]
    got = after_fork(deliver(stream, FORK, FORK + timedelta(hours=1), NONE, 0))
    assert [d.event.object_id for d in got] == [f"m{k:03d}" for k in range(120)]
    assert [d.page for d in got] == [0] * 50 + [1] * 50 + [2] * 20
    assert len({d.poll for d in got}) == 1


def test_deletions_arrive_as_tombstones_except_in_chat():
    stream = [
        event(-60, "insert", "mail"),
        event(-60, "insert", "chat", "chat"),
        event(20, "delete", "mail", revision=2),
        event(20, "delete", "chat", "chat", 2),
        event(21, "insert", "brief"),
        event(22, "delete", "brief", revision=2),
    ]
    got = after_fork(deliver(stream, FORK, FORK + timedelta(hours=1), NONE, 0))
    assert [(d.event.object_id, d.event.op) for d in got] == [("mail", "delete")]
    held = LiveState()
    for d in deliver(stream, FORK, FORK + timedelta(hours=1), NONE, 0):
        held.apply(d.event)
    assert set(held.records) == {"chat"}  # the deleted chat message stays in view


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_calendar_resyncs_at_its_documented_rate_and_only_the_calendar(seed):
    stream = [event(-30, "insert", "c1", "calendar"), event(-30, "insert", "e1", "email")]
    until = FORK + timedelta(days=28)
    settings = SyncSettings(resync_p=0.01)
    got = after_fork(deliver(stream, FORK, until, settings, seed))
    resyncs = {d.poll for d in got if d.resync}
    n = len(polls(FORK, until, settings))
    expected, spread = 0.01 * n, (0.01 * 0.99 * n) ** 0.5
    assert abs(len(resyncs) - expected) < 4 * spread
    assert {d.event.object_id for d in got} == {"c1"} and all(d.resync for d in got)
    assert deliver(stream, FORK, until, settings, seed) == deliver(
        stream, FORK, until, settings, seed
    )


def test_without_lag_or_resync_the_client_holds_the_ideal_state_at_every_poll():
    events = public_view(world(1000).events)
    until = FORK + timedelta(days=7)
    settings = SyncSettings(lag_minutes=0, resync_p=0.0)
    delivered = deliver(events, FORK, until, settings, 1000)
    deleted_chats = {e.object_id for e in events if e.op == "delete" and e.source == "chat"}
    server, client = LiveState(), LiveState()
    i = j = 0
    checked = 0
    for poll in polls(FORK, until, settings):
        while i < len(events) and events[i].time <= poll:
            server.apply(events[i])
            i += 1
        while j < len(delivered) and delivered[j].event.time < poll + timedelta(minutes=1):
            client.apply(delivered[j].event)
            j += 1

        def view(state):
            return {
                oid: (r.revision, r.fields, r.text)
                for oid, r in state.records.items()
                if oid not in deleted_chats
            }

        assert view(client) == view(server), poll
        checked += 1
    assert checked == 7 * 24 * 4


def test_the_config_schema_defaults_are_the_contracts_settings():
    import dataclasses

    from memshift.intake.reading import config_schema

    schema = config_schema()["properties"]["sync"]["properties"]
    assert {k: v["default"] for k, v in schema.items()} == dataclasses.asdict(SyncSettings())
