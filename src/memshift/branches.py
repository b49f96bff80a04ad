"""Counterfactual branches: the base world plus the events of one shift, forked at the fork.

Each shift draws from its own stream and adds only its own events, so every branch shares every
other event byte for byte. Shifts only revise or delete objects that the ordinary continuation
leaves alone after the fork, which keeps the revision numbers of shared events identical; the
continuation does change some tracked objects after the fork, so a shift chooses among the others.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from memshift.definitions.catalog import DEFINITION_SETS, FIXED_SET, definition, definition_items
from memshift.gold.evaluator import conflict_key, evaluate
from memshift.registry import SHIFTS as SHIFT_ENTRIES
from memshift.registry import load
from memshift.rng import stream
from memshift.timeutil import WEEKDAYS, days, fmt, fmt_date
from memshift.vocabulary import BRANCHES, UNSHIFTED
from memshift.world import daytime, filler, pools
from memshift.world.calendar import (
    SLOTS,
    appointment_fields,
    meeting_fields,
    weekday_slot,
)
from memshift.world.cast import Person
from memshift.world.definition_revisions import heldout_revision
from memshift.world.emit import Emitter
from memshift.world.generate import World
from memshift.world.items import Item
from memshift.world.life import settings_fields, state_value
from memshift.world.notes import hours_range, working_hours_note
from memshift.world.prose import chat, dm_channel, email
from memshift.world.records import Event, LiveState, Record, sort_events, state_at
from memshift.world.tasks import project_cluster, task_fields

SHIFTS = BRANCHES[1:]
SRC_ITEMS_TARGET = 10
DEL_ITEMS_TARGET = 17
DEF_MOVES = 3
# contact cards whose two live sources disagree, per world (MemShift F.10: 20 attributes over 5
# worlds)
CONFLICT_CARDS = 4
SHIFT_DAYS = 6


@dataclass(frozen=True)
class Branch:
    name: str
    events: tuple[Event, ...]
    shift_events: tuple[Event, ...]
    touched_items: tuple[str, ...]


class ShiftContext:
    """What a shift may look at: the world, its state at the fork and its own stream."""

    def __init__(self, world: World, name: str) -> None:
        self.world = world
        self.name = name
        self.rng = stream(world.seed, f"shift:{name}")
        self.fork_state: LiveState = state_at(list(world.events), world.timeline.fork)
        revisions = {oid: r.revision for oid, r in self.fork_state.records.items()}
        self.em = Emitter(f"shift:{name}", name, world.cast.id_salt, revisions)
        self._after_fork = {e.object_id for e in world.events if e.time > world.timeline.fork}

    def untouched_after_fork(self, object_id: str) -> bool:
        """Whether the ordinary continuation leaves this object alone after the fork."""
        return object_id not in self._after_fork

    def record(self, object_id: str) -> Record:
        if not self.untouched_after_fork(object_id):
            raise AssertionError(
                f"shift {self.name} may not touch {object_id}: the ordinary "
                "continuation changes it after the fork"
            )
        return self.fork_state.records[object_id]

    def times(self, n: int, pattern: daytime.Pattern) -> list[datetime]:
        """`n` message times in the shift's days, at the hours people write such messages."""
        fork = self.world.timeline.fork
        return daytime.draw_times(self.rng, fork + days(0.2), fork + days(SHIFT_DAYS), n, pattern)

    def moment(
        self,
        day_lo: float = 0.0,
        day_hi: float = SHIFT_DAYS,
        hours: daytime.Pattern = daytime.ERRANDS,
    ) -> datetime:
        """A minute between `day_lo` and `day_hi` days after the fork, at waking hours."""
        fork = self.world.timeline.fork
        return daytime.time_in(self.rng, fork + days(day_lo), fork + days(day_hi), hours)

    def update(
        self, t: datetime, object_id: str, fields: dict, asserts: dict | None = None
    ) -> Event:
        r = self.record(object_id)
        return self.em.update(
            t, object_id, fields, asserts, shape=(r.source, r.kind, r.cluster, "")
        )

    def delete(self, t: datetime, object_id: str) -> Event:
        r = self.record(object_id)
        return self.em.delete(t, object_id, r.source, r.kind, r.cluster)

    def item(self, item_id: str) -> Item:
        return next(i for i in self.world.items if i.item_id == item_id)


# ---- source revision -------------------------------------------------------------------------

SrcOp = Callable[[ShiftContext], tuple[str, ...]]


