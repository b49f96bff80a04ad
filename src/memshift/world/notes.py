"""Notes: everyday jottings every week, and the working-hours notes one definition reads."""

from __future__ import annotations

from datetime import datetime

import numpy as np

from memshift.timeutil import days
from memshift.world import daytime, filler, working_hours
from memshift.world.cast import Cast
from memshift.world.emit import Emitter
from memshift.world.prose import note
from memshift.world.records import Event
from memshift.world.timeline import Timeline

HOUR_STARTS = ("07:30", "08:00", "08:30", "09:00", "09:30", "10:00")
HOUR_LENGTHS = (480, 510, 540)


def hours_range(rng: np.random.Generator) -> str:
    start = HOUR_STARTS[int(rng.integers(len(HOUR_STARTS)))]
    minutes = int(start[:2]) * 60 + int(start[3:]) + int(rng.choice(HOUR_LENGTHS))
    return f"{start}-{minutes // 60:02d}:{minutes % 60:02d}"


def working_hours_note(em: Emitter, rng: np.random.Generator, t: datetime, hours: str) -> Event:
    title, body = working_hours.NOTES[int(rng.integers(len(working_hours.NOTES)))]
    return note(
        em,
        t,
        title=title,
        body=working_hours.render(body, hours),
        notebook="work",
        topic="working_hours",
        extra={"hours": hours},
    )


def note_events(rng: np.random.Generator, cast: Cast, timeline: Timeline) -> list[Event]:
    em = Emitter("notes", "nt", cast.id_salt)
    first = timeline.random_time(rng, timeline.start, timeline.start + days(10), daytime.OFFICE)
    later = (first + days(14), timeline.fork - days(7))
    extra = int(rng.integers(1, 3)) if timeline.has_room(*later) else 0
    moments = [
        first,
        *sorted(timeline.random_time(rng, *later, daytime.OFFICE) for _ in range(extra)),
    ]
    if rng.random() < 0.5:
        moments.append(
            timeline.random_time(
                rng, timeline.fork + days(10), timeline.fork + days(50), daytime.OFFICE
            )
        )
    previous = ""
    for t in moments:
        hours = hours_range(rng)
        while hours == previous:
            hours = hours_range(rng)
        previous = hours
        working_hours_note(em, rng, t, hours)
    for lo, hi in timeline.weeks():
        for t in sorted(
            timeline.random_time(rng, lo, hi, daytime.ERRANDS)
            for _ in range(max(1, int(rng.poisson(1.0))))
        ):
            title, body = filler.note_text(rng)
            note(em, t, title=title, body=body, notebook="personal", topic="everyday")
    return em.events
