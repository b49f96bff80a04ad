"""Gold at every checkpoint of a branch, and the change classification of each item-time.

An item-time is *changed* when its (status, value) differs from the fork; *caused by the shift*
when it also differs from the unshifted branch at the same time; *clock alone* when, in the
interval of its last change, no event touched a record of its dependency set (before or after)
and no define or consent event concerned the item.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from memshift.definitions.catalog import definition
from memshift.gold.evaluator import Gold, evaluate_pool
from memshift.world.items import Item
from memshift.world.records import Event, LiveState, Record, snapshots


@dataclass(frozen=True)
class GoldPoint:
    item: Item
    checkpoint: int
    time: datetime
    gold: Gold
    changed: bool
    caused_by_shift: bool
    clock_alone: bool
    last_change: int


Outcomes = Mapping[tuple[str, int], tuple[str, object]]


@dataclass(frozen=True)
class Pools:
    """A live state's records by source, and by source and kind, each in the state's order:
    an item's pool is cut from these once per checkpoint instead of from every record."""

    by_source: dict[str, list[Record]]
    by_kind: dict[tuple[str, str], list[Record]]


def pools(state: LiveState) -> Pools:
    by_source: dict[str, list[Record]] = {}
    by_kind: dict[tuple[str, str], list[Record]] = {}
    for record in state.records.values():
        by_source.setdefault(record.source, []).append(record)
        by_kind.setdefault((record.source, record.kind), []).append(record)
    return Pools(by_source, by_kind)


def evaluate_at(item: Item, state: LiveState, grouped: Pools, t: datetime) -> Gold:
    """`evaluate` on the state's records; a definition reads only its own source's records of
    its kind, the ones its scope can hold."""
    version = state.definition_versions.get(item.item_id, 1)
    if item.item_class == "definition":
        d = definition(item.item_id, version)
        pool = grouped.by_kind.get((d.source, d.kind), []) if d.source in item.gold_sources else []
    else:
        pool = [r for source in item.gold_sources for r in grouped.by_source.get(source, ())]
    return evaluate_pool(item, pool, t, version=version, revoked=state.revoked)


def gold_grid(
    items: Sequence[Item], events: list[Event], checkpoints: Sequence[datetime]
) -> tuple[list[LiveState], dict[tuple[str, int], Gold]]:
    states = list(snapshots(events, list(checkpoints)))
    grid: dict[tuple[str, int], Gold] = {}
    for k, (state, t) in enumerate(zip(states, checkpoints, strict=True)):
        grouped = pools(state)
        for item in items:
            grid[(item.item_id, k)] = evaluate_at(item, state, grouped, t)
    return states, grid


def _touches_item(event: Event, item: Item, objects: set[str]) -> bool:
    if event.op == "define":
        return event.fields["item"] == item.item_id
    if event.op == "consent":
        return event.fields["agent"] == item.agent and event.fields["scope"] in item.sources
    return event.object_id in objects


def classify(
    items: Sequence[Item],
    events: list[Event],
    checkpoints: Sequence[datetime],
    grid: Mapping[tuple[str, int], Gold],
    reference: Outcomes | None,
) -> list[GoldPoint]:
    """`reference` holds the unshifted branch's outcomes; None means this is that branch."""
    intervals: list[list[Event]] = [[] for _ in checkpoints]
    for event in events:
        for k in range(1, len(checkpoints)):
            if checkpoints[k - 1] < event.time <= checkpoints[k]:
                intervals[k].append(event)
                break
    points: list[GoldPoint] = []
    for item in items:
        fork = grid[(item.item_id, 0)].outcome
        last = 0
        for k, t in enumerate(checkpoints):
            gold = grid[(item.item_id, k)]
            if k and gold.outcome != grid[(item.item_id, k - 1)].outcome:
                last = k
            changed = gold.outcome != fork
            caused = (
                changed and reference is not None and gold.outcome != reference[(item.item_id, k)]
            )
            clock = False
            if changed:
                before, after = grid[(item.item_id, last - 1)], grid[(item.item_id, last)]
                objects = {oid for oid, _ in before.deps} | {oid for oid, _ in after.deps}
                clock = not any(_touches_item(e, item, objects) for e in intervals[last])
            points.append(
                GoldPoint(item, k, t, gold, changed, caused, clock, last if changed else 0)
            )
    return points


def outcomes(points: Sequence[GoldPoint]) -> dict[tuple[str, int], tuple[str, object]]:
    return {(p.item.item_id, p.checkpoint): p.gold.outcome for p in points}
