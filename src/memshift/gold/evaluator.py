"""The one evaluator: value, status and dependency set of any item at any time.

Gold, exact recomputation and the key audits all call `evaluate`, so they cannot drift apart. It
reads only the records it is given, which lets a rule-based writer apply it to its own selection.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import lru_cache

from memshift.definitions.catalog import Clause, Definition, definition
from memshift.world.items import Item
from memshift.world.records import Record

Value = str | tuple[str, ...] | None
Dep = tuple[str, int]


@dataclass(frozen=True)
class Gold:
    status: str
    value: Value
    deps: tuple[Dep, ...] = ()
    facts: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    version: int = 0

    @property
    def outcome(self) -> tuple[str, Value]:
        return (self.status, self.value)


ABSTAIN = "abstain"
ANSWER = "answer"
BLOCKED = "blocked"


def _deps(records: Iterable[Record]) -> tuple[Dep, ...]:
    return tuple(sorted({(r.object_id, r.revision) for r in records}))


def _newest(records: Iterable[Record]) -> Record | None:
    return max(records, key=lambda r: (r.updated, r.object_id), default=None)


def evaluate(
    item: Item,
    records: Iterable[Record],
    now: datetime,
    *,
    version: int = 1,
    revoked: frozenset[tuple[str, str]] | set[tuple[str, str]] = frozenset(),
) -> Gold:
    sources = item.gold_sources
    pool = [r for r in records if r.source in sources]
    return evaluate_pool(item, pool, now, version=version, revoked=revoked)


def evaluate_pool(
    item: Item,
    pool: list[Record],
    now: datetime,
    *,
    version: int = 1,
    revoked: frozenset[tuple[str, str]] | set[tuple[str, str]] = frozenset(),
) -> Gold:
    """`evaluate` on records already of the item's gold sources (`gold.compute.pools`)."""
    gold = _unrevoked(item, pool, now, version)
    if revoked and touches_revoked(item, gold.deps, pool, revoked):
        return Gold(BLOCKED, None, (), (), gold.version)
    return gold


def touches_revoked(
    item: Item,
    deps: Iterable[Dep],
    records: Iterable[Record],
    revoked: frozenset[tuple[str, str]] | set[tuple[str, str]],
) -> bool:
    """Whether the asking agent lost a scope that holds one of the item's dependencies (MemShift
    App. B: probes "whose dependencies touch the scope" are blocked); `records` must hold the
    dependency records, whose sources are the scopes they touch."""
    needed = set(deps)
    touched = {r.source for r in records if (r.object_id, r.revision) in needed}
    return any((item.agent, source) in revoked for source in touched)


def _unrevoked(item: Item, pool: list[Record], now: datetime, version: int) -> Gold:
    if item.item_class == "person":
        if item.free_text:
            return _stated_attribute(item.attribute, pool)
        return _time_zone(pool)
    if item.item_class == "contact":
        return _contact(item, pool)
    if item.item_class == "series":
        return _series(item, pool)
    if item.item_class == "appointment":
        return _appointment(item, pool, now)
    if item.item_class == "task":
        return _task(item, pool)
    if item.item_class == "definition":
        d = definition(item.item_id, version)
        gold = apply_definition(d, pool, now)
        return Gold(gold.status, gold.value, gold.deps, gold.facts, version)
    raise ValueError(f"item {item.item_id} has unknown class {item.item_class!r}")


def _stated_attribute(attribute: str, pool: list[Record]) -> Gold:
    record = _newest(r for r in pool if attribute in r.asserts)
    if record is None:
        return Gold(ABSTAIN, None)
    value = record.asserts[attribute]
    return Gold(ANSWER, value, _deps([record]), ((value, record.object_id),))


def _time_zone(pool: list[Record]) -> Gold:
    record = _newest(r for r in pool if r.kind == "settings")
    if record is None:
        return Gold(ABSTAIN, None)
    zone = record.fields["time_zone"]
    return Gold(ANSWER, zone, _deps([record]), ((zone, record.object_id),))


def conflict_key(card_object_id: str, attribute: str) -> str:
    return f"{card_object_id}.{attribute}"


def _contact(item: Item, pool: list[Record]) -> Gold:
    card = next((r for r in pool if r.object_id == item.target), None)
    if card is None:
        return Gold(ABSTAIN, None)
    value = card.fields[item.attribute]
    key = conflict_key(item.target, item.attribute)
    rivals = [
        r
        for r in pool
        if key in r.asserts and r.asserts[key] != value and r.updated.date() == card.updated.date()
    ]
    if rivals:
        return Gold(ABSTAIN, None, _deps([card, *rivals]))
    return Gold(ANSWER, value, _deps([card]), ((value, card.object_id),))


def _series(item: Item, pool: list[Record]) -> Gold:
    series = next((r for r in pool if r.object_id == item.target), None)
    if series is None:
        return Gold(ABSTAIN, None)
    if series.fields["status"] != "active":
        return Gold(ABSTAIN, None, _deps([series]))
    value = f"{series.fields['weekday']} {series.fields['start_time']}"
    return Gold(ANSWER, value, _deps([series]), ((value, series.object_id),))


