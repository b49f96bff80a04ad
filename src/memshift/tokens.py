"""The project's one token counter: deterministic and independent of any model.

A token is a run of word characters or a single other non-space character. It is used for the
writer's selection budget, the reader's evidence budget and world sizes; a model backend may report
its own counts in the cost log as well.
"""

from __future__ import annotations

import functools
import re

_TOKEN = re.compile(r"\w+|[^\w\s]")


@functools.lru_cache(maxsize=1 << 16)
def _line_tokens(line: str) -> int:
    return len(_TOKEN.findall(line))


def count_tokens(text: str) -> int:
    """The number of tokens in `text`, counted line by line: no token spans a line break (a
    newline is whitespace), and prompts repeat the lines of the same records many times."""
    return sum(map(_line_tokens, text.split("\n")))
