"""Reading a rendered record back into typed fields: the inverse of `render`.

The rule-based reader and auditor see only text. Records in evidence start with a header
`[object_id rN | YYYY-MM-DD HH:MM]` (see `record_header`), then the rendered text; these functions
recover source, kind and the fields that gold reads. Prose bodies stay prose.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memshift.timeutil import fmt
from memshift.timeutil import parse as parse_time
from memshift.world import working_hours
from memshift.world.records import Record

_HEADER = re.compile(
    r"^\[(?P<id>[\w.:-]+) r(?P<rev>\d+) \| (?P<time>\d{4}-\d{2}-\d{2} \d{2}:\d{2})\] "
)


# The body of the evidence line of a deleted record (`memory.interface.evidence_line`)
DELETED = "This record was deleted."


def evidence_header(object_id: str, revision: int, updated: datetime) -> str:
    return f"[{object_id} r{revision} | {fmt(updated)}] "


def entry_id(record: Record) -> str:
    """A record's name where an audit or a statement refers to it: its object id and revision."""
    return f"{record.object_id} r{record.revision}"


def record_header(record: Record) -> str:
    return evidence_header(record.object_id, record.revision, record.updated)


def record_evidence(record: Record) -> str:
    return record_header(record) + record.text


def is_evidence_line(text: str) -> bool:
    """Whether `text` starts with a record's evidence header."""
    return _HEADER.match(text) is not None


def deletion(text: str) -> tuple[str, int] | None:
    """The record and revision an evidence line says were deleted, or None."""
    header = _HEADER.match(text)
    if header is None or text[header.end() :] != DELETED:
        return None
    return header.group("id"), int(header.group("rev"))


@dataclass(frozen=True)
class ParsedRecord:
    object_id: str
    revision: int
    updated: datetime
    source: str
    kind: str
    fields: dict[str, Any]
    text: str

    def as_record(self) -> Record:
        return Record(
            self.object_id,
            self.source,
            self.kind,
            self.revision,
            "",
            self.fields,
            self.text,
            self.updated,
            self.updated,
        )


def _lines(text: str) -> dict[str, str]:
    out = {}
    for line in text.split("\n"):
        key, sep, value = line.partition(": ")
        if sep and key not in out:
            out[key] = value
    return out


def _names(value: str) -> list[str]:
    return [v for v in value.split(", ") if v]


_CHAT = re.compile(
    r"(?P<where>.+?) \| (?P<sent>\d{4}-\d{2}-\d{2} \d{2}:\d{2}) \| (?P<sender>[^:]+): "
)


def parse_text(text: str) -> tuple[str, str, dict[str, Any]] | None:
    """(source, kind, fields) of a rendered record, or None if the text is not one."""
    first = text.split("\n", 1)[0]
    lines = _lines(text)
    if first.startswith("From: "):
        sender = lines["From"].rsplit(" <", 1)[0]
        return (
            "email",
            "message",
            {
                "sender": sender,
                "to": _names(lines.get("To", "")),
                "sent": lines.get("Date", ""),
                "subject": lines.get("Subject", ""),
                "starred": lines.get("Flags") == "starred",
            },
        )
    if first.startswith("Meeting: "):
        when = lines["When"]
        start = when[:16]
        end = start[:11] + when[17:22]
        return (
            "calendar",
            "meeting",
            {
                "title": lines["Meeting"],
                "start": start,
                "end": end,
                "organizer": lines.get("Organizer", ""),
                "attendees": _names(lines.get("Attendees", "")),
            },
        )
    if first.startswith("Recurring meeting: "):
        match = re.match(r"every (\w+) (\d{2}:\d{2}) \((\d+) min\)", lines["When"])
        if not match:
            return None
        return (
            "calendar",
            "series",
            {
                "title": lines["Recurring meeting"],
                "weekday": match.group(1),
                "start_time": match.group(2),
                "duration_min": int(match.group(3)),
                "attendees": _names(lines.get("Attendees", "")),
                "status": lines.get("Status", ""),
            },
        )
    if first.startswith("Appointment: "):
        kind, _, provider = lines["Appointment"].partition(" with ")
        return (
            "calendar",
            "appointment",
            {
                "appointment_type": kind.lower(),
                "provider": provider,
                "start": lines["When"],
                "location": lines.get("Where", ""),
                "status": lines.get("Status", ""),
            },
        )
    if first == "Calendar settings":
        return "calendar", "settings", {"time_zone": lines["Time zone"]}
    if first.startswith("Contact: "):
        return (
            "contacts",
            "card",
            {
                "name": lines["Contact"],
                "employer": lines.get("Employer", ""),
                "city": lines.get("City", ""),
                "address": lines.get("Email", ""),
                "phone": lines.get("Phone", ""),
            },
        )
    if first.startswith("Task: "):
        return (
            "tasks",
            "task",
            {
                "title": lines["Task"],
                "project": lines.get("Project", ""),
                "status": lines.get("Status", ""),
                "due": lines.get("Due", ""),
                "created": lines.get("Created", ""),
            },
        )
    if first.startswith("Note: "):
        body = text.split("\n\n", 1)[1] if "\n\n" in text else ""
        hours = working_hours.note_hours(first[6:], body)
        fields: dict[str, Any] = {"title": first[6:], "topic": "note"}
        if hours:
            fields.update(topic="working_hours", hours=hours)
        return "notes", "note", fields
    chat = _CHAT.match(text)
    if chat:
        where = chat.group("where")
        personal = where.startswith("direct messages with ")
        return (
            "chat",
            "message",
            {
                "channel": where,
                "channel_kind": "personal" if personal else "work",
                "partner": where[len("direct messages with ") :] if personal else None,
                "sender": chat.group("sender"),
                "sent": chat.group("sent"),
            },
        )
    return None


def prose_body(source: str, text: str) -> str:
    """The prose of a rendered e-mail, chat message or note: the text after its header."""
    if source == "chat":
        chat = _CHAT.match(text)
        return text[chat.end() :] if chat else ""
    return text.split("\n\n", 1)[1] if "\n\n" in text else ""


@functools.lru_cache(maxsize=1 << 14)
def parse_evidence(item: str) -> ParsedRecord | None:
    """A record rendered as evidence, or None if the text is not one. Cached: a reader sees the
    same records in many probes' evidence (the result is shared, so never change its fields)."""
    header = _HEADER.match(item)
    if not header:
        return None
    text = item[header.end() :]
    shape = parse_text(text)
    if shape is None:
        return None
    source, kind, fields = shape
    return ParsedRecord(
        header.group("id"),
        int(header.group("rev")),
        parse_time(header.group("time")),
        source,
        kind,
        fields,
        text,
    )
