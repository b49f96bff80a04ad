"""The token counter: counting line by line gives exactly the count over the whole text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.tokens import count_tokens

WHOLE_TEXT = re.compile(r"\w+|[^\w\s]")
PIECES = st.sampled_from(["word", "Zoë", "42", "—", ".", ",", " ", "\n", "\t", "\r\n", "é", "x_y"])


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.lists(PIECES, max_size=40).map("".join)))
def test_the_count_equals_the_tokens_found_in_the_whole_text(text: str) -> None:
    assert count_tokens(text) == len(WHOLE_TEXT.findall(text))


def test_a_token_is_a_word_run_or_one_other_visible_character() -> None:
    assert count_tokens("As of 2026-03-01, the user's city is: Lisbon.\nNext line") == 19
