"""The project's one token counter: deterministic and independent of any model.

A token is a run of word characters or a single other non-space character. It is used for the
writer's selection budget, the reader's evidence budget and world sizes; a model backend may report
its own counts in the cost log as well.
"""

from __future__ import annotations

import functools
import re

import numpy as np

# the token: a run of word characters or one other visible character
TOKEN = re.compile(r"\w+|[^\w\s]")

# Every process counts its world's records again (megabytes of text, each new to the process),
# so a long ASCII text is counted over its bytes: a token starts at each word byte after a byte
# that is not one, and at each other visible byte. The byte classes come from `TOKEN`'s.
_WORD_FLAG = bytes(re.fullmatch(r"\w", chr(code)) is not None for code in range(256))
_NOT_OTHER = bytes(code for code in range(256) if not re.fullmatch(r"[^\w\s]", chr(code)))
# below this length the regular expression over the (cached) lines is the faster of the two
_BYTES_FROM = 256


def _ascii_tokens(text: str) -> int:
    data = text.encode("ascii")
    word = np.frombuffer(data.translate(_WORD_FLAG), np.uint8)
    word_runs = np.count_nonzero(word[1:] > word[:-1]) + int(word[0])
    return int(word_runs) + len(data.translate(None, _NOT_OTHER))


@functools.lru_cache(maxsize=1 << 16)
def _line_tokens(line: str) -> int:
    return len(TOKEN.findall(line))


def count_tokens(text: str) -> int:
    """The number of tokens in `text`: a long ASCII text counted over its bytes, any other line
    by line (no token spans a line break, a newline being whitespace, and prompts repeat the
    lines of the same records many times)."""
    if len(text) >= _BYTES_FROM and text.isascii():
        return _ascii_tokens(text)
    return sum(map(_line_tokens, text.split("\n")))
