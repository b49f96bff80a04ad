"""Okapi BM25 over record texts, in numpy.

Scoring is Lucene's BM25: for each query term t (counted as often as it occurs in the query),

    idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
    score(d) += idf(t) * tf(t, d) / (tf(t, d) + k1 * (1 - b + b * len(d) / avgdl))

where N is the number of documents in the index, df(t) the number that contain t, tf(t, d) how
often d contains t, len(d) its number of terms and avgdl the mean of len(d). Terms are the
lowercased word runs of `tokenize`.

A document is tokenized once per version: a `TermCountCache` keeps its term counts (and its size
in the project's tokens, the budget unit) under a key that callers make stable, such as
(object_id, revision), so rebuilding an index over a record set that grew re-tokenizes only the new
records. Ranking is deterministic: equal scores are ordered by later position first, and
`BM25Index.from_records` places records oldest first, so ties go newest first, then by object_id.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from memshift.tokens import count_tokens

if TYPE_CHECKING:
    from memshift.world.records import Record

_WORD = re.compile(r"\w+")
# on ASCII text the ASCII class is the same set of characters, and it matches faster
_ASCII_WORD = re.compile(r"\w+", re.ASCII)

Tokenizer = Callable[[str], list[str]]
# a term as a cache keeps it: the default tokenizer's as bytes (`_term_bytes`), another's as is
Term = str | bytes


def tokenize(text: str) -> list[str]:
    """Lowercased runs of word characters, in text order; punctuation is dropped."""
    lowered = text.lower()
    return (_ASCII_WORD if lowered.isascii() else _WORD).findall(lowered)


# `tokenize`'s terms as UTF-8 bytes, which sort as the strings do: an ASCII text (most records,
# megabytes of them per process) is lowercased and split by byte class, three times faster than
# the regular expression, into the same terms
_ASCII_TERM_BYTES = bytes(
    (code + 32 if chr(code).isupper() else code)
    if re.fullmatch(r"\w", chr(code), re.ASCII)
    else ord(" ")
    for code in range(256)
)


def _term_bytes(text: str) -> list[bytes]:
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_TERM_BYTES).split()
    return [term.encode() for term in tokenize(text)]


@dataclass(frozen=True, slots=True)
class DocTerms:
    """One document version: its distinct term ids (ascending), their counts, its number of terms
    and its size in the project's tokens."""

    term_ids: np.ndarray
    counts: np.ndarray
    length: int
    tokens: int


class TermCountCache:
    """Term counts per document version, shared by every index built from it.

    Term ids come from one vocabulary that only grows, so ids stay valid for indexes built
    earlier. Scores never depend on the ids, only on the counts, so the history of a cache does
    not change any result.
    """

    def __init__(self, tokenizer: Tokenizer = tokenize) -> None:
        self._tokenizer: Callable[[str], Sequence[Term]] = (
            _term_bytes if tokenizer is tokenize else tokenizer
        )
        self._vocabulary: dict[Term, int] = {}
        self._docs: dict[Hashable, DocTerms] = {}

    def __len__(self) -> int:
        return len(self._docs)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._docs

    @property
    def vocabulary_size(self) -> int:
        return len(self._vocabulary)

    def terms(self, key: Hashable, text: str) -> DocTerms:
        """The counts of `text`, computed on the first call with `key` and reused after it."""
        found = self._docs.get(key)
        if found is None:
            found = self._docs[key] = self._count(text)
        return found

    def query_terms(self, query: str) -> list[tuple[int, int]]:
        """(term id, count in the query) for the query's known terms, in term order."""
        counts = Counter(self._tokenizer(query))
        known = [(term, n) for term, n in counts.items() if term in self._vocabulary]
        return [(self._vocabulary[term], n) for term, n in sorted(known)]

    def retain(self, keys: Iterable[Hashable]) -> None:
        """Forget every document version whose key is not in `keys` (the vocabulary stays)."""
        wanted = set(keys)
        self._docs = {key: doc for key, doc in self._docs.items() if key in wanted}

    def _count(self, text: str) -> DocTerms:
        terms = self._tokenizer(text)
        counts = Counter(terms)
        ids = np.fromiter((self._term_id(term) for term in counts), np.int64, len(counts))
        values = np.fromiter(counts.values(), np.float64, len(counts))
        order = np.argsort(ids)
        return DocTerms(ids[order], values[order], len(terms), count_tokens(text))

    def _term_id(self, term: Term) -> int:
        return self._vocabulary.setdefault(term, len(self._vocabulary))


@dataclass(frozen=True, slots=True)
class _Postings:
    """Per-term lists of (document position, precomputed BM25 weight), in CSR form over term
    ids: the postings of term t are [starts[t], starts[t + 1])."""

    starts: np.ndarray
    docs: np.ndarray
    weights: np.ndarray

    def of(self, term_id: int) -> tuple[np.ndarray, np.ndarray]:
        if term_id + 1 >= len(self.starts):
            return self.docs[:0], self.weights[:0]
        start, end = self.starts[term_id], self.starts[term_id + 1]
        return self.docs[start:end], self.weights[start:end]


