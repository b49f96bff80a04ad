"""The rule-based program writer: translates a codified definition (or an item's field rule)
into the source of a `derive(records, as_of)` function for the restricted interpreter.

Programs may call three helpers the interpreter provides: `minutes(ts)` (minutes since
2000-01-01 of a 'YYYY-MM-DD HH:MM' string), `day_number(date)` (days since 2000-01-01 of a
'YYYY-MM-DD' string) and `weekday(ts)` (0 for Monday).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memshift.definitions.catalog import Clause, Definition
from memshift.models.profiles import Profile
from memshift.models.requests import ProgramRequest


def _clause(c: Clause) -> str:
    field = repr(c.field)
    if c.op == "eq":
        return f"r.get({field}) == {c.value!r}"
    if c.op == "is_true":
        return f"r.get({field}) is True"
    if c.op == "on_weekday":
        return f"weekday(r[{field}]) < 5"
    if c.op == "due_days_before_now":
        return (
            f"bool(r.get({field})) and "
            f"day_number(r[{field}]) < day_number(as_of[:10]) - {int(c.value or 0)}"
        )
    if c.op == "ne":
        return f"r.get({field}) != {c.value!r}"
    if c.op == "in":
        return f"r.get({field}) in {list(c.value or ())!r}"
    if c.op == "weekend":
        return f"bool(r.get({field})) and weekday(r[{field}]) >= 5"
    if c.op == "due_within_days":
        return (
            f"bool(r.get({field})) and day_number(as_of[:10]) <= day_number(r[{field}]) "
            f"<= day_number(as_of[:10]) + {int(c.value or 0)}"
        )
    raise ValueError(f"no program for clause op {c.op!r}")


def _selection(d: Definition) -> list[str]:
    lines = [
        "    selected = []",
        "    for r in records:",
        f"        if r['source'] != {d.source!r} or r['kind'] != {d.kind!r}:",
        "            continue",
    ]
    if d.window_field:
        lines += [
            f"        moment = minutes(r[{d.window_field!r}])",
            f"        if not (now - {d.window_days} * 1440 < moment <= now):",
            "            continue",
        ]
    lines += [f"        if not ({_clause(c)}):\n            continue" for c in d.conditions]
    lines.append("        selected.append(r)")
    return lines


def definition_program(d: Definition) -> str:
    body = ["def derive(records, as_of):", "    now = minutes(as_of)", *_selection(d)]
    if d.aggregate == "count":
        body += [
            "    counts = {}",
            "    for r in selected:",
            f"        keys = r.get({d.key!r})",
            "        if not isinstance(keys, list):",
            "            keys = [keys]",
            "        for k in keys:",
            "            if k:",
            "                counts[k] = counts.get(k, 0) + 1",
            f"    return sorted(k for k in counts if counts[k] >= {d.threshold})",
        ]
    elif d.aggregate == "members":
        body.append(f"    return sorted(set(r[{d.key!r}] for r in selected))")
    elif d.aggregate == "span":
        body += [
            "    if not selected:",
            "        return None",
            "    first = min(int(r['start'][11:13]) * 60 + int(r['start'][14:16])",
            "                for r in selected)",
            "    last = max(int(r['end'][11:13]) * 60 + int(r['end'][14:16]) for r in selected)",
            "    start = first // 60",
            "    end = (last + 59) // 60",
            "    return str(start).zfill(2) + ':00-' + str(end).zfill(2) + ':00'",
        ]
    else:
        body += [
            "    if not selected:",
            "        return None",
            "    newest = max(selected, key=lambda r: (r['updated'], r['object_id']))",
            f"    return newest[{d.key!r}]",
        ]
    return "\n".join(body) + "\n"


def _by_id(target: str, expression: str, condition: str = "True") -> str:
    return (
        "def derive(records, as_of):\n"
        "    for r in records:\n"
        f"        if r['object_id'] == {target!r}:\n"
        f"            return {expression} if {condition} else None\n"
        "    return None\n"
    )


def item_program(request: ProgramRequest) -> str:
    item = request.item
    if request.definition is not None:
        return definition_program(request.definition)
    if item.item_class == "contact" or item.item_class == "task":
        return _by_id(item.target, f"r[{item.attribute!r}]")
    if item.item_class == "series":
        return _by_id(
            item.target, "r['weekday'] + ' ' + r['start_time']", "r['status'] == 'active'"
        )
    if item.item_class == "appointment":
        return (
            "def derive(records, as_of):\n"
            "    starts = [r['start'] for r in records if r['kind'] == 'appointment'\n"
            f"              and r['appointment_type'] == {item.target!r}\n"
            "              and r['status'] == 'booked' and r['start'] > as_of]\n"
            "    return min(starts) if starts else None\n"
        )
    if item.attribute == "time_zone":
        return (
            "def derive(records, as_of):\n"
            "    settings = [r for r in records if r['kind'] == 'settings']\n"
            "    if not settings:\n"
            "        return None\n"
            "    return max(settings, key=lambda r: r['updated'])['time_zone']\n"
        )
    # Free text has no rule over typed fields: the program says so by returning None.
    return "def derive(records, as_of):\n    return None\n"


def write_program(request: ProgramRequest) -> dict[str, Any]:
    return {"code": item_program(request)}


def simulated_programs(profile: Profile) -> Callable[[ProgramRequest], dict[str, Any]]:
    """The program role of a `rules` profile."""
    return write_program