def _appointment(item: Item, pool: list[Record], now: datetime) -> Gold:
    upcoming = [
        r
        for r in pool
        if r.kind == "appointment"
        and r.fields["appointment_type"] == item.target
        and r.fields["status"] == "booked"
        and _as_time(r.fields["start"]) > now
    ]
    if not upcoming:
        return Gold(ABSTAIN, None)
    first = min(upcoming, key=lambda r: (r.fields["start"], r.object_id))
    value = first.fields["start"]
    return Gold(ANSWER, value, _deps(upcoming), ((value, first.object_id),))


def _task(item: Item, pool: list[Record]) -> Gold:
    task = next((r for r in pool if r.object_id == item.target), None)
    if task is None:
        return Gold(ABSTAIN, None)
    due = task.fields[item.attribute]
    return Gold(ANSWER, due, _deps([task]), ((due, task.object_id),))


def _as_time(value: str | datetime) -> datetime:
    if isinstance(value, datetime):
        return value
    return _parsed_time(value)


# gold reads the same record fields at every checkpoint of every branch
@lru_cache(maxsize=1 << 16)
def _parsed_time(value: str) -> datetime:
    return datetime.strptime(value, "%Y-%m-%d %H:%M")


@lru_cache(maxsize=1 << 16)
def _as_date(value: str) -> date:
    return datetime.strptime(value, "%Y-%m-%d").date()


def _holds(clause: Clause, record: Record, now: datetime) -> bool:
    actual = record.get(clause.field)
    if clause.op == "eq":
        return actual == clause.value
    if clause.op == "is_true":
        return actual is True
    if clause.op == "on_weekday":
        return _as_time(actual).weekday() < 5
    if clause.op == "due_days_before_now":
        return actual is not None and _as_date(actual) < now.date() - timedelta(
            days=int(clause.value or 0)
        )
    if clause.op == "ne":
        return actual != clause.value
    if clause.op == "in":
        return isinstance(clause.value, tuple) and actual in clause.value
    if clause.op == "weekend":
        return actual is not None and _as_time(actual).weekday() >= 5
    if clause.op == "due_within_days":
        if actual is None:
            return False
        today = now.date()
        return today <= _as_date(actual) <= today + timedelta(days=int(clause.value or 0))
    raise ValueError(f"unknown clause op {clause.op!r}")


def in_scope(d: Definition, records: Iterable[Record], now: datetime) -> list[Record]:
    """The records the definition ranges over at `now`: source, kind, condition and window."""
    selected = []
    for r in records:
        if r.source != d.source or r.kind != d.kind:
            continue
        if d.window_field is not None:
            moment = _as_time(r.get(d.window_field))
            if not (now - timedelta(days=d.window_days or 0) < moment <= now):
                continue
        if all(_holds(c, r, now) for c in d.conditions):
            selected.append(r)
    return selected


def apply_definition(d: Definition, records: Iterable[Record], now: datetime) -> Gold:
    scope = in_scope(d, records, now)
    deps = _deps(scope)
    if d.aggregate == "count":
        return _count(d, scope, deps)
    if d.aggregate == "members":
        members = sorted({r.fields[d.key] for r in scope})
        facts = tuple(
            (m, next(r.object_id for r in scope if r.fields[d.key] == m)) for m in members
        )
        return Gold(ANSWER, tuple(members), deps, facts)
    if d.aggregate == "span":
        return _span(scope, deps)
    newest = _newest(scope)
    if newest is None:
        return Gold(ABSTAIN, None, deps)
    value = newest.fields[d.key]
    return Gold(ANSWER, value, deps, ((value, newest.object_id),))


def _keys_of(d: Definition, record: Record) -> list[str]:
    raw = record.fields.get(d.key)
    keys = raw if isinstance(raw, list) else [raw]
    return [k for k in keys if k]


def _count(d: Definition, scope: list[Record], deps: tuple[Dep, ...]) -> Gold:
    counts: Counter[str] = Counter()
    holder: dict[str, str] = {}
    for r in sorted(scope, key=lambda r: (r.updated, r.object_id)):
        for k in _keys_of(d, r):
            counts[k] += 1
            holder.setdefault(k, r.object_id)
    members = sorted(k for k, n in counts.items() if n >= (d.threshold or 0))
    return Gold(ANSWER, tuple(members), deps, tuple((m, holder[m]) for m in members))


def _span(scope: list[Record], deps: tuple[Dep, ...]) -> Gold:
    if not scope:
        return Gold(ABSTAIN, None, deps)
    first = min(scope, key=lambda r: (r.fields["start"][11:], r.object_id))
    last = max(scope, key=lambda r: (r.fields["end"][11:], r.object_id))
    start, end = first.fields["start"][11:], last.fields["end"][11:]
    value = f"{_floor_hour(start)}-{_ceil_hour(end)}"
    return Gold(ANSWER, value, deps, ((start, first.object_id), (end, last.object_id)))


def _floor_hour(hhmm: str) -> str:
    return f"{int(hhmm[:2]):02d}:00"


def _ceil_hour(hhmm: str) -> str:
    hours = math.ceil((int(hhmm[:2]) * 60 + int(hhmm[3:])) / 60)
    return f"{hours:02d}:00"