class BM25Index:
    """A BM25 index over (doc_id, text) pairs; build a new one when the document set changes
    (with a shared `TermCountCache`, unchanged documents are not tokenized again)."""

    def __init__(
        self,
        docs: Sequence[tuple[str, str]],
        k1: float = 1.5,
        b: float = 0.75,
        *,
        cache: TermCountCache | None = None,
    ) -> None:
        cache = cache if cache is not None else TermCountCache()
        self._init(
            [doc_id for doc_id, _ in docs],
            [cache.terms((doc_id, text), text) for doc_id, text in docs],
            k1,
            b,
            cache,
        )

    @classmethod
    def from_records(
        cls,
        records: Iterable[Record],
        k1: float = 1.5,
        b: float = 0.75,
        *,
        cache: TermCountCache | None = None,
    ) -> BM25Index:
        """An index over records' texts under their object ids, cached by object id, revision and
        text (ids repeat across worlds; a string's hash is computed once, so the text is cheap),
        placed oldest first so that ties rank newest first, then by object_id."""
        cache = cache if cache is not None else TermCountCache()
        ordered = oldest_first(records)
        index = cls.__new__(cls)
        index._init(
            [record.object_id for record in ordered],
            [
                cache.terms((record.object_id, record.revision, record.text), record.text)
                for record in ordered
            ],
            k1,
            b,
            cache,
        )
        return index

    def _init(
        self,
        ids: list[str],
        terms: list[DocTerms],
        k1: float,
        b: float,
        cache: TermCountCache,
    ) -> None:
        if len(set(ids)) != len(ids):
            raise ValueError("BM25Index: document ids must be unique")
        self.ids: tuple[str, ...] = tuple(ids)
        self.tokens: dict[str, int] = {
            doc_id: doc.tokens for doc_id, doc in zip(ids, terms, strict=True)
        }
        self._cache = cache
        self._postings = _build_postings(terms, cache.vocabulary_size, k1, b)
        self._tie_order = -np.arange(len(ids))

    def __len__(self) -> int:
        return len(self.ids)

    def scores(self, query: str) -> np.ndarray:
        """BM25 scores (float64) aligned with `ids`."""
        result = np.zeros(len(self.ids))
        for term_id, query_count in self._cache.query_terms(query):
            docs, weights = self._postings.of(term_id)
            result[docs] += query_count * weights
        return result

    def rank(self, query: str) -> list[str]:
        """Every doc id, best score first; equal scores by later position first."""
        order = np.lexsort((self._tie_order, -self.scores(query)))
        return [self.ids[i] for i in order]


def _build_postings(terms: list[DocTerms], vocabulary_size: int, k1: float, b: float) -> _Postings:
    if not terms:
        return _Postings(np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0))
    lengths = np.array([doc.length for doc in terms], np.float64)
    term_ids = np.concatenate([doc.term_ids for doc in terms])
    counts = np.concatenate([doc.counts for doc in terms])
    docs = np.repeat(np.arange(len(terms)), [len(doc.term_ids) for doc in terms])
    doc_freq = np.bincount(term_ids, minlength=vocabulary_size)
    idf = np.log1p((len(terms) - doc_freq + 0.5) / (doc_freq + 0.5))
    average = lengths.mean() if lengths.sum() > 0 else 1.0
    norm = k1 * (1.0 - b + b * lengths / average)
    weights = idf[term_ids] * counts / (counts + norm[docs])
    by_term = np.argsort(term_ids, kind="stable")
    starts = np.concatenate([[0], np.cumsum(doc_freq)])
    return _Postings(starts, docs[by_term], weights[by_term])


def oldest_first(records: Iterable[Record]) -> list[Record]:
    """Records by `updated` ascending and, among equally new ones, object_id descending: the
    reverse of the tie order newest first, then object_id."""
    by_id_descending = sorted(records, key=lambda record: record.object_id, reverse=True)
    return sorted(by_id_descending, key=lambda record: record.updated)


def select_within_budget(
    ranked_ids: Sequence[str], tokens: Mapping[str, int], budget: int, smallest: int = 0
) -> list[str]:
    """Ids taken in rank order while they fit: a document larger than what is left is skipped and
    the next ones are still tried, so one long document (a newsletter over the whole budget)
    does not end the selection. Returned in rank order; callers present them in time order.

    `smallest`, a size no document is below, ends the pass once nothing more can fit."""
    if budget < 0:
        raise ValueError(f"a token budget must be non-negative, got {budget}")
    selected: list[str] = []
    left = budget
    for doc_id in ranked_ids:
        if left < smallest:
            break
        size = tokens[doc_id]
        if size <= left:
            selected.append(doc_id)
            left -= size
    return selected
