"""The person's own script: employer, manager, home city and time zone, diet and commute.

The true changes are sampled first; each value is then stated in prose (mail, chat or a note) with
varied, implicit wording, and the calendar's time-zone setting follows every move. The ordinary
continuation also changes the person in the weeks after the fork, at low rates (a reorganization,
a new diet...), since lives go on whether or not a shift happens; a shift adds its own changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np

from memshift.timeutil import days
from memshift.world import daytime, phrasing, pools
from memshift.world.cast import Cast, Person
from memshift.world.emit import Emitter
from memshift.world.prose import Correspondent, statement
from memshift.world.records import Event
from memshift.world.timeline import Timeline

SETTINGS_CLUSTER = "calendar:settings"


@dataclass
class AttributeTimeline:
    """(time, value) pairs, oldest first, for one attribute."""

    changes: list[tuple[datetime, str]] = field(default_factory=list)

    def value_at(self, t: datetime) -> str:
        return [v for at, v in self.changes if at <= t][-1]


@dataclass
class LifeScript:
    timelines: dict[str, AttributeTimeline]

    def value_at(self, attribute: str, t: datetime) -> str:
        return self.timelines[attribute].value_at(t)


# Chance that each change happens in the weeks after the fork, in the ordinary continuation.
AFTER_FORK = {"job": 0.06, "reorg": 0.12, "relocation": 0.06, "diet": 0.1, "commute": 0.1}


def _choose(rng: np.random.Generator, options: tuple[str, ...], avoid: str = "") -> str:
    pool = [o for o in options if o != avoid]
    return pool[int(rng.integers(len(pool)))]


def sample_script(rng: np.random.Generator, cast: Cast, timeline: Timeline) -> LifeScript:
    start = timeline.start
    early_window = (start + days(20), timeline.fork - days(14))
    lines = {
        "employer": AttributeTimeline([(start, cast.organizations[0])]),
        "manager": AttributeTimeline([(start, cast.managers[0].full)]),
        "home_city": AttributeTimeline([(start, cast.cities[0][0])]),
        "diet": AttributeTimeline([(start, _choose(rng, pools.DIETS))]),
        "commute": AttributeTimeline([(start, _choose(rng, pools.COMMUTES))]),
    }

    def moment() -> datetime:
        return timeline.random_time(rng, *early_window)

    draws = rng.random(5)
    if not timeline.has_room(*early_window):
        draws[:] = 1.0
    if draws[0] < 0.35:
        t = moment()
        lines["employer"].changes.append((t, cast.organizations[1]))
        lines["manager"].changes.append((t + days(3), cast.managers[1].full))
    elif draws[1] < 0.35:
        lines["manager"].changes.append((moment(), cast.managers[1].full))
    if draws[2] < 0.3:
        lines["home_city"].changes.append((moment(), cast.cities[1][0]))
    if draws[3] < 0.3:
        lines["diet"].changes.append(
            (moment(), _choose(rng, pools.DIETS, lines["diet"].changes[0][1]))
        )
    if draws[4] < 0.3:
        old = lines["commute"].changes[0][1]
        lines["commute"].changes.append((moment(), _choose(rng, pools.COMMUTES, old)))
    _continue(rng, cast, timeline, lines)
    for line in lines.values():
        line.changes.sort()
    return LifeScript(lines)


def _continue(
    rng: np.random.Generator,
    cast: Cast,
    timeline: Timeline,
    lines: dict[str, AttributeTimeline],
) -> None:
    """The person's changes in the weeks after the fork. They use names no shift uses (a shift's
    job change takes the third organization, this one the fourth), so a branch that has both
    shows both."""

    def later() -> datetime:
        return timeline.random_time(rng, *timeline.continuation)

    def current(attribute: str) -> str:
        return lines[attribute].changes[-1][1]

    draws = rng.random(len(AFTER_FORK))
    chance = dict(zip(AFTER_FORK, draws, strict=True))
    if chance["job"] < AFTER_FORK["job"] and current("employer") != cast.organizations[3]:
        t = later()
        lines["employer"].changes.append((t, cast.organizations[3]))
        lines["manager"].changes.append((t + days(3), cast.spares[5].full))
    elif chance["reorg"] < AFTER_FORK["reorg"]:
        lines["manager"].changes.append((later(), cast.spares[6].full))
    if chance["relocation"] < AFTER_FORK["relocation"]:
        here = current("home_city")
        zone = cast.city_zone(here)
        city = next(c for c, z in reversed(cast.cities[2:]) if c != here and z != zone)
        lines["home_city"].changes.append((later(), city))
    for attribute, options in (("diet", pools.DIETS), ("commute", pools.COMMUTES)):
        if chance[attribute] < AFTER_FORK[attribute]:
            # a value the person never held, so no old statement of it reads as news
            held = {v for _, v in lines[attribute].changes}
            fresh = tuple(o for o in options if o not in held)
            lines[attribute].changes.append((later(), _choose(rng, fresh)))


def phrases_for(attribute: str, kind: str) -> list[phrasing.Phrase]:
    return [p for p in phrasing.PHRASES if p.attribute == attribute and p.kind == kind]


def _phrase_for(
    rng: np.random.Generator, attribute: str, kind: str, lo: datetime, hi: datetime
) -> phrasing.Phrase:
    """A phrase whose hours fall inside (lo, hi): a source among those with such a phrase, then
    a phrase of that source, so mail, chat and notes stay about equally likely every day."""
    fitting = [
        p for p in phrases_for(attribute, kind) if daytime.fits(daytime.PATTERNS[p.hours], lo, hi)
    ]
    sources = [s for s in phrasing.SOURCES if any(p.source == s for p in fitting)]
    source = sources[int(rng.integers(len(sources)))]
    options = [p for p in fitting if p.source == source]
    return options[int(rng.integers(len(options)))]


def _writer(cast: Cast, phrase: phrasing.Phrase, value: str) -> Correspondent:
    if phrase.sender == phrasing.USER:
        return cast.user
    if phrase.sender == phrasing.MANAGER:
        # the continuation's new managers come from the cast's spare people
        manager = next((m for m in (*cast.managers, *cast.spares) if m.full == value), None)
        if manager is None:
            raise ValueError(f"{value!r} is none of the cast's people, so cannot write")
        return manager
    return phrasing.OFFICES[phrase.sender]


def _reader(
    rng: np.random.Generator, cast: Cast, phrase: phrasing.Phrase, confidant: Person
) -> Person | None:
    if phrase.reader == phrasing.FRIEND:
        return confidant
    if phrase.reader == phrasing.COLLEAGUE:
        return cast.colleagues[int(rng.integers(len(cast.colleagues)))]
    return cast.user if phrase.reader == phrasing.USER else None


def _category(phrase: phrasing.Phrase) -> str:
    """The e-mail category: an office's own; work for mail with the manager or a colleague."""
    if phrase.sender in phrasing.OFFICES:
        return phrasing.OFFICES[phrase.sender].category
    work = phrase.sender == phrasing.MANAGER or phrase.reader == phrasing.COLLEAGUE
    return "work" if work else "personal"


