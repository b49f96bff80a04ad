"""A bundle's JSON Lines streams read strictly, as memshift stores what it imports.

The format's reference validator decodes a stream with bad bytes replaced and lets any key it
does not know through unread, so NaN, a byte that is no UTF-8 or a lone surrogate in such a key
(or in a statement) passes it, and then fails the importer or the stage that writes what was
imported. Here every stream under items/ and audit/ must be UTF-8, every line one JSON object
that every writer can store (no NaN or infinity, no lone surrogate, no key twice in one object,
integers within 64 bits) and no two episodes may share an id: the format merges records by id,
so the second of two would silently replace or join the first.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memshift.intake.reading import shortened
from memshift.intake.storable import MAX_INT_DIGITS, value_problem
from memshift.studies.export.bounds import printable

STREAM_DIRS = ("items", "audit")
EPISODES = "items/episode.jsonl"


class _Refused(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _Refused(f"the key {shortened(key)} twice in one object")
        found[key] = value
    return found


def _no_constant(name: str) -> None:
    raise _Refused(f"{name}, which is not a JSON number")


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(f"a number of {len(digits.lstrip('-')):,} digits")
    return int(digits)


_DECODER = json.JSONDecoder(
    object_pairs_hook=_unique_keys, parse_constant=_no_constant, parse_int=_bounded_int
)


def line_problem(line: str) -> tuple[str, Any]:
    """(why the line cannot be taken, or "", its JSON object)."""
    try:
        value = _DECODER.decode(line)
    except _Refused as exc:
        return str(exc), None
    except json.JSONDecodeError as exc:
        return f"not JSON ({exc.msg}, column {exc.colno:,})", None
    except RecursionError:
        return "JSON nested too deep to parse", None
    except ValueError as exc:  # a float the parser cannot convert
        return f"not JSON ({shortened(str(exc))})", None
    if not isinstance(value, dict):
        return "not a JSON object", None
    problem = value_problem(value)
    return ("", value) if problem is None else (printable(problem), None)


def stream_issues(bundle: Path) -> list[str]:
    """What memshift cannot take in the bundle's streams; the bundle's files have passed
    `bounds.survey` (regular files within bounds), so each is read whole."""
    issues: list[str] = []
    for name in _streams(bundle):
        data = (bundle / name).read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            issues.append(f"not UTF-8 text: {printable(name)} (byte {exc.start:,})")
            continue
        issues += _lines_issues(name, text)
    return issues


def _streams(bundle: Path) -> list[str]:
    return sorted(
        f"{directory}/{path.name}"
        for directory in STREAM_DIRS
        if (bundle / directory).is_dir()
        for path in (bundle / directory).iterdir()
        if path.name.endswith(".jsonl") and path.is_file()
    )


def _lines_issues(name: str, text: str) -> list[str]:
    """The first bad line of a stream and, in the episodes, every id given twice."""
    first_line: dict[str, int] = {}
    twice: list[str] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        problem, value = line_problem(line)
        if problem:
            return [f"a line memshift cannot take: {printable(name)} line {number:,} ({problem})"]
        if name != EPISODES:
            continue
        key = json.dumps(value.get("id"))
        if key in first_line:
            twice.append(
                f"episode id given twice: {shortened(value.get('id'))} "
                f"(lines {first_line[key]:,} and {number:,})"
            )
        else:
            first_line[key] = number
    return twice
