"""The person's own definitions, written as instances of one grammar.

A definition selects the records of one source and kind that meet a condition (a conjunction of
clauses over typed fields), restricts them to a time window, and aggregates them: `count` (the
keys that reach a threshold), `members` (a field of every selected record), `span` (earliest start
to latest end in whole hours) or `latest` (a field of the newest selected record). Each of the six
items has two versions; v2 changes the window, the threshold or the condition. The sentence a
memory and a reader see is rendered from the parts, so a sampled definition reads like the
fixed ones.
"""

from __future__ import annotations

from dataclasses import dataclass

AGGREGATES = ("count", "members", "span", "latest")
CLAUSE_OPS = ("eq", "is_true", "on_weekday", "due_days_before_now")


@dataclass(frozen=True)
class Clause:
    field: str
    op: str
    value: str | int | bool | None = None
    wording: str = ""

    def __post_init__(self) -> None:
        if self.op not in CLAUSE_OPS:
            raise ValueError(f"unknown clause op {self.op!r}; choose one of {CLAUSE_OPS}")


@dataclass(frozen=True)
class Definition:
    name: str
    item_id: str
    version: int
    title: str
    source: str
    kind: str
    conditions: tuple[Clause, ...]
    aggregate: str
    key: str
    records_phrase: str
    key_phrase: str = ""
    window_days: int | None = None
    window_field: str | None = None
    threshold: int | None = None
    records_singular: str = ""

    def __post_init__(self) -> None:
        if self.aggregate not in AGGREGATES:
            raise ValueError(f"unknown aggregate {self.aggregate!r}; choose one of {AGGREGATES}")
        if self.aggregate == "count" and self.threshold is None:
            raise ValueError(f"definition {self.label}: a count needs a threshold")
        if (self.window_days is None) != (self.window_field is None):
            raise ValueError(f"definition {self.label}: window days and window field go together")

    @property
    def label(self) -> str:
        return f"{self.name} v{self.version}"

    @property
    def text(self) -> str:
        return describe(self)


def _window_phrase(d: Definition) -> str:
    return f" in the last {d.window_days} days" if d.window_days else ""


def describe(d: Definition) -> str:
    qualifiers = "".join(f" {c.wording}" for c in d.conditions if c.wording)
    records = d.records_phrase + qualifiers
    if d.aggregate == "count":
        if d.threshold == 1 and d.records_singular:
            amount = f"at least one {d.records_singular}{qualifiers}"
        else:
            amount = f"at least {d.threshold} {records}"
        return f"{d.title} are the {d.key_phrase} {amount}{_window_phrase(d)}."
    if d.aggregate == "members":
        return f"{d.title} are the {d.key_phrase} of all {records}{_window_phrase(d)}."
    if d.aggregate == "span":
        return (
            f"{d.title} run from the earliest start to the latest end of {records}"
            f"{_window_phrase(d)}, rounded out to whole hours."
        )
    return f"{d.title} are the {d.key_phrase} stated in the newest of {records}."


_OPEN = Clause("status", "eq", "open", "")

SIX: tuple[Definition, ...] = (
    Definition(
        "important_contact",
        "def.important_contacts",
        1,
        "The user's important contacts",
        "calendar",
        "meeting",
        (),
        "count",
        "attendees",
        "of the user's one-off calendar meetings (recurring series do not count)",
        key_phrase="people who attended",
        window_days=90,
        window_field="start",
        threshold=5,
    ),
    Definition(
        "important_contact",
        "def.important_contacts",
        2,
        "The user's important contacts",
        "calendar",
        "meeting",
        (),
        "count",
        "attendees",
        "of the user's one-off calendar meetings (recurring series do not count)",
        key_phrase="people who attended",
        window_days=30,
        window_field="start",
        threshold=3,
    ),
    Definition(
        "close_friend",
        "def.close_friends",
        1,
        "The user's close friends",
        "chat",
        "message",
        (Clause("channel_kind", "eq", "personal"),),
        "count",
        "partner",
        "messages with the user in personal chat channels",
        key_phrase="people who exchanged",
        window_days=60,
        window_field="sent",
        threshold=12,
    ),
    Definition(
        "close_friend",
        "def.close_friends",
        2,
        "The user's close friends",
        "chat",
        "message",
        (Clause("channel_kind", "eq", "personal"),),
        "count",
        "partner",
        "messages with the user in personal chat channels",
        key_phrase="people who exchanged",
        window_days=21,
        window_field="sent",
        threshold=6,
    ),
    Definition(
        "active_project",
        "def.active_projects",
        1,
        "The user's active projects",
        "tasks",
        "task",
        (Clause("status", "eq", "open", ""),),
        "count",
        "project",
        "open tasks",
        key_phrase="projects with",
        threshold=1,
        records_singular="open task",
    ),
    Definition(
        "active_project",
        "def.active_projects",
        2,
        "The user's active projects",
        "tasks",
        "task",
        (),
        "count",
        "project",
        "tasks (any status) created or updated",
        key_phrase="projects with",
        window_days=14,
        window_field="updated",
        threshold=1,
        records_singular="task (any status) created or updated",
    ),
    Definition(
        "working_hours",
        "def.working_hours",
        1,
        "The user's working hours",
        "notes",
        "note",
        (Clause("topic", "eq", "working_hours"),),
        "latest",
        "hours",
        "the user's working-hours notes",
        key_phrase="hours",
    ),
    Definition(
        "working_hours",
        "def.working_hours",
        2,
        "The user's working hours",
        "calendar",
        "meeting",
        (Clause("start", "on_weekday", None, "held on weekdays"),),
        "span",
        "start",
        "the user's one-off calendar meetings",
        window_days=30,
        window_field="start",
    ),
    Definition(
        "vip_sender",
        "def.vip_senders",
        1,
        "The user's VIP senders",
        "email",
        "message",
        (Clause("starred", "is_true"),),
        "count",
        "sender",
        "e-mails that the user starred",
        key_phrase="people who sent the user",
        window_days=60,
        window_field="sent",
        threshold=4,
    ),
    Definition(
        "vip_sender",
        "def.vip_senders",
        2,
        "The user's VIP senders",
        "email",
        "message",
        (Clause("starred", "is_true"),),
        "count",
        "sender",
        "e-mails that the user starred",
        key_phrase="people who sent the user",
        window_days=30,
        window_field="sent",
        threshold=2,
    ),
    Definition(
        "overdue_task",
        "def.overdue_tasks",
        1,
        "The user's overdue tasks",
        "tasks",
        "task",
        (_OPEN, Clause("due", "due_days_before_now", 0, "whose due date has passed")),
        "members",
        "title",
        "open tasks",
        key_phrase="titles",
    ),
    Definition(
        "overdue_task",
        "def.overdue_tasks",
        2,
        "The user's overdue tasks",
        "tasks",
        "task",
        (_OPEN, Clause("due", "due_days_before_now", 3, "due more than 3 days before now")),
        "members",
        "title",
        "open tasks",
        key_phrase="titles",
    ),
)

DEFINITION_ITEMS: tuple[str, ...] = tuple(dict.fromkeys(d.item_id for d in SIX))


def definition(item_id: str, version: int) -> Definition:
    for d in SIX:
        if d.item_id == item_id and d.version == version:
            return d
    raise KeyError(f"no definition for item {item_id!r} version {version}")
