"""JSON Schema as memshift's files mean it: the validator of the study config, the model profiles
and a native system's settings.

Draft 2020-12 as `jsonschema` implements it lets through three things a stage then dies on: an
`integer` may be a float with no fraction (`poll_minutes: 15.0` reaches a command line as
"15.0", which an integer option refuses), a `number` may be NaN or infinite (YAML's `.nan`
passes every `minimum` and `maximum`, since no comparison with NaN is true), and a `pattern`'s
final `$` also matches before a final newline. Here an integer is an int, a number is finite,
and `$` is the end of the string; each refusal says which in words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema


def _integer(checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


def _number(checker: Any, instance: Any) -> bool:
    if isinstance(instance, float):
        return math.isfinite(instance)
    return _integer(checker, instance)


STRICT_TYPES = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine_many(
    {"integer": _integer, "number": _number}
)


def _type_message(instance: Any, types: list[str]) -> str:
    if isinstance(instance, float) and not math.isfinite(instance):
        return f"{instance!r} is not a finite number"
    if isinstance(instance, float) and "integer" in types and instance.is_integer():
        return f"{instance!r} is not an integer (write {int(instance)})"
    return f"{instance!r} is not of type {', '.join(repr(kind) for kind in types)}"


def _type(
    validator: Any, types: str | list[str], instance: Any, schema: Mapping[str, Any]
) -> Iterator[jsonschema.ValidationError]:
    kinds = [types] if isinstance(types, str) else list(types)
    if not any(validator.is_type(instance, kind) for kind in kinds):
        yield jsonschema.ValidationError(_type_message(instance, kinds))


def _whole_pattern(
    validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]
) -> Iterator[jsonschema.ValidationError]:
    """The schema's `pattern` as JSON Schema means it: a final `$` is the end of the string.
    (Python's `$` also matches before a final newline, so `study: "main\\n"` would pass
    `^[A-Za-z0-9][A-Za-z0-9_.-]*$` and a name meant to be one plain word would hold a line
    break.)"""
    if not validator.is_type(instance, "string"):
        return
    ends = pattern.endswith("$") and not pattern.endswith("\\$")
    if re.search(pattern[:-1] + r"\Z" if ends else pattern, instance) is None:
        # a pattern the schema explains in words (`x-expected`) is named by them, not by its regex
        expected = schema.get(EXPECTED)
        yield jsonschema.ValidationError(
            f"{instance!r} is not {expected}"
            if expected
            else f"{instance!r} does not match {pattern!r}"
        )


# the schema's words for what a `pattern` asks, beside it
EXPECTED = "x-expected"

StrictValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    {"type": _type, "pattern": _whole_pattern},
    type_checker=STRICT_TYPES,
)


def first_error(schema: Mapping[str, Any], instance: Any) -> jsonschema.ValidationError | None:
    """The error to report of `instance` against `schema`: the shallowest, then the first by
    path, so the same input always names the same problem."""
    errors = sorted(
        StrictValidator(schema).iter_errors(instance),
        key=lambda e: (len(e.absolute_path), str(list(e.absolute_path))),
    )
    return errors[0] if errors else None


def bound_problem(value: Any, low: float, high: float, *, integer: bool) -> str | None:
    """Why `value`, made in code rather than read against a schema, is not a finite number (an
    integer, if `integer`) in [low, high], or None: the schema's rule for settings that reach a
    stage another way (a command line)."""
    kind = "integer" if integer else "number"
    if not STRICT_TYPES.is_type(value, kind):
        return _type_message(value, [kind])
    if not low <= value <= high:
        return f"{value!r} is outside [{low:,}, {high:,}]"
    return None
