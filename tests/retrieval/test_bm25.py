"""BM25: exact scores, ranking, deterministic ties, budgets and the per-version term cache."""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memshift.retrieval.bm25 import (
    BM25Index,
    TermCountCache,
    _term_bytes,
    oldest_first,
    select_within_budget,
    tokenize,
)
from memshift.world.records import Record

TINY = [
    ("d1", "The cat sat."),
    ("d2", "The dog sat down, the dog!"),
    ("d3", "A bird"),
]
# N = 3 documents of 3, 6 and 2 terms: avgdl = 11 / 3. With k1 = 1.5 and b = 0.75 a document
# of n terms has norm(n) = 1.5 * (0.25 + 0.75 * n / avgdl) = 0.375 + 3.375 * n / 11.


def norm(length: int) -> float:
    return 0.375 + 3.375 * length / 11


def idf(doc_freq: int) -> float:
    return math.log(1 + (3 - doc_freq + 0.5) / (doc_freq + 0.5))


def record(object_id: str, text: str, minute: int, revision: int = 1) -> Record:
    time = datetime(2025, 1, 1) + timedelta(minutes=minute)
    return Record(object_id, "email", "message", revision, "c", {}, text, time, time)


def test_tokenize_lowercases_words_and_drops_punctuation() -> None:
    assert tokenize("The dog's BALL, 2 times!") == ["the", "dog", "s", "ball", "2", "times"]
    assert tokenize("  ...  ") == []
    assert tokenize("Chloé's café_2 ÜBER naïve") == ["chloé", "s", "café_2", "über", "naïve"]


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_tokenize_is_unicode_word_runs_of_the_lowercased_text(text: str) -> None:
    # the ASCII fast path must agree with the Unicode pattern on every text
    assert tokenize(text) == re.findall(r"\w+", text.lower())


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.text(alphabet=st.characters(max_codepoint=127))))
def test_the_caches_terms_are_tokenizes_terms_as_bytes_in_the_same_order(text: str) -> None:
    # the cache splits ASCII texts by byte class; its terms must be tokenize's, sorted alike
    terms = _term_bytes(text)
    assert [term.decode() for term in terms] == tokenize(text)
    assert sorted(terms) == [term.encode() for term in sorted(tokenize(text))]


def test_scores_match_hand_computation() -> None:
    index = BM25Index(TINY)
    cat = idf(1) * 1 / (1 + norm(3))
    the = [idf(2) * 1 / (1 + norm(3)), idf(2) * 2 / (2 + norm(6)), 0.0]
    dog = idf(1) * 2 / (2 + norm(6))
    assert index.scores("cat") == pytest.approx([cat, 0.0, 0.0], rel=1e-12)
    assert index.scores("the") == pytest.approx(the, rel=1e-12)
    assert index.scores("dog the dog") == pytest.approx([the[0], the[1] + 2 * dog, 0.0], rel=1e-12)
    assert index.scores("unknown words only") == pytest.approx([0.0, 0.0, 0.0])
    assert index.scores("cat")[0] == pytest.approx(0.42729, abs=1e-5)


def test_a_term_found_in_one_document_ranks_it_first() -> None:
    docs = [(f"n{i}", f"weekly newsletter issue {i} about markets") for i in range(30)]
    docs.insert(7, ("hit", "lunch with Priya about the quarterly budget"))
    assert BM25Index(docs).rank("Who is Priya?")[0] == "hit"


def test_ties_rank_the_later_document_first() -> None:
    docs = [("a", "same words"), ("b", "same words"), ("c", "other"), ("d", "same words")]
    index = BM25Index(docs)
    assert index.rank("same") == ["d", "b", "a", "c"]
    assert index.rank("nothing matches") == ["d", "c", "b", "a"]


def test_from_records_breaks_ties_newest_first_then_by_object_id() -> None:
    records = [
        record("r2", "same text", minute=5),
        record("r1", "same text", minute=5),
        record("r3", "same text", minute=9),
        record("r0", "same text", minute=1),
    ]
    expected = ["r3", "r1", "r2", "r0"]
    assert BM25Index.from_records(records).rank("text") == expected
    assert BM25Index.from_records(records[::-1]).rank("text") == expected
    assert [r.object_id for r in oldest_first(records)] == expected[::-1]