def _say(ctx: ShiftContext, t: datetime, attribute: str, value: str) -> None:
    friend = ctx.world.cast.friends[int(ctx.rng.integers(len(ctx.world.cast.friends)))]
    state_value(ctx.em, ctx.rng, ctx.world.cast, t, attribute, value, "announce", friend)


def _current(ctx: ShiftContext, attribute: str) -> str:
    return ctx.world.script.value_at(attribute, ctx.world.timeline.fork)


def _job_change(ctx: ShiftContext) -> tuple[str, ...]:
    cast = ctx.world.cast
    employer = next(o for o in cast.organizations[2:] if o != _current(ctx, "employer"))
    t = ctx.moment(0, 3)
    _say(ctx, t, "employer", employer)
    _say(ctx, t + days(1), "manager", cast.managers[2].full)
    return ("person.employer", "person.manager")


def _reorg(ctx: ShiftContext) -> tuple[str, ...]:
    _say(ctx, ctx.moment(), "manager", ctx.world.cast.managers[3].full)
    return ("person.manager",)


def _relocation(ctx: ShiftContext) -> tuple[str, ...]:
    cast = ctx.world.cast
    here = _current(ctx, "home_city")
    zone = cast.city_zone(here)
    city = next(c for c, z in cast.cities[2:] if c != here and z != zone)
    t = ctx.moment(0, 4)
    _say(ctx, t, "home_city", city)
    ctx.update(t + days(1), cast.settings_id, settings_fields(cast.city_zone(city)))
    return ("person.home_city", "person.time_zone")


def _new_value(attribute: str, options: tuple[str, ...]) -> SrcOp:
    def op(ctx: ShiftContext) -> tuple[str, ...]:
        current = _current(ctx, attribute)
        choices = [o for o in options if o != current]
        _say(ctx, ctx.moment(), attribute, choices[int(ctx.rng.integers(len(choices)))])
        return (f"person.{attribute}",)

    return op


def _contact_edit(k: int) -> SrcOp:
    def op(ctx: ShiftContext) -> tuple[str, ...]:
        card = ctx.record(ctx.world.cast.card_id(k))
        attribute = "employer" if ctx.rng.random() < 0.5 else "city"
        options = (
            ctx.world.cast.organizations[4:]
            if attribute == "employer"
            else tuple(c for c, _ in ctx.world.cast.cities)
        )
        choices = [o for o in options if o != card.fields[attribute]]
        new = {**card.fields, attribute: choices[int(ctx.rng.integers(len(choices)))]}
        ctx.update(ctx.moment(), ctx.world.cast.card_id(k), new)
        return (f"contact{k:02d}.{attribute}",)

    return op


def _series_change(k: int) -> SrcOp:
    def op(ctx: ShiftContext) -> tuple[str, ...]:
        series = ctx.record(ctx.world.cast.series_id(k))
        fields = dict(series.fields)
        if ctx.rng.random() < 0.3:
            fields["status"] = "canceled"
        else:
            while (fields["weekday"], fields["start_time"]) == (
                series.fields["weekday"],
                series.fields["start_time"],
            ):
                fields["weekday"] = WEEKDAYS[int(ctx.rng.integers(5))]
                fields["start_time"] = SLOTS[int(ctx.rng.integers(1, len(SLOTS) - 2))]
        ctx.update(ctx.moment(), ctx.world.cast.series_id(k), fields)
        return (f"series{k}",)

    return op


def _appointment_change(kind: str) -> SrcOp:
    def op(ctx: ShiftContext) -> tuple[str, ...]:
        fork = ctx.world.timeline.fork
        upcoming = sorted(
            (
                r
                for r in ctx.fork_state.records.values()
                if r.kind == "appointment"
                and r.fields["appointment_type"] == kind
                and r.fields["status"] == "booked"
                and r.fields["start"] > fmt(fork)
                and ctx.untouched_after_fork(r.object_id)
            ),
            key=lambda r: r.fields["start"],
        )
        t = ctx.moment(0, 3)
        if upcoming and ctx.rng.random() < 0.6:
            first = upcoming[0]
            if ctx.rng.random() < 0.5:
                ctx.update(t, first.object_id, {**first.fields, "status": "canceled"})
            else:
                new_start = weekday_slot(ctx.rng, fork + days(int(ctx.rng.integers(8, 20))))
                ctx.update(t, first.object_id, {**first.fields, "start": fmt(new_start)})
            return (f"appointment.{kind}",)
        start = weekday_slot(ctx.rng, fork + days(int(ctx.rng.integers(8, 25))))
        sample = next(
            (
                r
                for r in ctx.fork_state.records.values()
                if r.kind == "appointment" and r.fields["appointment_type"] == kind
            ),
            None,
        )
        provider = sample.fields["provider"] if sample else "Dr. Reyes"
        location = sample.fields["location"] if sample else "City Clinic"
        object_id = ctx.em.new_object_id("cal")
        ctx.em.insert(
            t,
            object_id,
            "calendar",
            "appointment",
            f"appointments:{kind}",
            appointment_fields(kind, provider, start, location),
        )
        return (f"appointment.{kind}",)

    return op


