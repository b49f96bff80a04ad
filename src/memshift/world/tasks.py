"""Tasks in projects that start and wind down over the year, plus the six tracked tasks whose
due dates are items."""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np

from memshift.timeutil import days, fmt, fmt_date
from memshift.world import daytime
from memshift.world.cast import Cast
from memshift.world.emit import Emitter
from memshift.world.records import Event
from memshift.world.timeline import Timeline


def task_fields(
    title: str, project: str, created: datetime, due: str, status: str = "open"
) -> dict[str, str]:
    return {
        "title": title,
        "project": project,
        "status": status,
        "due": due,
        "created": fmt(created),
    }


def project_cluster(project: str) -> str:
    return f"project:{project.lower().replace(' ', '-')}"


def project_spans(
    rng: np.random.Generator, cast: Cast, timeline: Timeline
) -> list[tuple[str, datetime, datetime]]:
    first, last = timeline.start - days(60), timeline.end - days(30)
    span_days = (last - first).days
    spans = []
    for project in cast.projects:
        begin = first + days(int(rng.integers(0, span_days)))
        spans.append((project, begin, begin + days(int(rng.integers(60, 200)))))
    return spans


def active_projects(spans: list[tuple[str, datetime, datetime]], t: datetime) -> list[str]:
    live = [p for p, lo, hi in spans if lo <= t < hi]
    if live:
        return live
    return [min(spans, key=lambda s: min(abs((s[1] - t).days), abs((s[2] - t).days)))[0]]


# When a task is done, in hours after its due date (mean, spread), and the share ever done: the
# rest stay open and become overdue by the clock alone.
COMPLETION_HOURS = (-3 * 24, 4 * 24)
DONE_SHARE = 0.8
TRACKED_DUE_MOVED_AFTER_FORK = 0.06
DUE_MOVES_DAYS = (-5, -3, 4, 7, 10, 14)


class _Titles:
    def __init__(self, titles: tuple[str, ...]) -> None:
        self._titles = titles
        self._used = 0

    def next(self) -> str:
        title = self._titles[self._used % len(self._titles)]
        round_ = self._used // len(self._titles)
        self._used += 1
        return title if round_ == 0 else f"{title} (part {round_ + 1})"


def _on_its_day(rng: np.random.Generator, t: datetime, after: datetime) -> datetime:
    """A moment at working hours on the day of `t` and after `after` (`t` itself when that
    leaves no room): an edit keeps its day, so it stays on the same side of every checkpoint."""
    lo, hi = daytime.rest_of_day(t, after=after)
    if hi - lo < timedelta(minutes=2):
        return t
    return daytime.time_in(rng, lo, hi, daytime.OFFICE)


def task_events(rng: np.random.Generator, cast: Cast, timeline: Timeline) -> list[Event]:
    em = Emitter("tasks", "tk", cast.id_salt)
    spans = project_spans(rng, cast, timeline)
    titles = _Titles(cast.task_titles)
    for lo, hi in timeline.weeks():
        moments = sorted(
            timeline.random_time(rng, lo, hi, daytime.OFFICE)
            for _ in range(max(1, int(rng.poisson(1.5))))
        )
        for created in moments:
            live = active_projects(spans, created)
            project = live[int(rng.integers(len(live)))]
            due = created + days(int(rng.integers(3, 29)))
            fields = task_fields(titles.next(), project, created, fmt_date(due))
            object_id = em.new_object_id("tk")
            em.insert(created, object_id, "tasks", "task", project_cluster(project), fields)
            last = created
            if rng.random() < 0.15:
                last = _on_its_day(
                    rng, created + timedelta(hours=int(rng.integers(6, 24 * 5))), created
                )
                due = due + days(int(rng.integers(-2, 10)))
                fields = {**fields, "due": fmt_date(max(due, created + days(1)))}
                em.update(last, object_id, fields)
            if rng.random() < DONE_SHARE:
                done = due + timedelta(hours=int(rng.normal(*COMPLETION_HOURS)))
                done = _on_its_day(rng, max(done, last + timedelta(hours=1)), last)
                em.update(done, object_id, {**fields, "status": "done"})
    for k, title in enumerate(cast.tracked_task_titles, start=1):
        earliest = max(timeline.start + days(1), timeline.fork - days(90))
        created = timeline.random_time(rng, earliest, timeline.fork - days(7), daytime.OFFICE)
        live = active_projects(spans, created)
        project = live[int(rng.integers(len(live)))]
        due = timeline.fork + days(int(rng.integers(-5, 46)))
        fields = task_fields(title, project, created, fmt_date(due))
        task_id = cast.tracked_task_id(k)
        em.insert(created, task_id, "tasks", "task", project_cluster(project), fields)
        if rng.random() < TRACKED_DUE_MOVED_AFTER_FORK:
            moved = due + days(int(rng.choice(DUE_MOVES_DAYS)))
            t = timeline.random_time(rng, *timeline.continuation, daytime.OFFICE)
            em.update(t, task_id, {**fields, "due": fmt_date(moved)})
    return em.events
