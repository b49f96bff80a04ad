"""Source revisions of a held-out definition (a draw of the definition grammar): ordinary records
of the definition's source that meet its condition inside its window, in the shift's first days,
so that its value changes the way the fixed six change under their own revisions. A count gains
a newcomer with exactly as many qualifying records as the threshold asks; a list gains one new
member; a span is widened by one qualifying meeting early in the morning.

The records are written with the generator's own field builders and prose, so nothing about them
says which definition they serve.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Protocol

import numpy as np

from memshift.definitions.catalog import Clause, Definition
from memshift.timeutil import WEEKDAYS, days, fmt_date
from memshift.world import daytime, filler, news, pools
from memshift.world.calendar import CLINICS, appointment_fields, meeting_fields
from memshift.world.cast import Person
from memshift.world.emit import Emitter
from memshift.world.generate import World
from memshift.world.prose import chat, dm_channel, email, note
from memshift.world.tasks import project_cluster, task_fields


class ShiftContext(Protocol):
    """What a revision needs of branches.ShiftContext: the world, the shift's stream and its
    emitter (a protocol, so that this module need not import the branches that use it)."""

    world: World
    rng: np.random.Generator
    em: Emitter


# the cast's spare people no other shift or life event uses (branches uses 0-2, life 5-6)
FREE_SPARES = (3, 4, 7, 8, 9)
# values a field can take, for a condition that only says what a field is not
FIELD_VALUES = {
    "category": ("work", "personal", "newsletter"),
    "channel_kind": ("work", "personal"),
    "status": ("open", "done"),
}
EARLY_START_HOUR = 6  # a meeting this early widens any span of meeting hours


def _field_value(clause: Clause) -> str | None:
    """A value of the clause's field that meets it, or None for a clause on the record's time."""
    if clause.op == "eq":
        return str(clause.value)
    if clause.op == "in":
        assert isinstance(clause.value, tuple)
        return clause.value[0]
    if clause.op == "ne":
        return next(v for v in FIELD_VALUES[clause.field] if v != clause.value)
    return None


def _fields(d: Definition) -> dict[str, str]:
    return {
        c.field: value
        for c in d.conditions
        if c.field not in ("weekday", "start", "sent") and (value := _field_value(c)) is not None
    }


def _day_allowed(d: Definition, day: datetime) -> bool:
    name = WEEKDAYS[day.weekday()]
    for c in d.conditions:
        if c.op == "weekend" and day.weekday() < 5:
            return False
        if c.field == "weekday" and c.op == "eq" and name != c.value:
            return False
        if c.field == "weekday" and c.op == "in" and name not in (c.value or ()):
            return False
        if c.field == "weekday" and c.op == "ne" and name == c.value:
            return False
    return True


def _times(ctx: ShiftContext, d: Definition, n: int, hour: int | None = None) -> list[datetime]:
    """`n` moments on the shift's days that the definition's conditions on time allow (later
    days when the first week has none), at working hours or at `hour`."""
    fork = ctx.world.timeline.fork
    allowed = [fork + days(k) for k in range(1, 15) if _day_allowed(d, fork + days(k))]
    out = []
    for i in range(n):
        day = allowed[i % len(allowed)]
        at = hour if hour is not None else 9 + int(ctx.rng.integers(0, 8))
        out.append(day.replace(hour=at, minute=int(ctx.rng.integers(0, 4)) * 15))
    return sorted(out)


def _newcomer(ctx: ShiftContext, k: int) -> Person:
    return ctx.world.cast.spares[FREE_SPARES[(k - 1) % len(FREE_SPARES)]]


def _email(ctx: ShiftContext, d: Definition, k: int, n: int) -> None:
    cast = ctx.world.cast
    sender = _newcomer(ctx, k)
    fields = _fields(d)
    category = fields.get("category", "personal")
    for t in _times(ctx, d, n):
        project = cast.projects[int(ctx.rng.integers(len(cast.projects)))]
        if category == "work":
            subject, body = filler.routine_mail(
                ctx.rng, sender_first=sender.first, project=project, to=cast.user.first
            )
        elif category == "newsletter":
            subject = f"{project} digest"
            body = news.newsletter_body(ctx.rng, n_sections=1)
        else:
            subject, body = filler.personal_mail(ctx.rng, friend=sender.first, user=cast.user.first)
        email(
            ctx.em,
            t,
            sender=sender,
            to=[cast.user],
            subject=subject,
            body=body,
            thread=f"thread:{sender.handle}",
            category=category,
        )


def _chat(ctx: ShiftContext, d: Definition, k: int, n: int) -> None:
    cast = ctx.world.cast
    newcomer = _newcomer(ctx, k)
    kind = _fields(d).get("channel_kind", "personal")
    for t in _times(ctx, d, n):
        if d.key == "channel":
            channel, sender, partner = f"#{pools.PROJECT_NAMES[k].lower()}", cast.user, None
        elif kind == "work":
            channel, sender, partner = cast.channels[0], newcomer, None
        else:
            channel, sender, partner = dm_channel(newcomer), newcomer, newcomer
        chat(
            ctx.em,
            t,
            channel=channel,
            channel_kind=kind,
            sender=sender,
            partner=partner,
            body=filler.small_talk(ctx.rng, to=cast.user.first),
        )


def _meeting(ctx: ShiftContext, d: Definition, k: int, n: int) -> None:
    cast = ctx.world.cast
    newcomer = _newcomer(ctx, k)
    early = d.aggregate == "span"
    for t in _times(ctx, d, n, EARLY_START_HOUR if early else None):
        title = pools.MEETING_TOPICS[int(ctx.rng.integers(len(pools.MEETING_TOPICS)))]
        colleague = cast.colleagues[int(ctx.rng.integers(len(cast.colleagues)))].full
        fields = meeting_fields(title, t, 60, cast.user, sorted([newcomer.full, colleague]))
        object_id = ctx.em.new_object_id("cal")
        ctx.em.insert(
            _scheduled(ctx, t), object_id, "calendar", "meeting", f"meeting:{object_id}", fields
        )


def _scheduled(ctx: ShiftContext, start: datetime) -> datetime:
    """When a meeting starting at `start` is put in the calendar: in the day before it, at least
    an hour ahead, at office hours (waking hours over a weekend), so an early meeting is booked
    the afternoon before and not at 03:00; never before the fork or the checkpoint before
    `start`, so the meeting enters the calendar in the interval the shift placed it in."""
    timeline = ctx.world.timeline
    passed = [c for c in timeline.checkpoints if c < start]
    lo = max(start - timedelta(days=1), timeline.fork, *passed)
    return daytime.time_in(ctx.rng, lo, start - timedelta(hours=1), daytime.OFFICE)


def _appointment(ctx: ShiftContext, d: Definition, k: int, n: int) -> None:
    provider = f"Dr. {_newcomer(ctx, k).last}"
    for t in _times(ctx, d, n):
        object_id = ctx.em.new_object_id("cal")
        fields = appointment_fields("doctor", provider, t + days(3), CLINICS["doctor"][0])
        fields.update(_fields(d))
        ctx.em.insert(t, object_id, "calendar", "appointment", "appointments:doctor", fields)


def _task(ctx: ShiftContext, d: Definition, k: int, n: int) -> None:
    cast = ctx.world.cast
    fields = _fields(d)
    project = cast.spare_projects[(k - 1) % len(cast.spare_projects)]
    due_within = next((c for c in d.conditions if c.op == "due_within_days"), None)
    for i, t in enumerate(_times(ctx, d, n)):
        title = cast.spare_task_titles[(k + i) % len(cast.spare_task_titles)]
        if d.key != "project":
            project = cast.projects[int(ctx.rng.integers(len(cast.projects)))]
        ahead = max(1, int(due_within.value or 0) // 2) if due_within else 20
        record = task_fields(
            title, project, t, fmt_date(t + days(ahead)), fields.get("status", "open")
        )
        ctx.em.insert(
            t, ctx.em.new_object_id("tk"), "tasks", "task", project_cluster(project), record
        )


def _note(ctx: ShiftContext, d: Definition, k: int, n: int) -> None:
    topic = _fields(d).get("topic", "everyday")
    for t in _times(ctx, d, n):
        title, body = filler.note_text(ctx.rng)
        note(ctx.em, t, title=title, body=body, notebook="personal", topic=topic)


EMITTERS: dict[tuple[str, str], Callable[[ShiftContext, Definition, int, int], None]] = {
    ("email", "message"): _email,
    ("chat", "message"): _chat,
    ("calendar", "meeting"): _meeting,
    ("calendar", "appointment"): _appointment,
    ("tasks", "task"): _task,
    ("notes", "note"): _note,
}


def heldout_revision(d: Definition, k: int) -> Callable[[ShiftContext], tuple[str, ...]]:
    """The source revision of held-out definition `d` (the `k`-th of its set)."""
    emit = EMITTERS.get((d.source, d.kind))
    if emit is None:
        raise ValueError(f"no source revision for definitions over {d.source} {d.kind} records")

    def op(ctx: ShiftContext) -> tuple[str, ...]:
        emit(ctx, d, k, (d.threshold or 1) if d.aggregate == "count" else 1)
        return (d.item_id,)

    return op
