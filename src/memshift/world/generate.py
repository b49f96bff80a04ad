"""A whole world from a seed: the cast, the person's script and every component's events."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from memshift.definitions.catalog import DEFINITION_SETS, FIXED_SET
from memshift.rng import Streams
from memshift.world import calendar, contacts, messages, notes, tasks
from memshift.world.cast import Cast, draw_cast
from memshift.world.items import Item, assign_agents, build_items
from memshift.world.life import LifeScript, life_events
from memshift.world.records import Event, sort_events
from memshift.world.timeline import Timeline

# 2.1.0: the unshifted branch's probes hold every item-time (events and gold as in 2.0.0)
# 2.2.0: implicit-dependency probes beside the counted direct ones (events and gold as in 2.0.0)
# 2.3.0: unnamed probes beside the definition items' on the redefinition branch (events and gold
# as in 2.0.0)
# 2.4.0: the conflict branch makes four contact cards disagree, not two (the other branches as
# in 2.3.0)
# 3.0.0: worlds that read like a person's records: newsletters built from sentence frames, messages
# and mail with varied wording and no long line written a fourth time, records written at the
# hours people keep, working-hours notes in eight phrasings (every world and branch changes)
GENERATOR_VERSION = "3.0.0"

Component = Callable[[np.random.Generator, Cast, Timeline], list[Event]]

COMPONENTS: dict[str, Component] = {
    "contacts": contacts.tracked_card_events,
    "contacts-churn": contacts.churn_events,
    "series": calendar.series_events,
    "appointments": calendar.appointment_events,
    "meetings": calendar.meeting_events,
    "dm": messages.dm_events,
    "workchat": messages.workchat_events,
    "mail": messages.mail_events,
    "routine": messages.routine_events,
    "newsletters": messages.newsletter_events,
    "tasks": tasks.task_events,
    "notes": notes.note_events,
}


@dataclass(frozen=True)
class World:
    seed: int
    timeline: Timeline
    cast: Cast
    items: tuple[Item, ...]
    script: LifeScript
    events: tuple[Event, ...]
    definitions: str = FIXED_SET  # the set its definition items come from

    @property
    def generator_version(self) -> str:
        return GENERATOR_VERSION


def generate_world(
    seed: int,
    timeline: Timeline | None = None,
    salts: Mapping[str, str] | None = None,
    definitions: str = FIXED_SET,
) -> World:
    """The base world: history and the ordinary continuation to the end of the year, shared by
    every branch. `salts` perturbs named streams (tests use it to show that components are
    independent). The definition set changes the items only: the events are the same for every
    set."""
    if definitions not in DEFINITION_SETS:
        raise ValueError(
            f"unknown definition set {definitions!r}; choose one of {', '.join(DEFINITION_SETS)}"
        )
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"a world seed must be a non-negative integer, got {seed!r}")
    timeline = timeline or Timeline()
    streams = Streams(seed, salts)
    cast = draw_cast(streams("cast"))
    items = assign_agents(build_items(cast, definitions), streams("agents"))
    script, life = life_events(streams("life"), cast, timeline)
    events: list[Event] = list(life)
    for name, component in COMPONENTS.items():
        events.extend(component(streams(name), cast, timeline))
    inside = [e for e in events if timeline.start <= e.time <= timeline.end]
    return World(seed, timeline, cast, items, script, tuple(sort_events(inside)), definitions)