def _task_due(k: int) -> SrcOp:
    def op(ctx: ShiftContext) -> tuple[str, ...]:
        task = ctx.record(ctx.world.cast.tracked_task_id(k))
        old = datetime.strptime(task.fields["due"], "%Y-%m-%d")
        shift = int(ctx.rng.choice([-6, -4, 5, 9, 14, 21]))
        new_due = fmt_date(old + days(shift))
        ctx.update(ctx.moment(), ctx.world.cast.tracked_task_id(k), {**task.fields, "due": new_due})
        return (f"task{k}.due",)

    return op


def _spare(ctx: ShiftContext, index: int) -> Person:
    return ctx.world.cast.spares[index]


def _important_contact(ctx: ShiftContext) -> tuple[str, ...]:
    newcomer = _spare(ctx, 0)
    cast = ctx.world.cast
    fork = ctx.world.timeline.fork
    for day in range(1, SHIFT_DAYS):
        start = weekday_slot(ctx.rng, fork + days(day))
        if start > fork + days(SHIFT_DAYS):
            start = fork + days(day) + timedelta(hours=11)
        others = [cast.colleagues[int(ctx.rng.integers(len(cast.colleagues)))].full]
        title = pools.MEETING_TOPICS[int(ctx.rng.integers(len(pools.MEETING_TOPICS)))]
        fields = meeting_fields(title, start, 60, cast.user, sorted([newcomer.full, *others]))
        object_id = ctx.em.new_object_id("cal")
        ctx.em.insert(
            start - timedelta(hours=3),
            object_id,
            "calendar",
            "meeting",
            f"meeting:{object_id}",
            fields,
        )
    return ("def.important_contacts",)


def _close_friend(ctx: ShiftContext) -> tuple[str, ...]:
    friend = _spare(ctx, 1)
    cast = ctx.world.cast
    for t in ctx.times(14, daytime.PERSONAL):
        sender, reader = (friend, cast.user) if ctx.rng.random() < 0.5 else (cast.user, friend)
        chat(
            ctx.em,
            t,
            channel=dm_channel(friend),
            channel_kind="personal",
            sender=sender,
            partner=friend,
            body=filler.small_talk(ctx.rng, to=reader.first),
        )
    return ("def.close_friends",)


def _vip_sender(ctx: ShiftContext) -> tuple[str, ...]:
    sender = _spare(ctx, 2)
    cast = ctx.world.cast
    for t in ctx.times(4, daytime.WORK):
        project = cast.projects[int(ctx.rng.integers(len(cast.projects)))]
        subject, body = filler.routine_mail(
            ctx.rng, sender_first=sender.first, project=project, to=cast.user.first
        )
        email(
            ctx.em,
            t,
            sender=sender,
            to=[cast.user],
            subject=subject,
            body=body,
            thread=f"thread:{sender.handle}",
            starred=True,
            category="work",
        )
    return ("def.vip_senders",)


def _one_of(ctx: ShiftContext, options: tuple[str, ...]) -> str:
    return options[int(ctx.rng.integers(len(options)))]


def _active_project(ctx: ShiftContext) -> tuple[str, ...]:
    cast = ctx.world.cast
    project = _one_of(ctx, cast.spare_projects)
    title = cast.spare_task_titles[0]
    t = ctx.moment()
    ctx.em.insert(
        t,
        ctx.em.new_object_id("tk"),
        "tasks",
        "task",
        project_cluster(project),
        task_fields(title, project, t, fmt_date(t + days(20))),
    )
    return ("def.active_projects",)


def _overdue_task(ctx: ShiftContext) -> tuple[str, ...]:
    cast = ctx.world.cast
    fork = ctx.world.timeline.fork
    project = cast.projects[int(ctx.rng.integers(len(cast.projects)))]
    title = cast.spare_task_titles[1]
    t = ctx.moment(0, 2)
    ctx.em.insert(
        t,
        ctx.em.new_object_id("tk"),
        "tasks",
        "task",
        project_cluster(project),
        task_fields(title, project, t, fmt_date(fork + days(2))),
    )
    return ("def.overdue_tasks",)


