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

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

AGGREGATES = ("count", "members", "span", "latest")
CLAUSE_OPS = (
    "eq",
    "is_true",
    "on_weekday",
    "due_days_before_now",
    "ne",
    "in",
    "weekend",
    "due_within_days",
)
ClauseValue = str | int | bool | tuple[str, ...] | None


@dataclass(frozen=True)
class Clause:
    field: str
    op: str
    value: ClauseValue = None
    wording: str = ""

    def __post_init__(self) -> None:
        if self.op not in CLAUSE_OPS:
            raise ValueError(f"unknown clause op {self.op!r}; choose one of {CLAUSE_OPS}")
        if self.op == "in" and not (
            isinstance(self.value, tuple) and all(isinstance(v, str) for v in self.value)
        ):
            raise ValueError(f"clause op 'in' needs a tuple of strings, got {self.value!r}")
        if self.op == "due_within_days" and (
            not isinstance(self.value, int) or isinstance(self.value, bool) or self.value < 0
        ):
            raise ValueError(f"clause op 'due_within_days' needs days >= 0, got {self.value!r}")


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


# How a record's moment reads after its noun ("e-mails sent ...", "meetings held ...").
_MOMENT_VERBS = {"sent": "sent", "start": "held", "created": "written", "updated": "last changed"}


def _listing(values: tuple[str, ...]) -> str:
    if len(values) == 1:
        return values[0]
    return f"{', '.join(values[:-1])} or {values[-1]}"


def default_wording(clause: Clause) -> str:
    """The qualifier a clause of the grammar's newer ops reads as, for a clause written without
    its own wording (the fixed six word theirs by hand, so their ops have none here)."""
    if clause.op == "ne":
        return f"whose {clause.field} is not {clause.value}"
    if clause.op == "in":
        assert isinstance(clause.value, tuple)
        return f"whose {clause.field} is {_listing(clause.value)}"
    if clause.op == "weekend":
        verb = _MOMENT_VERBS.get(clause.field, f"with {clause.field}")
        return f"{verb} on a Saturday or Sunday"
    if clause.op == "due_within_days":
        days = int(clause.value or 0)
        return f"due within the next {days} day{'' if days == 1 else 's'}"
    return ""


def worded(clause: Clause) -> Clause:
    """The clause with its default wording when it has none."""
    if clause.wording:
        return clause
    return Clause(clause.field, clause.op, clause.value, default_wording(clause))


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

FIXED_SET = "fixed"
HELDOUT_SETS: tuple[str, ...] = ("heldout-1", "heldout-2", "heldout-3")
# Written by `python -m memshift.gold.heldout_definitions`; pinned so that a run never re-samples.
HELDOUT_PATH = Path(__file__).parent.parent / "data" / "heldout_definitions.json"


def clause_to_json(c: Clause) -> dict[str, Any]:
    value = list(c.value) if isinstance(c.value, tuple) else c.value
    return {"field": c.field, "op": c.op, "value": value, "wording": c.wording}


def clause_from_json(raw: dict[str, Any]) -> Clause:
    value = tuple(raw["value"]) if isinstance(raw["value"], list) else raw["value"]
    return Clause(raw["field"], raw["op"], value, raw["wording"])


def definition_to_json(d: Definition) -> dict[str, Any]:
    return {
        "name": d.name,
        "item_id": d.item_id,
        "version": d.version,
        "title": d.title,
        "source": d.source,
        "kind": d.kind,
        "conditions": [clause_to_json(c) for c in d.conditions],
        "aggregate": d.aggregate,
        "key": d.key,
        "records_phrase": d.records_phrase,
        "key_phrase": d.key_phrase,
        "window_days": d.window_days,
        "window_field": d.window_field,
        "threshold": d.threshold,
        "records_singular": d.records_singular,
        "text": describe(d),
    }


def definition_from_json(raw: dict[str, Any]) -> Definition:
    d = Definition(
        raw["name"],
        raw["item_id"],
        raw["version"],
        raw["title"],
        raw["source"],
        raw["kind"],
        tuple(clause_from_json(c) for c in raw["conditions"]),
        raw["aggregate"],
        raw["key"],
        raw["records_phrase"],
        key_phrase=raw["key_phrase"],
        window_days=raw["window_days"],
        window_field=raw["window_field"],
        threshold=raw["threshold"],
        records_singular=raw["records_singular"],
    )
    if "text" in raw and raw["text"] != describe(d):
        raise ValueError(f"definition {d.label}: the pinned sentence no longer renders the same")
    return d


def _load_heldout(
    path: Path,
) -> tuple[dict[str, tuple[Definition, ...]], dict[str, tuple[str, str, str]]]:
    """The three pinned draws and their items' (value type, question, answer format); none
    when the file is absent (the grammar writes it and must be importable before it exists)."""
    if not path.exists():
        return {}, {}
    pinned = json.loads(path.read_text(encoding="utf-8"))
    sets = {
        name: tuple(definition_from_json(raw) for raw in pinned["sets"][name])
        for name in HELDOUT_SETS
    }
    formats = {
        item_id: (f["value_type"], f["question"], f["answer_format"])
        for item_id, f in pinned["items"].items()
    }
    return sets, formats


_HELDOUT, HELDOUT_FORMATS = _load_heldout(HELDOUT_PATH)
DEFINITION_SETS: dict[str, tuple[Definition, ...]] = {FIXED_SET: SIX, **_HELDOUT}

_BY_ITEM_VERSION: dict[tuple[str, int], Definition] = {
    (d.item_id, d.version): d for defs in DEFINITION_SETS.values() for d in defs
}


def announcement(name: str, version: int, text: str) -> str:
    """How a definition's new version reads where it arrives as text (an add/search system's
    note)."""
    return f"Definition {name} is now version {version}: {text}"


_ANNOUNCED = re.compile(r"Definition .+? is now version \d+:")


def is_announcement(text: str) -> bool:
    """Whether `text` announces a definition's new version (`announcement`)."""
    return _ANNOUNCED.search(text) is not None


def announced_versions(name: str, texts: Iterable[str]) -> list[int]:
    """The versions of definition `name` that `texts` announce, in order."""
    pattern = re.compile(rf"Definition {re.escape(name)} is now version (\d+):")
    return [int(m[1]) for text in texts for m in pattern.finditer(text)]


def definition_items(set_name: str) -> tuple[str, ...]:
    """The item ids of one definition set, in order."""
    if set_name not in DEFINITION_SETS:
        raise KeyError(
            f"no definition set {set_name!r}; choose one of {', '.join(DEFINITION_SETS)}"
            + ("" if HELDOUT_PATH.exists() else f" ({HELDOUT_PATH} is missing)")
        )
    return tuple(dict.fromkeys(d.item_id for d in DEFINITION_SETS[set_name]))


def definition(item_id: str, version: int) -> Definition:
    for d in SIX:
        if d.item_id == item_id and d.version == version:
            return d
    found = _BY_ITEM_VERSION.get((item_id, version))
    if found is not None:
        return found
    raise KeyError(f"no definition for item {item_id!r} version {version}")
