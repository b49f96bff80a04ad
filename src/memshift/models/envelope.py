"""Reading an API's reply envelope (choices, messages, content blocks, usage) without trusting
its shape: anything other than what the API defines raises `MalformedReply`, which the client
records as that one call's failure."""

from __future__ import annotations

from typing import Any

from memshift.intake.storable import INT32, text_problem
from memshift.models.replies import Usage
from memshift.models.retry import MalformedReply

MAX_FINISH_REASON = 100
_JSON_TYPES = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    type(None): "null",
}


def described(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def expect(value: Any, kind: type, where: str) -> Any:
    """`value` if it is of `kind` (an object, an array or a string), else MalformedReply."""
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        found = "missing or null" if value is None else described(value)
        raise MalformedReply(f"{where} is {found}, not {_JSON_TYPES[kind]}")
    return value


def optional_text(value: Any, where: str) -> str | None:
    return None if value is None else expect(value, str, where)


def finish_reason(value: Any, where: str) -> str:
    """A finish or stop reason: short text, since it is stored with the reply and logged."""
    text = optional_text(value, where) or ""
    if len(text) > MAX_FINISH_REASON or text_problem(text) is not None:
        raise MalformedReply(f"{where} is not a short, storable text")
    return text


def first_item(value: Any, where: str) -> Any:
    items = expect(value, list, where)
    if not items:
        raise MalformedReply(f"{where} is empty")
    return items[0]


def _count(usage: dict[str, Any], name: str) -> int:
    value = usage.get(name)
    if value is None:
        return 0
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= INT32[1]:
        raise MalformedReply(f"usage.{name} is not a token count: {described(value)}")
    return value


def usage(reply: dict[str, Any], tokens_in: str, tokens_out: str) -> Usage:
    """Token counts from `reply["usage"]`; a reply without usage counts none."""
    raw = reply.get("usage")
    if raw is None:
        return Usage()
    return counted(expect(raw, dict, "usage"), tokens_in, tokens_out)


def counted(counts: dict[str, Any], tokens_in: str, tokens_out: str) -> Usage:
    """Token counts from the fields of `counts` (Ollama puts them in the reply itself)."""
    return Usage(_count(counts, tokens_in), _count(counts, tokens_out))
