"""The one-sentence statement grammar of memshift's own stored items.

The rule-based writer and the exact recomputation write statements in this grammar, and the
rule-based reader parses them back (and the JSON arm's records, one statement each). A
language-model writer writes freely; the rule-based reader then falls back to the records quoted
as evidence.
"""

from __future__ import annotations

import json
import re
from datetime import date

Value = str | tuple[str, ...] | None

SET_SEPARATOR = "; "
NONE_TEXT = "none"
_STATEMENT = re.compile(
    r"As of (?P<date>\d{4}-\d{2}-\d{2}), (?P<label>.+?)(?: under the definition in effect "
    r"\((?P<definition>[^)]*)\))? (?:is|are): (?P<value>.*?)\.(?=\s|$)"
)
_NO_VALUE = re.compile(
    r"As of (?P<date>\d{4}-\d{2}-\d{2}), there is no current value for (?P<label>.+?)"
    r"(?: under the definition in effect \((?P<definition>[^)]*)\))?\.(?=\s|$)"
)


def value_text(value: Value) -> str:
    if isinstance(value, tuple):
        return SET_SEPARATOR.join(value) if value else NONE_TEXT
    return value or NONE_TEXT


def render(
    label: str, as_of: date, value: Value, *, is_set: bool, definition: str | None = None
) -> str:
    under = f" under the definition in effect ({definition})" if definition else ""
    if value is None:
        return f"As of {as_of:%Y-%m-%d}, there is no current value for {label}{under}."
    verb = "are" if is_set else "is"
    return f"As of {as_of:%Y-%m-%d}, {label}{under} {verb}: {value_text(value)}."


def is_statement(text: str) -> bool:
    """Whether `text` holds a statement in this grammar about any item, or a stored item's JSON
    record."""
    if text.startswith("{"):
        return '"as_of"' in text and '"item"' in text
    return _STATEMENT.search(text) is not None or _NO_VALUE.search(text) is not None


def parse_record(text: str, label: str, *, is_set: bool) -> list[tuple[date, Value]]:
    """The JSON record of a stored item (the JSON arm's evidence) about `label`, as (as-of date,
    value); empty for any other text."""
    try:
        record = json.loads(text)
        if not isinstance(record, dict) or record.get("item") != label:
            return []
        as_of = date.fromisoformat(str(record["as_of"]))
        raw = record.get("value") if record.get("status") == "answer" else None
    except (ValueError, KeyError, TypeError, RecursionError):
        return []
    if raw is None:
        return [(as_of, None)]
    if is_set and isinstance(raw, list) and all(isinstance(v, str) for v in raw):
        return [(as_of, tuple(sorted(raw)))]
    return [(as_of, raw)] if isinstance(raw, str) and not is_set else []


def parse(text: str, label: str, *, is_set: bool) -> list[tuple[date, Value]]:
    """Every statement about `label` in `text`, as (as-of date, value), in order of appearance;
    a JSON record (the JSON arm's) is read as one statement."""
    if text.startswith("{"):
        return parse_record(text, label, is_set=is_set)
    found: list[tuple[int, date, Value]] = []
    for match in _STATEMENT.finditer(text):
        if match.group("label") != label:
            continue
        raw = match.group("value")
        value: Value
        if is_set:
            value = () if raw == NONE_TEXT else tuple(sorted(raw.split(SET_SEPARATOR)))
        else:
            value = raw
        found.append((match.start(), date.fromisoformat(match.group("date")), value))
    for match in _NO_VALUE.finditer(text):
        if match.group("label") == label:
            found.append((match.start(), date.fromisoformat(match.group("date")), None))
    return [(d, v) for _, d, v in sorted(found, key=lambda f: f[0])]
