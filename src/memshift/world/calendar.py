"""Calendar: recurring series, dentist and doctor appointments, and one-off meetings."""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np

from memshift.timeutil import WEEKDAYS, days, fmt
from memshift.world import daytime, pools
from memshift.world.cast import Cast, Person
from memshift.world.emit import Emitter
from memshift.world.items import APPOINTMENT_TYPES
from memshift.world.records import Event
from memshift.world.timeline import Timeline

SLOTS = tuple(f"{h:02d}:{m:02d}" for h in range(8, 17) for m in (0, 30))
DURATIONS = (30, 45, 60, 90)
DRIFT_WEEKS = 4
# A meeting drawn on a weekend day moves to the Friday before but for a few (a launch, a trip).
WEEKEND_MEETINGS = 0.1
SERIES_MOVED_BEFORE_FORK = 0.3
SERIES_CHANGED_AFTER_FORK = 0.15
SERIES_CANCELED_SHARE = 0.25
APPOINTMENT_GAP_DAYS = {"dentist": (100, 180), "doctor": (28, 60)}
CLINICS = {
    "dentist": ("Riverside Dental, Suite 4", "Bright Smile Clinic, 2nd floor"),
    "doctor": ("Parkview Health Centre, Room 12", "Elm Street Practice"),
}


def _slot_time(day: datetime, slot: str) -> datetime:
    return day.replace(hour=int(slot[:2]), minute=int(slot[3:]), second=0, microsecond=0)


def series_fields(
    title: str,
    weekday: str,
    start_time: str,
    duration: int,
    attendees: list[str],
    status: str = "active",
) -> dict[str, object]:
    return {
        "title": title,
        "weekday": weekday,
        "start_time": start_time,
        "duration_min": duration,
        "attendees": attendees,
        "status": status,
    }


def series_events(rng: np.random.Generator, cast: Cast, timeline: Timeline) -> list[Event]:
    em = Emitter("series", "sr", cast.id_salt)
    for k, title in enumerate(cast.series_titles, start=1):
        attendees = [
            cast.colleagues[i].full
            for i in sorted(rng.choice(len(cast.colleagues), 3, replace=False))
        ]
        fields = series_fields(
            title,
            WEEKDAYS[int(rng.integers(5))],
            SLOTS[int(rng.integers(1, len(SLOTS) - 2))],
            int(rng.choice((30, 60))),
            attendees,
        )
        first_week = (timeline.start, timeline.start + days(7))
        created = timeline.random_time(rng, *first_week, daytime.OFFICE)
        em.insert(created, cast.series_id(k), "calendar", "series", cast.series_id(k), fields)
        window = (created + days(14), timeline.fork - days(3))
        if rng.random() < SERIES_MOVED_BEFORE_FORK and timeline.has_room(*window):
            fields = _rescheduled(rng, fields)
            em.update(timeline.random_time(rng, *window, daytime.OFFICE), cast.series_id(k), fields)
        if rng.random() < SERIES_CHANGED_AFTER_FORK:
            if rng.random() < SERIES_CANCELED_SHARE:
                fields = {**fields, "status": "canceled"}
            else:
                fields = _rescheduled(rng, fields)
            moved = timeline.random_time(rng, *timeline.continuation, daytime.OFFICE)
            em.update(moved, cast.series_id(k), fields)
    return em.events


def _rescheduled(rng: np.random.Generator, fields: dict[str, object]) -> dict[str, object]:
    """The series on another weekday or at another time (never the same slot)."""
    moved = dict(fields)
    while (moved["weekday"], moved["start_time"]) == (fields["weekday"], fields["start_time"]):
        moved["weekday"] = WEEKDAYS[int(rng.integers(5))]
        moved["start_time"] = SLOTS[int(rng.integers(1, len(SLOTS) - 2))]
    return moved


def appointment_fields(
    kind: str, provider: str, start: datetime, location: str, status: str = "booked"
) -> dict[str, str]:
    return {
        "appointment_type": kind,
        "provider": provider,
        "start": fmt(start),
        "location": location,
        "status": status,
    }


def weekday_slot(rng: np.random.Generator, day: datetime) -> datetime:
    while day.weekday() >= 5:
        day += days(1)
    return _slot_time(day, SLOTS[int(rng.integers(len(SLOTS)))])


