"""The project's one token counter: deterministic and independent of any model.

A token is a run of word characters or a single other non-space character. It is used for the
writer's selection budget, the reader's evidence budget and world sizes; a model backend may report
its own counts in the cost log as well.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    return len(_TOKEN.findall(text))
