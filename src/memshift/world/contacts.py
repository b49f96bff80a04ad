"""Contact cards: the twelve tracked contacts (employer and city) and address-book churn.

A tracked card may be edited before the fork and, in the ordinary continuation, in the weeks
after it (people change jobs and move whether or not a shift happens)."""

from __future__ import annotations

import numpy as np

from memshift.timeutil import days
from memshift.world import daytime
from memshift.world.cast import Cast, Person
from memshift.world.emit import Emitter
from memshift.world.records import Event
from memshift.world.timeline import Timeline

EDITED_BEFORE_FORK = 0.3
EDITED_AFTER_FORK = 0.15


def phone(rng: np.random.Generator) -> str:
    digits = rng.integers(0, 10, size=7)
    return (
        "+1 555 " + "".join(str(d) for d in digits[:3]) + " " + "".join(str(d) for d in digits[3:])
    )


def card_fields(person: Person, employer: str, city: str, number: str) -> dict[str, str]:
    return {
        "name": person.full,
        "employer": employer,
        "city": city,
        "address": person.email,
        "phone": number,
    }


def tracked_card_events(rng: np.random.Generator, cast: Cast, timeline: Timeline) -> list[Event]:
    """Cards of the tracked contacts, written early; some are edited before the fork, and some in
    the weeks after it."""
    em = Emitter("contacts", "ct", cast.id_salt)
    employers = cast.organizations[4:]
    cities = [c for c, _ in cast.cities[2:]]
    for k, person in enumerate(cast.tracked_contacts, start=1):
        fields = card_fields(
            person,
            employers[int(rng.integers(len(employers)))],
            cities[int(rng.integers(len(cities)))],
            phone(rng),
        )
        created = timeline.random_time(
            rng, timeline.start, timeline.start + days(14), daytime.ERRANDS
        )
        em.insert(created, cast.card_id(k), "contacts", "card", cast.card_id(k), fields)
        window = (created + days(7), timeline.fork - days(7))
        if rng.random() < EDITED_BEFORE_FORK and timeline.has_room(*window):
            fields = _edited(rng, fields, employers, cities)
            em.update(timeline.random_time(rng, *window, daytime.ERRANDS), cast.card_id(k), fields)
        if rng.random() < EDITED_AFTER_FORK:
            fields = _edited(rng, fields, employers, cities)
            edited = timeline.random_time(rng, *timeline.continuation, daytime.ERRANDS)
            em.update(edited, cast.card_id(k), fields)
    return em.events


def _edited(
    rng: np.random.Generator,
    fields: dict[str, str],
    employers: tuple[str, ...],
    cities: list[str],
) -> dict[str, str]:
    """The card after its contact changed jobs or moved."""
    attribute = "employer" if rng.random() < 0.5 else "city"
    options = employers if attribute == "employer" else cities
    return {**fields, attribute: _other(rng, options, fields[attribute])}


def _other(rng: np.random.Generator, options: tuple[str, ...] | list[str], current: str) -> str:
    pool = [o for o in options if o != current]
    return pool[int(rng.integers(len(pool)))]


def churn_events(rng: np.random.Generator, cast: Cast, timeline: Timeline) -> list[Event]:
    """New acquaintances and phone-number edits, at least one a week through the whole year."""
    em = Emitter("contacts-churn", "cc", cast.id_salt)
    people = list(cast.acquaintances)
    known: list[tuple[str, dict[str, str]]] = []
    cities = [c for c, _ in cast.cities]
    for lo, hi in timeline.weeks():
        moments = sorted(
            timeline.random_time(rng, lo, hi, daytime.ERRANDS)
            for _ in range(max(1, int(rng.poisson(1.2))))
        )
        for t in moments:
            if people and (not known or rng.random() < 0.55):
                person = people.pop(0)
                employer = cast.organizations[int(rng.integers(8, len(cast.organizations)))]
                city = cities[int(rng.integers(len(cities)))]
                fields = card_fields(person, employer, city, phone(rng))
                object_id = em.new_object_id("ct")
                em.insert(t, object_id, "contacts", "card", object_id, fields)
                known.append((object_id, fields))
            else:
                index = int(rng.integers(len(known)))
                object_id, fields = known[index]
                fields = {**fields, "phone": phone(rng)}
                known[index] = (object_id, fields)
                em.update(t, object_id, fields)
    return em.events