def test_ranking_is_deterministic_across_builds_and_cache_histories() -> None:
    docs = [(f"d{i}", " ".join(f"w{(i * j) % 17}" for j in range(i % 9 + 1))) for i in range(60)]
    warm = TermCountCache()
    BM25Index(docs[::-1], cache=warm)
    first, second = BM25Index(docs), BM25Index(docs, cache=warm)
    for query in ("w1 w2", "w3 w3 w16", "w0"):
        assert first.rank(query) == second.rank(query)
        assert np.array_equal(first.scores(query), second.scores(query))


def test_duplicate_ids_are_rejected() -> None:
    with pytest.raises(ValueError, match="unique"):
        BM25Index([("a", "x"), ("a", "y")])


def test_empty_index_ranks_nothing() -> None:
    index = BM25Index([])
    assert index.rank("anything") == []
    assert len(index.scores("anything")) == 0


def test_index_reports_sizes_in_project_tokens() -> None:
    assert BM25Index(TINY).tokens == {"d1": 4, "d2": 8, "d3": 2}


def test_budget_selection_skips_what_does_not_fit_and_keeps_rank_order() -> None:
    tokens = {"long": 14_000, "a": 3_000, "b": 2_500, "c": 1_000, "d": 500}
    ranked = ["long", "a", "b", "c", "d"]
    assert select_within_budget(ranked, tokens, 6_000) == ["a", "b", "d"]
    assert select_within_budget(ranked, tokens, 0) == []
    assert select_within_budget(ranked, tokens, 100_000) == ranked
    with pytest.raises(ValueError):
        select_within_budget(ranked, tokens, -1)


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 3_000), min_size=1, max_size=40),
    budget=st.integers(0, 12_000),
)
def test_stopping_once_nothing_fits_selects_the_same(sizes: list[int], budget: int) -> None:
    tokens = {f"d{n}": size for n, size in enumerate(sizes)}
    ranked = list(tokens)
    full = select_within_budget(ranked, tokens, budget)
    assert select_within_budget(ranked, tokens, budget, min(sizes)) == full


def test_budget_selection_takes_exact_fits() -> None:
    assert select_within_budget(["a", "b"], {"a": 4_000, "b": 96}, 4_096) == ["a", "b"]


class CountingTokenizer:
    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, text: str) -> list[str]:
        self.texts.append(text)
        return tokenize(text)


def test_cache_tokenizes_each_record_version_once() -> None:
    tokenizer = CountingTokenizer()
    cache = TermCountCache(tokenizer)
    records = [record(f"r{i}", f"note {i} about the garden", minute=i) for i in range(5)]
    BM25Index.from_records(records, cache=cache)
    assert len(tokenizer.texts) == 5

    grown = [*records, record("r5", "a new note", minute=9)]
    grown[2] = record("r2", "the garden note, edited", minute=10, revision=2)
    tokenizer.texts.clear()
    index = BM25Index.from_records(grown, cache=cache)
    assert sorted(tokenizer.texts) == ["a new note", "the garden note, edited"]

    tokenizer.texts.clear()
    index.rank("garden")
    assert tokenizer.texts == ["garden"]
    assert index.rank("edited")[0] == "r2"


def test_cached_index_equals_a_fresh_one() -> None:
    cache = TermCountCache()
    records = [record(f"r{i}", f"item {i} costs {i % 3} euros", minute=i) for i in range(12)]
    BM25Index.from_records(records[:6], cache=cache)
    cached = BM25Index.from_records(records, cache=cache)
    fresh = BM25Index.from_records(records)
    assert cached.ids == fresh.ids
    assert np.array_equal(cached.scores("costs 2 euros"), fresh.scores("costs 2 euros"))


def test_retain_forgets_other_versions() -> None:
    cache = TermCountCache()
    cache.terms(("a", 1), "x")
    cache.terms(("a", 2), "x y")
    cache.retain([("a", 2)])
    assert ("a", 2) in cache and ("a", 1) not in cache
