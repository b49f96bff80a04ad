from __future__ import annotations

import re
from collections import Counter

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
from memshift.world import news, pools, realism

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


# --- variety ------------------------------------------------------------------------------------


def _newsletters(n: int, seed: int = 5) -> list[str]:
    rng = _rng(seed)
    return [news.newsletter_body(rng, n_sections=20) for _ in range(n)]


def _sentences(texts: list[str]) -> list[str]:
    return [s for text in texts for s in realism.sentences(text)]


def test_no_sentence_shape_dominates_the_newsletters() -> None:
    """About 2,500 sentences: no skeleton writes more than 1% of them, nor the 20 commonest more
    than 10%, nor one clause more than 5% (a pool of fixed templates fails all three)."""
    skeletons = Counter(realism.skeleton(s) for s in _sentences(_newsletters(5)))
    total = sum(skeletons.values())
    ranked = skeletons.most_common(20)
    assert ranked[0][1] / total <= 0.01, ranked[0]
    assert sum(n for _, n in ranked) / total <= 0.10
    clause_counts: Counter[str] = Counter()
    for skeleton, n in skeletons.items():
        for clause in set(realism.clauses(skeleton)):
            clause_counts[clause] += n
    clause, n = clause_counts.most_common(1)[0]
    assert n / total <= 0.05, clause


def test_a_section_keeps_its_headline_organization_and_city() -> None:
    for text in _newsletters(2):
        for section in _sections(text):
            headline, body = section.split(news.PARAGRAPH_SEPARATOR, 1)
            for name in (*pools.ORGANIZATIONS, *CITY_NAMES):
                if re.search(rf"\b{name}\b", headline):
                    assert re.search(rf"\b{name}\b", body), (name, section)


def test_sentences_in_a_section_rarely_repeat() -> None:
    for text in _newsletters(2):
        for section in _sections(text):
            sentences = realism.sentences(section)
            assert len(set(sentences)) == len(sentences)


def test_many_sections_carry_no_gold_and_fit_their_budget() -> None:
    """Every template and word shows up across a few hundred sections."""
    rng = _rng(17)
    for _ in range(12):
        text = news.newsletter_body(rng, n_sections=25)
        assert_carries_no_gold(text)
        assert not FIRST_PERSON.search(text), FIRST_PERSON.search(text)
        assert not set(re.findall(r"[A-Za-z]+", text)) & PERSON_NAMES
        for section in _sections(text):
            assert news.SECTION_MIN_TOKENS <= count_tokens(section) <= news.SECTION_MAX_TOKENS


def test_precomputed_token_counts_match_the_counter() -> None:
    """A section is sized from the token counts of its parts: they must add up to the text's."""
    draw = news._uniforms(_rng(3), 4096)
    for topic in news.topics():
        bound = news._bind(draw, topic)
        for template in (*topic.sentences, topic.headlines, topic.leads, topic.tails):
            text, tokens = news._render(template, draw, bound)
            assert tokens == count_tokens(text), text
