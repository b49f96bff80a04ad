"""The project's one token counter: deterministic and independent of any model.

A token is a run of word characters or a single other non-space character. It is used for the
writer's selection budget, the reader's evidence budget and world sizes; a model backend may report
its own counts in the cost log as well.
"""

from __future__ import annotations

import functools
import re

import numpy as np

_TOKEN = re.compile(r"\w+|[^\w\s]")

# Every process counts its world's records again (megabytes of text), so long ASCII texts are
# counted over their bytes by table: a token starts at each word byte after a non-word byte and at
# each other visible byte. The tables come from the same character classes as `_TOKEN`.
_ASCII = [chr(code) for code in range(128)]
_WORD_BYTE = np.array([re.fullmatch(r"\w", c) is not None for c in _ASCII])
_OTHER_BYTE = np.array([re.fullmatch(r"[^\w\s]", c) is not None for c in _ASCII])
# below this length the regular expression is the faster of the two
_TABLE_FROM = 256


@functools.lru_cache(maxsize=1 << 16)
def _line_tokens(line: str) -> int:
    if len(line) < _TABLE_FROM or not line.isascii():
        return len(_TOKEN.findall(line))
    codes = np.frombuffer(line.encode("ascii"), np.uint8)
    word = _WORD_BYTE[codes]
    word_runs = np.count_nonzero(word[1:] & ~word[:-1]) + int(word[0])
    return int(word_runs + np.count_nonzero(_OTHER_BYTE[codes]))


def count_tokens(text: str) -> int:
    """The number of tokens in `text`, counted line by line: no token spans a line break (a
    newline is whitespace), and prompts repeat the lines of the same records many times."""
    return sum(map(_line_tokens, text.split("\n")))
