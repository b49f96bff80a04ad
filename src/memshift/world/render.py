"""Deterministic templates that turn a source object's typed fields into the text a memory reads.

Structured records render their fields in the canonical surface forms the gold values use
("2026-10-14 09:30", "Tuesday 10:00", "09:00-17:30"), so the fidelity check can find every gold
fact verbatim. Prose (message bodies, note bodies) is passed in already written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Fields = dict[str, Any]


def _email(f: Fields, body: str) -> str:
    flags = "\nFlags: starred" if f.get("starred") else ""
    recipients = ", ".join(f["to"])
    return (
        f"From: {f['sender']} <{f['sender_address']}>\nTo: {recipients}\nDate: {f['sent']}\n"
        f"Subject: {f['subject']}{flags}\n\n{body}"
    )


def _chat(f: Fields, body: str) -> str:
    where = f"direct messages with {f['partner']}" if f.get("partner") else f["channel"]
    return f"{where} | {f['sent']} | {f['sender']}: {body}"


def _meeting(f: Fields, body: str) -> str:
    return (
        f"Meeting: {f['title']}\nWhen: {f['start']}-{f['end'][11:]} ({f['weekday']})\n"
        f"Organizer: {f['organizer']}\nAttendees: {', '.join(f['attendees'])}"
    )


def _series(f: Fields, body: str) -> str:
    return (
        f"Recurring meeting: {f['title']}\nWhen: every {f['weekday']} {f['start_time']} "
        f"({f['duration_min']} min)\nAttendees: {', '.join(f['attendees'])}\nStatus: {f['status']}"
    )


def _appointment(f: Fields, body: str) -> str:
    kind = f["appointment_type"].capitalize()
    return (
        f"Appointment: {kind} with {f['provider']}\nWhen: {f['start']}\n"
        f"Where: {f['location']}\nStatus: {f['status']}"
    )


def _settings(f: Fields, body: str) -> str:
    return f"Calendar settings\nTime zone: {f['time_zone']}\nWeek starts on: Monday"


def _card(f: Fields, body: str) -> str:
    return (
        f"Contact: {f['name']}\nEmployer: {f['employer']}\nCity: {f['city']}\n"
        f"Email: {f['address']}\nPhone: {f['phone']}"
    )


def _task(f: Fields, body: str) -> str:
    return (
        f"Task: {f['title']}\nProject: {f['project']}\nStatus: {f['status']}\nDue: {f['due']}\n"
        f"Created: {f['created']}"
    )


def _note(f: Fields, body: str) -> str:
    return f"Note: {f['title']}\n\n{body}"


_RENDERERS: dict[tuple[str, str], Callable[[Fields, str], str]] = {
    ("email", "message"): _email,
    ("chat", "message"): _chat,
    ("calendar", "meeting"): _meeting,
    ("calendar", "series"): _series,
    ("calendar", "appointment"): _appointment,
    ("calendar", "settings"): _settings,
    ("contacts", "card"): _card,
    ("tasks", "task"): _task,
    ("notes", "note"): _note,
}

KINDS: tuple[tuple[str, str], ...] = tuple(_RENDERERS)


def render(source: str, kind: str, fields: Fields, body: str = "") -> str:
    try:
        renderer = _RENDERERS[(source, kind)]
    except KeyError:
        raise ValueError(f"no template for a {kind!r} record of source {source!r}") from None
    return renderer(fields, body)