def appointment_events(rng: np.random.Generator, cast: Cast, timeline: Timeline) -> list[Event]:
    """Appointments are booked weeks ahead; before the fork some are moved. After the fork the
    ordinary continuation only books new ones, so a shift may own every change to an old one."""
    em = Emitter("appointments", "ap", cast.id_salt)
    for kind in APPOINTMENT_TYPES:
        provider = f"Dr. {pools.LAST_NAMES[int(rng.integers(len(pools.LAST_NAMES)))]}"
        location = CLINICS[kind][int(rng.integers(2))]
        lo, hi = APPOINTMENT_GAP_DAYS[kind]
        start = weekday_slot(rng, timeline.start + days(int(rng.integers(5, hi))))
        while start < timeline.end - days(2):
            booked = max(
                timeline.start + timedelta(hours=2), start - days(int(rng.integers(7, 36)))
            )
            booked = daytime.time_in(rng, *daytime.rest_of_day(booked), daytime.OFFICE)
            object_id = em.new_object_id("cal")
            cluster = f"appointments:{kind}"
            fields = appointment_fields(kind, provider, start, location)
            em.insert(booked, object_id, "calendar", "appointment", cluster, fields)
            moved_at = booked + days(int(rng.integers(1, 5)))
            if rng.random() < 0.2 and moved_at < start and moved_at < timeline.fork:
                start = weekday_slot(rng, start + days(int(rng.integers(2, 9))))
                em.update(moved_at, object_id, appointment_fields(kind, provider, start, location))
            start = weekday_slot(rng, start + days(int(rng.integers(lo, hi + 1))))
    return em.events


def meeting_fields(
    title: str, start: datetime, minutes: int, organizer: Person, attendees: list[str]
) -> dict[str, object]:
    end = start + timedelta(minutes=minutes)
    return {
        "title": title,
        "start": fmt(start),
        "end": fmt(end),
        "weekday": WEEKDAYS[start.weekday()],
        "organizer": organizer.full,
        "attendees": attendees,
    }


def meeting_start(rng: np.random.Generator, day: datetime) -> datetime:
    draw = rng.random()
    if draw < 0.04:
        slot = "07:30"
    elif draw < 0.08:
        slot = "17:30"
    else:
        slot = SLOTS[int(rng.integers(len(SLOTS)))]
    return _slot_time(day, slot)


def colleague_weights(rng: np.random.Generator, n: int, blocks: int) -> np.ndarray:
    """Each colleague's share of meetings drifts: a fresh draw every few weeks."""
    return rng.lognormal(0.0, 1.0, size=(blocks, n))


def _scheduled(rng: np.random.Generator, start: datetime, earliest: datetime) -> datetime:
    """When a meeting starting at `start` is put in the calendar: at office hours in the four
    days before it, at least two hours ahead, not before `earliest`; on the first morning of the
    timeline, that morning before it."""
    lo, hi = max(start - timedelta(days=4), earliest), start - timedelta(hours=2)
    if not any(daytime.fits(hours, lo, hi) for hours in (daytime.OFFICE, daytime.ERRANDS)):
        lo, hi = max(earliest, start.replace(hour=6, minute=0)), start - timedelta(minutes=15)
    return daytime.time_in(rng, lo, hi, daytime.OFFICE)


def meeting_events(rng: np.random.Generator, cast: Cast, timeline: Timeline) -> list[Event]:
    em = Emitter("meetings", "mt", cast.id_salt)
    weeks = timeline.weeks()
    weights = colleague_weights(rng, len(cast.colleagues), len(weeks) // DRIFT_WEEKS + 1)
    for index, (lo, hi) in enumerate(weeks):
        w = weights[index // DRIFT_WEEKS]
        for _ in range(max(1, int(rng.poisson(3.2)))):
            offset = int(rng.integers(0, max(1, (hi - lo).days)))
            day = (lo + days(offset)).replace(hour=0, minute=0)
            if day.weekday() >= 5 and rng.random() >= WEEKEND_MEETINGS:
                day -= days(day.weekday() - 4)
            start = meeting_start(rng, day)
            size = int(rng.choice((1, 2, 3, 4), p=(0.35, 0.35, 0.2, 0.1)))
            chosen = rng.choice(len(cast.colleagues), size=size, replace=False, p=w / w.sum())
            attendees = [cast.colleagues[i].full for i in sorted(chosen)]
            title = pools.MEETING_TOPICS[int(rng.integers(len(pools.MEETING_TOPICS)))]
            fields = meeting_fields(title, start, int(rng.choice(DURATIONS)), cast.user, attendees)
            scheduled = _scheduled(rng, start, timeline.start)
            object_id = em.new_object_id("cal")
            em.insert(scheduled, object_id, "calendar", "meeting", f"meeting:{object_id}", fields)
    return em.events
