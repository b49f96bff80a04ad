from __future__ import annotations

import re

import numpy as np
import pytest
from gold_free_text import (
    CITY_NAMES,
    FIRST_PERSON,
    PERSON_NAMES,
    SENTENCE_END,
    assert_carries_no_gold,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.tokens import count_tokens
from memshift.world import news, pools

seeds = st.integers(0, 2**32 - 1)


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _sections(text: str) -> list[str]:
    return text.split(news.SECTION_SEPARATOR)


@settings(max_examples=20, deadline=None)
@given(seed=seeds)
def test_same_seed_gives_same_newsletter(seed: int) -> None:
    assert news.newsletter_body(_rng(seed), n_sections=2) == news.newsletter_body(
        _rng(seed), n_sections=2
    )


# --- newsletters ------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(seed=seeds, n_sections=st.integers(1, 6))
def test_newsletter_sections_have_the_promised_shape(seed: int, n_sections: int) -> None:
    text = news.newsletter_body(_rng(seed), n_sections=n_sections)
    sections = _sections(text)
    assert len(sections) == n_sections
    for section in sections:
        assert news.SECTION_MIN_TOKENS <= count_tokens(section) <= news.SECTION_MAX_TOKENS
        headline, *paragraphs = section.split(news.PARAGRAPH_SEPARATOR)
        assert "\n" not in headline and not SENTENCE_END.search(headline)
        assert 2 <= len(paragraphs) <= 4
        for paragraph in paragraphs:
            assert 4 <= len(SENTENCE_END.findall(paragraph)) <= 7
        assert any(re.search(rf"\b{org}\b", section) for org in pools.ORGANIZATIONS)
        assert any(re.search(rf"\b{city}\b", section) for city in CITY_NAMES)


@settings(max_examples=25, deadline=None)
@given(seed=seeds)
def test_newsletters_carry_no_gold_and_no_people(seed: int) -> None:
    text = news.newsletter_body(_rng(seed), n_sections=3)
    assert_carries_no_gold(text)
    assert not FIRST_PERSON.search(text), FIRST_PERSON.search(text)
    assert not set(re.findall(r"[A-Za-z]+", text)) & PERSON_NAMES
    assert re.search(r"\d%", text) and re.search(r"\d", text)


def test_a_long_newsletter_lands_near_its_token_budget() -> None:
    text = news.newsletter_body(_rng(11), n_sections=21)
    assert 21 * news.SECTION_MIN_TOKENS <= count_tokens(text) <= 21 * news.SECTION_MAX_TOKENS


def test_newsletter_needs_a_section() -> None:
    with pytest.raises(ValueError):
        news.newsletter_body(_rng(0), n_sections=0)
