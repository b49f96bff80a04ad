"""The token counter: its byte-table count of long ASCII texts gives exactly the count of the
regular expression that defines a token, on any text."""

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


ASCII_PIECES = st.sampled_from(
    ["word", "42", "x_y", ".", "-", " ", "\n", "\t", "\r\n", "\x1c", "\x0b"]
)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(alphabet=st.characters(max_codepoint=127), min_size=200, max_size=2000),
        st.lists(ASCII_PIECES, min_size=120, max_size=600).map("".join),
    )
)
def test_long_ascii_texts_count_the_same_as_the_regular_expression(text: str) -> None:
    assert count_tokens(text) == len(WHOLE_TEXT.findall(text))


def test_a_long_text_that_starts_or_ends_inside_a_word_counts_its_edge_words() -> None:
    text = "start" + " ." * 200 + " end"
    assert count_tokens(text) == len(WHOLE_TEXT.findall(text)) == 202


def test_a_token_is_a_word_run_or_one_other_visible_character() -> None:
    assert count_tokens("As of 2026-03-01, the user's city is: Lisbon.\nNext line") == 19
