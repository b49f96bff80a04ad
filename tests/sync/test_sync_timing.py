"""Why the sync study's effect is nil at its defaults and what moves it (issue: the rest of the
paper, sync): a probe loses its event exactly when the event reaches the client after the probe
is asked, which the lag, the poll period and the probe delay alone decide. The contracts'
other differences from ideal delivery (collapsed revisions, pages, the calendar's resyncs, chat
deletions) never hold an event back past its poll.

On the study's probes of three worlds: with the lag plus one poll period within the probe delay
(the defaults: 5 + 15 <= 30 minutes) every probed event has arrived when its probes are asked;
with a lag beyond the delay, none has; in between, the share still in flight is the share of
events whose first poll after the lag comes after the probe."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache

import pytest

from conftest import data, world
from memshift.studies.sync.contracts import CONTRACTS, Delivery, SyncSettings, deliver, polls
from memshift.studies.sync.probes import SyncProbe, sync_probes
from memshift.studies.sync.stage import PROBES_PER_SOURCE
from memshift.world.records import Event, public_view

SEEDS = [1000, 1001, 1002]
DELAY = timedelta(minutes=30)


@cache
def probed(seed: int) -> tuple[list[Event], list[SyncProbe]]:
    events = data(seed)["none"].branch.events
    w = world(seed)
    probes = sync_probes(
        w.items, events, w.timeline, seed=seed, per_source=PROBES_PER_SOURCE, delay=DELAY
    )
    return events, probes


def arrival(delivered: list[Delivery], probe: SyncProbe, event: Event) -> datetime | None:
    """When the client first received a state of the event's object at least as new as it."""
    times = [
        d.event.time
        for d in delivered
        if d.poll > 0 and d.event.object_id == event.object_id and d.changed_at >= event.time
    ]
    return min(times, default=None)


def probed_events(events: list[Event], probes: list[SyncProbe]) -> list[tuple[SyncProbe, Event]]:
    """Each touching probe with the event it follows (a chat deletion, which no contract
    delivers, left out)."""
    by_time = {(e.source, e.time): e for e in events}
    out = []
    for p in probes:
        e = by_time[p.source, p.event_time]
        if p.touches and not (e.op == "delete" and not CONTRACTS[e.source].tombstones):
            out.append((p, e))
    return out


def in_flight(seed: int, lag: int) -> tuple[int, int]:
    """(touching probes asked before their event arrived, touching probes) under `lag`."""
    events, probes = probed(seed)
    settings = SyncSettings(lag_minutes=lag, resync_p=0.0)
    until = max(p.time for p in probes)
    delivered = deliver(public_view(events), world(seed).timeline.fork, until, settings, seed)
    pairs = probed_events(events, probes)
    late = 0
    for p, e in pairs:
        came = arrival(delivered, p, e)
        late += came is None or came > p.time
    return late, len(pairs)


@pytest.mark.parametrize("seed", SEEDS)
def test_at_the_defaults_every_probed_event_has_arrived_when_its_probes_are_asked(seed):
    late, n = in_flight(seed, SyncSettings().lag_minutes)
    assert n > 0 and late == 0


@pytest.mark.parametrize("seed", SEEDS)
def test_a_lag_beyond_the_probe_delay_holds_back_every_probed_event(seed):
    late, n = in_flight(seed, 45)
    assert late == n > 0


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("lag", [20, 25])
def test_in_between_the_share_in_flight_is_the_share_whose_first_poll_comes_too_late(seed, lag):
    events, probes = probed(seed)
    fork = world(seed).timeline.fork
    settings = SyncSettings(lag_minutes=lag, resync_p=0.0)
    ticks = polls(fork, max(p.time for p in probes), settings)
    first_polls = [
        (next((t for t in ticks if t >= e.time + timedelta(minutes=lag)), None), p)
        for p, e in probed_events(events, probes)
    ]
    expected = sum(t is None or t > p.time for t, p in first_polls)
    assert in_flight(seed, lag) == (expected, len(first_polls))
