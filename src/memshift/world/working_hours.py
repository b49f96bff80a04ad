"""The ways a note states the person's working hours, and how the generator's own parser finds
them again. Half say the range outright ("08:30-17:00"); the other half say when the day starts
and when it ends in separate words ("in by 08:30 ... off at 17:00"), as people write. Gold reads
the note's typed `hours` field, never this text; the rule-based reader and auditor read the text,
so every phrasing renders from the typed value and parses back to it exactly."""

from __future__ import annotations

import functools
import re

CLOCK = r"\d{2}:\d{2}"
RANGE = re.compile(rf"\b({CLOCK}-{CLOCK})\b")
_VALID_CLOCK = re.compile(r"\b(?:[01]\d|2[0-3]):[0-5]\d\b")

# (title, body): "{hours}" is the range, "{start}" and "{end}" its two ends.
NOTES: tuple[tuple[str, str], ...] = (
    (
        "Working hours",
        "Blocking my calendar so nobody books me at odd times. My hours are {hours} from now on.",
    ),
    (
        "Availability",
        "Agreed with the team that I am reachable {hours} on weekdays; the rest can wait.",
    ),
    ("Schedule update", "The school run moved, so my new working schedule is {hours}."),
    ("Working hours", "Note to self: keep to {hours} and stop answering mail late at night."),
    (
        "New routine",
        "From now on I am in by {start} and logging off at {end}, no more late evenings.",
    ),
    (
        "Nursery pickup",
        "With the new nursery times I start at {start} and have to leave at {end} sharp.",
    ),
    (
        "Told the team",
        "Reachable from {start}; after {end} the laptop stays shut and messages wait for the "
        "morning.",
    ),
    (
        "Boundaries",
        "First call no earlier than {start}, last one wrapped up by {end}. Put it in the "
        "shared calendar too.",
    ),
)


def render(body: str, hours: str) -> str:
    start, _, end = hours.partition("-")
    return body.format(hours=hours, start=start, end=end)


def _pattern(body: str) -> re.Pattern[str]:
    """A pattern for one phrasing: its literal text with the range or its two ends as groups."""
    parts = re.split(r"(\{hours\}|\{start\}|\{end\})", body)
    slots = {
        "{hours}": rf"(?P<hours>{CLOCK}-{CLOCK})",
        "{start}": rf"(?P<start>{CLOCK})",
        "{end}": rf"(?P<end>{CLOCK})",
    }
    return re.compile("".join(slots.get(p, re.escape(p)) for p in parts))


@functools.cache
def _patterns() -> tuple[re.Pattern[str], ...]:
    return tuple(_pattern(body) for _, body in NOTES)


def _hours(found: re.Match[str]) -> str:
    return found["hours"] if found.groupdict().get("hours") else f"{found['start']}-{found['end']}"


def stated_hours(text: str) -> str | None:
    """The working hours a note's body states ("HH:MM-HH:MM"), by any of its phrasings, or a
    range written out anywhere in it; None when it states none."""
    for pattern in _patterns():
        found = pattern.search(text)
        if found:
            return _hours(found)
    written = RANGE.search(text)
    return written.group(1) if written else None


def stated_at(text: str, surface: str) -> tuple[int, int] | None:
    """Where `text` states a value whose surface form is `surface`: where it appears verbatim,
    else where a working-hours phrasing states that range in words; None when it does not."""
    at = text.find(surface)
    if at >= 0:
        return at, at + len(surface)
    for pattern in _patterns():
        found = pattern.search(text)
        if found and _hours(found) == surface:
            return found.span()
    return None


# The titles of working-hours notes: a title is in the header, which no rewrite touches.
_HOURS_TITLES = frozenset(title for title, _ in NOTES)


def note_hours(title: str, body: str) -> str | None:
    """The working hours ("HH:MM-HH:MM") a note states: by one of the generator's phrasings or
    as a range. A rewritten body ("I'm in by" for "I am in by") matches no phrasing, so a note
    under a working-hours title whose body still holds exactly two clock times states those,
    earlier first: a working day starts before it ends, whatever order the words take."""
    stated = stated_hours(body)
    if stated is not None or title not in _HOURS_TITLES:
        return stated
    clocks = sorted(set(_VALID_CLOCK.findall(body)))
    return f"{clocks[0]}-{clocks[1]}" if len(clocks) == 2 else None