def _working_hours(ctx: ShiftContext) -> tuple[str, ...]:
    current = max(
        (r for r in ctx.fork_state.records.values() if r.fields.get("topic") == "working_hours"),
        key=lambda r: r.updated,
    ).fields["hours"]
    hours = hours_range(ctx.rng)
    while hours == current:
        hours = hours_range(ctx.rng)
    working_hours_note(ctx.em, ctx.rng, ctx.moment(), hours)
    return ("def.working_hours",)


def _src_catalogue(ctx: ShiftContext) -> list[tuple[tuple[str, ...], SrcOp]]:
    """Each revision with the item slots it claims; two revisions never claim the same slot, and
    none revises an object that the ordinary continuation changes after the fork."""
    cast = ctx.world.cast
    ops: list[tuple[tuple[str, ...], SrcOp]] = [
        (("employer", "manager"), _job_change),
        (("manager",), _reorg),
        (("diet",), _new_value("diet", pools.DIETS)),
        (("commute",), _new_value("commute", pools.COMMUTES)),
        *_definition_ops(ctx.world.definitions),
    ]
    if ctx.untouched_after_fork(cast.settings_id):
        ops.append((("home_city", "time_zone"), _relocation))
    cards = _free(ctx, cast.card_id, 12)[:3]
    series = _free(ctx, cast.series_id, 4)[:2]
    tasks = _free(ctx, cast.tracked_task_id, 6)[:2]
    ops += [((f"card{k}",), _contact_edit(k)) for k in cards]
    ops += [((f"series{k}",), _series_change(k)) for k in series]
    ops += [((f"appointment.{kind}",), _appointment_change(kind)) for kind in ("dentist", "doctor")]
    ops += [((f"task{k}",), _task_due(k)) for k in tasks]
    return ops


def _definition_ops(definitions: str) -> list[tuple[tuple[str, ...], SrcOp]]:
    """The source revisions of the world's definition items: the fixed six have their own, a
    held-out set's are built from each definition's first version
    (world/definition_revisions.py)."""
    if definitions == FIXED_SET:
        return [
            (("important_contacts",), _important_contact),
            (("close_friends",), _close_friend),
            (("active_projects",), _active_project),
            (("working_hours",), _working_hours),
            (("vip_senders",), _vip_sender),
            (("overdue_tasks",), _overdue_task),
        ]
    firsts = [d for d in DEFINITION_SETS[definitions] if d.version == 1]
    return [((d.item_id,), heldout_revision(d, k)) for k, d in enumerate(firsts, start=1)]


def _free(ctx: ShiftContext, object_id: Callable[[int], str], n: int) -> list[int]:
    """The numbers 1..n in the shift's random order, keeping those whose object the ordinary
    continuation leaves alone after the fork."""
    order = [int(k) for k in 1 + ctx.rng.permutation(n)]
    return [k for k in order if ctx.untouched_after_fork(object_id(k))]


def source_revision(ctx: ShiftContext) -> tuple[str, ...]:
    """Ordinary-looking events in the first days after the fork that revise the records behind
    about a fifth of the items."""
    touched: list[str] = []
    claimed: set[str] = set()
    catalogue = _src_catalogue(ctx)
    for index in ctx.rng.permutation(len(catalogue)):
        claims, op = catalogue[int(index)]
        if claimed & set(claims) or len(touched) + len(claims) > SRC_ITEMS_TARGET:
            continue
        claimed.update(claims)
        touched.extend(op(ctx))
        if len(touched) == SRC_ITEMS_TARGET:
            break
    return tuple(sorted(touched))


# ---- redefinition, deletion, consent, conflict -----------------------------------------------


def redefinition(ctx: ShiftContext) -> tuple[str, ...]:
    return _move_definitions(ctx, ctx.rng, stated=True)


def unstated_redefinition(ctx: ShiftContext) -> tuple[str, ...]:
    """The redefinition's moves (drawn from its stream, so the same items move), never stated:
    gold applies them, no memory can see them (`public_view` drops them)."""
    return _move_definitions(ctx, stream(ctx.world.seed, "shift:def"), stated=False)


def _move_definitions(
    ctx: ShiftContext, rng: np.random.Generator, *, stated: bool
) -> tuple[str, ...]:
    fork = ctx.world.timeline.fork
    items = definition_items(ctx.world.definitions)
    moved = sorted(items[int(i)] for i in rng.permutation(len(items))[:DEF_MOVES])
    for item_id in moved:
        d = definition(item_id, 2)
        ctx.em.memory_event(
            fork + timedelta(minutes=1),
            "define",
            {"item": item_id, "version": 2, "name": d.name, "text": d.text, "stated": stated},
        )
    return tuple(moved)


