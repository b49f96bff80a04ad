"""The JSON of a reply given as free text (the `text` structured form): a model asked for one
JSON object may wrap it in prose or a fence, and the object is read out of what it wrote.

The order is fixed, so the same text always gives the same answer: the whole text if it is
JSON, else the first fenced block that is a JSON object, else the first `{` at which a JSON
object begins (among the first `MAX_OPENINGS` places where one could). Text that holds none is
returned as it is, and the reply check then counts it as `invalid_json`.
"""

from __future__ import annotations

import json
import re

_FENCED = re.compile(r"```[A-Za-z]*[ \t]*\n?(.*?)```", re.DOTALL)
# Where a JSON object can begin: a brace, then a key or the closing brace.
_OPENING = re.compile(r"\{\s*[\"}]")
# raw_decode reads one value from an offset at C speed and stops where the value ends; but a
# failed attempt costs up to the rest of the text, so a text of many openings that all fail
# (a reply of nested keys cut short) would cost the square of its length without this bound.
MAX_OPENINGS = 256
_DECODER = json.JSONDecoder()


def extract_json(text: str) -> str:
    """The JSON object in a free-text reply, as text; `text` unchanged if it holds none. Never
    raises."""
    stripped = text.strip()
    if _is_json(stripped):
        return stripped
    for block in _FENCED.findall(text):
        block = block.strip()
        if block.startswith("{") and _is_json(block):
            return block
    for n, opening in enumerate(_OPENING.finditer(text)):
        if n == MAX_OPENINGS:
            break
        found = _object_at(text, opening.start())
        if found is not None:
            return found
    return text


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _object_at(text: str, start: int) -> str | None:
    """The JSON object that begins at `start`, as text, if one does."""
    try:
        _, end = _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError):
        return None
    return text[start:end]
