"""The gate: deterministic authorization of proposed transitions, no model involved.

A candidate transition is authorized only if
- it parses: both values present, and different;
- its application is material: the proposer says the change alters the answer;
- its causal path names at least two nodes;
- each quote is grounded in one single entry (a rendered record the auditor was shown): at
  least 80% of the quote's content tokens occur in that entry; a quote covered only by two
  entries together is a cross-record quote, and is refused;
- the entry of the new quote is newer than the entry of the old one. The times come from the
  matched entries, never from the model.

What this verifies is provenance and chronology, not meaning: two grounded, correctly ordered
quotes with different values pass even when the newer one does not supersede the older.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from memshift.models.requests import AuditRequest
from memshift.world.parse import entry_id, record_evidence

MATCH_SHARE = 0.8
PASSES = ("draft", "state")
MIN_PATH = 2
_WORD = re.compile(r"[a-z0-9]+")
# Words that carry no content: a quote made of them matches anything.
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "has",
        "have",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "will",
        "with",
        "you",
        "your",
    ]
)


@dataclass(frozen=True)
class Entry:
    """One rendered record as the auditor saw it, with the time code trusts."""

    entry_id: str
    text: str
    time: datetime


@dataclass(frozen=True)
class Candidate:
    dimension: str
    old_value: Any
    new_value: Any
    old_quote: str
    new_quote: str
    causal_path: tuple[str, ...]
    found_by: str = "draft"  # the pass that proposed it: "draft" or "state"
    material: bool = True

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Candidate:
        """A candidate from a reply; raises ValueError when a field is missing or mistyped."""
        try:
            path = data["causal_path"]
            if not isinstance(path, list | tuple) or not all(isinstance(p, str) for p in path):
                raise ValueError("causal_path must be a list of strings")
            quotes = (data["old_quote"], data["new_quote"])
            if not all(isinstance(q, str) for q in quotes):
                raise ValueError("quotes must be strings")
            if data["pass"] not in PASSES:
                raise ValueError(f"pass must be one of {', '.join(PASSES)}")
            if not isinstance(data["material"], bool):
                raise ValueError("material must be true or false")
            return cls(
                str(data["dimension"]),
                data["old_value"],
                data["new_value"],
                quotes[0],
                quotes[1],
                tuple(path),
                data["pass"],
                data["material"],
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"malformed transition: {exc}") from exc


# What the log records for a reply (or a transition) that did not parse into a candidate.
NO_CANDIDATE = Candidate("", None, None, "", "", (), "", False)


@dataclass(frozen=True)
class Decision:
    accepted: bool
    reason: str
    old_entry: str = ""
    new_entry: str = ""
    old_time: datetime | None = None
    new_time: datetime | None = None


def content_tokens(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


@functools.lru_cache(maxsize=1 << 14)
def _token_counts(text: str) -> tuple[tuple[str, int], ...]:
    """Each content token of a record's text with its count; cached because the same records
    are audited for many items."""
    return tuple(Counter(content_tokens(text)).items())


@dataclass(frozen=True)
class Grounding:
    entry: Entry | None
    reason: str  # "" when grounded


class Index:
    """The entries of one audit, tokenized once, with an inverted index from content token to
    the entries holding it and how often, so that grounding a quote costs one pass over the
    postings of its own words. Built at the first quote grounded: most audits propose no
    transition and ground nothing."""

    def __init__(self, entries: Iterable[Entry]) -> None:
        self._pending = entries

    @functools.cached_property
    def entries(self) -> tuple[Entry, ...]:
        return tuple(self._pending)

    @functools.cached_property
    def _postings(self) -> dict[str, tuple[list[int], list[int]]]:
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for position, entry in enumerate(self.entries):
            for token, n in _token_counts(entry.text):
                where, counts = postings.setdefault(token, ([], []))
                where.append(position)
                counts.append(n)
        return postings

    def ground(self, quote: str) -> Grounding:
        tokens = content_tokens(quote)
        if not tokens:
            return Grounding(None, "quote has no content words")
        found = np.zeros(len(self.entries), np.int64)
        covered = 0
        for token, n in Counter(tokens).items():
            posting = self._postings.get(token)
            if posting is not None:
                where, counts = posting
                found[where] += np.minimum(counts, n)  # an entry holds a token at most once
                covered += n
        # a share of at least MATCH_SHARE in one entry; ties keep the earliest entry
        best = int(np.argmax(found)) if len(found) else 0
        if len(found) and found[best] >= MATCH_SHARE * len(tokens):
            return Grounding(self.entries[best], "")
        if covered >= MATCH_SHARE * len(tokens):
            return Grounding(None, "quote spans several records")
        return Grounding(None, "quote not found in any record")


def _has_value(value: Any) -> bool:
    return value is not None and value != "" and value != []


def authorize(candidate: Candidate, index: Index) -> Decision:
    if not (_has_value(candidate.old_value) and _has_value(candidate.new_value)):
        return Decision(False, "a state value is missing")
    if candidate.old_value == candidate.new_value:
        return Decision(False, "old and new values are equal")
    if not candidate.material:
        return Decision(False, "the transition is not material to the answer")
    if len(candidate.causal_path) < MIN_PATH:
        return Decision(False, f"causal path has fewer than {MIN_PATH} nodes")
    old = index.ground(candidate.old_quote)
    if old.entry is None:
        return Decision(False, f"old {old.reason}")
    new = index.ground(candidate.new_quote)
    if new.entry is None:
        return Decision(False, f"new {new.reason}", old.entry.entry_id, "", old.entry.time)
    decision = Decision(
        True,
        "verified",
        old.entry.entry_id,
        new.entry.entry_id,
        old.entry.time,
        new.entry.time,
    )
    if not new.entry.time > old.entry.time:
        return Decision(False, "new record is not newer than the old one", *_where(decision))
    return decision


def _where(decision: Decision) -> tuple[str, str, datetime | None, datetime | None]:
    return decision.old_entry, decision.new_entry, decision.old_time, decision.new_time


def audit_index(request: AuditRequest) -> Index:
    """The records of an audit request, each rendered as the writer reads it and named by object
    id and revision."""
    return Index(
        Entry(entry_id(r), record_evidence(r), r.updated)
        for r in (*request.cited, *request.records)
    )


def review(reply: Mapping[str, Any], index: Index) -> list[tuple[Candidate | None, Decision]]:
    """Every proposed transition of one auditor reply with its decision; a transition that does
    not parse is logged as refused (a reply that failed is the arbiter's: `arbiter.judge`)."""
    decisions: list[tuple[Candidate | None, Decision]] = []
    for raw in reply.get("transitions", []):
        try:
            candidate = Candidate.parse(raw)
        except ValueError as exc:
            decisions.append((None, Decision(False, f"parse failure: {exc}")))
            continue
        decisions.append((candidate, authorize(candidate, index)))
    return decisions
