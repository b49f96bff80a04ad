"""The 48 items a memory derives from a world, with the questions a probe asks about them."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from memshift.definitions.catalog import DEFINITION_SETS, FIXED_SET, HELDOUT_FORMATS, definition
from memshift.world.cast import AGENTS, N_SERIES, N_TRACKED_CONTACTS, N_TRACKED_TASKS, Cast

ITEM_CLASSES = ("person", "contact", "series", "appointment", "task", "definition")
VALUE_TYPES = (
    "entity",
    "timezone",
    "diet",
    "commute",
    "weekday_time",
    "datetime",
    "date",
    "time_range",
    "entity_set",
)
PROSE_SOURCES = ("email", "chat", "notes")
APPOINTMENT_TYPES = ("dentist", "doctor")


@dataclass(frozen=True)
class Item:
    item_id: str
    item_class: str
    value_type: str
    sources: tuple[str, ...]
    label: str
    question: str
    answer_format: str
    target: str = ""
    attribute: str = ""
    free_text: bool = False
    agent: str = AGENTS[0]

    @property
    def is_definition(self) -> bool:
        return self.item_class == "definition"

    @property
    def gold_sources(self) -> tuple[str, ...]:
        """Sources gold reads: the declared ones, plus messages for a contact attribute, since a
        message from the contact that contradicts the card on the same day makes gold abstain."""
        if self.item_class == "contact":
            return (*self.sources, "email", "chat")
        return self.sources


_PERSON = (
    (
        "employer",
        "entity",
        "the user's employer",
        "Who is the user's employer?",
        "the organization's name",
    ),
    ("manager", "entity", "the user's manager", "Who is the user's manager?", "a full name"),
    (
        "home_city",
        "entity",
        "the user's home city",
        "Which city does the user live in?",
        "a city name",
    ),
    ("diet", "diet", "the user's diet", "What diet does the user follow?", "one word or phrase"),
    (
        "commute",
        "commute",
        "the user's usual commute",
        "How does the user usually commute?",
        "one word or phrase",
    ),
)

_DEFINITION_FORMAT = {
    "def.important_contacts": (
        "entity_set",
        "Who are the user's important contacts",
        "List full names.",
    ),
    "def.close_friends": ("entity_set", "Who are the user's close friends", "List full names."),
    "def.active_projects": (
        "entity_set",
        "Which projects are the user's active projects",
        "List project names.",
    ),
    "def.working_hours": (
        "time_range",
        "What are the user's working hours",
        "Give a time range HH:MM-HH:MM.",
    ),
    "def.vip_senders": ("entity_set", "Who are the user's VIP senders", "List full names."),
    "def.overdue_tasks": (
        "entity_set",
        "Which of the user's tasks are overdue",
        "List task titles.",
    ),
}


# The groups a simulated writer's error rates are set by (`simulator/errors.py`): definition
# items, free-text items and the others, which a writer gets wrong for different reasons.
ITEM_GROUPS = ("definition", "free_text", "other")


def item_group(item: Item) -> str:
    if item.is_definition:
        return "definition"
    return "free_text" if item.free_text else "other"


def build_items(cast: Cast, definitions: str = FIXED_SET) -> tuple[Item, ...]:
    """The catalogue without agents; `assign_agents` fills them from the world's agent stream.
    The definition items are those of the set `definitions` (definitions.DEFINITION_SETS)."""
    items: list[Item] = [
        Item(
            f"person.{attr}",
            "person",
            vtype,
            PROSE_SOURCES,
            label,
            question,
            fmt,
            attribute=attr,
            free_text=True,
        )
        for attr, vtype, label, question, fmt in _PERSON
    ]
    items.append(
        Item(
            "person.time_zone",
            "person",
            "timezone",
            ("calendar",),
            "the user's time zone",
            "Which time zone is the user's calendar set to?",
            "an IANA time zone name",
            attribute="time_zone",
        )
    )
    if len(cast.tracked_contacts) != N_TRACKED_CONTACTS:
        raise ValueError("a cast must track exactly 12 contacts")
    for k, person in enumerate(cast.tracked_contacts, start=1):
        items.append(
            Item(
                f"contact{k:02d}.employer",
                "contact",
                "entity",
                ("contacts",),
                f"{person.full}'s employer",
                f"Who does {person.full} work for?",
                "the organization's name",
                target=cast.card_id(k),
                attribute="employer",
            )
        )
        items.append(
            Item(
                f"contact{k:02d}.city",
                "contact",
                "entity",
                ("contacts",),
                f"{person.full}'s city",
                f"Which city does {person.full} live in?",
                "a city name",
                target=cast.card_id(k),
                attribute="city",
            )
        )
    for k, title in enumerate(cast.series_titles[:N_SERIES], start=1):
        items.append(
            Item(
                f"series{k}",
                "series",
                "weekday_time",
                ("calendar",),
                f"the recurring '{title}' meeting",
                f"On which weekday and at what time does the recurring '{title}' "
                "meeting take place?",
                "a weekday and a start time",
                target=cast.series_id(k),
            )
        )
    for kind in APPOINTMENT_TYPES:
        items.append(
            Item(
                f"appointment.{kind}",
                "appointment",
                "datetime",
                ("calendar",),
                f"the user's next {kind} appointment",
                f"When is the user's next {kind} appointment?",
                "a date and time YYYY-MM-DD HH:MM",
                target=kind,
            )
        )
    for k, title in enumerate(cast.tracked_task_titles[:N_TRACKED_TASKS], start=1):
        items.append(
            Item(
                f"task{k}.due",
                "task",
                "date",
                ("tasks",),
                f"the due date of the task '{title}'",
                f"When is the task '{title}' due?",
                "a date YYYY-MM-DD",
                target=cast.tracked_task_id(k),
                attribute="due",
            )
        )
    chosen = DEFINITION_SETS[definitions]
    formats = {**_DEFINITION_FORMAT, **HELDOUT_FORMATS}
    for item_id in dict.fromkeys(d.item_id for d in chosen):
        vtype, question, fmt = formats[item_id]
        sources = tuple(dict.fromkeys(d.source for d in chosen if d.item_id == item_id))
        title = definition(item_id, 1).title
        label = title[0].lower() + title[1:]
        items.append(Item(item_id, "definition", vtype, sources, label, question, fmt))
    return tuple(items)


def assign_agents(items: tuple[Item, ...], rng: np.random.Generator) -> tuple[Item, ...]:
    """Which agent asks about each item: half the assistant, the rest split between the others."""
    draws = rng.choice(len(AGENTS), size=len(items), p=[0.5, 0.25, 0.25])
    return tuple(
        dataclasses.replace(item, agent=AGENTS[int(k)])
        for item, k in zip(items, draws, strict=True)
    )
