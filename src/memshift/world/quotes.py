"""Exact quotes of at most 25 words around a fact in a record's text."""

from __future__ import annotations

import re

from memshift.world.working_hours import stated_at

MAX_QUOTE_WORDS = 25
_WORD = re.compile(r"\S+")


def quote_around(text: str, start: int, end: int, max_words: int = MAX_QUOTE_WORDS) -> str:
    """A verbatim span of `text` covering [start, end) (clipped to whole words), at most
    `max_words` words, preferring the line the span is on."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end
    words = [m.span() for m in _WORD.finditer(text, line_start, line_end)]
    if not words:
        return text[start:end]
    first = next((i for i, (a, b) in enumerate(words) if b > start), 0)
    last = max(first, max((i for i, (a, b) in enumerate(words) if a < end), default=first))
    while last - first + 1 < max_words and (first > 0 or last < len(words) - 1):
        if last < len(words) - 1:
            last += 1
        if last - first + 1 < max_words and first > 0:
            first -= 1
    if last - first + 1 > max_words:
        last = first + max_words - 1
    return text[words[first][0] : words[last][1]]


def quote_of(text: str, surface: str) -> str | None:
    """A quote around where `text` states `surface` (verbatim, or a working-hours range said in
    words), or None."""
    span = stated_at(text, surface)
    return None if span is None else quote_around(text, *span)
