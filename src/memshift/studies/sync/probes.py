"""The sync study's probes: events after the fork that touch an item, each asked shortly after it
on every item it touches and on as many it does not touch (MemShift App. B, sync worlds)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from memshift.gold.compute import GoldPoint, evaluate_at, pools
from memshift.gold.evaluator import Gold
from memshift.rng import stream
from memshift.world.items import Item
from memshift.world.records import Event, LiveState, snapshots
from memshift.world.timeline import Timeline

RECORD_OPS = ("insert", "update", "delete")
CHECKED_PER_PROBE = 32


@dataclass(frozen=True)
class SyncProbe:
    probe_id: str
    source: str  # the source of the event the probe follows
    event_time: datetime
    item: Item
    touches: bool  # whether the event touched the item
    time: datetime
    gold: Gold

    @property
    def point(self) -> GoldPoint:
        return GoldPoint(self.item, 0, self.time, self.gold, False, False, False, 0)


def touched_items(
    items: Sequence[Item], event: Event, before: LiveState, after: LiveState
) -> list[Item]:
    """The items the event touched: its object is in their dependency set just before or just
    after it, or their value or status changed with it."""
    out = []
    grouped_before, grouped_after = pools(before), pools(after)
    for item in items:
        if event.source not in item.gold_sources:
            continue
        g0 = evaluate_at(item, before, grouped_before, event.time)
        g1 = evaluate_at(item, after, grouped_after, event.time)
        deps = {oid for oid, _ in g0.deps} | {oid for oid, _ in g1.deps}
        if event.object_id in deps or g0.outcome != g1.outcome:
            out.append(item)
    return out


def sync_probes(
    items: Sequence[Item],
    events: Sequence[Event],
    timeline: Timeline,
    *,
    seed: int,
    per_source: int,
    delay: timedelta,
) -> list[SyncProbe]:
    """Up to `per_source` item-touching events per source in the weeks after the fork that the
    checkpoints probe, drawn with a fixed stream per source; each probed `delay` after it on
    every item it touches and on as many items it does not touch (drawn likewise), gold from the
    true state at the probe's time."""
    lo, hi = timeline.continuation
    window = [e for e in events if lo < e.time <= hi and e.op in RECORD_OPS]
    # which events are examined for touching an item, per source in a seeded order (examining
    # every event would cost minutes per world; CHECKED_PER_PROBE times the events needed)
    order: dict[str, list[str]] = {}
    for source in sorted({e.source for e in window}):
        ids = [e.event_id for e in window if e.source == source]
        rng = stream(seed, f"sync/probes/{source}")
        order[source] = [ids[int(k)] for k in rng.permutation(len(ids))]
    examined = {i for ids in order.values() for i in ids[: per_source * CHECKED_PER_PROBE]}
    state = LiveState()
    hits: dict[str, list[Item]] = {}
    for e in events:
        before = state.copy() if e.event_id in examined else None
        state.apply(e)
        if before is not None:
            hits[e.event_id] = touched_items(items, e, before, state)
    by_id = {e.event_id: e for e in window}
    chosen: list[tuple[Event, Item, bool]] = []
    for source, ids in order.items():
        rng = stream(seed, f"sync/probes/{source}/items")
        touching = [i for i in ids if hits.get(i)][:per_source]
        for event_id in touching:
            hit = hits[event_id]
            others = [i for i in items if i not in hit]
            picks = sorted(rng.permutation(len(others))[: len(hit)])
            chosen += [(by_id[event_id], i, True) for i in hit]
            chosen += [(by_id[event_id], others[int(k)], False) for k in picks]
    times = sorted({e.time + delay for e, _, _ in chosen})
    states = dict(zip(times, snapshots(list(events), times), strict=True))
    probes = []
    for event, item, touches in chosen:
        t = event.time + delay
        gold = evaluate_at(item, states[t], pools(states[t]), t)
        probe_id = f"w{seed}-sync-{event.event_id}-{item.item_id}"
        probes.append(SyncProbe(probe_id, event.source, event.time, item, touches, t, gold))
    return sorted(probes, key=lambda p: (p.time, p.probe_id))