def deletion(ctx: ShiftContext) -> tuple[str, ...]:
    cast = ctx.world.cast
    candidates: list[tuple[str, tuple[str, ...]]] = [
        (cast.card_id(k), (f"contact{k:02d}.employer", f"contact{k:02d}.city"))
        for k in range(1, 13)
    ]
    candidates += [(cast.series_id(k), (f"series{k}",)) for k in range(1, 5)]
    candidates += [(cast.tracked_task_id(k), (f"task{k}.due",)) for k in range(1, 7)]
    candidates = [c for c in candidates if ctx.untouched_after_fork(c[0])]
    touched: list[str] = []
    chosen: list[str] = []
    for index in ctx.rng.permutation(len(candidates)):
        object_id, items = candidates[int(index)]
        if len(touched) + len(items) <= DEL_ITEMS_TARGET:
            chosen.append(object_id)
            touched.extend(items)
    for object_id in chosen:
        ctx.delete(ctx.moment(), object_id)
    return tuple(sorted(touched))


def consent(ctx: ShiftContext) -> tuple[str, ...]:
    """One agent loses one scope that, at the fork, holds a dependency of one of its items (a
    revocation that blocks nothing would measure nothing); the touched items are the agent's
    items that declare the scope, blocked by gold or not."""
    fork = ctx.world.timeline.fork
    records = list(ctx.fork_state.records.values())
    source_of = {(r.object_id, r.revision): r.source for r in records}
    pairs = sorted(
        {
            (i.agent, source_of[dep])
            for i in ctx.world.items
            for dep in evaluate(i, records, fork).deps
            if source_of[dep] in i.sources
        }
    )
    agent, scope = pairs[int(ctx.rng.integers(len(pairs)))]
    ctx.em.memory_event(
        ctx.world.timeline.fork + timedelta(minutes=1),
        "consent",
        {"agent": agent, "scope": scope, "allowed": False},
    )
    return tuple(i.item_id for i in ctx.world.items if i.agent == agent and scope in i.sources)


CONFLICT_LINES = {
    "city": (
        "Small news from me: I have moved and I am now living in {value}.",
        "Writing from my new place in {value}, still unpacking boxes.",
    ),
    "employer": (
        "Some news: I have joined {value} this month.",
        "First week at {value} is done and I already like the team.",
    ),
}


def conflict(ctx: ShiftContext) -> tuple[str, ...]:
    cast = ctx.world.cast
    touched = []
    for k in sorted(_free(ctx, cast.card_id, 12)[:CONFLICT_CARDS]):
        card = ctx.record(cast.card_id(k))
        attribute = "city" if ctx.rng.random() < 0.5 else "employer"
        options = (
            [c for c, _ in cast.cities] if attribute == "city" else list(cast.organizations[4:])
        )
        options = [o for o in options if o != card.fields[attribute]]
        picks = ctx.rng.permutation(len(options))[:2]
        on_card, in_message = options[int(picks[0])], options[int(picks[1])]
        day = (ctx.world.timeline.fork + days(int(ctx.rng.integers(1, SHIFT_DAYS)))).replace(hour=9)
        ctx.update(day, cast.card_id(k), {**card.fields, attribute: on_card})
        person = cast.tracked_contacts[k - 1]
        line = CONFLICT_LINES[attribute][int(ctx.rng.integers(2))].format(value=in_message)
        email(
            ctx.em,
            day + timedelta(hours=6),
            sender=person,
            to=[cast.user],
            subject="News",
            body=line,
            thread=f"thread:{person.handle}",
            asserts={conflict_key(cast.card_id(k), attribute): in_message},
        )
        touched.append(f"contact{k:02d}.{attribute}")
    return tuple(touched)


def make_branch(world: World, name: str) -> Branch:
    if name not in BRANCHES:
        raise ValueError(f"unknown branch {name!r}; choose one of {', '.join(BRANCHES)}")
    if name == UNSHIFTED:
        return Branch(name, world.events, (), ())
    ctx = ShiftContext(world, name)
    touched = load(SHIFT_ENTRIES[name].builder)(ctx)
    shift_events = tuple(sort_events(e for e in ctx.em.events if e.time <= world.timeline.end))
    if any(e.time <= world.timeline.fork for e in shift_events):
        raise AssertionError(f"shift {name} produced an event at or before the fork")
    events = tuple(sort_events([*world.events, *shift_events]))
    return Branch(name, events, shift_events, touched)