def state_value(
    em: Emitter,
    rng: np.random.Generator,
    cast: Cast,
    t: datetime,
    attribute: str,
    value: str,
    kind: str,
    confidant: Person,
    *,
    after: datetime | None = None,
) -> Event:
    """State `value` on the day that holds `t` (and after `after`, the moment the value became
    true, if that is the same day), in a phrase that fits that day (nobody writes from the office
    on a Sunday), at an hour its situation suggests, from its writer to its reader (`confidant`
    when that is a friend). Keeping the day keeps the statement inside every interval that `t`
    was drawn in whose ends are midnights: the checkpoint intervals, the shift's days."""
    lo, hi = daytime.rest_of_day(t, after)
    phrase = _phrase_for(rng, attribute, kind, lo, hi)
    said_at = daytime.draw_time(rng, lo, hi, daytime.PATTERNS[phrase.hours])
    writer = _writer(cast, phrase, value)
    reader = _reader(rng, cast, phrase, confidant)
    subject, body = phrasing.render(
        phrase,
        value,
        weekday=daytime.coming_workday(said_at),
        recipient=reader.first if reader is not None else None,
        sender=cast.user.first if writer == cast.user else None,
    )
    return statement(
        em,
        said_at,
        cast,
        source=phrase.source,
        subject=subject,
        body=body,
        sender=writer,
        reader=reader,
        asserts={attribute: value},
        category=_category(phrase),
    )


def settings_fields(zone: str) -> dict[str, str]:
    return {"time_zone": zone}


def life_events(
    rng: np.random.Generator, cast: Cast, timeline: Timeline
) -> tuple[LifeScript, list[Event]]:
    script = sample_script(rng, cast, timeline)
    em = Emitter("life", "life", cast.id_salt)
    friends = cast.friends
    for attribute, line in script.timelines.items():
        for index, (t, value) in enumerate(line.changes):
            said_at = (
                t + timedelta(minutes=int(rng.integers(30, 3 * 24 * 60)))
                if index
                else (timeline.random_time(rng, timeline.start, timeline.start + days(18)))
            )
            friend = friends[int(rng.integers(len(friends)))]
            state_value(em, rng, cast, said_at, attribute, value, "announce", friend, after=t)
            # mentions repeat a value until it changes, and none is made after the fork, where
            # it would contradict a shift's statement of a new value
            following = min(
                line.changes[index + 1][0] if index + 1 < len(line.changes) else timeline.fork,
                timeline.fork,
            )
            room_from = said_at + days(7)
            for _ in range(int(rng.integers(1, 4))):
                if following - room_from < days(2):
                    break
                friend = friends[int(rng.integers(len(friends)))]
                when = timeline.random_time(rng, room_from, following - days(1))
                state_value(em, rng, cast, when, attribute, value, "mention", friend)
    city_line = script.timelines["home_city"]
    first_city = city_line.changes[0][1]
    em.insert(
        daytime.time_in(rng, timeline.start, timeline.start + days(1), daytime.ERRANDS),
        cast.settings_id,
        "calendar",
        "settings",
        SETTINGS_CLUSTER,
        settings_fields(cast.city_zone(first_city)),
    )
    for t, city in city_line.changes[1:]:
        moved = daytime.time_in(rng, *daytime.rest_of_day(t + days(1)), daytime.ERRANDS)
        em.update(moved, cast.settings_id, settings_fields(cast.city_zone(city)))
    return script, em.events
