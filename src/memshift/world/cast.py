"""Who and what a world is about: the person, the people around them, and the named things.

Drawn once per world from its own stream, so every other component can use the same people and
names without drawing from a shared stream.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memshift.world import pools
from memshift.world.ids import opaque_id

AGENTS = ("assistant", "scheduler", "concierge")
N_TRACKED_CONTACTS = 12
N_SERIES = 4
N_TRACKED_TASKS = 6
N_SPARE = 4
N_FRIENDS = 8


@dataclass(frozen=True)
class Person:
    first: str
    last: str

    @property
    def full(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def handle(self) -> str:
        return f"{self.first}.{self.last}".lower()

    @property
    def email(self) -> str:
        return f"{self.handle}@mail.example"


@dataclass(frozen=True)
class Cast:
    user: Person
    colleagues: tuple[Person, ...]
    friends: tuple[Person, ...]
    correspondents: tuple[Person, ...]
    tracked_contacts: tuple[Person, ...]
    managers: tuple[Person, ...]
    acquaintances: tuple[Person, ...]
    spares: tuple[Person, ...]
    organizations: tuple[str, ...]
    cities: tuple[tuple[str, str], ...]
    projects: tuple[str, ...]
    series_titles: tuple[str, ...]
    tracked_task_titles: tuple[str, ...]
    task_titles: tuple[str, ...]
    spare_task_titles: tuple[str, ...]
    spare_projects: tuple[str, ...]
    channels: tuple[str, ...]
    newsletters: tuple[str, ...]
    id_salt: str

    def city_zone(self, city: str) -> str:
        return dict(pools.CITIES)[city]

    def card_id(self, k: int) -> str:
        """The contact card of tracked contact k (1-based)."""
        return opaque_id(self.id_salt, f"card-{k}", "ct")

    def series_id(self, k: int) -> str:
        return opaque_id(self.id_salt, f"series-{k}", "cal")

    def tracked_task_id(self, k: int) -> str:
        return opaque_id(self.id_salt, f"task-{k}", "tk")

    @property
    def settings_id(self) -> str:
        """The calendar's settings record (its time zone)."""
        return opaque_id(self.id_salt, "settings", "cal")


def _people(rng: np.random.Generator, n: int) -> list[Person]:
    firsts = rng.permutation(len(pools.FIRST_NAMES))
    lasts = rng.permutation(len(pools.LAST_NAMES))
    if n > min(len(firsts), len(lasts)):
        raise ValueError(f"the name pools hold fewer than {n} distinct people")
    pairs = zip(firsts[:n], lasts[:n], strict=True)
    return [Person(pools.FIRST_NAMES[f], pools.LAST_NAMES[g]) for f, g in pairs]


def _pick(rng: np.random.Generator, pool: tuple[str, ...], n: int) -> tuple[str, ...]:
    return tuple(pool[i] for i in rng.permutation(len(pool))[:n])


def draw_cast(rng: np.random.Generator) -> Cast:
    people = _people(rng, 100)
    user, rest = people[0], people[1:]
    colleagues, rest = rest[:14], rest[14:]
    friends, rest = rest[:N_FRIENDS], rest[N_FRIENDS:]
    correspondents, rest = rest[:10], rest[10:]
    managers, rest = rest[:4], rest[4:]
    spares, rest = rest[:10], rest[10:]
    others, acquaintances = rest[:4], rest[4:]
    tracked = (*colleagues[6:10], *friends[4:8], *others)
    titles = _pick(rng, pools.TASK_TITLES, len(pools.TASK_TITLES))
    projects = _pick(rng, pools.PROJECT_NAMES, 12 + N_SPARE)
    return Cast(
        user=user,
        colleagues=tuple(colleagues),
        friends=tuple(friends),
        correspondents=tuple(correspondents),
        tracked_contacts=tracked,
        managers=tuple(managers),
        acquaintances=tuple(acquaintances),
        spares=tuple(spares),
        organizations=_pick(rng, pools.ORGANIZATIONS, len(pools.ORGANIZATIONS)),
        cities=tuple(pools.CITIES[i] for i in rng.permutation(len(pools.CITIES))),
        projects=projects[:12],
        series_titles=_pick(rng, pools.SERIES_TITLES, N_SERIES),
        tracked_task_titles=titles[:N_TRACKED_TASKS],
        task_titles=titles[N_TRACKED_TASKS:-N_SPARE],
        spare_task_titles=titles[-N_SPARE:],
        spare_projects=projects[12:],
        channels=_pick(rng, pools.CHANNEL_NAMES, 4),
        newsletters=_pick(rng, pools.NEWSLETTER_TITLES, 4),
        # drawn last, so that the salt moves none of the cast's other draws
        id_salt=f"{int(rng.integers(2**63)):016x}",
    )
